package rest_test

import (
	"net/http"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestUnknownQueryParameter (issue 22.8): REST ignored any query parameter it did not know:
// ?updated_since= on animals when it had no change feed (groups have none), ?as_off=2000-01-01 (today's profile
// came back) or ?tak=1 (every row). Each is now a 400 naming it; the parameters an operation
// takes are those rest/openapi.json declares for it.
func TestUnknownQueryParameter(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Queried")
		a := app.MustAnimal(u, f.ID, "Q-1")
		farm := "/v1/farm/" + f.ID.String()
		for _, tc := range []struct{ name, path, field string }{
			{"ErrMisspeltAsOf", farm + "/animals/" + a.ID.String() + "?as_off=2000-01-01", "as_off"},
			{"ErrMisspeltTake", farm + "/records?tak=1", "tak"},
			{"ErrNoChangeFeedHere", farm + "/groups?updated_since=2026-01-01T00:00:00Z", "updated_since"},
			{"ErrOnAnOperationWithoutParameters", farm + "?verbose=1", "verbose"},
			{"ErrOtherPrefix", "/api/v1/farm/" + f.ID.String() + "/records?tak=1", "tak"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := app.Do("GET", tc.path, u.Token, nil)
				herdbooktest.WantEnvelope(t, res, http.StatusBadRequest, "ValidationError", tc.field+": is not a query parameter of this operation")
			})
		}
		for _, path := range []string{
			farm + "/animals?as_of=2026-01-01&take=5&skip=0&status=on_farm&q=Q",
			farm + "/records?take=1&skip=0",
			farm + "/animals/" + a.ID.String() + "?as_of=2026-01-01",
		} {
			if res := app.Do("GET", path, u.Token, nil); res.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", path, res.Status, res.Body)
			}
		}
		t.Run("ErrNoAuthFirst", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", farm+"/records?tak=1", "", nil), http.StatusUnauthorized, "Unauthorized", "")
		})
	})
}
