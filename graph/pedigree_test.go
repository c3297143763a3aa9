package graph_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// pedigreeHerd records the hand-computed herd of rest.TestPedigree: bull S1 and cow D, full
// sibs of A × B; calf X of D with no sire recorded while S1 and the unrelated S2 ran with
// her (the review's two plausible candidates, ½ each); and, for mating advice, a steer, a
// sold bull and a heifer that must not be offered as bulls.
func pedigreeHerd(t *testing.T, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID) map[string]uuid.UUID {
	t.Helper()
	ctx := app.Ctx(u)
	if _, err := app.Service.PutBirthSettings(ctx, farmID, evidence.Settings{Version: 1, Species: "CATTLE",
		GestationDays: &evidence.Range{Min: 270, Max: 295}}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]uuid.UUID{}
	mk := func(tag, sex, born, dam, sire string) {
		in := herdbook.AnimalInput{Tag: tag, Sex: strp(sex), BirthDate: strp(born)}
		if dam != "" {
			d := ids[dam]
			in.DamID = &d
		}
		if sire != "" {
			s := ids[sire]
			in.SireID = &s
		}
		a, err := app.Service.CreateAnimal(ctx, farmID, in)
		if err != nil {
			t.Fatal(err)
		}
		ids[tag] = a.ID
	}
	mk("A", "male", "2015-03-01", "", "")
	mk("B", "female", "2015-04-01", "", "")
	mk("S1", "male", "2018-03-01", "B", "A")
	mk("D", "female", "2018-03-01", "B", "A")
	mk("S2", "male", "2016-03-01", "", "")
	mk("X", "female", "2026-03-01", "D", "")
	mk("STEER", "male", "2022-03-01", "B", "S2")
	mk("SOLD", "male", "2022-03-01", "", "")
	mk("HEIFER", "female", "2024-03-01", "D", "S2")
	facts := []evidence.Fact{
		{Kind: evidence.KindExposure, SireID: ids["S1"].String(), DamID: ids["D"].String(), StartDate: "2025-05-01", EndDate: "2025-06-30"},
		{Kind: evidence.KindExposure, SireID: ids["S2"].String(), DamID: ids["D"].String(), StartDate: "2025-05-01", EndDate: "2025-06-30"},
		{Kind: evidence.KindCastration, AnimalID: ids["STEER"].String(), Date: "2022-05-01"},
		{Kind: evidence.KindSale, AnimalID: ids["SOLD"].String(), Date: "2025-01-01"},
	}
	for _, f := range facts {
		if _, err := app.Service.RecordFact(ctx, farmID, f); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

func TestPedigreeGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u, stranger := app.MustUser(), app.MustUser()
		f := app.MustFarm(u, "Pedigree")
		other := app.MustFarm(stranger, "Elsewhere")
		ids := pedigreeHerd(t, app, u, f.ID)
		foreign := app.MustAnimal(stranger, other.ID, "F-1").ID

		out := app.GraphQL(u.Token, `query($x: ID!) { node(id: $x) { ... on Animal { inbreeding
		  pedigree(depth: 1) { animalID inbreeding uncertainAncestors ancestors { animalID generation relation probability } } } } }`,
			map[string]any{"x": ids["X"].String()})
		wantNoErrors(t, out)
		if got := dig(t, out, "data.node.inbreeding").(float64); math.Abs(got-0.125) > 1e-12 {
			t.Errorf("X.inbreeding = %v, want 1/8", got)
		}
		if got := dig(t, out, "data.node.pedigree.uncertainAncestors"); fmt.Sprint(got) != fmt.Sprint([]any{ids["X"].String()}) {
			t.Errorf("uncertainAncestors = %v", got)
		}
		if got := dig(t, out, "data.node.pedigree.ancestors").([]any); len(got) != 3 || dig(t, got[0], "relation") != "dam" ||
			dig(t, got[1], "probability") != 0.5 || dig(t, got[2], "relation") != "sire" || dig(t, got[2], "generation") != 1.0 {
			t.Errorf("ancestors = %v", got)
		}

		kin := app.GraphQL(u.Token, `query($a: ID!, $b: ID!) { kinship(a: $a, b: $b) { a { tag } b { tag } coancestry } }`,
			map[string]any{"a": ids["X"].String(), "b": ids["S1"].String()})
		wantNoErrors(t, kin)
		if dig(t, kin, "data.kinship.coancestry") != 0.25 || dig(t, kin, "data.kinship.a.tag") != "X" {
			t.Errorf("kinship(X, S1) = %v", kin)
		}

		// Mating advice for D: S2 is unrelated (0); her sire A and her full brother S1 give a
		// calf with F = ¼, by tag. The steer, the sold bull and the heifer are not offered.
		adv := app.GraphQL(u.Token, `query($f: ID!, $d: ID!) { farm(id: $f) { matingAdvice(damID: $d) { sire { tag } expectedInbreeding } } }`,
			map[string]any{"f": f.ID.String(), "d": ids["D"].String()})
		wantNoErrors(t, adv)
		var got []string
		for _, a := range dig(t, adv, "data.farm.matingAdvice").([]any) {
			got = append(got, fmt.Sprintf("%v %v", dig(t, a, "sire.tag"), dig(t, a, "expectedInbreeding")))
		}
		if want := []string{"S2 0", "A 0.25", "S1 0.25"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("matingAdvice(D) = %v, want %v", got, want)
		}
		// For X (a daughter of D by S1 or S2): a(X,S1) = ½, a(X,S2) = ¼, a(X,A) = ½ a(D,A) +
		// ¼ (a(S1,A) + a(S2,A)) = ¼ + ⅛ = ⅜.
		adv = app.GraphQL(u.Token, `query($f: ID!, $d: ID!) { farm(id: $f) { matingAdvice(damID: $d) { sire { tag } expectedInbreeding } } }`,
			map[string]any{"f": f.ID.String(), "d": ids["X"].String()})
		got = nil
		for _, a := range dig(t, adv, "data.farm.matingAdvice").([]any) {
			got = append(got, fmt.Sprintf("%v %v", dig(t, a, "sire.tag"), dig(t, a, "expectedInbreeding")))
		}
		if want := []string{"S2 0.125", "A 0.1875", "S1 0.25"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("matingAdvice(X) = %v, want %v", got, want)
		}
		// first keeps the best: the two lowest F.
		adv = app.GraphQL(u.Token, `query($f: ID!, $d: ID!) { farm(id: $f) { matingAdvice(damID: $d, first: 2) { sire { tag } expectedInbreeding } } }`,
			map[string]any{"f": f.ID.String(), "d": ids["X"].String()})
		got = nil
		for _, a := range dig(t, adv, "data.farm.matingAdvice").([]any) {
			got = append(got, fmt.Sprintf("%v %v", dig(t, a, "sire.tag"), dig(t, a, "expectedInbreeding")))
		}
		if want := []string{"S2 0.125", "A 0.1875"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("matingAdvice(X, first: 2) = %v, want %v", got, want)
		}

		// With a minimum breeding age for males (farm settings), only bulls known to be that
		// old are offered: S1 (born 2018-03-01) is a month too young, A and S2 are older.
		age := int(time.Since(time.Date(2018, 3, 1, 0, 0, 0, 0, time.UTC)).Hours()/24) + 30
		if _, err := app.Service.UpdateFarmSettings(app.Ctx(u), f.ID, herdbook.FarmSettingsPatch{
			MinimumBreedingAgeMaleDays: herdbook.Optional[int]{Set: true, Value: &age}}); err != nil {
			t.Fatal(err)
		}
		adv = app.GraphQL(u.Token, `query($f: ID!, $d: ID!) { farm(id: $f) { matingAdvice(damID: $d) { sire { tag } expectedInbreeding } } }`,
			map[string]any{"f": f.ID.String(), "d": ids["D"].String()})
		got = nil
		for _, a := range dig(t, adv, "data.farm.matingAdvice").([]any) {
			got = append(got, fmt.Sprintf("%v %v", dig(t, a, "sire.tag"), dig(t, a, "expectedInbreeding")))
		}
		if want := []string{"S2 0", "A 0.25"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("matingAdvice(D) with a minimum breeding age of %d days = %v, want %v", age, got, want)
		}

		// Errors.
		for _, tc := range []struct {
			name, query string
			vars        map[string]any
			code, field string
		}{
			{"ErrAdviceFirstZero", `query($f: ID!, $d: ID!) { farm(id: $f) { matingAdvice(damID: $d, first: 0) { expectedInbreeding } } }`, map[string]any{"f": f.ID.String(), "d": ids["D"].String()}, "BAD_USER_INPUT", "first"},
			{"ErrAdviceFirstTooMany", `query($f: ID!, $d: ID!) { farm(id: $f) { matingAdvice(damID: $d, first: 501) { expectedInbreeding } } }`, map[string]any{"f": f.ID.String(), "d": ids["D"].String()}, "BAD_USER_INPUT", "first"},
			{"ErrDepthZero", `query($x: ID!) { node(id: $x) { ... on Animal { pedigree(depth: 0) { inbreeding } } } }`, map[string]any{"x": ids["X"].String()}, "BAD_USER_INPUT", "depth"},
			{"ErrDepthNine", `query($x: ID!) { node(id: $x) { ... on Animal { pedigree(depth: 9) { inbreeding } } } }`, map[string]any{"x": ids["X"].String()}, "BAD_USER_INPUT", "depth"},
			{"ErrKinshipUnknown", `query($a: ID!, $b: ID!) { kinship(a: $a, b: $b) { coancestry } }`, map[string]any{"a": ids["X"].String(), "b": uuid.NewString()}, "NOT_FOUND", ""},
			{"ErrKinshipOtherFarm", `query($a: ID!, $b: ID!) { kinship(a: $a, b: $b) { coancestry } }`, map[string]any{"a": ids["X"].String(), "b": foreign.String()}, "NOT_FOUND", ""},
			{"ErrAdviceUnknownDam", `query($f: ID!, $d: ID!) { farm(id: $f) { matingAdvice(damID: $d) { expectedInbreeding } } }`, map[string]any{"f": f.ID.String(), "d": foreign.String()}, "NOT_FOUND", ""},
			{"ErrAdviceMaleDam", `query($f: ID!, $d: ID!) { farm(id: $f) { matingAdvice(damID: $d) { expectedInbreeding } } }`, map[string]any{"f": f.ID.String(), "d": ids["S1"].String()}, "BAD_USER_INPUT", "damID"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := app.GraphQL(u.Token, tc.query, tc.vars)
				if errorCode(res) != tc.code || (tc.field != "" && !fieldNamed(res, tc.field)) {
					t.Fatalf("answer %v, want %s naming %q", res, tc.code, tc.field)
				}
			})
		}
		if res := app.GraphQL(stranger.Token, `query($a: ID!, $b: ID!) { kinship(a: $a, b: $b) { coancestry } }`,
			map[string]any{"a": ids["X"].String(), "b": ids["S1"].String()}); errorCode(res) != "NOT_FOUND" {
			t.Fatalf("a stranger's kinship: %v", res)
		}
	})
}

