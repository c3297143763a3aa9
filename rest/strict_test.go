package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestStrictNestedBodies sends issue 33's findings: a label line's dose.unit took control
// characters (NUL answered 500 on PostgreSQL, SQLSTATE 22P05; \u0008 and \u001b were
// stored), unknown keys inside nested objects were dropped and missing numbers read as 0
// ("dose": {"unit": "ml", "bogus": 1} stored as 0 to 0), and [null] in the farm settings'
// age-of-dam lines was stored as zeros. The decoder now judges every value at any depth
// against its field's type and the text rule, and answers 400 naming the field's path.
func TestStrictNestedBodies(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Strict Nested")
		animal := app.MustAnimal(u, f.ID, "SN-1").ID.String()
		base := "/v1/farm/" + f.ID.String()
		medicine := func(line string) string {
			return `{"name":"Pen","withdrawal_meat_days":1,"withdrawal_milk_hours":1,"species_withdrawals":[` + line + `]}`
		}
		record := func(item string) string {
			return `{"animal_ids":["` + animal + `"],"name":"r","type":"HEALTH","applied_at":"2026-01-01T00:00:00Z","record_items":[` + item + `]}`
		}
		for _, tc := range []struct {
			name, method, path, body, want string
		}{
			{"ErrDoseUnitNUL", "POST", base + "/medicines", medicine(`{"species":"CATTLE","dose":{"unit":"ml\u0000","min":1,"max":2},"withdrawal_meat_days":1,"withdrawal_milk_hours":1}`),
				"species_withdrawals[0].dose.unit: must not contain control characters"},
			{"ErrDoseUnitBackspace", "POST", base + "/medicines", medicine(`{"species":"CATTLE","dose":{"unit":"ml\u0008","min":1,"max":2},"withdrawal_meat_days":1,"withdrawal_milk_hours":1}`),
				"species_withdrawals[0].dose.unit: must not contain control characters"},
			{"ErrDoseUnitEscape", "POST", base + "/medicines", medicine(`{"species":"CATTLE","dose":{"unit":"ml\u001b[31m","min":1,"max":2},"withdrawal_meat_days":1,"withdrawal_milk_hours":1}`),
				"species_withdrawals[0].dose.unit: must not contain control characters"},
			{"ErrDoseUnitC1", "POST", base + "/medicines", medicine(`{"species":"CATTLE","dose":{"unit":"ml` + "\u0085" + `","min":1,"max":2},"withdrawal_meat_days":1,"withdrawal_milk_hours":1}`),
				"species_withdrawals[0].dose.unit: must not contain control characters"},
			{"ErrDoseUnknownKey", "POST", base + "/medicines", medicine(`{"species":"CATTLE","dose":{"unit":"ml","bogus":1},"withdrawal_meat_days":1,"withdrawal_milk_hours":1}`),
				"species_withdrawals[0].dose.bogus: is not a known field"},
			{"ErrDoseMinMissing", "POST", base + "/medicines", medicine(`{"species":"CATTLE","dose":{"unit":"ml","max":2},"withdrawal_meat_days":1,"withdrawal_milk_hours":1}`),
				"species_withdrawals[0].dose.min: is required"},
			{"ErrDoseMinNull", "PUT", base + "/medicines/00000000-0000-0000-0000-000000000000", medicine(`{"species":"CATTLE","dose":{"unit":"ml","min":null,"max":2}}`),
				"species_withdrawals[0].dose.min: must not be null"},
			{"ErrLineNull", "POST", base + "/medicines", medicine(`null`), "species_withdrawals[0]: must not be null"},
			{"ErrLineUnknownKey", "POST", base + "/medicines", medicine(`{"species":"CATTLE","withdrawal_meat_days":1,"withdrawal_milk_hours":1,"colour":"red"}`),
				"species_withdrawals[0].colour: is not a known field"},
			{"ErrMeatDaysFraction", "POST", base + "/medicines", medicine(`{"species":"CATTLE","withdrawal_meat_days":1.5,"withdrawal_milk_hours":1}`),
				"species_withdrawals[0].withdrawal_meat_days: must be an integer"},
			{"ErrWeaningNull", "PUT", base + "/settings", `{"weaning_age_of_dam":[null]}`, "weaning_age_of_dam[0]: must not be null"},
			{"ErrWeaningEmptyLine", "PUT", base + "/settings", `{"weaning_age_of_dam":[{}]}`, "weaning_age_of_dam[0].min_days: is required"},
			{"ErrWeaningUnknownKey", "PUT", base + "/settings", `{"weaning_age_of_dam":[{"min_days":0,"max_days":10,"male_kg":1,"female_kg":1,"bull_kg":2}]}`,
				"weaning_age_of_dam[0].bull_kg: is not a known field"},
			{"ErrCalvingEaseGradeUnknownKey", "PUT", base + "/settings", `{"calving_ease_scale":[{"code":"1","label":"Easy","colour":"green"}]}`,
				"calving_ease_scale[0].colour: is not a known field"},
			{"ErrBreedingAgesUnknownKey", "PUT", base + "/settings", `{"minimum_breeding_age_days":{"female":300,"heifer":1}}`,
				"minimum_breeding_age_days.heifer: is not a known field"},
			{"ErrTimeZoneControl", "PUT", base + "/settings", `{"time_zone":"Europe/Paris\u0007"}`, "time_zone: must not contain control characters"},
			{"ErrGroupMemberNull", "POST", base + "/groups", `{"name":"Heifers","animal_ids":[null]}`, "animal_ids[0]: must not be null"},
			{"ErrGroupMemberControl", "POST", base + "/groups", `{"name":"Heifers","animal_ids":["` + animal + `\u0000"]}`, "animal_ids[0]: must not contain control characters"},
			{"ErrGroupNameTab", "POST", base + "/groups", `{"name":"Heif\ters"}`, "name: must not contain control characters"},
			{"ErrProtocolStepMissingOffset", "PUT", base + "/birth-history/protocol", `{"steps":[{"name":"Tag"}]}`, "steps[0].offset_days: is required"},
			{"ErrCalfNull", "POST", base + "/calvings", `{"dam_id":"` + animal + `","date":"2026-01-01","calves":[null]}`, "calves[0]: must not be null"},
			{"ErrCalfUnknownKey", "POST", base + "/calvings", `{"dam_id":"` + animal + `","date":"2026-01-01","calves":[{"sex":"FEMALE","status":"ALIVE","colour":"red"}]}`,
				"calves[0].colour: is not a known field"},
			{"ErrMetadataDeepControl", "POST", base + "/records", record(`{"name":"a","metadata":{"a":{"b":["ok","x\u0007"]}}}`),
				"record_items[0].metadata.a.b[1]: must not contain control characters other than tab and line breaks"},
			{"ErrMetadataKeyControl", "POST", base + "/records", record(`{"name":"a","metadata":{"a\nb":1}}`),
				"record_items[0].metadata: has a key that must not contain control characters"},
			{"ErrItemNameLineBreak", "POST", base + "/records", record(`{"name":"a\nb"}`), "record_items[0].name: must not contain control characters such as tabs or line breaks"},
			{"ErrWrongTypeNested", "POST", base + "/records", record(`{"name":["a"]}`), "record_items[0].name: must be a string"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := app.Do(tc.method, tc.path, u.Token, tc.body)
				herdbooktest.WantEnvelope(t, res, http.StatusBadRequest, "ValidationError", tc.want)
			})
		}
		t.Run("ErrBirthSettingsNestedBodiless", func(t *testing.T) {
			for _, body := range []string{
				`{"version":1,"species":"CATTLE","gestation_days":{"min":270,"max":295,"mode":1}}`,
				`{"version":1,"species":"CATTLE","gestation_days":{"max":295}}`,
				`{"version":1,"species":"CATTLE","gestation_days_by_breed":{"Angus":null}}`,
				`{"version":1,"species":"CATTLE","birth_windows":[null]}`,
				`{"version":1,"species":"CATTLE\u0000"}`,
			} {
				res := app.Do("PUT", base+"/birth-history/settings", u.Token, body)
				if res.Status != http.StatusBadRequest || len(res.Body) != 0 {
					t.Fatalf("%s: status %d, body %q", body, res.Status, res.Body)
				}
			}
		})
		t.Run("OKProseKeepsLineBreaks", func(t *testing.T) {
			res := app.Do("POST", base+"/records", u.Token, `{"animal_ids":["`+animal+`"],"name":"r","type":"HEALTH","applied_at":"2026-01-01T00:00:00Z","description":"line one\nline two\ttab","record_items":[{"name":"a","description":"x\r\ny","metadata":{"note":"a\nb"}}]}`)
			if res.Status != http.StatusCreated {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
		})
		t.Run("OKDoseBand", func(t *testing.T) {
			res := app.Do("POST", base+"/medicines", u.Token, medicine(`{"species":"CATTLE","dose":{"unit":"ml","min":0,"max":2},"withdrawal_meat_days":null,"withdrawal_milk_hours":1}`))
			if res.Status != http.StatusCreated {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
		})
		t.Run("NothingStored", func(t *testing.T) {
			res := app.Do("GET", base+"/settings", u.Token, nil)
			if res.Status != http.StatusOK || strings.Contains(string(res.Body), "min_days") {
				t.Fatalf("settings changed: %d %s", res.Status, res.Body)
			}
		})
	})
}

