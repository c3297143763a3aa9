package oauth_test

import (
	"context"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/accesstoken"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestResolveOneStatement: a bearer token resolves in one statement (the token joined with
// its client and user), and nothing caches it: a token revoked, or whose client or user is
// deactivated, is refused by the very next request.
func TestResolveOneStatement(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		ctx := context.Background()
		u := app.MustUser()
		var v *herdbook.Viewer
		var err error
		if n := app.Queries(func() { v, err = app.Issuer.Resolve(ctx, u.Token) }); err != nil || n != 1 {
			t.Fatalf("resolve: %d statements, %v; want 1", n, err)
		}
		if v.UserID != u.ID || v.ClientID == "" || len(v.Scopes) != len(herdbook.AllScopes) || v.Credential != herdbook.CredentialOAuth {
			t.Fatalf("viewer %+v", v)
		}
		if res := app.Do("GET", "/v1/farm", u.Token, nil); res.Status != 200 {
			t.Fatalf("before revocation: %d", res.Status)
		}
		for _, tc := range []struct {
			name        string
			deny, allow func(u herdbooktest.User)
		}{
			{"RevokedToken", func(u herdbooktest.User) {
				d.Client.AccessToken.Update().Where(accesstoken.UserID(u.ID)).SetRevokedAt(time.Now()).ExecX(ctx)
			}, func(herdbooktest.User) {}},
			{"InactiveClient", func(herdbooktest.User) { d.Client.OAuthClient.Update().SetIsActive(false).ExecX(ctx) },
				func(herdbooktest.User) { d.Client.OAuthClient.Update().SetIsActive(true).ExecX(ctx) }},
			{"InactiveUser", func(u herdbooktest.User) { d.Client.User.UpdateOneID(u.ID).SetIsActive(false).ExecX(ctx) },
				func(herdbooktest.User) {}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				u := app.MustUser()
				if res := app.Do("GET", "/v1/farm", u.Token, nil); res.Status != 200 {
					t.Fatalf("before: %d", res.Status)
				}
				tc.deny(u)
				defer tc.allow(u)
				if res := app.Do("GET", "/v1/farm", u.Token, nil); res.Status != 401 {
					t.Fatalf("after: %d, want 401 at once", res.Status)
				}
			})
		}
	})
}

func BenchmarkResolve(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := app.Issuer.Resolve(ctx, u.Token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
