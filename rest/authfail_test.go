package rest_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// TestFailedAuthenticationLimit: invalid credentials from one address are limited. Of 106
// random bearer tokens the first LimitFailedAuth get 401 and the rest 429 with Retry-After,
// answered before the token is looked up (no query); legacy keys, GraphQL and the
// birth-history operations share the budget.
func TestFailedAuthenticationLimit(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Guarded Farm")
		random := func() string { return oauth.NewSecret("hbat_") }
		for i := 1; i <= 106; i++ {
			var res herdbooktest.Response
			queries := app.Queries(func() { res = app.Do("GET", "/v1/farm", random(), nil) })
			if i <= oauth.LimitFailedAuth {
				herdbooktest.WantEnvelope(t, res, http.StatusUnauthorized, "Unauthorized", "invalid or expired")
				continue
			}
			herdbooktest.WantEnvelope(t, res, http.StatusTooManyRequests, "ServiceError", "too many failed authentication attempts")
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 900 {
				t.Fatalf("request %d: Retry-After %q", i, res.Header.Get("Retry-After"))
			}
			if queries != 0 {
				t.Fatalf("request %d: the limited request cost %d queries", i, queries)
			}
		}
		t.Run("LegacyKeysShareTheBudget", func(t *testing.T) {
			res := app.Do("GET", "/v1/farm", "", nil, "X-API-Key", oauth.NewSecret("hbak_"))
			herdbooktest.WantEnvelope(t, res, http.StatusTooManyRequests, "ServiceError", "too many failed authentication attempts")
		})
		t.Run("BirthHistoryBodiless", func(t *testing.T) {
			res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/birth-history/settings", random(), nil)
			wantEmpty(t, res, http.StatusTooManyRequests)
			if res.Header.Get("Retry-After") == "" {
				t.Fatal("no Retry-After")
			}
		})
		t.Run("GraphQLSharesTheBudget", func(t *testing.T) {
			// In GraphQL's own error shape, as every answer of /graphql.
			res := app.Do("POST", "/graphql", random(), map[string]any{"query": "{ farms(first: 1) { totalCount } }"})
			if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" ||
				!strings.Contains(string(res.Body), `"code":"RATE_LIMITED"`) || !strings.Contains(string(res.Body), "too many failed authentication attempts") {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
		})
		t.Run("UserInfoSharesTheBudget", func(t *testing.T) {
			res := app.Do("GET", "/oauth/userinfo", random(), nil)
			herdbooktest.WantEnvelope(t, res, http.StatusTooManyRequests, "ServiceError", "too many failed authentication attempts")
		})
		t.Run("LockedOutAddressWaitsEvenWithAGoodToken", func(t *testing.T) {
			// Telling a good token from a guess needs the lookup the limit exists to save.
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm", u.Token, nil), http.StatusTooManyRequests, "ServiceError", "")
		})
		t.Run("AnonymousIsStillUnauthorized", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm", "", nil), http.StatusUnauthorized, "Unauthorized", "")
		})
	})
	t.Run("GoodTokensSpendNothing", func(t *testing.T) {
		app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
		u := app.MustUser()
		for i := range oauth.LimitFailedAuth + 10 {
			if res := app.Do("GET", "/v1/farm", u.Token, nil); res.Status != http.StatusOK {
				t.Fatalf("request %d: %d", i, res.Status)
			}
		}
		herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm", "hbat_wrong", nil), http.StatusUnauthorized, "Unauthorized", "")
	})
}