// TestInbreedingStatementCount proves that a register page asking every animal's
// inbreeding and pedigree costs the same statements for a few animals as for many.
func TestInbreedingStatementCount(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Register")
		registerHerd(t, app, u, f.ID, 20)
		q := `query($f: ID!, $n: Int) { farm(id: $f) { animals(first: $n) { edges { node { tag inbreeding pedigree(depth: 2) { ancestors { animalID } } } } } } }`
		counts := map[int]int64{}
		// Both pages find the farm's parentage facts kept (by its change counter): the
		// first read after the herd was made fills it.
		app.GraphQL(u.Token, q, map[string]any{"f": f.ID.String(), "n": 1})
		for _, n := range []int{3, 22} {
			counts[n] = app.Queries(func() {
				out := app.GraphQL(u.Token, q, map[string]any{"f": f.ID.String(), "n": n})
				wantNoErrors(t, out)
				if edges := dig(t, out, "data.farm.animals.edges").([]any); len(edges) != n {
					t.Fatalf("%d edges, want %d", len(edges), n)
				}
			})
		}
		if counts[3] != counts[22] {
			t.Fatalf("statements grow with the page: %v", counts)
		}
		t.Logf("a register page with inbreeding and pedigrees: %d statements for any page size", counts[22])
	})
}

