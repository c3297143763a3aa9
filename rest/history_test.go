package rest_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestHistoryRules replays the impossible histories of issue 19 (defect 2) through the API:
// each is refused with a 400 that names the field and the conflicting record, and the
// limits of the farm settings are checked only once the farm sets them (no biological
// defaults). The rules: docs/history-rules.md.
func TestHistoryRules(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Season Farm")
		base := "/v1/farm/" + f.ID.String()
		animal := func(body map[string]any) string {
			t.Helper()
			return wantStatus(t, app.Do("POST", base+"/animals", owner.Token, body), 201)["id"].(string)
		}
		// record posts a record carrying one fact, and returns its id.
		record := func(ids []string, fact map[string]any) herdbooktest.Response {
			return app.Do("POST", base+"/records", owner.Token, map[string]any{"animal_ids": ids, "name": "fact", "type": "OTHER",
				"applied_at": "2026-01-01T00:00:00Z", "record_items": []map[string]any{{"metadata": map[string]any{"birth_history": fact}}}})
		}
		ok := func(ids []string, fact map[string]any) string {
			t.Helper()
			return wantStatus(t, record(ids, fact), 201)["id"].(string)
		}
		const item = "record_items[0].metadata.birth_history."

		cow := animal(map[string]any{"tag": "COW1", "sex": "female", "birth_date": "2019-03-01"})
		bull := animal(map[string]any{"tag": "BULL1", "sex": "male", "birth_date": "2020-04-01"})
		calf := animal(map[string]any{"tag": "C12", "sex": "male", "birth_date": "2026-02-10", "dam_id": cow, "sire_id": bull})
		profileRec := func(id string) string {
			t.Helper()
			tl := wantStatus(t, app.Do("GET", base+"/animals/"+id+"/timeline", owner.Token, nil), 200)
			for _, r := range tl["records"].([]any) {
				for _, it := range r.(map[string]any)["record_items"].([]any) {
					md, _ := it.(map[string]any)["metadata"].(map[string]any)
					if bh, _ := md["birth_history"].(map[string]any); bh != nil && bh["kind"] == "profile" && bh["animal_id"] == id {
						return r.(map[string]any)["id"].(string)
					}
				}
			}
			t.Fatalf("no profile record for %s", id)
			return ""
		}

		t.Run("WeightBeforeBirth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, record([]string{calf}, map[string]any{"kind": "weight", "animal_id": calf, "date": "2026-01-03", "kg": 40}),
				400, "ValidationError", item+"date: its weight on 2026-01-03 (this write) is dated before C12's birth on 2026-02-10 (record "+profileRec(calf)+")")
		})
		weight := ok([]string{calf}, map[string]any{"kind": "weight", "animal_id": calf, "date": "2026-04-01", "kg": 90})
		t.Run("BackdatedDeathBeforeAWeight", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, record([]string{calf}, map[string]any{"kind": "death", "animal_id": calf, "date": "2026-03-15"}),
				400, "ValidationError", item+"date: its weight on 2026-04-01 (record "+weight+") is dated after C12's death on 2026-03-15 (this write)")
		})
		t.Run("DeathBeforeBirth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, record([]string{calf}, map[string]any{"kind": "death", "animal_id": calf, "date": "2026-01-20"}),
				400, "ValidationError", item+"date: its death on 2026-01-20 (this write) is dated before C12's birth on 2026-02-10")
		})
		t.Run("BackdatedBirthDateAfterAWeight", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("PUT", base+"/animals/"+calf, owner.Token, map[string]any{"tag": "C12", "birth_date": "2026-05-01"}),
				400, "ValidationError", "birth_date: its weight on 2026-04-01 (record "+weight+") is dated before C12's birth on 2026-05-01 (this write)")
		})
		death := ok([]string{calf}, map[string]any{"kind": "death", "animal_id": calf, "date": "2026-05-01"})
		t.Run("WeightAfterDeath", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, record([]string{calf}, map[string]any{"kind": "weight", "animal_id": calf, "date": "2026-06-01", "kg": 95}),
				400, "ValidationError", item+"date: its weight on 2026-06-01 (this write) is dated after C12's death on 2026-05-01 (record "+death+")")
		})
		t.Run("TreatmentOfACalfDeadSevenMonths", func(t *testing.T) {
			med := wantStatus(t, app.Do("POST", base+"/medicines", owner.Token, map[string]any{"name": "Pen", "withdrawal_meat_days": 10, "withdrawal_milk_hours": 0}), 201)
			herdbooktest.WantEnvelope(t, record([]string{calf}, map[string]any{"kind": "treatment", "animal_id": calf, "medicine_id": med["id"], "date": "2026-12-01T09:00:00Z"}),
				400, "ValidationError", item+"date: its treatment on 2026-12-01 (this write) is dated after C12's death on 2026-05-01 (record "+death+")")
		})
		t.Run("CowAsSire", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", base+"/animals", owner.Token, map[string]any{"tag": "X1", "birth_date": "2026-03-01", "dam_id": cow, "sire_id": cow}),
				400, "ValidationError", "sire_id: must differ from dam_id")
			other := animal(map[string]any{"tag": "COW2", "sex": "female", "birth_date": "2018-01-01"})
			herdbooktest.WantEnvelope(t, app.Do("POST", base+"/animals", owner.Token, map[string]any{"tag": "X1", "birth_date": "2026-03-01", "dam_id": cow, "sire_id": other}),
				400, "ValidationError", "sire_id: COW2 is recorded as female (record "+profileRec(other)+") and cannot be the sire named on 2026-03-01 (this write); a sire is male")
		})
		t.Run("BullAsDam", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, record([]string{bull}, map[string]any{"kind": "birth", "dam_id": bull, "date": "2026-03-01"}),
				400, "ValidationError", item+"dam_id: BULL1 is recorded as male (record "+profileRec(bull)+") and cannot be the dam")
		})
		t.Run("DamDeadBeforeTheBirth", func(t *testing.T) {
			old := animal(map[string]any{"tag": "OLD", "sex": "female", "birth_date": "2012-01-01"})
			died := ok([]string{old}, map[string]any{"kind": "death", "animal_id": old, "date": "2025-10-01"})
			herdbooktest.WantEnvelope(t, app.Do("POST", base+"/animals", owner.Token, map[string]any{"tag": "X2", "birth_date": "2026-03-01", "dam_id": old}),
				400, "ValidationError", "dam_id: a birth as dam on 2026-03-01 (this write) is dated after OLD's death on 2025-10-01 (record "+died+")")
		})

		// Limits: unset, a 12-day-old dam and calvings 30 days apart pass; set, they do not.
		heifer := animal(map[string]any{"tag": "H1", "sex": "female", "birth_date": "2026-02-17"})
		young := func() herdbooktest.Response {
			return app.Do("POST", base+"/animals", owner.Token, map[string]any{"tag": "X3", "birth_date": "2026-03-01", "dam_id": heifer})
		}
		cow3 := animal(map[string]any{"tag": "COW3", "sex": "female", "birth_date": "2018-01-01"})
		first := ok([]string{cow3}, map[string]any{"kind": "birth", "dam_id": cow3, "date": "2026-03-01"})
		again := func(date string) herdbooktest.Response {
			return record([]string{cow3}, map[string]any{"kind": "birth", "dam_id": cow3, "date": date})
		}
		t.Run("UnsetLimitsAreNotChecked", func(t *testing.T) {
			wantStatus(t, again("2026-03-31"), 201)
			wantStatus(t, app.Do("POST", base+"/animals", owner.Token, map[string]any{"tag": "X4", "birth_date": "2026-03-01", "dam_id": animal(map[string]any{"tag": "H2", "sex": "female", "birth_date": "2026-02-17"})}), 201)
		})
		wantStatus(t, app.Do("PUT", base+"/settings", owner.Token, map[string]any{
			"minimum_breeding_age_days": map[string]any{"female": 365, "male": 300}, "minimum_calving_interval_days": 300}), 200)
		t.Run("TwelveDayOldDam", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, young(), 400, "ValidationError",
				"dam_id: H1 was 12 days old on the birth on 2026-03-01 (this write), younger than the farm's minimum breeding age of 365 days for a female (born 2026-02-17, record "+profileRec(heifer)+")")
		})
		t.Run("CalvingsThirtyDaysApart", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, again("2026-04-15"), 400, "ValidationError",
				item+"date: COW3's births on 2026-03-01 (record "+first+") and 2026-04-15 (this write) are 45 days apart, closer than the farm's minimum calving interval of 300 days")
			wantStatus(t, again("2027-03-01"), 201)
		})
		t.Run("Approval", func(t *testing.T) {
			prev := wantStatus(t, app.Do("POST", base+"/birth-history/previews", owner.Token, map[string]any{"dam_id": heifer, "birth_date": "2026-03-01"}), 201)
			herdbooktest.WantEnvelope(t, app.Do("POST", base+"/birth-history/previews/"+prev["id"].(string)+"/approve", owner.Token, map[string]any{"request_id": "r1", "calves": oneCalf("H1-CALF")}),
				400, "ValidationError", "dam_id: H1 was 12 days old")
			// Approved births count for the calving interval (approval records the calving).
			cow4 := animal(map[string]any{"tag": "COW4", "sex": "female", "birth_date": "2018-01-01"})
			approve := func(date, request string) herdbooktest.Response {
				prev := wantStatus(t, app.Do("POST", base+"/birth-history/previews", owner.Token, map[string]any{"dam_id": cow4, "birth_date": date}), 201)
				return app.Do("POST", base+"/birth-history/previews/"+prev["id"].(string)+"/approve", owner.Token, map[string]any{"request_id": request, "calves": oneCalf("COW4-" + request)})
			}
			ev := wantStatus(t, approve("2026-06-01", "r2"), 201)["birth_event"].(map[string]any)
			herdbooktest.WantEnvelope(t, approve("2026-07-01", "r3"), 400, "ValidationError",
				"date: COW4's births on 2026-06-01 (approved birth "+ev["id"].(string)+") and 2026-07-01 (this write) are 30 days apart")
			herdbooktest.WantEnvelope(t, app.Do("POST", base+"/animals", owner.Token, map[string]any{"tag": "X5", "birth_date": "2026-07-01", "dam_id": cow4}),
				400, "ValidationError", "birth_date: COW4's births on 2026-06-01 (approved birth ")
		})
		t.Run("Import", func(t *testing.T) {
			res := importCSV(t, app, f.ID, owner.Token, "", "tag,sex,birth_date,dam\nNEW1,male,2026-03-01,BULL1\n")
			herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "row 2, dam: BULL1 is recorded as male")
		})
		t.Run("GraphQL", func(t *testing.T) {
			out := app.GraphQL(owner.Token, `mutation($f: ID!, $a: ID!) { factCreate(input: {farmID: $f, fact: {movement: {kind: PURCHASE, animalID: $a, date: "2026-06-01"}}}) { record { id } } }`,
				map[string]any{"f": f.ID, "a": calf})
			if msg := fmt.Sprint(out["errors"]); !strings.Contains(msg, "its purchase on 2026-06-01 (this write) is dated after C12's death on 2026-05-01 (record "+death+")") {
				t.Fatalf("graphql: %v", out)
			}
		})
	})
}

