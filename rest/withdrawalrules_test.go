package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// putSettings patches a farm's settings, failing unless it is a 200.
func putSettings(t *testing.T, app *herdbooktest.App, farm uuid.UUID, token string, body map[string]any) {
	t.Helper()
	if res := app.Do("PUT", "/v1/farm/"+farm.String()+"/settings", token, body); res.Status != http.StatusOK {
		t.Fatalf("settings: %d %s", res.Status, res.Body)
	}
}

// withdrawalOf reads one animal's withdrawal entry (and its first treatment) as of a day.
func withdrawalOf(t *testing.T, app *herdbooktest.App, farm uuid.UUID, token, animal, asOf string) (map[string]any, map[string]any) {
	t.Helper()
	body := app.Do("GET", "/v1/farm/"+farm.String()+"/withdrawals?as_of="+asOf, token, nil).JSON(t)
	for _, r := range body["records"].([]any) {
		a := r.(map[string]any)
		if a["animal_id"] == animal {
			ts := a["treatments"].([]any)
			return a, ts[len(ts)-1].(map[string]any)
		}
	}
	t.Fatalf("animal %s is not under withdrawal on %s: %v", animal, asOf, body)
	return nil, nil
}

// TestWithdrawalTimeZone: a farm's bare dates are its local days. Until the farm has a time
// zone a bare-date treatment is refused naming time_zone; then a tubing written as a bare
// date on Saturday 24 October 2026 in Europe/London (clocks back at 01:00 UTC on the 25th)
// with a 36-hour milk period clears at the end of that local day (23:00Z) plus 36 elapsed
// hours: 2026-10-26T11:00Z.
func TestWithdrawalTimeZone(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Hill Farm")
		cow := app.MustAnimal(owner, f.ID, "UK301")
		med := mustCreate(t, app, "/v1/farm/"+f.ID.String()+"/medicines", owner.Token,
			map[string]any{"name": "Tube", "withdrawal_meat_days": 2, "withdrawal_milk_hours": 36})
		treat := map[string]any{"kind": "treatment", "medicine_id": med["id"], "animal_id": cow.ID.String(), "date": "2026-10-24"}
		herdbooktest.WantEnvelope(t, fact(app, f.ID, owner.Token, []string{cow.ID.String()}, treat, false),
			http.StatusBadRequest, "ValidationError", "time_zone: must be set in the farm settings before a treatment is dated with a bare date (record_items[0].metadata.birth_history.date")
		// A date-time needs no zone.
		withHour := map[string]any{"kind": "treatment", "medicine_id": med["id"], "animal_id": cow.ID.String(), "date": "2026-10-24T18:00:00+01:00"}
		if res := fact(app, f.ID, owner.Token, []string{cow.ID.String()}, withHour, false); res.Status != http.StatusCreated {
			t.Fatalf("date-time treatment: %d %s", res.Status, res.Body)
		}
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "Europe/London"})
		if res := fact(app, f.ID, owner.Token, []string{cow.ID.String()}, treat, false); res.Status != http.StatusCreated {
			t.Fatalf("bare-date treatment: %d %s", res.Status, res.Body)
		}
		a, _ := withdrawalOf(t, app, f.ID, owner.Token, cow.ID.String(), "2026-10-26")
		if a["milk_clear_at"] != "2026-10-26T11:00:00Z" || a["meat_clear_on"] != "2026-10-26" {
			t.Fatalf("withdrawal = %v, want milk clear at 2026-10-26T11:00:00Z and meat on 2026-10-26", a)
		}
		// The date-time treatment alone cleared at 2026-10-26T05:00Z (17:00Z + 36 h): the bare
		// date is the later and decides.
		ts := a["treatments"].([]any)
		if len(ts) != 2 || ts[1].(map[string]any)["date"] != "2026-10-24T18:00:00+01:00" || ts[1].(map[string]any)["milk_clear_at"] != "2026-10-26T05:00:00Z" {
			t.Fatalf("treatments = %v", ts)
		}
		// The milk is not clear for the whole of 26 October, and is for the 27th.
		body := app.Do("GET", "/v1/farm/"+f.ID.String()+"/withdrawals?as_of=2026-10-27", owner.Token, nil).JSON(t)
		if body["total"].(float64) != 0 {
			t.Fatalf("withdrawals on 2026-10-27: %v", body)
		}
		// A later change of the farm's zone does not rewrite the recorded treatment.
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "America/New_York"})
		if a, _ := withdrawalOf(t, app, f.ID, owner.Token, cow.ID.String(), "2026-10-26"); a["milk_clear_at"] != "2026-10-26T11:00:00Z" {
			t.Fatalf("after a zone change: %v", a)
		}
		// The book shows the stamp.
		book := app.Do("GET", "/v1/farm/"+f.ID.String()+"/medicine-book.csv", owner.Token, nil)
		if !strings.Contains(string(book.Body), "2026-10-26T11:00:00Z") {
			t.Fatalf("book: %s", book.Body)
		}
	})
}

