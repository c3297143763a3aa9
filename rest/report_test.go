package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/seed"
)

// TestHerdReports runs each herd report over a small season worked by hand.
func TestHerdReports(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b, nurse := calvingFarm(t, d)
		f := b.farmID(t)
		cow2 := b.app.MustAnimal(b.owner, f, "COW-2").ID.String()
		b.facts(t,
			map[string]any{"kind": "profile", "animal_id": cow2, "sex": "female", "birth_date": "2022-04-01"},
			// The bull's membership of the herd is exposure of its females (cow2 and the nurse).
			map[string]any{"kind": "membership", "animal_id": b.bull, "group_id": b.herd, "start_date": "2025-06-01", "end_date": "2025-08-31"},
			map[string]any{"kind": "membership", "animal_id": cow2, "group_id": b.herd, "start_date": "2025-06-01"},
			map[string]any{"kind": "membership", "animal_id": nurse, "group_id": b.herd, "start_date": "2025-06-01"},
		)
		calve := func(dam, date string, calves ...any) []any {
			res := b.app.Do("POST", b.base+"/calvings", b.owner.Token, map[string]any{"dam_id": dam, "date": date, "calves": calves})
			if res.Status != 201 {
				t.Fatalf("calving: %d %s", res.Status, res.Body)
			}
			return res.JSON(t)["calves"].([]any)
		}
		c1 := calve(b.dam, "2026-03-01", map[string]any{"tag": "R-1", "sex": "male", "status": "alive", "birth_weight": 40})
		calve(cow2, "2026-03-25", map[string]any{"tag": "R-2", "sex": "female", "status": "stillborn"})
		c3 := calve(nurse, "2026-04-20",
			map[string]any{"tag": "R-3", "sex": "female", "status": "alive", "twin": true, "birth_weight": 30},
			map[string]any{"tag": "R-4", "sex": "male", "status": "alive", "twin": true, "birth_weight": 32})
		id := func(c []any, i int) string { return c[i].(map[string]any)["animal_id"].(string) }
		b.facts(t,
			map[string]any{"kind": "weaning", "animal_id": id(c1, 0), "date": "2026-09-17", "kg": 250, "group_id": b.herd},
			map[string]any{"kind": "weaning", "animal_id": id(c3, 0), "date": "2026-10-27", "kg": 230, "group_id": b.herd},
			map[string]any{"kind": "membership", "animal_id": id(c1, 0), "group_id": b.herd, "start_date": "2026-03-01"},
			map[string]any{"kind": "membership", "animal_id": id(c3, 0), "group_id": b.herd, "start_date": "2026-04-20"},
			map[string]any{"kind": "pregnancy_check", "animal_id": b.dam, "date": "2025-09-10", "method": "scan", "result": "pregnant"},
			map[string]any{"kind": "pregnancy_check", "animal_id": cow2, "date": "2025-09-10", "method": "scan", "result": "recheck"},
			map[string]any{"kind": "pregnancy_check", "animal_id": cow2, "date": "2025-10-01", "method": "palpation", "result": "pregnant"},
			map[string]any{"kind": "pregnancy_check", "animal_id": nurse, "date": "2025-09-10", "method": "scan", "result": "empty"},
		)
		get := func(path string) map[string]any {
			t.Helper()
			res := b.app.Do("GET", b.base+"/reports/"+path, b.reader.Token, nil)
			if res.Status != 200 {
				t.Fatalf("%s: %d %s", path, res.Status, res.Body)
			}
			return res.JSON(t)
		}
		// Exposed in the 2025 season: the dam (her exposure by the bull), cow2 and the nurse
		// (the bull's membership): 3. Born 2026: 4 calves, 3 alive: 3 / 3 = 100 %.
		c := get("calving?from=2026-01-01&to=2026-12-31&exposure_from=2025-05-01&exposure_to=2025-08-31")
		if c["females_exposed"] != 3.0 || c["calves_born"] != 4.0 || c["calves_born_alive"] != 3.0 || c["stillborn"] != 1.0 || c["calving_percentage"] != 100.0 {
			t.Fatalf("calving = %v", c)
		}
		// Spread from 2026-03-01: day 0 and 24 fall in periods 1 and 2, day 50 in period 3.
		s := get("calving-spread?from=2026-01-01&to=2026-12-31")
		ps := s["periods"].([]any)
		if len(ps) != 3 || ps[0].(map[string]any)["calvings"] != 1.0 || ps[1].(map[string]any)["start_date"] != "2026-03-22" ||
			ps[2].(map[string]any)["cumulative_percentage"] != 100.0 {
			t.Fatalf("spread = %v", s)
		}
		// Scans: each cow by her last check: 2 pregnant, 1 empty: 66.67 %.
		sc := get("scans?from=2025-09-01&to=2025-10-31")
		if sc["checks"] != 4.0 || sc["pregnant"] != 2.0 || sc["empty"] != 1.0 || sc["recheck"] != 0.0 || sc["pregnancy_rate"] != 66.67 {
			t.Fatalf("scans = %v", sc)
		}
		// Weaning: R-1 (250 − 40) / 200 × 205 + 40 = 255.25; R-3 born 2026-04-20, weaned
		// 2026-10-27 (190 days): (230 − 30) / 190 × 205 + 30 = 245.789.
		w := get("weaning?from=2026-09-01&to=2026-10-31")
		if w["calves"] != 2.0 || len(w["by_dam_age"].([]any)) != 2 || w["unknown"].(map[string]any)["sire"] != 2.0 {
			t.Fatalf("weaning = %v", w)
		}
		ages := w["by_dam_age"].([]any)
		if a := ages[0].(map[string]any); a["dam_age_years"] != 4.0 || a["mean_adjusted_kg"] != 255.25 {
			t.Fatalf("by dam age = %v", ages)
		}
		if a := ages[1].(map[string]any); a["dam_age_years"] != 7.0 || a["mean_adjusted_kg"] != 245.789 {
			t.Fatalf("by dam age = %v", ages)
		}
		// Gain in the herd: R-1 0.9 kg/day... (250 − 40) / 200 = 1.05; R-3 (230 − 30) / 190 = 1.053.
		g := get("gain?from=2026-01-01&to=2026-12-31")
		groups := g["groups"].([]any)
		if len(groups) != 1 || groups[0].(map[string]any)["animals"] != 2.0 || groups[0].(map[string]any)["mean_daily_gain_kg"] != 1.051 {
			t.Fatalf("gain = %v", g)
		}
		res := b.app.Do("GET", b.base+"/reports/calving-spread.csv?from=2026-01-01&to=2026-12-31", b.reader.Token, nil)
		if res.Status != 200 || !strings.HasPrefix(string(res.Body), "period,start_date,end_date,calvings,percentage,cumulative_percentage\n1,2026-03-01,2026-03-21,1,") {
			t.Fatalf("csv: %d %s", res.Status, res.Body)
		}
		for _, q := range []string{"calving.csv?exposure_from=2025-05-01&exposure_to=2025-08-31&", "scans.csv?", "weaning.csv?", "gain.csv?"} {
			res := b.app.Do("GET", b.base+"/reports/"+q+"from=2025-01-01&to=2026-12-31", b.reader.Token, nil)
			if res.Status != 200 || !strings.Contains(string(res.Body), "\n") {
				t.Fatalf("%s: %d %s", q, res.Status, res.Body)
			}
		}
		for _, tc := range []struct{ name, path, want string }{
			{"ErrNoPeriod", "scans", "from: is required"},
			{"ErrBadDate", "scans?from=2026-02-30&to=2026-03-01", "from"},
			{"ErrBackwards", "gain?from=2026-03-01&to=2026-02-01", "to: must not be before from"},
			{"ErrNoSeason", "calving?from=2026-01-01&to=2026-12-31", "exposure_from"},
			{"ErrSeasonElsewhere", "gain?from=2026-01-01&to=2026-12-31&exposure_from=2025-01-01", "exposure_from"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, b.app.Do("GET", b.base+"/reports/"+tc.path, b.reader.Token, nil), 400, "ValidationError", tc.want)
			})
		}
		t.Run("ErrNoAuth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, b.app.Do("GET", b.base+"/reports/scans?from=2025-01-01&to=2025-12-31", "", nil), 401, "Unauthorized", "")
		})
		t.Run("ErrOtherFarm", func(t *testing.T) {
			stranger := b.app.MustUser()
			herdbooktest.WantEnvelope(t, b.app.Do("GET", b.base+"/reports/scans?from=2025-01-01&to=2025-12-31", stranger.Token, nil), 404, "ServiceError", "")
		})
		t.Run("ConstantStatements", func(t *testing.T) {
			for _, name := range []string{"calving?exposure_from=2025-05-01&exposure_to=2025-08-31&", "calving-spread?", "scans?", "weaning?", "gain?"} {
				path := b.base + "/reports/" + name + "from=2025-01-01&to=2026-12-31"
				n := b.app.Queries(func() { b.app.Do("GET", path, b.reader.Token, nil) })
				if n > 4 {
					t.Fatalf("%s costs %d statements, want at most 4", name, n)
				}
			}
		})
		t.Run("FollowsWritesAndSettings", func(t *testing.T) {
			// Each report is kept by the farm's change counter (derived.go): a write shows at
			// once, and so do the farm's age-of-dam adjustments, which move no counter. R-3
			// weighed again at weaning: the gain and weaning reports take the new weight.
			before := get("weaning?from=2026-09-01&to=2026-10-31")["by_dam_age"].([]any)[0].(map[string]any)["mean_adjusted_kg"]
			putSettings(t, b.app, uuid.MustParse(b.farm), b.owner.Token, map[string]any{"weaning_age_of_dam": []any{
				map[string]any{"min_days": 0, "max_days": 5000, "male_kg": 15, "female_kg": 13}}})
			after := get("weaning?from=2026-09-01&to=2026-10-31")["by_dam_age"].([]any)[0].(map[string]any)["mean_adjusted_kg"]
			if before != 255.25 || after == before {
				t.Fatalf("the weaning report by dam age, 255.25 before the age-of-dam adjustments: %v before, %v after", before, after)
			}
			gain := func() any {
				return get("gain?from=2026-01-01&to=2026-12-31")["groups"].([]any)[0].(map[string]any)["mean_daily_gain_kg"]
			}
			was := gain()
			b.facts(t, map[string]any{"kind": "weight", "animal_id": id(c1, 0), "date": "2026-12-01", "kg": 400})
			if now := gain(); now == was {
				t.Fatalf("the gain report after a heavier weight on 2026-12-01: %v, as before", now)
			}
		})
	})
}

