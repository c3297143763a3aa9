package main

import (
	"context"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

func TestAdminKeyCreate(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			c.mustJSON("a very long password\n", "admin", "user", "create", "--phone", "+4790000001", "--password-stdin")
			k := c.mustJSON("", "admin", "key", "create", "--user", "+4790000001", "--scopes", "read:farms,read:records", "--name", "barn scale")
			raw, _ := k["api_key"].(string)
			if !strings.HasPrefix(raw, "hbak_") || k["header"] != "X-API-Key" || k["name"] != "barn scale" || k["deprecated"] != true {
				t.Fatalf("key = %v", k)
			}
			if _, ok := k["expires_at"]; ok {
				t.Fatalf("a key without --ttl expires: %v", k)
			}
			if k := c.mustJSON("", "admin", "key", "create", "--user", "+4790000001", "--scopes", "read:farms", "--ttl", "24h"); k["expires_at"] == nil {
				t.Fatalf("--ttl gave no expiry: %v", k)
			}
			for _, tc := range []struct {
				name string
				args []string
				want string
			}{
				{"ErrNoScopes", []string{"--user", "+4790000001"}, "scopes"},
				{"ErrUnknownScope", []string{"--user", "+4790000001", "--scopes", "read:everything"}, "unknown scope"},
				{"ErrUnknownUser", []string{"--user", "+4799999999", "--scopes", "read:farms"}, "no user"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, err := c.run("", append([]string{"admin", "key", "create"}, tc.args...)...)
					if err == nil || !strings.Contains(err.Error(), tc.want) {
						t.Fatalf("err = %v, want %q", err, tc.want)
					}
				})
			}
			// The key resolves to its user and scopes, and only its hash is stored.
			d, err := db.Open(context.Background(), c.dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			v, err := oauth.NewIssuer(d.Client, nil).ResolveAPIKey(context.Background(), raw)
			if err != nil || v.Credential != herdbook.CredentialAPIKey || strings.Join(v.Scopes, " ") != "read:farms read:records" {
				t.Fatalf("viewer %+v, %v", v, err)
			}
		})
	}
}