// TestCourseInFarmZone: a course's withdrawal runs from its last administration, read in the
// farm's zone like the date. A bare-date last administration needs the farm's time zone (400
// naming time_zone, even when the first administration is a date-time); in Europe/London a
// course from 22 October 2026 08:00 BST to the bare 24 October with 2 meat days and 36 milk
// hours clears milk at the end of the 24th (23:00Z) plus 36 elapsed hours, 2026-10-26T11:00Z,
// and meat on the 26th.
func TestCourseInFarmZone(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Course Farm")
		cow := app.MustAnimal(owner, f.ID, "UK302")
		med := mustCreate(t, app, "/v1/farm/"+f.ID.String()+"/medicines", owner.Token,
			map[string]any{"name": "Tube", "withdrawal_meat_days": 2, "withdrawal_milk_hours": 36})
		course := map[string]any{"kind": "treatment", "medicine_id": med["id"], "animal_id": cow.ID.String(),
			"date": "2026-10-22T08:00:00+01:00", "last_administration": "2026-10-24"}
		herdbooktest.WantEnvelope(t, fact(app, f.ID, owner.Token, []string{cow.ID.String()}, course, false),
			http.StatusBadRequest, "ValidationError", "time_zone: must be set in the farm settings before a course's last administration is dated with a bare date (record_items[0].metadata.birth_history.last_administration")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "Europe/London"})
		if res := fact(app, f.ID, owner.Token, []string{cow.ID.String()}, course, false); res.Status != http.StatusCreated {
			t.Fatalf("course: %d %s", res.Status, res.Body)
		}
		a, _ := withdrawalOf(t, app, f.ID, owner.Token, cow.ID.String(), "2026-10-25")
		if a["milk_clear_at"] != "2026-10-26T11:00:00Z" || a["meat_clear_on"] != "2026-10-26" {
			t.Fatalf("withdrawal = %v, want milk clear at 2026-10-26T11:00:00Z and meat on 2026-10-26", a)
		}
	})
}

