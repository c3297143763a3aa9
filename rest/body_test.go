package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestJSONBodies: every JSON body goes through one strict decoder: a key given twice is
// refused (encoding/json would keep the last one silently), the body must be UTF-8, and the
// 10 MB limit holds on every operation that reads JSON.
func TestJSONBodies(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Strict Farm")
		animal := app.MustAnimal(u, f.ID, "A-1").ID.String()
		base := "/v1/farm/" + f.ID.String()
		for _, tc := range []struct {
			name, method, path, body, want string
		}{
			{"ErrDuplicateFarmName", "POST", "/v1/farm", `{"name":"North Field","species":"CATTLE","name":"Decoy"}`, "name: is given more than once"},
			{"ErrDuplicateInUpdate", "PUT", base, `{"species":"SHEEP","species":"GOAT"}`, "species: is given more than once"},
			{"ErrDuplicateInRecordItem", "POST", base + "/records",
				`{"animal_ids":["` + animal + `"],"name":"r","type":"HEALTH","applied_at":"2026-01-01T00:00:00Z","record_items":[{"name":"a"},{"name":"b","description":"x","name":"c"}]}`,
				"record_items[1].name: is given more than once"},
			{"ErrDuplicateInMetadata", "POST", base + "/records",
				`{"animal_ids":["` + animal + `"],"name":"r","type":"HEALTH","applied_at":"2026-01-01T00:00:00Z","record_items":[{"metadata":{"dose":1,"dose":2}}]}`,
				"record_items[0].metadata.dose: is given more than once"},
			{"ErrDuplicateProtocolSteps", "PUT", base + "/birth-history/protocol", `{"steps":[],"steps":[{"name":"x","offset_days":1}]}`, "steps: is given more than once"},
			{"ErrInvalidUTF8", "POST", "/v1/farm", "{\"name\":\"North \xff Field\",\"species\":\"CATTLE\"}", "body: is not valid UTF-8"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := app.Do(tc.method, tc.path, u.Token, tc.body)
				herdbooktest.WantEnvelope(t, res, http.StatusBadRequest, "ValidationError", tc.want)
			})
		}
		t.Run("ErrDuplicateBirthSettingsBodiless", func(t *testing.T) {
			res := app.Do("PUT", base+"/birth-history/settings", u.Token, `{"version":1,"species":"CATTLE","version":1}`)
			if res.Status != http.StatusBadRequest || len(res.Body) != 0 {
				t.Fatalf("status %d, body %q", res.Status, res.Body)
			}
		})
		t.Run("ErrTooLargeEverywhere", func(t *testing.T) {
			big := `{"name":"` + strings.Repeat("x", 10<<20) + `"}`
			for _, op := range []struct{ method, path string }{
				{"POST", "/v1/farm"}, {"PUT", base}, {"POST", base + "/records"}, {"PUT", base + "/birth-history/protocol"},
				{"POST", base + "/birth-history/previews"},
			} {
				res := app.Do(op.method, op.path, u.Token, big)
				herdbooktest.WantEnvelope(t, res, http.StatusRequestEntityTooLarge, "ValidationError", "larger than 10485760 bytes")
			}
		})
	})
}