// BenchmarkHerdReports runs each report on a seeded farm of 10,000 animals with a season of
// calvings, weanings and scans on a thousand of them.
func BenchmarkHerdReports(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			d := herdbooktest.MustDB(b, dia)
			app := herdbooktest.NewApp(b, d)
			u := app.MustUser()
			res, err := seed.Run(context.Background(), d.Client, seed.Options{
				Owner: u.ID, Farms: 1, AnimalsPerFarm: 10_000, GroupsPerFarm: 20, RecordsPerFarm: 20_000, ItemsPerRecord: 2, Seed: 11,
			})
			if err != nil {
				b.Fatal(err)
			}
			farm := res.FarmIDs[0]
			ids, err := d.Client.Animal.Query().Limit(1000).IDs(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			var facts []map[string]any
			for i, a := range ids {
				day := fmt.Sprintf("2026-%02d-%02d", 3+i%3, 1+i%28)
				facts = append(facts,
					map[string]any{"kind": "weight", "animal_id": a.String(), "date": day, "kg": 30 + i%10},
					map[string]any{"kind": "weaning", "animal_id": a.String(), "date": fmt.Sprintf("2026-10-%02d", 1+i%28), "kg": 200 + i%50},
					map[string]any{"kind": "pregnancy_check", "animal_id": a.String(), "date": "2025-09-10", "method": "scan", "result": []string{"pregnant", "empty", "recheck"}[i%3]})
			}
			writeFactsREST(b, app, u.Token, farm, facts)
			base := "/v1/farm/" + farm.String() + "/reports/"
			for _, name := range []string{"calving?exposure_from=2025-05-01&exposure_to=2025-08-31&", "calving-spread?", "scans?", "weaning?", "gain?"} {
				path := base + name + "from=2025-01-01&to=2026-12-31"
				b.Run(strings.SplitN(name, "?", 2)[0], func(b *testing.B) {
					queries := app.DB.Queries()
					for i := 0; i < b.N; i++ {
						if res := app.Do("GET", path, u.Token, nil); res.Status != http.StatusOK {
							b.Fatal(res.Status, string(res.Body))
						}
					}
					b.ReportMetric(float64(app.DB.Queries()-queries)/float64(b.N), "statements/op")
				})
			}
		})
	}
}