// TestWithdrawalCascade: a sheep-only product (28 days meat for sheep; a dash for milk and
// for every other species) given to a bull on a cattle farm is off-label. Until the farm names
// its rule set it is refused naming withdrawal_rules; under gb_vmr_2013 (Sch. 4 para 2(3)) and
// eu_2019_6 (Art. 115(1)) it gets 1.5 × 28 = 42 days of meat and 7 days = 168 hours of milk.
// An organic farm doubles both (EU 2018/848).
func TestWithdrawalCascade(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Hill Farm") // CATTLE
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "Europe/London"})
		base := "/v1/farm/" + f.ID.String() + "/medicines"
		sheepOnly := mustCreate(t, app, base, owner.Token, map[string]any{"name": "Sheep drench",
			"withdrawal_meat_days": nil, "withdrawal_milk_hours": nil,
			"species_withdrawals": []any{map[string]any{"species": "SHEEP", "withdrawal_meat_days": 28, "withdrawal_milk_hours": nil}}})
		if sheepOnly["withdrawal_meat_days"] != nil || sheepOnly["species_withdrawals"].([]any)[0].(map[string]any)["withdrawal_milk_hours"] != nil {
			t.Fatalf("a dash must read back as null: %v", sheepOnly)
		}
		n := 0
		treatBull := func(extra map[string]any) herdbooktest.Response {
			n++
			bull := app.MustAnimal(owner, f.ID, fmt.Sprint("BULL-", n))
			tr := map[string]any{"kind": "treatment", "medicine_id": sheepOnly["id"], "animal_id": bull.ID.String(), "date": "2026-05-01"}
			for k, v := range extra {
				tr[k] = v
			}
			res := fact(app, f.ID, owner.Token, []string{bull.ID.String()}, tr, false)
			res.Header.Set("X-Animal", bull.ID.String())
			return res
		}
		herdbooktest.WantEnvelope(t, treatBull(nil), http.StatusBadRequest, "ValidationError", "withdrawal_rules: must be set in the farm settings")
		for _, rules := range []struct{ name, meat, milk string }{
			{"gb_vmr_2013", "gb_vmr_2013 Sch. 4 para 2(3)(c)(i)", "gb_vmr_2013 Sch. 4 para 2(3)(b)(ii)"},
			{"eu_2019_6", "eu_2019_6 Art. 115(1)(a)(i)", "eu_2019_6 Art. 115(1)(b)(ii)"},
		} {
			t.Run(rules.name, func(t *testing.T) {
				putSettings(t, app, f.ID, owner.Token, map[string]any{"withdrawal_rules": rules.name})
				res := treatBull(nil)
				if res.Status != http.StatusCreated {
					t.Fatalf("off-label treatment: %d %s", res.Status, res.Body)
				}
				_, tr := withdrawalOf(t, app, f.ID, owner.Token, res.Header.Get("X-Animal"), "2026-05-02")
				if tr["withdrawal_meat_days"] != float64(42) || tr["withdrawal_milk_hours"] != float64(168) || tr["off_label"] != true ||
					!strings.HasPrefix(tr["meat_rule"].(string), rules.meat) || !strings.HasPrefix(tr["milk_rule"].(string), rules.milk) {
					t.Fatalf("treatment = %v", tr)
				}
				// 2026-05-01 + 42 days = 2026-06-12.
				if tr["meat_clear_on"] != "2026-06-12" {
					t.Fatalf("meat_clear_on = %v", tr["meat_clear_on"])
				}
			})
		}
		t.Run("VetLongerPeriod", func(t *testing.T) {
			res := treatBull(map[string]any{"withdrawal_meat_days": 60})
			if res.Status != http.StatusCreated {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			_, tr := withdrawalOf(t, app, f.ID, owner.Token, res.Header.Get("X-Animal"), "2026-05-02")
			if tr["withdrawal_meat_days"] != float64(60) || tr["meat_rule"] != "vet" {
				t.Fatalf("treatment = %v", tr)
			}
			herdbooktest.WantEnvelope(t, treatBull(map[string]any{"withdrawal_meat_days": 30}), http.StatusBadRequest, "ValidationError",
				"withdrawal_meat_days: must not be shorter than the 42 days of Sheep drench (version 1) that apply: the statutory minimum, eu_2019_6 Art. 115(1)(a)(i)")
		})
		t.Run("Organic", func(t *testing.T) {
			putSettings(t, app, f.ID, owner.Token, map[string]any{"organic": true})
			defer putSettings(t, app, f.ID, owner.Token, map[string]any{"organic": false})
			res := treatBull(nil)
			if res.Status != http.StatusCreated {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			_, tr := withdrawalOf(t, app, f.ID, owner.Token, res.Header.Get("X-Animal"), "2026-05-02")
			if tr["withdrawal_meat_days"] != float64(84) || tr["withdrawal_milk_hours"] != float64(336) || !strings.Contains(tr["milk_rule"].(string), "organic") {
				t.Fatalf("treatment = %v", tr)
			}
		})
		t.Run("StampsAreNotSent", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, treatBull(map[string]any{"withdrawal_rules": "gb_vmr_2013"}), http.StatusBadRequest, "ValidationError",
				"withdrawal_rules: is stamped from the farm settings")
		})
		t.Run("VetMarksOffLabel", func(t *testing.T) {
			cattle := mustCreate(t, app, base, owner.Token, map[string]any{"name": "Zero", "withdrawal_meat_days": 0, "withdrawal_milk_hours": 0})
			cow := app.MustAnimal(owner, f.ID, "COW-0")
			tr := map[string]any{"kind": "treatment", "medicine_id": cattle["id"], "animal_id": cow.ID.String(), "date": "2026-05-01", "off_label": true}
			if res := fact(app, f.ID, owner.Token, []string{cow.ID.String()}, tr, false); res.Status != http.StatusCreated {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			// Zero on the label: 1 day of milk (Art. 115(1)(b)(iii)), 1.5 × 0 = 0 days of meat.
			_, got := withdrawalOf(t, app, f.ID, owner.Token, cow.ID.String(), "2026-05-02")
			if got["withdrawal_milk_hours"] != float64(24) || got["withdrawal_meat_days"] != float64(0) || got["off_label"] != true {
				t.Fatalf("treatment = %v", got)
			}
			tr["off_label"] = "yes"
			herdbooktest.WantEnvelope(t, fact(app, f.ID, owner.Token, []string{cow.ID.String()}, tr, false), http.StatusBadRequest, "ValidationError", "off_label: must be true or false")
		})
	})
}

