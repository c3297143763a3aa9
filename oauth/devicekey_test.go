package oauth_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// TestDeviceKey: GET /oauth/device-key answers the web app (the first-party client
// herdbook-web) a 32-byte key of the signed-in user, the same at every sign-in and another
// for another user, which locks the writes a sign-out keeps on the device (docs/web.md,
// "Kept after sign-out"). It is refused without a token, with another client's token or an
// API key, with a revoked or unknown token, and to other methods; it is never cached
// (RFC 9111 §5.2.2.5 no-store).
func TestDeviceKey(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		ctx := context.Background()
		if _, err := e.app.Issuer.EnsureWebClient(ctx, e.app.URL); err != nil {
			t.Fatal(err)
		}
		web := func(u herdbooktest.User) string {
			raw, _, err := e.app.Issuer.IssueAccessToken(ctx, oauth.WebClientID, u.ID, herdbook.AllScopes, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return raw
		}
		key := func(token string) (string, string) {
			t.Helper()
			res := e.app.Do("GET", "/oauth/device-key", token, nil)
			if res.Status != http.StatusOK || res.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("%d %v %s", res.Status, res.Header, res.Body)
			}
			j := res.JSON(t)
			k, _ := j["key"].(string)
			if b, err := base64.RawURLEncoding.DecodeString(k); err != nil || len(b) != 32 {
				t.Fatalf("key %q: %v", k, err)
			}
			return k, j["sub"].(string)
		}
		a1, sub := key(web(e.user))
		if sub != e.user.ID.String() {
			t.Fatalf("sub %s, want %s", sub, e.user.ID)
		}
		if a2, _ := key(web(e.user)); a2 != a1 {
			t.Fatal("a second sign-in of the same user gets another key")
		}
		other := e.app.MustUser()
		if b, _ := key(web(other)); b == a1 {
			t.Fatal("two users share a device key")
		}

		t.Run("ErrNoToken", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, e.app.Do("GET", "/oauth/device-key", "", nil), http.StatusUnauthorized, "Unauthorized", "")
		})
		t.Run("ErrUnknownToken", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, e.app.Do("GET", "/oauth/device-key", "hb_at_not-a-token", nil), http.StatusUnauthorized, "Unauthorized", "")
		})
		t.Run("ErrAnotherClient", func(t *testing.T) {
			// MustUser's token is a test client's, and e.tokens() the public app's.
			herdbooktest.WantEnvelope(t, e.app.Do("GET", "/oauth/device-key", e.user.Token, nil), http.StatusForbidden, "ForbiddenError", "")
			herdbooktest.WantEnvelope(t, e.app.Do("GET", "/oauth/device-key", e.tokens()["access_token"].(string), nil), http.StatusForbidden, "ForbiddenError", "")
		})
		t.Run("ErrRevoked", func(t *testing.T) {
			tok := web(e.user)
			res := e.post("/oauth/revoke", map[string][]string{"token": {tok}, "client_id": {oauth.WebClientID}})
			if res.Status != http.StatusOK {
				t.Fatalf("revoke: %d %s", res.Status, res.Body)
			}
			herdbooktest.WantEnvelope(t, e.app.Do("GET", "/oauth/device-key", tok, nil), http.StatusUnauthorized, "Unauthorized", "")
		})
		t.Run("ErrMethod", func(t *testing.T) {
			res := e.app.Do("POST", "/oauth/device-key", web(e.user), nil)
			herdbooktest.WantEnvelope(t, res, http.StatusMethodNotAllowed, "ServiceError", "")
			if res.Header.Get("Allow") != "GET" {
				t.Fatalf("Allow %q", res.Header.Get("Allow"))
			}
		})
	})
}

// TestSignInPagesFavicon: the OAuth pages (sign-in, consent, device activation) name the
// app's icon, which the server serves, so the browser's tab shows it (issue 31.6).
func TestSignInPagesFavicon(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		page := e.app.Do("GET", "/oauth/login", "", nil, "Accept", "text/html")
		if page.Status != http.StatusOK || !strings.Contains(string(page.Body), `<link rel="icon" href="/icon.svg" type="image/svg+xml">`) {
			t.Fatalf("%d %s", page.Status, page.Body)
		}
		icon := e.app.Do("GET", "/icon.svg", "", nil, "Accept", "image/*")
		if icon.Status != http.StatusOK || !strings.HasPrefix(icon.Header.Get("Content-Type"), "image/svg+xml") {
			t.Fatalf("/icon.svg: %d %v", icon.Status, icon.Header)
		}
	})
}