// writeFactsREST records facts as records of 200 items each.
func writeFactsREST(b *testing.B, app *herdbooktest.App, token string, farm uuid.UUID, facts []map[string]any) {
	for lo := 0; lo < len(facts); lo += 200 {
		var items []any
		seen := map[any]bool{}
		var animals []any
		for _, f := range facts[lo:min(lo+200, len(facts))] {
			items = append(items, map[string]any{"metadata": map[string]any{"birth_history": f}})
			if !seen[f["animal_id"]] {
				seen[f["animal_id"]] = true
				animals = append(animals, f["animal_id"])
			}
		}
		res := app.Do("POST", "/v1/farm/"+farm.String()+"/records", token, map[string]any{
			"animal_ids": animals, "name": "seed", "type": "GENETIC", "applied_at": "2026-01-01T00:00:00Z", "record_items": items})
		if res.Status != 201 {
			b.Fatalf("facts: %d %s", res.Status, res.Body)
		}
	}
}

// TestCalvingPercentageOverExposedFemales is issue 28.4's calving percentage, worked by hand:
// the calves born alive to the females the 2025 season exposed, over those females; the
// calvings of a cow bought in calf (and of one whose exposure is not recorded) are counted
// apart. Facts are dated, not ordered: a membership recorded late, backdated into the
// season, makes a cow exposed, and a bull's membership_end recorded later still, backdated
// before her stay, takes that back.
func TestCalvingPercentageOverExposedFemales(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		f := b.farmID(t)
		female := func(tag string) string {
			id := b.app.MustAnimal(b.owner, f, tag).ID.String()
			b.facts(t, map[string]any{"kind": "profile", "animal_id": id, "sex": "female"})
			return id
		}
		cow2, cow3, bought, cow4 := female("COW-2"), female("COW-3"), female("BOUGHT-1"), female("COW-4")
		bull2 := b.app.MustAnimal(b.owner, f, "BULL-2").ID.String()
		b.facts(t,
			map[string]any{"kind": "profile", "animal_id": bull2, "sex": "male", "birth_date": "2022-01-10"},
			// Exposed in the season 2025-05-01..2025-08-31: DAM-1 (her exposure to BULL-1),
			// COW-2 (in the herd with BULL-2, who joined it on 2025-06-01), COW-3 (inseminated,
			// no calf).
			map[string]any{"kind": "membership", "animal_id": bull2, "group_id": b.herd, "start_date": "2025-06-01"},
			map[string]any{"kind": "membership", "animal_id": cow2, "group_id": b.herd, "start_date": "2025-06-01"},
			map[string]any{"kind": "insemination", "dam_id": cow3, "sire_id": b.bull, "date": "2025-06-10"},
			// Bought in calf after the season.
			map[string]any{"kind": "purchase", "animal_id": bought, "date": "2025-11-15"},
			map[string]any{"kind": "birth", "dam_id": b.dam, "date": "2026-03-01"},
			map[string]any{"kind": "birth", "dam_id": cow2, "date": "2026-03-20"},
			map[string]any{"kind": "birth", "dam_id": bought, "date": "2026-03-10"},
			map[string]any{"kind": "birth", "dam_id": cow4, "date": "2026-03-15"},
		)
		path := b.base + "/reports/calving?from=2026-01-01&to=2026-12-31&exposure_from=2025-05-01&exposure_to=2025-08-31"
		want := func(step string, exposed, calvings int, percentage float64, apart, boughtIn int) {
			t.Helper()
			res := b.app.Do("GET", path, b.reader.Token, nil)
			if res.Status != 200 {
				t.Fatalf("%s: %d %s", step, res.Status, res.Body)
			}
			c := res.JSON(t)
			n := c["not_exposed"].(map[string]any)
			if c["females_exposed"] != float64(exposed) || c["calvings"] != float64(calvings) || c["calves_born_alive"] != float64(calvings) ||
				c["calving_percentage"] != percentage || n["calvings"] != float64(apart) || n["calves_born_alive"] != float64(apart) ||
				n["bought_in"] != float64(boughtIn) {
				t.Fatalf("%s: calving = %s", step, res.Body)
			}
		}
		// 2 live calves of the 3 exposed: 2 / 3 = 66.67 %, not (2 + 2) / 3 = 133.33 %. Apart:
		// BOUGHT-1 (bought in after the season began) and COW-4 (no exposure recorded).
		want("first", 3, 2, 66.67, 2, 1)
		// COW-4 ran in the herd in July with BULL-2, recorded late: 3 / 4 = 75 %.
		b.facts(t, map[string]any{"kind": "membership", "animal_id": cow4, "group_id": b.herd, "start_date": "2025-07-01", "end_date": "2025-07-31"})
		want("backdated membership", 4, 3, 75.0, 1, 1)
		// BULL-2 in fact left the herd on 2025-06-20: COW-2 still shared 2025-06-01..19 with
		// him, COW-4 no day.
		b.facts(t, map[string]any{"kind": "membership_end", "animal_id": bull2, "group_id": b.herd, "date": "2025-06-20"})
		want("backdated membership_end", 3, 2, 66.67, 2, 1)
		res := b.app.Do("GET", b.base+"/reports/calving.csv?from=2026-01-01&to=2026-12-31&exposure_from=2025-05-01&exposure_to=2025-08-31", b.reader.Token, nil)
		if res.Status != 200 || !strings.Contains(string(res.Body), ",not_exposed_calvings,not_exposed_calves_born,not_exposed_calves_born_alive,not_exposed_stillborn,not_exposed_bought_in\n") ||
			!strings.HasSuffix(string(res.Body), ",66.67,2,2,2,0,1\n") {
			t.Fatalf("calving.csv: %d %s", res.Status, res.Body)
		}
	})
}