// TestWithdrawalLabelLines: periods by route (IV 10 days, IM 31 days) and by dose band
// (10-20 mg/kg 28 days, 25-30 mg/kg 35 days), and a dash for lactating cows.
func TestWithdrawalLabelLines(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Hill Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "Europe/London", "withdrawal_rules": "gb_vmr_2013"})
		base := "/v1/farm/" + f.ID.String() + "/medicines"
		byRoute := mustCreate(t, app, base, owner.Token, map[string]any{"name": "Routes", "withdrawal_meat_days": nil, "withdrawal_milk_hours": nil,
			"species_withdrawals": []any{
				map[string]any{"species": "CATTLE", "route": "intravenous", "withdrawal_meat_days": 10, "withdrawal_milk_hours": 48},
				map[string]any{"species": "CATTLE", "route": "intramuscular", "withdrawal_meat_days": 31, "withdrawal_milk_hours": 84},
			}})
		byDose := mustCreate(t, app, base, owner.Token, map[string]any{"name": "Doses", "withdrawal_meat_days": nil, "withdrawal_milk_hours": nil,
			"species_withdrawals": []any{
				map[string]any{"species": "CATTLE", "dose": map[string]any{"unit": "mg/kg", "min": 10, "max": 20}, "withdrawal_meat_days": 28, "withdrawal_milk_hours": 72},
				map[string]any{"species": "CATTLE", "dose": map[string]any{"unit": "mg/kg", "min": 25, "max": 30}, "withdrawal_meat_days": 35, "withdrawal_milk_hours": 96},
			}})
		dash := mustCreate(t, app, base, owner.Token, map[string]any{"name": "Not in milk", "withdrawal_meat_days": nil, "withdrawal_milk_hours": nil,
			"species_withdrawals": []any{map[string]any{"species": "CATTLE", "withdrawal_meat_days": 14, "withdrawal_milk_hours": nil}}})
		n := 0
		for _, c := range []struct {
			name       string
			med        map[string]any
			extra      map[string]any
			meat, milk float64
			offLabel   bool
			err        string
		}{
			{"IV", byRoute, map[string]any{"route": "intravenous"}, 10, 48, false, ""},
			{"IM", byRoute, map[string]any{"route": "Intramuscular"}, 31, 84, false, ""},
			// 1.5 × 31 = 46.5 → 47 days; 1.5 × 84 = 126 hours (VMR Sch. 4 para 2(3)).
			{"RouteNotOnLabel", byRoute, map[string]any{"route": "subcutaneous"}, 47, 126, true, ""},
			{"RouteMissing", byRoute, nil, 0, 0, false, "birth_history.route: the label gives periods per route (intramuscular, intravenous): name the route"},
			{"Dose20", byDose, map[string]any{"dose": 20, "unit": "mg/kg"}, 28, 72, false, ""},
			{"Dose30", byDose, map[string]any{"dose": 30, "unit": "mg/kg"}, 35, 96, false, ""},
			// 1.5 × 35 = 52.5 → 53 days; 1.5 × 96 = 144 hours.
			{"DoseOutsideBands", byDose, map[string]any{"dose": 40, "unit": "mg/kg"}, 53, 144, true, ""},
			{"DoseInMl", byDose, map[string]any{"dose": 20, "unit": "ml"}, 0, 0, false, "birth_history.dose: the label gives periods per dose in mg/kg"},
			// The dash for lactating cows: meat as labelled, milk 7 days (b)(ii).
			{"DashForMilk", dash, nil, 14, 168, true, ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				n++
				cow := app.MustAnimal(owner, f.ID, fmt.Sprint("LINE-", n))
				tr := map[string]any{"kind": "treatment", "medicine_id": c.med["id"], "animal_id": cow.ID.String(), "date": "2026-05-01"}
				for k, v := range c.extra {
					tr[k] = v
				}
				res := fact(app, f.ID, owner.Token, []string{cow.ID.String()}, tr, false)
				if c.err != "" {
					herdbooktest.WantEnvelope(t, res, http.StatusBadRequest, "ValidationError", c.err)
					return
				}
				if res.Status != http.StatusCreated {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
				_, got := withdrawalOf(t, app, f.ID, owner.Token, cow.ID.String(), "2026-05-02")
				if got["withdrawal_meat_days"] != c.meat || got["withdrawal_milk_hours"] != c.milk || got["off_label"] != c.offLabel {
					t.Fatalf("treatment = %v, want %v days, %v hours, off-label %v", got, c.meat, c.milk, c.offLabel)
				}
			})
		}
	})
}

