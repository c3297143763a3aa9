package rest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// The due list (issue 21.3): expected calving from the service that fits a positive scan
// (service date + gestation), else from the foetal age (check date − foetal age +
// gestation), ordered by expected date, paged, as CSV, in constant statements.
func TestDueList(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app := b.app
		if res := app.Do("PUT", b.base+"/birth-history/settings", b.owner.Token, cattleSettings); res.Status != 200 {
			t.Fatalf("settings: %d %s", res.Status, res.Body)
		}
		farm := uuid.MustParse(b.farm)
		cow := func(tag string) string {
			id := app.MustAnimal(b.owner, farm, tag).ID.String()
			b.facts(t, map[string]any{"kind": "profile", "animal_id": id, "sex": "female", "birth_date": "2020-04-01"})
			return id
		}
		served, aged, empty := cow("C-SERVED"), cow("C-AGED"), cow("C-EMPTY")
		b.facts(t,
			// Served 2025-07-08, scanned in calf: due 2025-07-08 + 279..292 = 2026-04-13..2026-04-26.
			map[string]any{"kind": "insemination", "dam_id": served, "sire_id": b.bull, "date": "2025-07-08", "straw": "S-1"},
			map[string]any{"kind": "pregnancy_check", "animal_id": served, "date": "2025-09-01", "method": "scan", "result": "pregnant"},
			// No service: a foetal age of 60 days on 2025-08-01 dates conception on 2025-06-02,
			// so due 2026-03-08..2026-03-21.
			map[string]any{"kind": "pregnancy_check", "animal_id": aged, "date": "2025-08-01", "method": "palpation", "result": "pregnant", "foetal_age_days": 60},
			map[string]any{"kind": "pregnancy_check", "animal_id": empty, "date": "2025-08-01", "method": "blood", "result": "empty"},
		)
		base := b.base + "/due"
		res := app.Do("GET", base, b.reader.Token, nil)
		if res.Status != 200 {
			t.Fatalf("due: %d %s", res.Status, res.Body)
		}
		body := res.JSON(t)
		rows := body["records"].([]any)
		if body["total"] != float64(2) || len(rows) != 2 {
			t.Fatalf("due = %s", res.Body)
		}
		first, second := rows[0].(map[string]any), rows[1].(map[string]any)
		if first["animal_id"] != aged || first["basis"] != "foetal_age" || first["expected_from"] != "2026-03-08" || first["expected_to"] != "2026-03-21" {
			t.Fatalf("first = %v", first)
		}
		if second["animal_id"] != served || second["basis"] != "service" || second["service_date"] != "2025-07-08" ||
			second["sire_id"] != b.bull || second["expected_from"] != "2026-04-13" || second["expected_to"] != "2026-04-26" || second["expected_date"] != "2026-04-19" {
			t.Fatalf("second = %v", second)
		}
		if res := app.Do("GET", base+"?skip=1&take=1", b.reader.Token, nil); res.Status != 200 || len(res.JSON(t)["records"].([]any)) != 1 {
			t.Fatalf("page: %d %s", res.Status, res.Body)
		}
		csv := app.Do("GET", b.base+"/due.csv", b.reader.Token, nil)
		if csv.Status != 200 || !strings.HasPrefix(string(csv.Body), "animal_id,expected_date") || strings.Count(string(csv.Body), "\n") != 3 {
			t.Fatalf("due.csv: %d %s", csv.Status, csv.Body)
		}
		// After the calving she is no longer due.
		b.facts(t, map[string]any{"kind": "birth", "dam_id": aged, "date": "2026-03-15"})
		if res := app.Do("GET", base, b.reader.Token, nil); res.JSON(t)["total"] != float64(1) {
			t.Fatalf("after calving: %s", res.Body)
		}

		t.Run("Errors", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"?skip=-1", b.reader.Token, nil), 400, "ValidationError", "skip")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"?take=x", b.reader.Token, nil), 400, "ValidationError", "take")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/nope/due", b.reader.Token, nil), 400, "ValidationError", "farm_id")
			if res := app.Do("GET", base, "", nil); res.Status != 401 {
				t.Fatalf("no auth: %d", res.Status)
			}
			stranger := app.MustUser()
			if res := app.Do("GET", base, stranger.Token, nil); res.Status != 404 {
				t.Fatalf("a stranger: %d", res.Status)
			}
			if res := app.Do("GET", "/v1/farm/"+uuid.NewString()+"/due.csv", b.owner.Token, nil); res.Status != 404 {
				t.Fatalf("unknown farm: %d", res.Status)
			}
		})

		t.Run("Statements", func(t *testing.T) {
			count := func() int64 {
				return app.Queries(func() {
					if res := app.Do("GET", base, b.reader.Token, nil); res.Status != 200 {
						t.Fatal(res.Status)
					}
				})
			}
			// Each count is the first read after a write, as the list is kept by the farm's
			// change counter (derived.go): a read of the unchanged farm reads only the counter.
			cow("Y-0")
			small := count()
			if again := count(); again > small {
				t.Fatalf("the unchanged farm's list read again: %d statements, first %d", again, small)
			}
			for i := 0; i < 15; i++ {
				c := cow(fmt.Sprintf("X-%d", i))
				b.facts(t, map[string]any{"kind": "hand_mating", "dam_id": c, "sire_id": b.bull, "date": "2025-07-10"},
					map[string]any{"kind": "pregnancy_check", "animal_id": c, "date": "2025-09-01", "method": "scan", "result": "pregnant"})
			}
			if big := count(); big != small {
				t.Fatalf("statements %d then %d: the due list queries per row", small, big)
			}
			t.Logf("due list: %d statements", small)
		})
	})
}