// TestFixedPathMethods: issue 33.5. GET or PUT …/animals/import was taken as the animal
// "import" (400 or 409); every method a fixed path lacks is now a 405 naming the methods it
// has in Allow (RFC 9110 §15.5.6), under both prefixes, while the wildcard routes next to it
// still answer.
func TestFixedPathMethods(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Fixed Paths")
		animal := app.MustAnimal(u, f.ID, "FP-1").ID.String()
		base := "/farm/" + f.ID.String()
		for _, tc := range []struct{ method, path, allow string }{
			{"GET", "/v1" + base + "/animals/import", "POST"},
			{"PUT", "/v1" + base + "/animals/import", "POST"},
			{"DELETE", "/api/v1" + base + "/animals/import", "POST"},
			{"PUT", "/v1" + base + "/breeding/import", "POST"},
			{"POST", "/v1" + base + "/animals.csv", "GET, HEAD"},
			{"PUT", "/v1" + base + "/records.csv", "GET, HEAD"},
			{"PATCH", "/v1" + base + "/settings", "GET, HEAD, PUT"},
			{"PATCH", "/v1" + base + "/animals", "GET, HEAD, POST"},
		} {
			t.Run(tc.method+tc.path, func(t *testing.T) {
				res := app.Do(tc.method, tc.path, u.Token, map[string]any{})
				herdbooktest.WantEnvelope(t, res, http.StatusMethodNotAllowed, "ServiceError", "not allowed")
				if got := res.Header.Get("Allow"); got != tc.allow {
					t.Fatalf("Allow %q, want %q", got, tc.allow)
				}
			})
		}
		t.Run("OKWildcardStillRoutes", func(t *testing.T) {
			if res := app.Do("GET", "/v1"+base+"/animals/"+animal, u.Token, nil); res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			res := app.Do("GET", "/v1"+base+"/animals/not-an-id", u.Token, nil)
			herdbooktest.WantEnvelope(t, res, http.StatusBadRequest, "ValidationError", "animal_id")
		})
		t.Run("ErrAnonymousStill405", func(t *testing.T) {
			res := app.Do("GET", "/v1"+base+"/animals/import", "", nil)
			if res.Status != http.StatusMethodNotAllowed {
				t.Fatalf("status %d", res.Status)
			}
		})
	})
}
