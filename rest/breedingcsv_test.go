package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// breedingHerd is a farm with the same tags on every call: cows C-1 and R-1 (a recipient),
// donor D-1, bull B-1, calf K-1, and an outside sire "Outside Bull" (AI semen).
type breedingHerd struct {
	farm uuid.UUID
	ids  map[string]string
}

func newBreedingHerd(t testing.TB, app *herdbooktest.App, owner herdbooktest.User, name string) breedingHerd {
	t.Helper()
	h := breedingHerd{farm: app.MustFarm(owner, name).ID, ids: map[string]string{}}
	ctx := app.Ctx(owner)
	for tag, sex := range map[string]string{"C-1": "female", "R-1": "female", "D-1": "female", "B-1": "male", "K-1": "male"} {
		id := app.MustAnimal(owner, h.farm, tag).ID.String()
		h.ids[tag] = id
		if _, err := app.Service.RecordFact(ctx, h.farm, evidence.Fact{Kind: evidence.KindProfile, AnimalID: id, Sex: sex, BirthDate: "2020-03-01"}); err != nil {
			t.Fatal(err)
		}
	}
	on, male := "Outside Bull", "male"
	o, err := app.Service.CreateOutsideAnimal(ctx, h.farm, herdbook.OutsideAnimalInput{Name: &on, Sex: &male})
	if err != nil {
		t.Fatal(err)
	}
	h.ids["Outside Bull"] = o.ID.String()
	return h
}

func (h breedingHerd) record(t *testing.T, app *herdbooktest.App, owner herdbooktest.User, facts ...evidence.Fact) {
	t.Helper()
	for _, f := range facts {
		if _, err := app.Service.RecordFact(app.Ctx(owner), h.farm, f); err != nil {
			t.Fatalf("%v: %v", f.Kind, err)
		}
	}
}

func importBreeding(t *testing.T, app *herdbooktest.App, farmID uuid.UUID, token, query, file string) herdbooktest.Response {
	t.Helper()
	body, ct := csvForm(t, "file", file)
	return app.Do("POST", "/v1/farm/"+farmID.String()+"/breeding/import"+query, token, body, "Content-Type", ct)
}

func csvText(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	return b.String()
}