// TestDueListAsOfWithBullMembership is issue 28.5: the due list as of a day drops the
// females that died or left by then, and dates conception from the days a bull's dated
// membership (in and out) shared a group with a heifer or a cow, as the review does. Facts
// are dated: a death recorded afterwards changes the list from its day on, not before.
func TestDueListAsOfWithBullMembership(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app := b.app
		if res := app.Do("PUT", b.base+"/birth-history/settings", b.owner.Token, cattleSettings); res.Status != 200 {
			t.Fatalf("settings: %d %s", res.Status, res.Body)
		}
		farm := uuid.MustParse(b.farm)
		female := func(tag, born string) string {
			id := app.MustAnimal(b.owner, farm, tag).ID.String()
			b.facts(t, map[string]any{"kind": "profile", "animal_id": id, "sex": "female", "birth_date": born})
			return id
		}
		heifer, cow, aged, sold := female("H-1", "2024-03-01"), female("K-1", "2019-04-01"), female("C-1", "2019-04-01"), female("S-1", "2019-04-01")
		bull2 := app.MustAnimal(b.owner, farm, "BULL-2").ID.String()
		scan := func(id string) map[string]any {
			return map[string]any{"kind": "pregnancy_check", "animal_id": id, "date": "2025-09-01", "method": "scan", "result": "pregnant"}
		}
		b.facts(t,
			map[string]any{"kind": "profile", "animal_id": bull2, "sex": "male", "birth_date": "2022-01-10"},
			map[string]any{"kind": "birth", "dam_id": cow, "date": "2025-03-01"},
			// BULL-2 ran with the herd from 2025-06-10 and left it on 2025-07-01: his days with
			// H-1 and K-1 (members from 2025-06-01) are 2025-06-10..2025-06-30.
			map[string]any{"kind": "membership", "animal_id": heifer, "group_id": b.herd, "start_date": "2025-06-01"},
			map[string]any{"kind": "membership", "animal_id": cow, "group_id": b.herd, "start_date": "2025-06-01"},
			map[string]any{"kind": "membership", "animal_id": bull2, "group_id": b.herd, "start_date": "2025-06-10"},
			map[string]any{"kind": "membership_end", "animal_id": bull2, "group_id": b.herd, "date": "2025-07-01"},
			scan(heifer), scan(cow), scan(sold),
			// C-1: a foetal age of 60 days dates conception on 2025-07-03: due 2026-04-08..21.
			map[string]any{"kind": "pregnancy_check", "animal_id": aged, "date": "2025-09-01", "method": "scan", "result": "pregnant", "foetal_age_days": 60},
			map[string]any{"kind": "sale", "animal_id": sold, "date": "2025-12-01"},
		)
		list := func(asOf string) []map[string]any {
			t.Helper()
			res := app.Do("GET", b.base+"/due?as_of="+asOf, b.reader.Token, nil)
			if res.Status != 200 {
				t.Fatalf("due as of %s: %d %s", asOf, res.Status, res.Body)
			}
			var out []map[string]any
			for _, r := range res.JSON(t)["records"].([]any) {
				out = append(out, r.(map[string]any))
			}
			return out
		}
		ids := func(rows []map[string]any) string {
			var s []string
			for _, r := range rows {
				s = append(s, r["animal_id"].(string))
			}
			return strings.Join(s, " ")
		}
		first, second := heifer, cow
		if cow < heifer {
			first, second = cow, heifer
		}
		// Conception 2025-06-10..2025-06-30 + 279..292 days: due 2026-03-16..2026-04-18.
		rows := list("2026-01-09")
		if got, want := ids(rows), strings.Join([]string{first, second, aged}, " "); got != want {
			t.Fatalf("as of 2026-01-09: %s, want %s (the sold cow left)", got, want)
		}
		for _, r := range rows[:2] {
			if r["basis"] != "exposure" || r["sire_id"] != bull2 || r["service_from"] != "2025-06-10" || r["service_to"] != "2025-06-30" ||
				r["expected_from"] != "2026-03-16" || r["expected_to"] != "2026-04-18" || r["expected_date"] != "2026-04-01" ||
				len(r["service_record_ids"].([]any)) != 2 {
				t.Fatalf("by the bull's membership: %v", r)
			}
		}
		if r := rows[2]; r["basis"] != "foetal_age" || r["expected_date"] != "2026-04-14" {
			t.Fatalf("by foetal age: %v", r)
		}
		// Before the sale, the sold cow is due, undated (nothing dates her conception).
		if rows := list("2025-11-30"); len(rows) != 4 || rows[3]["animal_id"] != sold || rows[3]["basis"] != "unknown" {
			t.Fatalf("as of 2025-11-30: %v", rows)
		}
		// C-1 died on 2026-01-10, recorded later: gone from that day, not before.
		b.facts(t, map[string]any{"kind": "death", "animal_id": aged, "date": "2026-01-10", "cause": "bloat"})
		if got := ids(list("2026-01-09")); !strings.Contains(got, aged) {
			t.Fatalf("as of the day before her death: %s", got)
		}
		if got := ids(list("2026-01-10")); got != first+" "+second {
			t.Fatalf("as of her death: %s", got)
		}
		// Left out, as_of is the farm's today: she is gone.
		if res := app.Do("GET", b.base+"/due", b.reader.Token, nil); strings.Contains(string(res.Body), aged) {
			t.Fatalf("today: %s", res.Body)
		}
		csv := app.Do("GET", b.base+"/due.csv?as_of=2026-01-09", b.reader.Token, nil)
		if csv.Status != 200 || !strings.HasPrefix(string(csv.Body), "animal_id,expected_date,expected_from,expected_to,basis,check_date,method,check_record_id,service_kind,service_date,sire_id,service_record_id,gestation_min_days,gestation_max_days,gestation_breed,service_from,service_to,sire_ids\n") ||
			!strings.Contains(string(csv.Body), ",2025-06-10,2025-06-30,"+bull2+"\n") {
			t.Fatalf("due.csv: %d %s", csv.Status, csv.Body)
		}
		for _, q := range []string{"as_of=2026-02-30", "as_of=", "as_of=yesterday"} {
			herdbooktest.WantEnvelope(t, app.Do("GET", b.base+"/due?"+q, b.reader.Token, nil), 400, "ValidationError", "as_of")
			herdbooktest.WantEnvelope(t, app.Do("GET", b.base+"/due.csv?"+q, b.reader.Token, nil), 400, "ValidationError", "as_of")
		}
	})
}

