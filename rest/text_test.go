package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestControlCharacters: a NUL (or any control character) in a name, a description, record
// item metadata or a request id is a 400 naming the field on both databases. PostgreSQL
// refused it with a 500 (invalid byte sequence 0x00) and SQLite stored it.
func TestControlCharacters(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app, tok := b.app, b.owner.Token
		bh := b.base + "/birth-history"
		record := func(extra string) string {
			return `{"animal_ids":["` + b.dam + `"],"name":"Vet check","type":"HEALTH","applied_at":"2026-01-01T00:00:00Z"` + extra + `}`
		}
		app.Do("PUT", bh+"/settings", tok, cattleSettings)
		app.Do("PUT", bh+"/protocol", tok, `{"steps":[{"name":"Weigh calf","offset_days":1}]}`)
		preview := app.Do("POST", bh+"/previews", tok, map[string]any{"dam_id": b.dam, "birth_date": "2026-04-20"}).JSON(t)["id"].(string)
		for _, tc := range []struct {
			name, method, path, body, want string
		}{
			{"ErrFarmName", "POST", "/v1/farm", `{"name":"North\u0000Field","species":"CATTLE"}`, "name: must not contain control characters"},
			{"ErrFarmNameNewline", "POST", "/v1/farm", `{"name":"North\nField","species":"CATTLE"}`, "name: must not contain control characters such as tabs or line breaks (found U+000A)"},
			{"ErrSpeciesOther", "PUT", b.base, `{"species":"OTHER","species_other":"Alp\u0000aca"}`, "species_other: must not contain control characters"},
			{"ErrRecordName", "POST", b.base + "/records", `{"animal_ids":["` + b.dam + `"],"name":"Vet\u0000check","type":"HEALTH","applied_at":"2026-01-01T00:00:00Z"}`, "name: must not contain control characters"},
			{"ErrRecordDescription", "POST", b.base + "/records", record(`,"description":"fine\u0000"`), "description: must not contain control characters other than tab and line breaks (found U+0000)"},
			{"ErrRecordDescriptionBell", "POST", b.base + "/records", record(`,"description":"ding\u0007"`), "description: must not contain control characters other than tab and line breaks (found U+0007)"},
			{"ErrItemName", "POST", b.base + "/records", record(`,"record_items":[{"name":"dose\u0000"}]`), "record_items[0].name: must not contain"},
			{"ErrMetadataValue", "POST", b.base + "/records", record(`,"record_items":[{"metadata":{"note":{"text":["ok","a\u0000b"]}}}]`), "record_items[0].metadata.note.text[1]: must not contain"},
			{"ErrMetadataKey", "POST", b.base + "/records", record(`,"record_items":[{"metadata":{"a\u0000":1}}]`), "record_items[0].metadata: has a key that must not contain"},
			{"ErrFactField", "POST", b.base + "/records", record(`,"record_items":[{"metadata":{"birth_history":{"kind":"profile","animal_id":"` + b.dam + `","sex":"female","breed":"Ang\u0000us"}}}]`),
				"record_items[0].metadata.birth_history.breed: must not contain"},
			{"ErrRecordUpdate", "PUT", b.base + "/records/" + b.dam, `{"name":"x\u0000"}`, "name: must not contain"},
			{"ErrProtocolStep", "PUT", bh + "/protocol", `{"steps":[{"name":"Weigh\u0000","offset_days":1}]}`, "steps[0].name: must not contain"},
			{"ErrApproveRequestID", "POST", bh + "/previews/" + preview + "/approve", `{"request_id":"req\u0000"}`, "request_id: must not contain"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do(tc.method, tc.path, tok, tc.body), http.StatusBadRequest, "ValidationError", tc.want)
			})
		}
		t.Run("DescriptionKeepsLineBreaksAndTabs", func(t *testing.T) {
			res := app.Do("POST", b.base+"/records", tok, record(`,"description":"line one\r\nline\ttwo","record_items":[{"description":"a\nb","metadata":{"note":"x\ny"}}]`))
			if res.Status != http.StatusCreated || res.JSON(t)["description"] != "line one\r\nline\ttwo" {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
		})
		t.Run("ErrTaskRequestID", func(t *testing.T) {
			approved := app.Do("POST", bh+"/previews/"+preview+"/approve", tok, `{"request_id":"req-1","calves":[{"tag":"TEXT-CALF","sex":"female","status":"alive"}]}`).JSON(t)
			task := approved["tasks"].([]any)[0].(map[string]any)["id"].(string)
			res := app.Do("PUT", b.base+"/farm-tasks/"+task, tok, `{"status":"DONE","request_id":"\u0000"}`)
			herdbooktest.WantEnvelope(t, res, http.StatusBadRequest, "ValidationError", "request_id: must not contain control characters")
		})
		t.Run("ErrSettingsLabelBodiless", func(t *testing.T) {
			res := app.Do("PUT", bh+"/settings", tok, `{"version":1,"species":"CATTLE","birth_windows":[{"label":"Spr\u0000ing","start_date":"2026-03-01","end_date":"2026-04-30"}]}`)
			wantEmpty(t, res, http.StatusBadRequest)
		})
		t.Run("NothingStored", func(t *testing.T) {
			for _, rec := range app.Do("GET", b.base+"/records?take=500", tok, nil).JSON(t)["records"].([]any) {
				// The approved birth of ErrTaskRequestID is a calving: its record and its calf's
				// register records are there, as they should be.
				if name := rec.(map[string]any)["name"].(string); name != "Vet check" && name != "fact" && name != "Calving" && !strings.HasPrefix(name, "Register: ") {
					t.Fatalf("a refused record was stored: %q", name)
				}
			}
		})
	})
}
