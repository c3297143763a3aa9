package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/oauth"
)

// adminCmd is the shared part of admin commands: database and service flags, and --json
// output.
type adminCmd struct {
	env
	c  config
	fs *flag.FlagSet
}

func (e env) newAdmin(path string) *adminCmd {
	a := &adminCmd{env: e, fs: e.newFlags(path)}
	e.dbFlags(a.fs, &a.c)
	e.serviceFlags(a.fs, &a.c)
	return a
}

func (a *adminCmd) open(ctx context.Context, args []string) (*db.DB, *herdbook.Service, error) {
	if err := a.parse(a.fs, args); err != nil {
		return nil, nil, err
	}
	return a.env.open(ctx, &a.c, true)
}

// print writes v as JSON with --json, else the human line.
func (a *adminCmd) print(v any, human string, args ...any) error {
	if a.c.JSON {
		return printJSON(a.stdout, v)
	}
	_, err := fmt.Fprintf(a.stdout, human+"\n", args...)
	return err
}

// printJSON writes v as indented JSON: what every command prints with --json.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// userRef finds a user by id or phone number.
func userRef(ctx context.Context, svc *herdbook.Service, ref string) (uuid.UUID, error) {
	if id, err := uuid.Parse(ref); err == nil {
		u, err := svc.UserByID(ctx, id)
		if err != nil {
			return uuid.Nil, err
		}
		return u.ID, nil
	}
	u, err := svc.UserByPhone(ctx, ref)
	if err != nil {
		return uuid.Nil, err
	}
	return u.ID, nil
}

func (e env) adminUserCreate(ctx context.Context, args []string) error {
	a := e.newAdmin("admin user create")
	phone := a.fs.String("phone", "", "phone number (required; the sign-in name)")
	name := a.fs.String("name", "", "full name")
	email := a.fs.String("email", "", "email address for EMAIL notifications")
	password := a.fs.String("password", "", "password (at least 10 characters); prefer --password-stdin")
	passwordStdin := a.fs.Bool("password-stdin", false, "read the password from the first line of standard input")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	if *passwordStdin {
		line, err := bufio.NewReader(a.stdin).ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("read password from standard input: %w", err)
		}
		*password = strings.TrimRight(line, "\r\n")
	}
	if *email != "" {
		if err := herdbook.ValidateEmail("email", *email); err != nil {
			return err
		}
	}
	in := herdbook.UserInput{PhoneNumberLocal: *phone, Password: *password}
	if *name != "" {
		in.FullName = name
	}
	u, err := svc.CreateUser(ctx, in)
	if err != nil {
		return err
	}
	if *email != "" {
		if err := svc.SetUserEmail(ctx, u.ID, *email); err != nil {
			return err
		}
	}
	return a.print(map[string]any{"id": u.ID, "phone_number_local": u.PhoneNumberLocal, "full_name": u.FullName},
		"created user %s (%s)", u.ID, u.PhoneNumberLocal)
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (e env) adminClientCreate(ctx context.Context, args []string) error {
	a := e.newAdmin("admin client create")
	id := a.fs.String("client-id", "", "client identifier (required)")
	name := a.fs.String("name", "", "display name shown on consent pages (default: the client id)")
	scopes := a.fs.String("scopes", strings.Join(herdbook.AllScopes, " "), "allowed scopes, space- or comma-separated")
	public := a.fs.Bool("public", false, "a public client (no secret; PKCE required)")
	observer := a.fs.Bool("observer", false, "an observer client: read scopes only, never a refresh token")
	var redirects listFlag
	a.fs.Var(&redirects, "redirect-uri", "allowed redirect URI (repeatable)")
	d, _, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	if *name == "" {
		*name = *id
	}
	cl, secret, err := oauth.NewIssuer(d.Client, nil).CreateClient(ctx, oauth.ClientInput{
		ClientID: *id, Name: *name, RedirectURIs: redirects, Scopes: splitScopes(*scopes), Public: *public, Observer: *observer,
	})
	if err != nil {
		return err
	}
	out := map[string]any{"client_id": cl.ClientID, "name": cl.Name, "redirect_uris": cl.RedirectUris, "scopes": cl.Scopes,
		"public": cl.Public, "observer": cl.Observer}
	human := "registered client " + cl.ClientID
	if secret != "" {
		out["client_secret"] = secret
		human += "\nclient secret (shown once): " + secret
	}
	return a.print(out, "%s", human)
}

func splitScopes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
}

func (e env) adminMemberAdd(ctx context.Context, args []string) error {
	a := e.newAdmin("admin member add")
	farm := a.fs.String("farm", "", "farm id (required)")
	user := a.fs.String("user", "", "user id or phone number (required)")
	role := new(string)
	e.choiceVar(a.fs, role, "role", "", "READER", []string{"OWNER", "EDITOR", "READER"}, "the member's role")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	farmID, err := uuid.Parse(*farm)
	if err != nil {
		return fmt.Errorf("--farm must be a farm id (UUID)")
	}
	userID, err := userRef(ctx, svc, *user)
	if err != nil {
		return err
	}
	m, err := svc.AdminPutMember(ctx, farmID, userID, herdbook.Role(*role))
	if err != nil {
		return err
	}
	return a.print(map[string]any{"id": m.ID, "farm_id": m.FarmID, "user_id": m.UserID, "role": m.Role},
		"user %s is now %s of farm %s", m.UserID, m.Role, m.FarmID)
}

func (e env) adminTokenIssue(ctx context.Context, args []string) error {
	a := e.newAdmin("admin token issue")
	user := a.fs.String("user", "", "user id or phone number (required)")
	client := a.fs.String("client", "", "client id the token is issued through (required)")
	scopes := a.fs.String("scopes", "", "scopes, space- or comma-separated (default: all the client's scopes)")
	ttl := a.fs.Duration("ttl", 24*time.Hour, "lifetime of the token")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	userID, err := userRef(ctx, svc, *user)
	if err != nil {
		return err
	}
	iss := oauth.NewIssuer(d.Client, nil)
	sc := splitScopes(*scopes)
	if len(sc) == 0 {
		cl, err := iss.Client(ctx, *client)
		if err != nil {
			return fmt.Errorf("client %q: %w", *client, err)
		}
		sc = cl.Scopes
	}
	raw, tok, err := iss.IssueAccessToken(ctx, *client, userID, sc, *ttl)
	if err != nil {
		return err
	}
	return a.print(map[string]any{"access_token": raw, "token_type": "Bearer", "scope": strings.Join(tok.Scopes, " "),
		"expires_at": tok.ExpiresAt.UTC().Format(time.RFC3339)}, "%s", raw)
}