// TestGainReportOverDaysInGroup is issue 28.4's gain by group, worked by hand: a group is
// credited only with the gain its members made while in it, measured between their
// weighings inside each stay (the day an animal moves counts for both groups).
//
//	S-1: 100 kg on 2026-01-01, 140 kg on 2026-02-10, 200 kg on 2026-03-22; in the herd from
//	     2025-12-01, in Finishing from 2026-02-10. Herd: (140 − 100) / 40 = 1.0 kg/day;
//	     Finishing: (200 − 140) / 40 = 1.5.
//	S-2: 100 kg on 2026-01-01 (in no group), 150 kg on 2026-03-01, 170 kg on 2026-03-21; in
//	     Finishing from 2026-03-01: (170 − 150) / 20 = 1.0, not (170 − 100) / 79.
//
// Finishing's mean: (1.5 + 1.0) / 2 = 1.25. S-2's backdated membership_end on 2026-03-11
// leaves her one weighing date in Finishing (2026-03-01; she left on the 11th): Finishing
// becomes S-1 alone, 1.5.
func TestGainReportOverDaysInGroup(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		f := b.farmID(t)
		s1, s2 := b.app.MustAnimal(b.owner, f, "S-1").ID.String(), b.app.MustAnimal(b.owner, f, "S-2").ID.String()
		finishing := b.app.MustGroup(b.owner, f, "Finishing").ID.String()
		w := func(id, day string, kg int) map[string]any {
			return map[string]any{"kind": "weight", "animal_id": id, "date": day, "kg": kg}
		}
		b.facts(t,
			map[string]any{"kind": "membership", "animal_id": s1, "group_id": b.herd, "start_date": "2025-12-01"},
			map[string]any{"kind": "membership", "animal_id": s1, "group_id": finishing, "start_date": "2026-02-10"},
			map[string]any{"kind": "membership", "animal_id": s2, "group_id": finishing, "start_date": "2026-03-01"},
			w(s1, "2026-01-01", 100), w(s1, "2026-02-10", 140), w(s1, "2026-03-22", 200),
			w(s2, "2026-01-01", 100), w(s2, "2026-03-01", 150), w(s2, "2026-03-21", 170),
		)
		gain := func() map[string]float64 {
			t.Helper()
			res := b.app.Do("GET", b.base+"/reports/gain?from=2026-01-01&to=2026-12-31", b.reader.Token, nil)
			if res.Status != 200 {
				t.Fatalf("gain: %d %s", res.Status, res.Body)
			}
			out := map[string]float64{}
			for _, g := range res.JSON(t)["groups"].([]any) {
				g := g.(map[string]any)
				out[g["group_id"].(string)] = g["mean_daily_gain_kg"].(float64)
				out[g["group_id"].(string)+" animals"] = g["animals"].(float64)
			}
			return out
		}
		if g := gain(); len(g) != 4 || g[b.herd] != 1.0 || g[b.herd+" animals"] != 1 || g[finishing] != 1.25 || g[finishing+" animals"] != 2 {
			t.Fatalf("gain = %v (herd %s, finishing %s)", g, b.herd, finishing)
		}
		b.facts(t, map[string]any{"kind": "membership_end", "animal_id": s2, "group_id": finishing, "date": "2026-03-11"})
		if g := gain(); g[finishing] != 1.5 || g[finishing+" animals"] != 1 {
			t.Fatalf("after the backdated membership_end: gain = %v", g)
		}
	})
}