// TestBreedingCSV: the service facts of issue 21.2 out as breeding.csv and back in, on both
// databases. The kinds follow ICAR's reproduction events (ICAR ADE data dictionary:
// heat, insemination, mating, embryo transfer, pregnancy check, weaning).
func TestBreedingCSV(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader := app.MustUser(), app.MustUser(), app.MustUser()
		a := newBreedingHerd(t, app, owner, "Breeding A")
		b := newBreedingHerd(t, app, owner, "Breeding B")
		for _, f := range []uuid.UUID{a.farm, b.farm} {
			app.MustMember(f, editor, herdbook.RoleEditor)
			app.MustMember(f, reader, herdbook.RoleReader)
		}
		sixty, pregnant := 60, "pregnant"
		a.record(t, app, owner,
			evidence.Fact{Kind: evidence.KindPregnancyCheck, AnimalID: a.ids["C-1"], Date: "2025-08-20", Method: "scan", Result: pregnant, FoetalAgeDays: &sixty},
			evidence.Fact{Kind: evidence.KindHeat, AnimalID: a.ids["C-1"], Date: "2025-06-01"},
			evidence.Fact{Kind: evidence.KindInsemination, DamID: a.ids["C-1"], SireID: a.ids["Outside Bull"], Date: "2025-06-20", Straw: "7AN0123-44", Technician: "J. Byrne"},
			evidence.Fact{Kind: evidence.KindHandMating, DamID: a.ids["C-1"], SireID: a.ids["B-1"], Date: "2025-06-21"},
			evidence.Fact{Kind: evidence.KindEmbryoTransfer, DamID: a.ids["D-1"], SireID: a.ids["B-1"], RecipientID: a.ids["R-1"], Date: "2025-07-01", Embryo: "E-9"},
			evidence.Fact{Kind: evidence.KindWeaning, AnimalID: a.ids["K-1"], Date: "2025-10-01", KG: "251.5"},
		)
		base := func(f uuid.UUID) string { return "/v1/farm/" + f.String() }
		export := func(f uuid.UUID, q string) [][]string {
			t.Helper()
			return readCSV(t, app.Do("GET", base(f)+"/breeding.csv"+q, reader.Token, nil))
		}
		rows := export(a.farm, "")
		if got := strings.Join(rows[0], ","); got != strings.Join(herdbook.BreedingCSVColumns, ",") {
			t.Fatalf("header %s", got)
		}
		if got := strings.Join(column(t, rows, "kind"), ","); got != "heat,insemination,hand_mating,embryo_transfer,pregnancy_check,weaning" {
			t.Fatalf("kinds, oldest first: %s", got)
		}
		if got := strings.Join(column(t, rows, "sire_tag"), ","); got != ",Outside Bull,B-1,B-1,," {
			t.Fatalf("sire_tag %s", got)
		}
		if got := strings.Join(column(t, rows, "animal_tag"), ","); got != "C-1,C-1,C-1,R-1,C-1,K-1" {
			t.Fatalf("animal_tag %s", got)
		}
		if r := rows[5]; strings.Join(r[:4], ",") != "pregnancy_check,2025-08-20,C-1,"+a.ids["C-1"] || column(t, rows, "foetal_age_days")[4] != "60" || column(t, rows, "kg")[5] != "251.5" {
			t.Fatalf("row %v", rows[5:])
		}
		if got := export(a.farm, "?from=2025-06-20&to=2025-07-01"); len(got) != 4 {
			t.Fatalf("from/to: %v", got)
		}
		file := csvText(rows)

		t.Run("DryRun", func(t *testing.T) {
			res := importBreeding(t, app, b.farm, editor.Token, "?dry_run=true", file)
			if out := res.JSON(t); res.Status != http.StatusOK || out["dry_run"] != true || out["rows"] != 6.0 || out["created"] != 6.0 {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			if got := export(b.farm, ""); len(got) != 1 {
				t.Fatalf("a dry run wrote %v", got)
			}
		})
		t.Run("RoundTrip", func(t *testing.T) {
			res := importBreeding(t, app, b.farm, editor.Token, "", file)
			if out := res.JSON(t); res.Status != http.StatusCreated || out["created"] != 6.0 || out["skipped"] != 0.0 {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			back := export(b.farm, "")
			for _, col := range []string{"kind", "date", "animal_tag", "sire_tag", "straw", "technician", "embryo", "method", "result", "foetal_age_days", "kg"} {
				if x, y := strings.Join(column(t, rows, col), "|"), strings.Join(column(t, back, col), "|"); x != y {
					t.Fatalf("%s: %s, back %s", col, x, y)
				}
			}
			if got := column(t, back, "donor_id")[3]; got != b.ids["D-1"] {
				t.Fatalf("donor %s, want B's D-1 %s", got, b.ids["D-1"])
			}
			again := importBreeding(t, app, b.farm, editor.Token, "", file)
			if out := again.JSON(t); again.Status != http.StatusCreated || out["created"] != 0.0 || out["skipped"] != 6.0 {
				t.Fatalf("a re-import must add nothing: %d %s", again.Status, again.Body)
			}
		})
		t.Run("Problems", func(t *testing.T) {
			c := newBreedingHerd(t, app, owner, "Breeding C")
			app.MustMember(c.farm, editor, herdbook.RoleEditor)
			app.MustMember(c.farm, reader, herdbook.RoleReader)
			want := func(file, query string, entries ...string) {
				t.Helper()
				res := importBreeding(t, app, c.farm, editor.Token, query, file)
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "")
				body := string(res.Body)
				for _, e := range entries {
					if !strings.Contains(body, e) {
						t.Fatalf("no %q in %s", e, body)
					}
				}
				if got := export(c.farm, ""); len(got) != 1 {
					t.Fatalf("a refused file wrote %v", got)
				}
			}
			want("kind,date,animal_tag\nheat,\"2025-06-01,C-1\n", "", "is not valid CSV")
			want("kind,date,animal_tag,colour\nheat,2025-06-01,C-1,red\n", "", "colour")
			want("kind,date,animal_tag\nheat,2025-06-01,C-1\nsneeze,2025-06-02,C-1\nheat,2025-06-03,NOPE\nheat,2025-13-03,C-1\n", "",
				`"message":"row 3, kind:`, `"message":"row 4, animal_tag:`, `"message":"row 5, date:`)
			// The history check of every fact write: a bull is no served dam.
			want("kind,date,animal_tag,sire_tag\ninsemination,2025-06-01,B-1,Outside Bull\n", "", `"message":"row 2, animal_tag:`, "is recorded as male")
			// Another farm's id names no animal here.
			want("kind,date,animal_id\nheat,2025-06-01,"+a.ids["C-1"]+"\n", "", `"message":"row 2, animal_tag:`, "not an animal of this farm")
			want("kind,date,animal_tag\nheat,2025-06-01,C\x01-1\n", "", "control characters")
			want("kind,date,animal_tag,sire_id\ninsemination,2025-06-01,C-1,"+a.ids["Outside Bull"]+"\n", "", `"message":"row 2, sire_tag:`)
			herdbooktest.WantEnvelope(t, importBreeding(t, app, c.farm, editor.Token, "?dry_run=maybe", "kind,date\n"), 400, "ValidationError", "dry_run")
		})
		t.Run("Access", func(t *testing.T) {
			stranger := app.MustUser()
			herdbooktest.WantEnvelope(t, importBreeding(t, app, b.farm, "", "", file), 401, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, importBreeding(t, app, b.farm, reader.Token, "", file), 401, "Unauthorized", "EDITOR")
			herdbooktest.WantEnvelope(t, importBreeding(t, app, b.farm, stranger.Token, "", file), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", base(a.farm)+"/breeding.csv", "", nil), 401, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", base(a.farm)+"/breeding.csv", stranger.Token, nil), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", base(a.farm)+"/breeding.csv?from=2025-02-30", reader.Token, nil), 400, "ValidationError", "from")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/nope/breeding.csv", reader.Token, nil), 400, "ValidationError", "farm_id")
		})
		t.Run("Statements", func(t *testing.T) {
			c := newBreedingHerd(t, app, owner, "Counted")
			count := func(n int) int64 {
				for i := 0; i < n; i++ {
					c.record(t, app, owner, evidence.Fact{Kind: evidence.KindHeat, AnimalID: c.ids["C-1"], Date: fmt.Sprintf("2025-0%d-%02d", 1+i/28, 1+i%28)},
						evidence.Fact{Kind: evidence.KindInsemination, DamID: c.ids["R-1"], SireID: c.ids["B-1"], Date: fmt.Sprintf("2025-0%d-%02d", 1+i/28, 1+i%28)})
				}
				return app.Queries(func() { readCSV(t, app.Do("GET", base(c.farm)+"/breeding.csv", owner.Token, nil)) })
			}
			if two, twenty := count(2), count(18); two != twenty {
				t.Fatalf("2 rows cost %d statements, 40 cost %d", two, twenty)
			}
		})
	})
}

// BenchmarkExportBreeding reads breeding.csv of a farm of 300 facts.
func BenchmarkExportBreeding(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			owner := app.MustUser()
			h := newBreedingHerd(b, app, owner, "Bench")
			for i := 0; i < 300; i++ {
				if _, err := app.Service.RecordFact(app.Ctx(owner), h.farm, evidence.Fact{Kind: evidence.KindHeat, AnimalID: h.ids["C-1"],
					Date: fmt.Sprintf("%d-%02d-%02d", 2021+i/336, 1+i/28%12, 1+i%28)}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := app.Do("GET", "/v1/farm/"+h.farm.String()+"/breeding.csv", owner.Token, nil); res.Status != 200 {
					b.Fatal(res.Status)
				}
			}
		})
	}
}
