package rest_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func TestFarmSettings(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser(), app.MustUser()
		noScope := app.MustUser(herdbook.ScopeReadRecords)
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		app.MustMember(f.ID, noScope, herdbook.RoleOwner)
		other := app.MustFarm(stranger, "Other Farm")
		path := "/v1/farm/" + f.ID.String() + "/settings"

		t.Run("NoDefaults", func(t *testing.T) {
			got := app.Do("GET", path, reader.Token, nil).JSON(t)
			ages := got["minimum_breeding_age_days"].(map[string]any)
			for _, k := range []string{"time_zone", "withdrawal_rules", "minimum_calving_interval_days", "updated_at"} {
				if v, ok := got[k]; !ok || v != nil {
					t.Errorf("%s = %v (present %v), want null", k, v, ok)
				}
			}
			if got["organic"] != false || got["allow_test_tags"] != false || ages["female"] != nil || ages["male"] != nil {
				t.Fatalf("a new farm has settings: %v", got)
			}
		})
		t.Run("Auth", func(t *testing.T) {
			if res := app.Do("GET", path, "", nil); res.Status != http.StatusUnauthorized {
				t.Fatalf("anonymous: %d", res.Status)
			}
			herdbooktest.WantEnvelope(t, app.Do("GET", path, noScope.Token, nil), http.StatusForbidden, "ForbiddenError", "read:farms")
			herdbooktest.WantEnvelope(t, app.Do("GET", path, stranger.Token, nil), http.StatusNotFound, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("PUT", "/v1/farm/"+other.ID.String()+"/settings", owner.Token, `{"organic":true}`), http.StatusNotFound, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+uuid.NewString()+"/settings", owner.Token, nil), http.StatusNotFound, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/nope/settings", owner.Token, nil), http.StatusBadRequest, "ValidationError", "farm_id")
			// The settings decide which histories and withdrawals hold: only the OWNER sets them.
			herdbooktest.WantEnvelope(t, app.Do("PUT", path, editor.Token, `{"organic":true}`), http.StatusUnauthorized, "Unauthorized", "OWNER")
			herdbooktest.WantEnvelope(t, app.Do("PUT", path, reader.Token, `{"organic":true}`), http.StatusUnauthorized, "Unauthorized", "OWNER")
		})
		t.Run("ErrInput", func(t *testing.T) {
			for _, c := range []struct{ name, body, field string }{
				{"Malformed", `{"organic":`, ""},
				{"NotObject", `[1]`, ""},
				{"UnknownField", `{"timezone":"Europe/London"}`, "timezone"},
				{"Zone", `{"time_zone":"Europe/Atlantis"}`, "time_zone"},
				{"ZoneLocal", `{"time_zone":"Local"}`, "time_zone"},
				{"ZoneType", `{"time_zone":1}`, "time_zone"},
				{"Rules", `{"withdrawal_rules":"uk"}`, "withdrawal_rules"},
				{"OrganicNull", `{"organic":null}`, "organic"},
				{"OrganicType", `{"organic":"yes"}`, "organic"},
				{"AgeZero", `{"minimum_breeding_age_days":{"female":0}}`, "minimum_breeding_age_days.female"},
				{"AgeHigh", `{"minimum_breeding_age_days":{"male":3651}}`, "minimum_breeding_age_days.male"},
				{"AgeType", `{"minimum_breeding_age_days":{"male":"450"}}`, "male"},
				{"AgeFraction", `{"minimum_breeding_age_days":{"male":450.5}}`, "male"},
				{"AgeUnknown", `{"minimum_breeding_age_days":{"cow":450}}`, "cow"},
				{"Interval", `{"minimum_calving_interval_days":-3}`, "minimum_calving_interval_days"},
				{"IntervalHigh", `{"minimum_calving_interval_days":1001}`, "minimum_calving_interval_days"},
			} {
				t.Run(c.name, func(t *testing.T) {
					herdbooktest.WantEnvelope(t, app.Do("PUT", path, owner.Token, c.body), http.StatusBadRequest, "ValidationError", c.field)
				})
			}
			// Nothing was written by the refused bodies.
			if got := app.Do("GET", path, owner.Token, nil).JSON(t); got["updated_at"] != nil {
				t.Fatalf("a refused body changed the settings: %v", got)
			}
		})
		t.Run("Patch", func(t *testing.T) {
			got := app.Do("PUT", path, owner.Token, `{"time_zone":"Europe/London","withdrawal_rules":"gb_vmr_2013","minimum_breeding_age_days":{"female":450},"minimum_calving_interval_days":300}`).JSON(t)
			if got["time_zone"] != "Europe/London" || got["withdrawal_rules"] != "gb_vmr_2013" || got["minimum_calving_interval_days"] != 300.0 || got["updated_at"] == nil {
				t.Fatalf("after PUT: %v", got)
			}
			stamp := got["updated_at"]
			// Left out stays; null unsets; a patch that changes nothing writes nothing.
			got = app.Do("PUT", path, owner.Token, `{"minimum_breeding_age_days":{"male":365}}`).JSON(t)
			ages := got["minimum_breeding_age_days"].(map[string]any)
			if ages["female"] != 450.0 || ages["male"] != 365.0 || got["time_zone"] != "Europe/London" {
				t.Fatalf("patch lost fields: %v", got)
			}
			stamp = got["updated_at"]
			if again := app.Do("PUT", path, owner.Token, `{"time_zone":"Europe/London"}`).JSON(t); again["updated_at"] != stamp {
				t.Fatalf("a no-op PUT moved updated_at: %v -> %v", stamp, again["updated_at"])
			}
			got = app.Do("PUT", path, owner.Token, `{"time_zone":null,"minimum_breeding_age_days":{"female":null},"organic":true}`).JSON(t)
			ages = got["minimum_breeding_age_days"].(map[string]any)
			if got["time_zone"] != nil || ages["female"] != nil || ages["male"] != 365.0 || got["organic"] != true {
				t.Fatalf("null did not unset: %v", got)
			}
			if got := app.Do("PUT", path, owner.Token, `{"minimum_breeding_age_days":null}`).JSON(t); got["minimum_breeding_age_days"].(map[string]any)["male"] != nil {
				t.Fatalf("null ages kept a limit: %v", got)
			}
			// Another farm's settings are its own.
			if o := app.Do("GET", "/v1/farm/"+other.ID.String()+"/settings", stranger.Token, nil).JSON(t); o["organic"] != false {
				t.Fatalf("settings leaked across farms: %v", o)
			}
		})
		t.Run("GraphQL", func(t *testing.T) {
			q := `mutation($in: FarmSettingsUpdateInput!) { farmSettingsUpdate(input: $in) { settings { timeZone withdrawalRules organic allowTestTags minimumBreedingAgeDays { female male } minimumCalvingIntervalDays } } }`
			res := app.GraphQL(owner.Token, q, map[string]any{"in": map[string]any{"farmID": f.ID.String(), "timeZone": "Europe/Oslo", "withdrawalRules": "EU_2019_6", "minimumBreedingAgeFemaleDays": 400, "allowTestTags": true}})
			s := res["data"].(map[string]any)["farmSettingsUpdate"].(map[string]any)["settings"].(map[string]any)
			if s["timeZone"] != "Europe/Oslo" || s["withdrawalRules"] != "EU_2019_6" || s["allowTestTags"] != true ||
				s["minimumBreedingAgeDays"].(map[string]any)["female"] != 400.0 {
				t.Fatalf("farmSettingsUpdate: %v", res)
			}
			if got := app.Do("GET", path, reader.Token, nil).JSON(t); got["withdrawal_rules"] != "eu_2019_6" || got["time_zone"] != "Europe/Oslo" {
				t.Fatalf("REST after GraphQL: %v", got)
			}
			res = app.GraphQL(reader.Token, `query($id: ID!) { farm(id: $id) { settings { timeZone organic } } }`, map[string]any{"id": f.ID.String()})
			if res["data"].(map[string]any)["farm"].(map[string]any)["settings"].(map[string]any)["timeZone"] != "Europe/Oslo" {
				t.Fatalf("Farm.settings: %v", res)
			}
			res = app.GraphQL(owner.Token, q, map[string]any{"in": map[string]any{"farmID": f.ID.String(), "timeZone": "Mars/Olympus"}})
			if res["errors"] == nil {
				t.Fatalf("a bad zone was taken: %v", res)
			}
			res = app.GraphQL(editor.Token, q, map[string]any{"in": map[string]any{"farmID": f.ID.String(), "organic": false}})
			if res["errors"] == nil {
				t.Fatalf("an EDITOR changed the settings: %v", res)
			}
		})
	})
}