// TestHerdReportStatementsIndependentOfFarmSize: every herd report and the due list cost the
// same statements on a farm of a few animals and on one with twelve more cows, each with a
// membership, weighings, a check and a calving (no statement per row): derived whole when
// first asked, and brought up to date after a weighing of the dam (kept across it, or patched
// for her: patch.go).
func TestHerdReportStatementsIndependentOfFarmSize(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		f := b.farmID(t)
		paths := []string{"calving?exposure_from=2025-05-01&exposure_to=2025-08-31&", "calving-spread?", "scans?", "weaning?", "gain?"}
		count := func() []int64 {
			var out []int64
			for _, p := range append(slices.Clone(paths), "due?as_of=2026-01-01&") {
				path := b.base + "/reports/" + p + "from=2025-01-01&to=2026-12-31"
				if strings.HasPrefix(p, "due") {
					path = b.base + "/" + strings.TrimSuffix(p, "&")
				}
				out = append(out, b.app.Queries(func() {
					if res := b.app.Do("GET", path, b.reader.Token, nil); res.Status != 200 {
						t.Fatalf("%s: %d %s", path, res.Status, res.Body)
					}
				}))
			}
			return out
		}
		weighing := 0
		weighed := func() []int64 { // the dam weighed, then every answer asked again
			weighing++
			res := b.app.Do("POST", b.base+"/records", b.owner.Token, map[string]any{
				"animal_ids": []string{b.dam}, "name": "weighing", "type": "GENETIC", "applied_at": "2025-06-01T00:00:00Z",
				"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
					"kind": "weight", "animal_id": b.dam, "date": fmt.Sprintf("2025-08-%02d", weighing), "kg": 600 + weighing}}}}})
			if res.Status != 201 {
				t.Fatalf("weighing: %d %s", res.Status, res.Body)
			}
			return count()
		}
		small, smallWeighed := count(), weighed()
		var items, animals []any
		for i := range 12 {
			cow := b.app.MustAnimal(b.owner, f, fmt.Sprintf("SIZE-%d", i)).ID.String()
			animals = append(animals, cow)
			for _, fact := range []map[string]any{
				{"kind": "profile", "animal_id": cow, "sex": "female"},
				{"kind": "membership", "animal_id": cow, "group_id": b.herd, "start_date": "2025-06-01"},
				{"kind": "pregnancy_check", "animal_id": cow, "date": "2025-09-01", "method": "scan", "result": "pregnant"},
				{"kind": "weight", "animal_id": cow, "date": "2025-07-01", "kg": 500},
				{"kind": "weight", "animal_id": cow, "date": "2025-09-01", "kg": 520 + i},
				{"kind": "birth", "dam_id": cow, "date": fmt.Sprintf("2026-03-%02d", 1+i)},
			} {
				items = append(items, map[string]any{"metadata": map[string]any{"birth_history": fact}})
			}
		}
		res := b.app.Do("POST", b.base+"/records", b.owner.Token, map[string]any{
			"animal_ids": animals, "name": "season", "type": "GENETIC", "applied_at": "2025-06-01T00:00:00Z", "record_items": items})
		if res.Status != 201 {
			t.Fatalf("facts: %d %s", res.Status, res.Body)
		}
		// The first read after the twelve (derived whole, or patched for the animals they
		// touched) depends on what was kept; after a weighing of the dam each answer is kept or
		// patched for her alone, the same statements whatever the farm's size.
		count()
		if bigWeighed := weighed(); !slices.Equal(smallWeighed, bigWeighed) {
			t.Fatalf("statements after a weighing %v on a small farm, %v with twelve more cows (calving, calving-spread, scans, weaning, gain, due)", smallWeighed, bigWeighed)
		}
		t.Logf("statements: %v, after a weighing %v", small, smallWeighed)
	})
}