// TestDueDeclaredForCowBoughtInCalf is issue 28.5's cow bought in calf: never served here,
// she gets her expected calving date from a pregnancy_check that states it
// (expected_calving_date), with or without the farm's gestation settings; the date is a
// fact's, corrected with a reason like any other.
func TestDueDeclaredForCowBoughtInCalf(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app := b.app
		cow := app.MustAnimal(b.owner, uuid.MustParse(b.farm), "BOUGHT-1").ID.String()
		b.facts(t,
			map[string]any{"kind": "profile", "animal_id": cow, "sex": "female"},
			map[string]any{"kind": "purchase", "animal_id": cow, "date": "2025-11-15"},
		)
		check := map[string]any{"kind": "pregnancy_check", "animal_id": cow, "date": "2025-11-15", "method": "scan", "result": "pregnant",
			"expected_calving_date": "2026-02-20"}
		res := app.Do("POST", b.base+"/records", b.owner.Token, map[string]any{
			"animal_ids": []string{cow}, "name": "Bought in calf", "type": "GENETIC", "applied_at": "2025-11-15T12:00:00Z",
			"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": check}}},
		})
		if res.Status != 201 {
			t.Fatalf("check: %d %s", res.Status, res.Body)
		}
		recID := res.JSON(t)["id"].(string)
		one := app.Do("GET", b.base+"/records/"+recID, b.reader.Token, nil).JSON(t)
		item := one["record_items"].([]any)[0].(map[string]any)["id"].(string)
		due := func() map[string]any {
			t.Helper()
			res := app.Do("GET", b.base+"/due?as_of=2026-01-01", b.reader.Token, nil)
			rows := res.JSON(t)["records"].([]any)
			if res.Status != 200 || len(rows) != 1 {
				t.Fatalf("due: %d %s", res.Status, res.Body)
			}
			return rows[0].(map[string]any)
		}
		if r := due(); r["animal_id"] != cow || r["basis"] != "declared" || r["expected_date"] != "2026-02-20" ||
			r["expected_from"] != "2026-02-20" || r["expected_to"] != "2026-02-20" || r["gestation_days"] != nil {
			t.Fatalf("declared = %v", r)
		}
		check["expected_calving_date"] = "2026-02-27"
		res = app.Do("POST", b.base+"/records/"+recID+"/items/"+item+"/amend", b.owner.Token, map[string]any{
			"reason": "The seller's vet wrote 27 February.", "metadata": map[string]any{"birth_history": check}})
		if res.Status != 201 {
			t.Fatalf("amend: %d %s", res.Status, res.Body)
		}
		if r := due(); r["basis"] != "declared" || r["expected_date"] != "2026-02-27" {
			t.Fatalf("after the correction = %v", r)
		}
		// Exported to breeding.csv, in its own column.
		csv := app.Do("GET", b.base+"/breeding.csv", b.reader.Token, nil)
		if csv.Status != 200 || !strings.Contains(string(csv.Body), ",expected_calving_date\n") || !strings.Contains(string(csv.Body), ",2026-02-27\n") {
			t.Fatalf("breeding.csv: %d %s", csv.Status, csv.Body)
		}
		for _, tc := range []struct {
			name  string
			patch map[string]any
			want  string
		}{
			{"ErrNotPregnant", map[string]any{"result": "empty"}, "birth_history.expected_calving_date: must be left out unless result is pregnant"},
			{"ErrBeforeCheck", map[string]any{"expected_calving_date": "2025-11-15"}, "birth_history.expected_calving_date: must be after the check's date"},
			{"ErrTooFar", map[string]any{"expected_calving_date": "2031-06-01"}, "birth_history.expected_calving_date: must be after the check's date and at most 2000 days"},
			{"ErrNotADate", map[string]any{"expected_calving_date": "2026-02-30"}, "birth_history.expected_calving_date: must be a calendar date"},
			{"ErrWrongType", map[string]any{"expected_calving_date": 20260220}, "birth_history.expected_calving_date: must be a string"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f := map[string]any{}
				for k, v := range check {
					f[k] = v
				}
				for k, v := range tc.patch {
					f[k] = v
				}
				res := app.Do("POST", b.base+"/records", b.owner.Token, map[string]any{
					"animal_ids": []string{cow}, "name": "check", "type": "GENETIC", "applied_at": "2025-11-15T12:00:00Z",
					"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": f}}},
				})
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", tc.want)
			})
		}
	})
}

