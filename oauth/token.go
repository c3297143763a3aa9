// Package oauth is Herdbook's OAuth 2.0 authorization server: registered clients; the
// authorization code (with PKCE), device authorization and refresh grants; revocation; the
// sign-in, consent and device verification pages; the metadata document; and the middleware
// that turns a bearer token or a legacy API key into a herdbook.Viewer.
//
// It is built on github.com/go-oauth2/oauth2/v4 for request parsing, grant dispatch and the
// shape of token responses, with every unsafe default of that library replaced: see
// docs/oauth.md for what is ours and why. Every code and token is stored only as its SHA-256
// hash (Hash); single-use credentials are redeemed by a conditional UPDATE, so that two
// concurrent redemptions cannot both succeed.
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/accesstoken"
	"github.com/herdbook/herdbook/ent/oauthclient"
	"github.com/herdbook/herdbook/ent/user"
)

// Lifetimes of what the issuer hands out.
const (
	// DefaultAccessTokenTTL is how long an access token lives unless the issuer says otherwise.
	DefaultAccessTokenTTL = time.Hour
	// RefreshTokenTTL is how long a refresh token lives; each rotation starts a new one.
	RefreshTokenTTL = 30 * 24 * time.Hour
	// CodeTTL is how long an authorization code may wait for redemption (RFC 6749 says at
	// most ten minutes).
	CodeTTL = 10 * time.Minute
	// DeviceCodeTTL is the lifetime of a device authorization (SPEC.md: 900 seconds).
	DeviceCodeTTL = 900 * time.Second
	// DeviceInterval is the polling interval a device is told to keep, in seconds.
	DeviceInterval = 5
	// SessionTTL is how long a sign-in to the OAuth pages lasts.
	SessionTTL = 8 * time.Hour
)

// NewSecret returns a credential of 256 random bits, base64url without padding, behind a
// prefix that tells people (and secret scanners) what it is.
func NewSecret(prefix string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("oauth: no randomness: %v", err))
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// Hash is how credentials are stored: SHA-256, hex. The credentials have 256 random bits,
// so a fast hash is enough; a slow one would only slow every request.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Issuer registers clients and issues, redeems, revokes and resolves credentials. It is the
// service layer of the OAuth side; the HTTP handlers only translate.
type Issuer struct {
	client *ent.Client
	clock  atomic.Pointer[func() time.Time]
}

// NewIssuer returns an Issuer over client; now may be nil for time.Now.
func NewIssuer(client *ent.Client, now func() time.Time) *Issuer {
	i := &Issuer{client: client}
	i.SetClock(now)
	return i
}

// SetClock replaces the issuer's clock (nil: time.Now). Tests move it forward to expire codes
// and tokens without waiting; it is safe to call while the issuer serves requests.
func (i *Issuer) SetClock(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	i.clock.Store(&now)
}

// now is the issuer's current time in UTC, the zone every stored time is in.
func (i *Issuer) now() time.Time { return (*i.clock.Load())().UTC() }

// inTx runs fn in a transaction, committed when fn returns nil and rolled back otherwise.
// Callers make a write their first statement: on SQLite a transaction that starts by reading
// cannot wait for the write lock, one that starts by writing can.
//
// A transaction a deadlock detector chose to cancel runs again, up to twice: on a Citus
// cluster, whose credentials live on the coordinator beside the users it copies to every
// node, racing redemptions of one code can be taken for a distributed deadlock where one
// PostgreSQL server would have queued them; run again, the loser finds the code used.
func (i *Issuer) inTx(ctx context.Context, fn func(tx *ent.Client) error) (err error) {
	for attempt := 0; ; attempt++ {
		err = i.inTxOnce(ctx, fn)
		var pg interface{ SQLState() string }
		if attempt == 2 || !errors.As(err, &pg) || pg.SQLState() != "40P01" {
			return err
		}
	}
}

func (i *Issuer) inTxOnce(ctx context.Context, fn func(tx *ent.Client) error) (err error) {
	tx, err := i.client.Tx(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			_ = tx.Rollback()
			panic(r)
		}
		if err != nil {
			_ = tx.Rollback()
			return
		}
		err = tx.Commit()
	}()
	return fn(tx.Client())
}

// ClientInput registers a client.
type ClientInput struct {
	ClientID     string
	Name         string
	RedirectURIs []string
	Scopes       []string
	Public       bool
	Observer     bool
}

// Validate checks a ClientInput.
func (in ClientInput) Validate() error {
	var fe []herdbook.FieldError
	add := func(f, m string) { fe = append(fe, herdbook.FieldError{Field: f, Message: m}) }
	for _, f := range []struct{ name, v string }{{"client_id", in.ClientID}, {"name", in.Name}} {
		fe = append(fe, herdbook.ErrorFields(herdbook.CheckText(f.name, f.v))...)
	}
	if l := len(in.ClientID); l < 1 || l > 255 || strings.TrimSpace(in.ClientID) != in.ClientID {
		add("client_id", "must be 1 to 255 characters without surrounding spaces")
	}
	if strings.TrimSpace(in.Name) == "" {
		add("name", "is required")
	}
	if len(in.Scopes) == 0 {
		add("scopes", "must name at least one scope")
	}
	for _, s := range in.Scopes {
		if !slices.Contains(herdbook.AllScopes, s) {
			add("scopes", fmt.Sprintf("unknown scope %q; known: %s", s, strings.Join(herdbook.AllScopes, " ")))
		}
		if in.Observer && strings.HasPrefix(s, "write:") {
			add("scopes", "an observer client may only have read scopes")
		}
	}
	for _, u := range in.RedirectURIs {
		p, err := url.Parse(u)
		if err != nil || !p.IsAbs() || p.Fragment != "" || (p.Scheme != "https" && p.Hostname() != "127.0.0.1" && p.Hostname() != "localhost" && p.Hostname() != "::1") {
			add("redirect_uris", fmt.Sprintf("%q must be an absolute https URL (http only for loopback) without fragment", u))
		}
	}
	return herdbook.Invalid(fe...)
}