// fieldNamed reports whether the first error's fields name field.
func fieldNamed(res map[string]any, field string) bool {
	errs, _ := res["errors"].([]any)
	if len(errs) == 0 {
		return false
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	fields, _ := ext["fields"].([]any)
	for _, fe := range fields {
		if strings.Contains(fmt.Sprint(fe.(map[string]any)["field"]), field) {
			return true
		}
	}
	return false
}

// TestBreedGestationGraphQL: the farm gives Charolais sires 285 to 300 days of gestation
// (continental breeds carry longer: Torell, UNR Extension); a Charolais bull that ran with
// the dam before the farm's window (280 to 290 days) is still a candidate, with the gestation
// the birth implies, and the presumed cross is written sire first.
func TestBreedGestationGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Breeds")
		ctx := app.Ctx(u)
		dam, err := app.Service.CreateAnimal(ctx, f.ID, herdbook.AnimalInput{Tag: "D", Sex: strp("female"), BirthDate: strp("2020-03-01"), Breed: strp("Angus")})
		if err != nil {
			t.Fatal(err)
		}
		bull, err := app.Service.CreateAnimal(ctx, f.ID, herdbook.AnimalInput{Tag: "CH", Sex: strp("male"), BirthDate: strp("2020-03-01"), Breed: strp("Charolais")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := app.Service.RecordFact(ctx, f.ID, evidence.Fact{Kind: evidence.KindExposure, SireID: bull.ID.String(), DamID: dam.ID.String(),
			StartDate: "2024-12-20", EndDate: "2024-12-31"}); err != nil {
			t.Fatal(err)
		}
		const update = `mutation($f: ID!, $by: [BreedGestationInput!]) { birthSettingsUpdate(input: {farmID: $f, version: 1, species: CATTLE,
		  gestationDays: {min: 280, max: 290}, gestationDaysByBreed: $by}) { birthSettings { settings { gestationDaysByBreed { breed min max } } } } }`
		bad := app.GraphQL(u.Token, update, map[string]any{"f": f.ID.String(), "by": []any{
			map[string]any{"breed": "Charolais", "min": 285, "max": 300}, map[string]any{"breed": "charolais", "min": 280, "max": 300}}})
		if errorCode(bad) != "BAD_USER_INPUT" || !fieldNamed(bad, "gestation_days_by_breed") {
			t.Fatalf("a breed named twice: %v", bad)
		}
		out := app.GraphQL(u.Token, update, map[string]any{"f": f.ID.String(), "by": []any{map[string]any{"breed": "Charolais", "min": 285, "max": 300}}})
		wantNoErrors(t, out)
		if got := fmt.Sprint(dig(t, out, "data.birthSettingsUpdate.birthSettings.settings.gestationDaysByBreed")); got != "[map[breed:Charolais max:300 min:285]]" {
			t.Fatalf("settings %s", got)
		}
		ev := app.GraphQL(u.Token, `query($f: ID!, $d: ID!) { birthEvidence(farmID: $f, damID: $d, birthDate: "2025-10-18") { sire { status presumedCross
		  candidates { animal { tag } gestationBreed gestationDays { min max } impliedGestationDays { min max } } } } }`,
			map[string]any{"f": f.ID.String(), "d": dam.ID.String()})
		wantNoErrors(t, ev)
		if got := fmt.Sprint(dig(t, ev, "data.birthEvidence.sire")); got !=
			"map[candidates:[map[animal:map[tag:CH] gestationBreed:Charolais gestationDays:map[max:300 min:285] impliedGestationDays:map[max:300 min:291]]] presumedCross:Charolais × Angus status:presumed]" {
			t.Fatalf("sire %s", got)
		}
	})
}