// TestMedicineLabelInput: what a label body may say, and the field each refusal names.
func TestMedicineLabelInput(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, stranger := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Hill Farm")
		other := app.MustFarm(stranger, "Other")
		base := "/v1/farm/" + f.ID.String() + "/medicines"
		for _, c := range []struct{ name, body, want string }{
			{"MeatLeftOut", `{"name":"X","withdrawal_milk_hours":null}`, "withdrawal_meat_days: is required"},
			{"MilkLeftOut", `{"name":"X","withdrawal_meat_days":null}`, "withdrawal_milk_hours: is required"},
			{"MeatText", `{"name":"X","withdrawal_meat_days":"-","withdrawal_milk_hours":0}`, "withdrawal_meat_days"},
			{"MeatNegative", `{"name":"X","withdrawal_meat_days":-1,"withdrawal_milk_hours":0}`, "withdrawal_meat_days: must be between 0 and 3650, or null"},
			{"LineMilkTooLong", `{"name":"X","withdrawal_meat_days":0,"withdrawal_milk_hours":0,"species_withdrawals":[{"species":"CATTLE","withdrawal_meat_days":1,"withdrawal_milk_hours":87601}]}`, "species_withdrawals[0].withdrawal_milk_hours: must be between 0 and 87600"},
			{"BlankRoute", `{"name":"X","withdrawal_meat_days":0,"withdrawal_milk_hours":0,"species_withdrawals":[{"species":"CATTLE","route":" ","withdrawal_meat_days":1,"withdrawal_milk_hours":1}]}`, "species_withdrawals[0].route"},
			{"BandUpsideDown", `{"name":"X","withdrawal_meat_days":0,"withdrawal_milk_hours":0,"species_withdrawals":[{"species":"CATTLE","dose":{"unit":"mg/kg","min":30,"max":20},"withdrawal_meat_days":1,"withdrawal_milk_hours":1}]}`, "species_withdrawals[0].dose.max: must be at least dose.min"},
			{"BandNoUnit", `{"name":"X","withdrawal_meat_days":0,"withdrawal_milk_hours":0,"species_withdrawals":[{"species":"CATTLE","dose":{"unit":"","min":1,"max":2},"withdrawal_meat_days":1,"withdrawal_milk_hours":1}]}`, "species_withdrawals[0].dose.unit"},
			{"BandsOverlap", `{"name":"X","withdrawal_meat_days":0,"withdrawal_milk_hours":0,"species_withdrawals":[{"species":"CATTLE","dose":{"unit":"mg/kg","min":10,"max":20},"withdrawal_meat_days":1,"withdrawal_milk_hours":1},{"species":"CATTLE","dose":{"unit":"MG/KG","min":20,"max":30},"withdrawal_meat_days":2,"withdrawal_milk_hours":1}]}`, "species_withdrawals[1]: must not give cattle by the same route and dose as species_withdrawals[0]"},
			{"DryCowNull", `{"name":"X","withdrawal_meat_days":0,"withdrawal_milk_hours":0,"dry_cow":null}`, "dry_cow: may be left out but not null"},
			{"DryCowText", `{"name":"X","withdrawal_meat_days":0,"withdrawal_milk_hours":0,"dry_cow":"yes"}`, "dry_cow"},
			{"Malformed", `{"name":"X","withdrawal_meat_days":0,`, ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := app.Do("POST", base, owner.Token, c.body)
				herdbooktest.WantEnvelope(t, res, http.StatusBadRequest, "ValidationError", c.want)
			})
		}
		ok := mustCreate(t, app, base, owner.Token, map[string]any{"name": "Dry tube", "withdrawal_meat_days": 0, "withdrawal_milk_hours": 96, "dry_cow": true,
			"species_withdrawals": []any{map[string]any{"species": "CATTLE", "route": "intramammary", "withdrawal_meat_days": 28, "withdrawal_milk_hours": 96}}})
		if ok["dry_cow"] != true || ok["withdrawal_meat_days"] != float64(0) {
			t.Fatalf("medicine = %v", ok)
		}
		path := base + "/" + ok["id"].(string)
		// A dash is a change of the label: a new version; 0 stays 0.
		res := app.Do("PUT", path, owner.Token, map[string]any{"withdrawal_meat_days": nil})
		if res.Status != http.StatusOK || res.JSON(t)["withdrawal_meat_days"] != nil || res.JSON(t)["version"] != float64(2) || res.JSON(t)["withdrawal_milk_hours"] != float64(96) {
			t.Fatalf("update: %d %s", res.Status, res.Body)
		}
		res = app.Do("PUT", path, owner.Token, map[string]any{"dry_cow": false})
		if res.Status != http.StatusOK || res.JSON(t)["version"] != float64(3) {
			t.Fatalf("update: %d %s", res.Status, res.Body)
		}
		herdbooktest.WantEnvelope(t, app.Do("PUT", base+"/"+uuid.NewString(), owner.Token, map[string]any{"dry_cow": true}), http.StatusNotFound, "ServiceError", "")
		herdbooktest.WantEnvelope(t, app.Do("PUT", "/v1/farm/"+other.ID.String()+"/medicines/"+ok["id"].(string), stranger.Token, map[string]any{"dry_cow": true}), http.StatusNotFound, "ServiceError", "")
		if res := app.Do("PUT", path, "", map[string]any{"dry_cow": true}); res.Status != http.StatusUnauthorized {
			t.Fatalf("anonymous: %d", res.Status)
		}
	})
}

