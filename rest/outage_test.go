package rest_test

import (
	"context"
	"net/http"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// wantUnavailable fails unless res is a 503 with Retry-After: the envelope, or no body on
// the bodiless birth-history operations.
func wantUnavailable(t *testing.T, res herdbooktest.Response, bodiless bool) {
	t.Helper()
	if res.Header.Get("Retry-After") != "5" {
		t.Fatalf("Retry-After %q, want 5 (status %d %s)", res.Header.Get("Retry-After"), res.Status, res.Body)
	}
	if bodiless {
		wantEmpty(t, res, http.StatusServiceUnavailable)
		return
	}
	herdbooktest.WantEnvelope(t, res, http.StatusServiceUnavailable, "ServiceError", "temporarily unavailable")
}

// TestDatabaseOutage: when the database cannot be reached the API answers 503 with
// Retry-After instead of 500, whether the bearer token's lookup or the operation's own
// queries fail.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		t.Run("ClosedPool", func(t *testing.T) {
			app := herdbooktest.NewApp(t, d)
			u := app.MustUser()
			f := app.MustFarm(u, "Outage Farm")
			key, _, err := app.Issuer.CreateAPIKey(context.Background(), oauth.APIKeyInput{UserID: u.ID, Name: "k", Scopes: herdbook.AllScopes})
			if err != nil {
				t.Fatal(err)
			}
			d.SQL.Close()
			wantUnavailable(t, app.Do("GET", "/v1/farm", u.Token, nil), false)
			wantUnavailable(t, app.Do("POST", "/v1/farm", u.Token, `{"name":"North Field","species":"CATTLE"}`), false)
			wantUnavailable(t, app.Do("GET", "/v1/farm", "", nil, "X-API-Key", key), false)
			wantUnavailable(t, app.Do("GET", "/v1/farm/"+f.ID.String()+"/birth-history/settings", u.Token, nil), true)
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm", "", nil), http.StatusUnauthorized, "Unauthorized", "")
		})
	})
	t.Run("Unreachable", func(t *testing.T) {
		// The token store answers; the service's database refuses connections.
		d := herdbooktest.MustDB(t, "sqlite")
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{ServiceDB: herdbooktest.UnreachableDB(t)})
		u, err := herdbook.New(d.Client).CreateUser(context.Background(), herdbook.UserInput{PhoneNumberLocal: "+4790000001"})
		if err != nil {
			t.Fatal(err)
		}
		tok := app.MustToken(u.ID)
		farm := "/v1/farm/0190a0b2-0c5e-7d3a-9a4e-2b1c3d4e5f60"
		wantUnavailable(t, app.Do("GET", "/v1/farm", tok, nil), false)
		wantUnavailable(t, app.Do("POST", "/v1/farm", tok, `{"name":"North Field","species":"CATTLE"}`), false)
		wantUnavailable(t, app.Do("GET", farm+"/records?take=5", tok, nil), false)
		wantUnavailable(t, app.Do("GET", farm+"/farm-tasks", tok, nil), false)
		wantUnavailable(t, app.Do("GET", farm+"/birth-history/evidence?dam_id=0190a0b2-0c5e-7d3a-9a4e-2b1c3d4e5f61&birth_date=2026-04-01", tok, nil), true)
		if res := app.Do("GET", "/readyz", "", nil); res.Status != http.StatusServiceUnavailable {
			t.Fatalf("readyz: %d", res.Status)
		}
	})
}