// TestHistoryCheckStatements: the check costs the same statements for a record whose items
// name one animal as for one whose items name forty, and the bulk write the same for one
// fact as for forty.
func TestHistoryCheckStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Count Farm")
		ctx := app.Ctx(owner)
		var ids []string
		for i := range 40 {
			a := app.MustAnimal(owner, f.ID, fmt.Sprintf("A%d", i))
			ids = append(ids, a.ID.String())
			if err := app.Service.WriteAnimalFacts(ctx, f.ID, []evidence.Fact{
				{Kind: evidence.KindProfile, AnimalID: a.ID.String(), Sex: "female", BirthDate: "2020-01-01", Date: "2020-01-01"},
				{Kind: evidence.KindWeight, AnimalID: a.ID.String(), Date: "2021-01-01", KG: "300"},
			}); err != nil {
				t.Fatal(err)
			}
		}
		post := func(n int, day string) int64 {
			items := make([]map[string]any, n)
			for i := range items {
				items[i] = map[string]any{"metadata": map[string]any{"birth_history": map[string]any{"kind": "weight", "animal_id": ids[i], "date": day, "kg": 400}}}
			}
			return app.Queries(func() {
				wantStatus(t, app.Do("POST", "/v1/farm/"+f.ID.String()+"/records", owner.Token, map[string]any{"animal_ids": ids[:n], "name": "weights",
					"type": "OTHER", "applied_at": day + "T00:00:00Z", "record_items": items}), 201)
			})
		}
		if one, forty := post(1, "2022-01-01"), post(40, "2022-02-01"); one != forty {
			t.Fatalf("statements: %d for one fact, %d for forty", one, forty)
		}
		bulk := func(n int, day string) int64 {
			facts := make([]evidence.Fact, n)
			for i := range facts {
				facts[i] = evidence.Fact{Kind: evidence.KindBirth, DamID: ids[i], Date: day}
			}
			return app.Queries(func() {
				if err := app.Service.WriteAnimalFacts(ctx, f.ID, facts); err != nil {
					t.Fatal(err)
				}
			})
		}
		if one, forty := bulk(1, "2023-01-01"), bulk(40, "2024-01-01"); one != forty {
			t.Fatalf("bulk statements: %d for one birth, %d for forty", one, forty)
		}
		// A refused bulk write names every fact it refuses, in one answer.
		err := app.Service.WriteAnimalFacts(ctx, f.ID, []evidence.Fact{
			{Kind: evidence.KindWeight, AnimalID: ids[0], Date: "2019-01-01", KG: "10"},
			{Kind: evidence.KindWeight, AnimalID: ids[1], Date: "2019-06-01", KG: "10"},
		})
		if fs := herdbook.ErrorFields(err); len(fs) != 2 || fs[0].Field != "facts[0].birth_history.date" || !strings.Contains(fs[1].Message, "A1's birth on 2020-01-01") {
			t.Fatalf("bulk refusal: %v", err)
		}
	})
}