// TestWithdrawalDryCow: a dry-cow product's milk period counts from calving (its label says
// so): until the cow calves her milk is withheld (milk_clear_at null, milk_until_calving);
// she calves on 2026-03-20 in Europe/London (GMT), so 96 hours after the end of that day is
// 2026-03-25T00:00Z.
func TestWithdrawalDryCow(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Hill Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "Europe/London"})
		cow := app.MustAnimal(owner, f.ID, "UK401")
		tube := mustCreate(t, app, "/v1/farm/"+f.ID.String()+"/medicines", owner.Token, map[string]any{"name": "Dry tube", "dry_cow": true,
			"withdrawal_meat_days": nil, "withdrawal_milk_hours": nil,
			"species_withdrawals": []any{map[string]any{"species": "CATTLE", "withdrawal_meat_days": 28, "withdrawal_milk_hours": 96}}})
		tr := map[string]any{"kind": "treatment", "medicine_id": tube["id"], "animal_id": cow.ID.String(), "date": "2026-01-10", "route": "intramammary"}
		if res := fact(app, f.ID, owner.Token, []string{cow.ID.String()}, tr, false); res.Status != http.StatusCreated {
			t.Fatalf("treatment: %d %s", res.Status, res.Body)
		}
		a, got := withdrawalOf(t, app, f.ID, owner.Token, cow.ID.String(), "2026-03-19")
		if a["milk_clear_at"] != nil || a["milk_until_calving"] != true || got["milk_until_calving"] != true || a["meat_clear_on"] != "2026-02-07" {
			t.Fatalf("before calving: %v", a)
		}
		birth := map[string]any{"kind": "birth", "dam_id": cow.ID.String(), "date": "2026-03-20"}
		if res := fact(app, f.ID, owner.Token, []string{cow.ID.String()}, birth, false); res.Status != http.StatusCreated {
			t.Fatalf("birth: %d %s", res.Status, res.Body)
		}
		a, _ = withdrawalOf(t, app, f.ID, owner.Token, cow.ID.String(), "2026-03-22")
		if a["milk_clear_at"] != "2026-03-25T00:00:00Z" || a["milk_until_calving"] != false {
			t.Fatalf("after calving: %v", a)
		}
		// As of the day before the calving, the milk still waits for it.
		if a, _ = withdrawalOf(t, app, f.ID, owner.Token, cow.ID.String(), "2026-03-19"); a["milk_until_calving"] != true {
			t.Fatalf("as of 2026-03-19: %v", a)
		}
		// The animal's profile says the same.
		p := app.Do("GET", "/v1/farm/"+f.ID.String()+"/animals/"+cow.ID.String()+"?as_of=2026-03-22", owner.Token, nil).JSON(t)
		w := p["profile"].(map[string]any)["withdrawal"].(map[string]any)
		if w["milk_clear_at"] != "2026-03-25T00:00:00Z" || w["milk_until_calving"] != false {
			t.Fatalf("profile withdrawal: %v", w)
		}
	})
}
