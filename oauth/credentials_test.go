package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// TestCredentials: tokens carry the granted scopes; the bearer middleware and legacy
// X-API-Key keys resolve the user for /v1 and /graphql; 403 for a missing scope or a
// credential type that is not allowed.
func TestCredentials(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		farm := e.app.MustFarm(e.user, "Scope Farm")
		key := func(scopes []string, ttl time.Duration) string {
			raw, _, err := e.app.Issuer.CreateAPIKey(context.Background(), oauth.APIKeyInput{UserID: e.user.ID, Name: "test", Scopes: scopes, TTL: ttl})
			if err != nil {
				t.Fatal(err)
			}
			return raw
		}
		// A token from the code flow with read:farms only.
		v := verifier("s")
		q := e.authQuery(e.public, v)
		q.Set("scope", "read:farms")
		code := e.session().authorize(q).Query().Get("code")
		res := e.redeem(e.public, "", code, v)
		if res.Status != http.StatusOK || res.json(t)["scope"] != "read:farms" {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		readFarms := res.json(t)["access_token"].(string)
		readKey := key([]string{"read:farms"}, 0)
		shortKey := key([]string{"read:farms"}, time.Minute)
		records := "/v1/farm/" + farm.ID.String() + "/records"
		newFarm := map[string]any{"name": "Another", "species": "GOAT"}

		for _, tc := range []struct {
			name, method, path string
			body               any
			header             []string
			token              string
			status             int
			errName            string
			deprecation        bool
		}{
			{"OKGrantedScope", "GET", "/v1/farm", nil, nil, readFarms, 200, "", false},
			{"OKGrantedScopeOtherPrefix", "GET", "/api/v1/farm/" + farm.ID.String(), nil, nil, readFarms, 200, "", false},
			{"ErrScopeNotGranted", "GET", records, nil, nil, readFarms, 403, "ForbiddenError", false},
			{"ErrWriteScopeNotGranted", "POST", "/v1/farm", newFarm, nil, readFarms, 403, "ForbiddenError", false},
			{"ErrNoCredential", "GET", "/v1/farm", nil, nil, "", 401, "Unauthorized", false},
			{"ErrUnknownToken", "GET", "/v1/farm", nil, nil, "hbat_unknown", 401, "Unauthorized", false},
			{"ErrBasicScheme", "GET", "/v1/farm", nil, []string{"Authorization", "Basic eDp5"}, "", 401, "Unauthorized", false},
			{"OKAPIKey", "GET", "/v1/farm", nil, []string{"X-API-Key", readKey}, "", 200, "", true},
			{"ErrAPIKeyScope", "POST", "/v1/farm", newFarm, []string{"X-API-Key", readKey}, "", 403, "ForbiddenError", true},
			{"ErrAPIKeyScopeRecords", "GET", records, nil, []string{"X-API-Key", readKey}, "", 403, "ForbiddenError", true},
			{"ErrUnknownAPIKey", "GET", "/v1/farm", nil, []string{"X-API-Key", "hbak_unknown"}, "", 401, "Unauthorized", true},
			{"ErrAPIKeyOnGraphQL", "POST", "/graphql", map[string]any{"query": "{ farms { edges { node { name } } } }"}, []string{"X-API-Key", readKey}, "", 403, "FORBIDDEN", false},
			{"ErrAPIKeyAsBearer", "GET", "/v1/farm", nil, nil, readKey, 403, "ForbiddenError", false},
			{"ErrBothCredentials", "GET", "/v1/farm", nil, []string{"X-API-Key", readKey}, readFarms, 400, "ValidationError", false},
			{"OKGraphQLBearer", "POST", "/graphql", map[string]any{"query": "{ farms { edges { node { name } } } }"}, nil, readFarms, 200, "", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := e.app.Do(tc.method, tc.path, tc.token, tc.body, tc.header...)
				switch {
				case tc.errName == "":
					if res.Status != tc.status {
						t.Fatalf("%d %s", res.Status, res.Body)
					}
				case tc.path == "/graphql":
					// GraphQL answers in its own error shape, whoever refuses the request.
					if res.Status != tc.status || !strings.Contains(string(res.Body), `"code":"`+tc.errName+`"`) {
						t.Fatalf("%d %s", res.Status, res.Body)
					}
				default:
					herdbooktest.WantEnvelope(t, res, tc.status, tc.errName, "")
				}
				if got := res.Header.Get("Deprecation") == "true"; got != tc.deprecation {
					t.Fatalf("Deprecation header %q", res.Header.Get("Deprecation"))
				}
			})
		}
		t.Run("APIKeyExpiry", func(t *testing.T) {
			if st := e.app.Do("GET", "/v1/farm", "", nil, "X-API-Key", shortKey).Status; st != 200 {
				t.Fatal(st)
			}
			e.clock.Advance(2 * time.Minute)
			herdbooktest.WantEnvelope(t, e.app.Do("GET", "/v1/farm", "", nil, "X-API-Key", shortKey), 401, "Unauthorized", "")
			wantNotStored(t, d, readKey)
		})
		t.Run("ErrAPIKeyInput", func(t *testing.T) {
			for _, in := range []oauth.APIKeyInput{
				{UserID: e.user.ID, Name: "x"},
				{UserID: e.user.ID, Name: "x", Scopes: []string{"read:everything"}},
				{UserID: e.user.ID, Name: "", Scopes: []string{"read:farms"}},
			} {
				if _, _, err := e.app.Issuer.CreateAPIKey(context.Background(), in); herdbook.ErrorCode(err) != herdbook.EINVALID {
					t.Fatalf("%+v: %v", in, err)
				}
			}
		})
		t.Run("DeviceScopesGranted", func(t *testing.T) {
			da := e.deviceStart(e.public, "read:records")
			if res := e.approve(da["user_code"].(string), true); res.Status != 200 {
				t.Fatal(res.Status)
			}
			tok := e.poll(e.public, da["device_code"].(string)).json(t)
			a := tok["access_token"].(string)
			if st := e.app.Do("GET", records, a, nil).Status; st != 200 {
				t.Fatalf("granted scope: %d", st)
			}
			herdbooktest.WantEnvelope(t, e.app.Do("GET", "/v1/farm", a, nil), 403, "ForbiddenError", "read:farms")
		})
		t.Run("ErrAuthorizeScopeBeyondClient", func(t *testing.T) {
			q := url.Values{"client_id": {e.conf}, "redirect_uri": {e.redirect}, "response_type": {"code"}, "scope": {"read:farms write:records"}}
			if loc := e.session().authorize(q); loc.Query().Get("error") != "invalid_scope" {
				t.Fatalf("%s", loc)
			}
		})
	})
}
