package herdbook_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// recordFact writes one fact through the record write path, failing the test on error.
func recordFact(tb testing.TB, app *herdbooktest.App, ctx context.Context, farmID uuid.UUID, f evidence.Fact) {
	tb.Helper()
	if _, err := app.Service.RecordFact(ctx, farmID, f); err != nil {
		tb.Fatalf("recording %s: %v", f.Kind, err)
	}
}

func TestRegisterProfilesAndBackdating(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		ctx := app.Ctx(owner)
		farm := app.MustFarm(owner, "Register")
		dam := app.MustAnimal(owner, farm.ID, "D1")
		sire := app.MustAnimal(owner, farm.ID, "S1")
		calf, err := app.Service.CreateAnimal(ctx, farm.ID, herdbook.AnimalInput{
			Tag: "C1", Sex: ptr("male"), BirthDate: ptr("2025-03-01"), Breed: ptr("Angus"),
			DamID: &dam.ID, SireID: &sire.ID, EID: ptr("982 000123456789"),
		})
		if err != nil {
			t.Fatal(err)
		}
		p, err := app.Service.FarmAnimal(ctx, farm.ID, calf.ID, "2025-06-01")
		if err != nil {
			t.Fatal(err)
		}
		if *p.Profile.Sex != "male" || *p.Profile.DamID != dam.ID.String() || *p.Profile.SireID != sire.ID.String() ||
			len(p.Profile.Identifiers) != 1 || p.Profile.Identifiers[0].Value != "982000123456789" || *p.Profile.Intact != true {
			t.Fatalf("profile %+v", p.Profile)
		}
		// Before the birth date nothing is known yet.
		if p, _ := app.Service.FarmAnimal(ctx, farm.ID, calf.ID, "2025-02-28"); p.Profile.Sex != nil || p.Profile.DamID != nil {
			t.Fatalf("profile before birth %+v", p.Profile)
		}
		// The same EID on another animal is refused, naming the field, in any reader form.
		hex, _ := evidence.EIDHex("982000123456789")
		_, err = app.Service.CreateAnimal(ctx, farm.ID, herdbook.AnimalInput{Tag: "C2", EID: &hex})
		if fs := herdbook.ErrorFields(err); len(fs) != 1 || fs[0].Field != "eid" {
			t.Fatalf("duplicate EID: %v", err)
		}
		// A backdated sale changes every later date and no earlier one.
		dates := []string{"2025-05-31", "2025-06-01", "2025-09-01", "2026-01-01"}
		for _, d := range dates {
			p, _ := app.Service.FarmAnimal(ctx, farm.ID, calf.ID, d)
			if p.Profile.Status != "on_farm" {
				t.Fatalf("as of %s status %s", d, p.Profile.Status)
			}
		}
		recordFact(t, app, ctx, farm.ID, evidence.Fact{Kind: evidence.KindSale, AnimalID: calf.ID.String(), Date: "2025-06-01"})
		for _, d := range dates {
			p, _ := app.Service.FarmAnimal(ctx, farm.ID, calf.ID, d)
			want := "sold"
			if d < "2025-06-01" {
				want = "on_farm"
			}
			if p.Profile.Status != want {
				t.Fatalf("after the backdated sale, as of %s status %s, want %s", d, p.Profile.Status, want)
			}
		}
		// A DNA exclusion of the recorded sire removes him; a qualified sire replaces him.
		other := app.MustAnimal(owner, farm.ID, "S2")
		recordFact(t, app, ctx, farm.ID, evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: calf.ID.String(),
			ParentID: sire.ID.String(), Relation: "sire", Result: "excluded", Date: "2025-07-01"})
		if p, _ := app.Service.FarmAnimal(ctx, farm.ID, calf.ID, "2025-07-01"); p.Profile.SireID != nil {
			t.Fatalf("an excluded sire stayed: %v", *p.Profile.SireID)
		}
		recordFact(t, app, ctx, farm.ID, evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: calf.ID.String(),
			ParentID: other.ID.String(), Relation: "sire", Result: "qualified", Date: "2025-07-02"})
		if p, _ := app.Service.FarmAnimal(ctx, farm.ID, calf.ID, "2025-07-02"); p.Profile.SireID == nil || *p.Profile.SireID != other.ID.String() {
			t.Fatalf("the qualified sire is missing: %+v", p.Profile)
		}
		// Search finds the calf by any EID form, by tag and by name.
		for _, q := range []string{"982000123456789", "982 000123456789", hex, strings.ToLower(hex), "c1"} {
			got, total, err := app.Service.Animals(ctx, farm.ID, herdbook.AnimalFilter{Q: q, AsOf: "2025-06-01"})
			if err != nil || total != 1 || got[0].Animal.ID != calf.ID {
				t.Fatalf("q=%s: %d %v", q, total, err)
			}
		}
		// Status filters as of a date.
		if _, total, _ := app.Service.Animals(ctx, farm.ID, herdbook.AnimalFilter{Status: "sold", AsOf: "2025-06-01"}); total != 1 {
			t.Fatalf("sold on 2025-06-01: %d", total)
		}
		if _, total, _ := app.Service.Animals(ctx, farm.ID, herdbook.AnimalFilter{Status: "on_farm", AsOf: "2025-06-01"}); total != 3 {
			t.Fatalf("on farm on 2025-06-01: %d", total)
		}
		if _, total, _ := app.Service.Animals(ctx, farm.ID, herdbook.AnimalFilter{Status: "sold", AsOf: "2025-05-31"}); total != 0 {
			t.Fatalf("sold on 2025-05-31: %d", total)
		}
	})
}

// TestRegisterPageStatements: a register page with profiles costs the same number of
// statements for 3 animals as for 50.
func TestRegisterPageStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app, ctx, farmID := seededFarm(t, d, 120, 600)
		count := func(take int) int64 {
			return app.Queries(func() {
				got, _, err := app.Service.Animals(ctx, farmID, herdbook.AnimalFilter{AsOf: "2026-01-01", Page: herdbook.Page{Take: &take}})
				if err != nil || len(got) != take {
					t.Fatalf("take %d: %d animals, %v", take, len(got), err)
				}
			})
		}
		small, large := count(3), count(50)
		if small != large || large > 4 {
			t.Fatalf("statements: %d for 3 animals, %d for 50; want the same, at most 4", small, large)
		}
	})
}