// CreateClient registers a client. For a confidential client it returns the secret, shown
// once: only its hash is kept.
func (i *Issuer) CreateClient(ctx context.Context, in ClientInput) (*ent.OAuthClient, string, error) {
	if err := in.Validate(); err != nil {
		return nil, "", err
	}
	c := i.client.OAuthClient.Create().SetClientID(in.ClientID).SetName(in.Name).
		SetRedirectUris(in.RedirectURIs).SetScopes(in.Scopes).SetPublic(in.Public).SetObserver(in.Observer)
	var secret string
	if !in.Public {
		secret = NewSecret("hbcs_")
		c.SetSecretHash(Hash(secret))
	}
	cl, err := c.Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, "", herdbook.Errorf(herdbook.ECONFLICT, "client_id %q is already registered", in.ClientID)
	}
	return cl, secret, err
}

// Client returns an active client by its client_id. A client_id that breaks the text rule
// cannot be registered, so it is unknown without a lookup (which would fail on PostgreSQL).
func (i *Issuer) Client(ctx context.Context, clientID string) (*ent.OAuthClient, error) {
	if herdbook.CheckText("client_id", clientID) != nil {
		return nil, herdbook.Errorf(herdbook.EUNAUTHORIZED, "unknown client")
	}
	cl, err := i.client.OAuthClient.Query().Where(oauthclient.ClientID(clientID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, herdbook.Errorf(herdbook.EUNAUTHORIZED, "unknown client")
	}
	return cl, err
}

// CheckSecret compares a presented client secret with the stored hash in constant time.
func CheckSecret(cl *ent.OAuthClient, secret string) bool {
	if cl.SecretHash == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(Hash(secret)), []byte(cl.SecretHash)) == 1
}

// IssueAccessToken issues a bearer token for userID through clientID with the given scopes,
// which must all be allowed to the client. The raw token is returned once.
func (i *Issuer) IssueAccessToken(ctx context.Context, clientID string, userID uuid.UUID, scopes []string, ttl time.Duration) (string, *ent.AccessToken, error) {
	cl, err := i.Client(ctx, clientID)
	if err != nil {
		return "", nil, err
	}
	for _, s := range scopes {
		if !slices.Contains(cl.Scopes, s) {
			return "", nil, herdbook.Invalid(herdbook.FieldError{Field: "scopes", Message: fmt.Sprintf("scope %q is not allowed for client %s", s, clientID)})
		}
	}
	if ttl <= 0 {
		ttl = DefaultAccessTokenTTL
	}
	raw := NewSecret("hbat_")
	tok, err := i.client.AccessToken.Create().SetTokenHash(Hash(raw)).SetClientID(cl.ID).SetUserID(userID).
		SetScopes(scopes).SetExpiresAt(i.now().Add(ttl)).Save(ctx)
	if ent.IsConstraintError(err) {
		return "", nil, herdbook.Errorf(herdbook.ENOTFOUND, "user %s not found", userID)
	}
	return raw, tok, err
}

// Resolve turns a presented bearer token into its viewer, or EUNAUTHORIZED when the token is
// unknown, expired, revoked, or belongs to an inactive client or user. It costs one
// statement, the token joined with its client and its user, on every request: nothing is
// cached, so a revoked token (or a deactivated client or user) is refused at once on every
// node.
func (i *Issuer) Resolve(ctx context.Context, raw string) (*herdbook.Viewer, error) {
	tok, err := i.client.AccessToken.Query().
		Where(
			accesstoken.TokenHash(Hash(raw)),
			accesstoken.RevokedAtIsNil(),
			accesstoken.ExpiresAtGT(i.now()),
			withClientAndUser,
		).
		Select(accesstoken.FieldUserID, accesstoken.FieldScopes).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, herdbook.Errorf(herdbook.EUNAUTHORIZED, "the access token is invalid or expired")
	}
	if err != nil {
		return nil, err
	}
	clientID, err := tok.Value(joinedClientID)
	if err != nil {
		return nil, err
	}
	v := &herdbook.Viewer{
		UserID:     tok.UserID,
		Scopes:     tok.Scopes,
		Credential: herdbook.CredentialOAuth,
	}
	switch c := clientID.(type) {
	case string:
		v.ClientID = c
	case []byte:
		v.ClientID = string(c)
	default:
		return nil, fmt.Errorf("resolve token: the client id is a %T", clientID)
	}
	return v, nil
}

// joinedClientID names the client's public id in Resolve's answer.
const joinedClientID = "joined_client_id"

// withClientAndUser joins the token with its active client, whose public id it selects,
// and its active user: Resolve's single statement. (Ent's eager loading would read the
// client with a second one.)
func withClientAndUser(s *entsql.Selector) {
	c, u := entsql.Table(oauthclient.Table).As("c"), entsql.Table(user.Table).As("u")
	s.Join(c).OnP(entsql.And(
		entsql.ColumnsEQ(c.C(oauthclient.FieldID), s.C(accesstoken.FieldClientID)),
		entsql.EQ(c.C(oauthclient.FieldIsActive), true),
	)).
		Join(u).OnP(entsql.And(
		entsql.ColumnsEQ(u.C(user.FieldID), s.C(accesstoken.FieldUserID)),
		entsql.EQ(u.C(user.FieldIsActive), true),
	)).
		AppendSelectAs(c.C(oauthclient.FieldClientID), joinedClientID)
}