// TestRegisterNotYet replays issue 19's defect 3: on 2025-06-01 the register listed animals
// bought later and calves born in 2026. The register of a date is the register of that date:
// a hand count of the season, by status, agrees with REST, GraphQL and the CSV export.
func TestRegisterNotYet(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Suckler Farm")
		base := "/v1/farm/" + f.ID.String()
		animal := func(body map[string]any) string {
			t.Helper()
			return wantStatus(t, app.Do("POST", base+"/animals", owner.Token, body), 201)["id"].(string)
		}
		fact := func(id string, fact map[string]any) {
			t.Helper()
			wantStatus(t, app.Do("POST", base+"/records", owner.Token, map[string]any{"animal_ids": []string{id}, "name": "fact", "type": "MOVEMENT",
				"applied_at": "2025-01-01T00:00:00Z", "record_items": []map[string]any{{"metadata": map[string]any{"birth_history": fact}}}}), 201)
		}
		// Five cows bought in 2024 and one bought on 2025-09-01; a bull born on the farm in
		// 2023; a cow sold on 2025-05-01 and one dead on 2025-05-20; four calves born in 2026;
		// a heifer registered with only a birth date in 2025-08; and an old animal with no
		// dated facts at all (on the farm as far as the book knows).
		var cows []string
		for i := range 6 {
			id := animal(map[string]any{"tag": fmt.Sprintf("COW%d", i), "sex": "female", "birth_date": "2019-04-01"})
			bought := "2024-03-01"
			if i == 5 {
				bought = "2025-09-01"
			}
			fact(id, map[string]any{"kind": "purchase", "animal_id": id, "date": bought})
			cows = append(cows, id)
		}
		animal(map[string]any{"tag": "BULL", "sex": "male", "birth_date": "2023-02-01"})
		fact(cows[1], map[string]any{"kind": "sale", "animal_id": cows[1], "date": "2025-05-01"})
		fact(cows[2], map[string]any{"kind": "death", "animal_id": cows[2], "date": "2025-05-20"})
		var calves []string
		for i := range 4 {
			calves = append(calves, animal(map[string]any{"tag": fmt.Sprintf("CALF%d", i), "birth_date": "2026-03-0" + fmt.Sprint(i+1), "dam_id": cows[[]int{0, 3, 4, 5}[i]]}))
		}
		animal(map[string]any{"tag": "HEIFER", "sex": "female", "birth_date": "2025-08-15"})
		app.MustAnimal(owner, f.ID, "OLD")

		// By hand, on 2025-06-01: on the farm COW0, COW3, COW4, BULL, OLD (5); sold COW1;
		// died COW2; not yet COW5, the four calves and HEIFER (6). 13 animals in all.
		hand := map[string]int{"": 7, "on_farm": 5, "sold": 1, "died": 1, "moved_out": 0, "not_yet": 6}
		for status, want := range hand {
			q := base + "/animals?as_of=2025-06-01&take=100"
			if status != "" {
				q += "&status=" + status
			}
			l := wantStatus(t, app.Do("GET", q, owner.Token, nil), 200)
			if l["total"] != float64(want) || len(l["records"].([]any)) != want {
				t.Fatalf("status %q on 2025-06-01: %v, want %d", status, l["total"], want)
			}
			for _, r := range l["records"].([]any) {
				p := r.(map[string]any)["profile"].(map[string]any)
				if (status == "" && p["status"] == "not_yet") || (status != "" && p["status"] != status) {
					t.Fatalf("status %q lists %v", status, r)
				}
			}
		}
		// Today every animal is on the register; the calves are on the farm.
		if l := wantStatus(t, app.Do("GET", base+"/animals?take=100", owner.Token, nil), 200); l["total"] != float64(13) {
			t.Fatalf("today: %v", l["total"])
		}
		if l := wantStatus(t, app.Do("GET", base+"/animals?take=100&status=not_yet", owner.Token, nil), 200); l["total"] != float64(0) {
			t.Fatalf("not yet today: %v", l["total"])
		}
		// One animal's profile says not_yet too.
		if p := wantStatus(t, app.Do("GET", base+"/animals/"+calves[0]+"?as_of=2025-06-01", owner.Token, nil), 200)["profile"].(map[string]any); p["status"] != "not_yet" || p["status_date"] != nil {
			t.Fatalf("calf on 2025-06-01: %v", p)
		}
		if p := wantStatus(t, app.Do("GET", base+"/animals/"+cows[5]+"?as_of=2025-09-01", owner.Token, nil), 200)["profile"].(map[string]any); p["status"] != "on_farm" {
			t.Fatalf("COW5 on the day she was bought: %v", p)
		}

		t.Run("CSV", func(t *testing.T) {
			res := app.Do("GET", base+"/animals.csv?as_of=2025-06-01", owner.Token, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("export: %d %s", res.Status, res.Body)
			}
			rows, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			var tags []string
			for _, r := range rows[1:] {
				tags = append(tags, r[0])
			}
			if got := strings.Join(tags, ","); got != "BULL,COW0,COW1,COW2,COW3,COW4,OLD" {
				t.Fatalf("the register of 2025-06-01 as CSV: %s", got)
			}
		})
		t.Run("GraphQL", func(t *testing.T) {
			count := func(status string) float64 {
				t.Helper()
				arg := ""
				if status != "" {
					arg = ", status: " + status
				}
				out := app.GraphQL(owner.Token, `query($f: ID!) { farm(id: $f) { animals(first: 100, asOf: "2025-06-01"`+arg+`) { totalCount edges { node { profile { status } } } } } }`,
					map[string]any{"f": f.ID})
				if out["errors"] != nil {
					t.Fatalf("graphql: %v", out["errors"])
				}
				conn := out["data"].(map[string]any)["farm"].(map[string]any)["animals"].(map[string]any)
				for _, e := range conn["edges"].([]any) {
					s := e.(map[string]any)["node"].(map[string]any)["profile"].(map[string]any)["status"]
					if (status == "" && s == "NOT_YET") || (status != "" && s != status) {
						t.Fatalf("status %s lists %v", status, s)
					}
				}
				return conn["totalCount"].(float64)
			}
			for status, want := range map[string]float64{"": 7, "ON_FARM": 5, "SOLD": 1, "DIED": 1, "NOT_YET": 6} {
				if got := count(status); got != want {
					t.Fatalf("GraphQL %q: %v, want %v", status, got, want)
				}
			}
		})
	})
}

// TestImportHistoryStatements: the import holds a whole file to the history rules in the
// same statements for 5 rows as for 60.
func TestImportHistoryStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Import Farm")
		wantStatus(t, app.Do("POST", "/v1/farm/"+f.ID.String()+"/animals", owner.Token, map[string]any{"tag": "COW", "sex": "female", "birth_date": "2018-01-01"}), 201)
		file := func(prefix string, n int) string {
			var b strings.Builder
			b.WriteString("tag,sex,birth_date,dam\n")
			for i := range n {
				fmt.Fprintf(&b, "%s%d,male,2026-03-01,COW\n", prefix, i)
			}
			return b.String()
		}
		count := func(prefix string, n int) int64 {
			return app.Queries(func() {
				if res := importCSV(t, app, f.ID, owner.Token, "", file(prefix, n)); res.Status != http.StatusCreated {
					t.Fatalf("import of %d rows: %d %s", n, res.Status, res.Body)
				}
			})
		}
		if small, large := count("A", 5), count("B", 60); small != large {
			t.Fatalf("statements: %d for 5 rows, %d for 60", small, large)
		}
	})
}