// TestDueListFollowsSettingsAndOutsideSires: the due list is kept by the farm's change
// counter (derived.go), which neither a birth settings change nor an outside animal's edit
// moves; each still changes the list at once. A cow served on 2025-07-08 by an AI sire, an
// outside animal, is due from 2026-04-13 by the farm's 279 to 292 days while the sire is an
// Angus; recorded as a Charolais, whose calves the farm gives 285 to 305 days, she is due from
// 2026-04-19; with Charolais at 286 days, from 2026-04-20. Each list is read twice (the second
// read is the kept one).
func TestDueListFollowsSettingsAndOutsideSires(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app := b.app
		settings := func(min int) {
			t.Helper()
			body := fmt.Sprintf(`{"version":1,"species":"CATTLE","gestation_days":{"min":279,"max":292},"minimum_sire_age_days":365,
				"gestation_days_by_breed":{"Charolais":{"min":%d,"max":305}}}`, min)
			if res := app.Do("PUT", b.base+"/birth-history/settings", b.owner.Token, body); res.Status != 200 {
				t.Fatalf("settings: %d %s", res.Status, res.Body)
			}
		}
		settings(285)
		sire := map[string]any{"name": "Straw Sire", "sex": "male", "breed": "Angus"}
		ai := wantStatus(t, app.Do("POST", b.base+"/outside-animals", b.owner.Token, sire), 201)["id"].(string)
		cow := app.MustAnimal(b.owner, uuid.MustParse(b.farm), "C-AI").ID.String()
		b.facts(t,
			map[string]any{"kind": "profile", "animal_id": cow, "sex": "female", "birth_date": "2020-04-01"},
			map[string]any{"kind": "insemination", "dam_id": cow, "sire_id": ai, "date": "2025-07-08", "straw": "S-9"},
			map[string]any{"kind": "pregnancy_check", "animal_id": cow, "date": "2025-09-01", "method": "scan", "result": "pregnant"},
		)
		due := func(from string, breed any) {
			t.Helper()
			for range 2 {
				rows := wantStatus(t, app.Do("GET", b.base+"/due", b.reader.Token, nil), 200)["records"].([]any)
				if len(rows) != 1 {
					t.Fatalf("due rows %v", rows)
				}
				r := rows[0].(map[string]any)
				if r["animal_id"] != cow || r["expected_from"] != from || r["gestation_breed"] != breed {
					t.Fatalf("due %v, want from %s with breed %v", r, from, breed)
				}
			}
		}
		due("2026-04-13", nil)
		sire["breed"] = "Charolais"
		wantStatus(t, app.Do("PUT", b.base+"/outside-animals/"+ai, b.owner.Token, sire), 200)
		due("2026-04-19", "Charolais")
		settings(286)
		due("2026-04-20", "Charolais")
	})
}
