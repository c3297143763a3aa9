package main

import (
	"context"
	"strings"
	"time"

	"github.com/herdbook/herdbook/oauth"
)

// adminKeyCreate makes a deprecated legacy API key (sent as X-API-Key) for a user. The key
// is printed once; only its hash is stored.
func (e env) adminKeyCreate(ctx context.Context, args []string) error {
	a := e.newAdmin("admin key create")
	user := a.fs.String("user", "", "user id or phone number (required)")
	name := a.fs.String("name", "legacy key", "what the key is for, to recognise it later")
	scopes := a.fs.String("scopes", "", "scopes, space- or comma-separated (required)")
	ttl := a.fs.Duration("ttl", 0, "lifetime of the key; 0 means it does not expire")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	userID, err := userRef(ctx, svc, *user)
	if err != nil {
		return err
	}
	raw, k, err := oauth.NewIssuer(d.Client, nil).CreateAPIKey(ctx, oauth.APIKeyInput{
		UserID: userID, Name: *name, Scopes: splitScopes(*scopes), TTL: *ttl,
	})
	if err != nil {
		return err
	}
	out := map[string]any{"id": k.ID, "api_key": raw, "user_id": k.UserID, "name": k.Name, "scopes": k.Scopes,
		"header": "X-API-Key", "deprecated": true}
	if k.ExpiresAt != nil {
		out["expires_at"] = k.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return a.print(out, "%s\n(legacy API key for %s, scopes %s; send it as X-API-Key; shown once; deprecated: prefer OAuth)",
		raw, k.UserID, strings.Join(k.Scopes, " "))
}
