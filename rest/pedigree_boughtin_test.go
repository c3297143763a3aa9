package rest_test

import (
	"math"
	"net/http"
	"testing"

	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestPedigreeBoughtIn (issue 28.7): bought-in animals take a known sire or dam that never
// was on the farm, an outside animal (by id over REST and GraphQL, by registration number or
// name in a CSV import), recorded as a pedigree fact (their papers), and their descendants'
// inbreeding counts it.
//
// Worked by hand: the heifer H1 (sire the outside bull O, dam not known) and the bull H2
// (sire O, dam the outside cow P) were bought in: they are paternal half sibs, a(H1, H2) =
// ¼ a(O, O) = ¼ (O a founder). Their calf C, born here (a birth fact: dam H1, sire H2), has
// F = ½ a(H1, H2) = ⅛ (Falconer & Mackay, table 5.1: half sibs), and the coancestry of H1 and
// H2 is ⅛. H3, imported from CSV with O's registration number as sire, is H2's half sister
// too (coancestry ⅛), and G, created over GraphQL with sire O, is H1's (⅛).
func TestPedigreeBoughtIn(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, stranger := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Bought-in Farm")
		other := app.MustFarm(stranger, "Other Farm")
		base := "/v1/farm/" + f.ID.String()
		outside := func(token, farm string, body map[string]any) string {
			t.Helper()
			return wantStatus(t, app.Do("POST", "/v1/farm/"+farm+"/outside-animals", token, body), http.StatusCreated)["id"].(string)
		}
		o := outside(owner.Token, f.ID.String(), map[string]any{"name": "Grand Bull", "sex": "male", "registration_number": "FR1234567890"})
		p := outside(owner.Token, f.ID.String(), map[string]any{"name": "Papers Cow", "sex": "female"})
		foreign := outside(stranger.Token, other.ID.String(), map[string]any{"name": "Their Bull", "sex": "male"})
		mk := func(body map[string]any) map[string]any {
			t.Helper()
			return wantStatus(t, app.Do("POST", base+"/animals", owner.Token, body), http.StatusCreated)
		}
		h1 := mk(map[string]any{"tag": "H1", "sex": "female", "birth_date": "2021-03-01", "sire_id": o})
		if prof := h1["profile"].(map[string]any); prof["sire_id"] != o || prof["dam_id"] != nil {
			t.Fatalf("H1's profile: %v", prof)
		}
		h2 := mk(map[string]any{"tag": "H2", "sex": "male", "birth_date": "2021-04-01", "sire_id": o, "dam_id": p})
		if prof := h2["profile"].(map[string]any); prof["sire_id"] != o || prof["dam_id"] != p {
			t.Fatalf("H2's profile: %v", prof)
		}
		// A bought-in animal with no birth date takes its papers too (dated today).
		mk(map[string]any{"tag": "H4", "sex": "female", "dam_id": p})
		c := mk(map[string]any{"tag": "C", "sex": "female", "birth_date": "2024-03-01", "dam_id": h1["id"], "sire_id": h2["id"]})

		ped := wantStatus(t, app.Do("GET", base+"/animals/"+c["id"].(string)+"/pedigree?depth=2", owner.Token, nil), http.StatusOK)
		if math.Abs(ped["inbreeding"].(float64)-0.125) > 1e-12 || len(ped["uncertain_ancestors"].([]any)) != 0 {
			t.Fatalf("the calf of two bought-in half sibs: %v, want F = 0.125", ped)
		}
		places := map[string]string{}
		for _, e := range ped["ancestors"].([]any) {
			m := e.(map[string]any)
			places[m["relation"].(string)] = m["animal_id"].(string)
		}
		if places["dam's sire"] != o || places["sire's sire"] != o || places["sire's dam"] != p || places["dam"] != h1["id"] {
			t.Fatalf("the calf's ancestors: %v", places)
		}
		kin := func(a, b any) float64 {
			t.Helper()
			return wantStatus(t, app.Do("GET", base+"/kinship?a="+a.(string)+"&b="+b.(string), owner.Token, nil), http.StatusOK)["coancestry"].(float64)
		}
		if k := kin(h1["id"], h2["id"]); math.Abs(k-0.125) > 1e-12 {
			t.Fatalf("coancestry of H1 and H2 = %v, want 0.125", k)
		}

		// CSV import: the sire cell names O by its registration number; the export writes
		// it back the same way.
		res := importCSV(t, app, f.ID, owner.Token, "", "tag,sex,birth_date,sire\nH3,female,2021-05-01,FR1234567890\n")
		if res.Status != http.StatusOK && res.Status != http.StatusCreated {
			t.Fatalf("import: %d %s", res.Status, res.Body)
		}
		h3 := ""
		for _, a := range res.JSON(t)["animals"].([]any) {
			h3 = a.(map[string]any)["animal_id"].(string)
		}
		if k := kin(h3, h2["id"]); math.Abs(k-0.125) > 1e-12 {
			t.Fatalf("coancestry of the imported H3 and H2 = %v, want 0.125", k)
		}
		herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, owner.Token, "", "tag,sex,sire\nH5,female,Papers Cow\n"), 400, "ValidationError", "cannot be the sire")
		herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, owner.Token, "", "tag,sex,sire\nH5,female,NOBODY-1\n"), 400, "ValidationError", "outside animal")

		// GraphQL's animalCreate takes an outside sire as REST does.
		gql := app.GraphQL(owner.Token, `mutation($in: AnimalCreateInput!) { animalCreate(input: $in) { animal { id } } }`,
			map[string]any{"in": map[string]any{"farmID": f.ID.String(), "tag": "G", "sex": "FEMALE", "birthDate": "2021-06-01", "sireID": o}})
		g := ""
		if data, ok := gql["data"].(map[string]any); ok {
			if ac, ok := data["animalCreate"].(map[string]any); ok {
				g, _ = ac["animal"].(map[string]any)["id"].(string)
			}
		}
		if g == "" {
			t.Fatalf("animalCreate: %v", gql)
		}
		if k := kin(g, h1["id"]); math.Abs(k-0.125) > 1e-12 {
			t.Fatalf("coancestry of G and H1 = %v, want 0.125", k)
		}

		// Bad input, each naming its field.
		cow := mk(map[string]any{"tag": "COW", "sex": "female", "birth_date": "2019-01-01"})["id"]
		for _, tc := range []struct {
			name  string
			body  any
			field string
		}{
			{"FemaleSire", map[string]any{"tag": "X", "sire_id": p}, "sire_id"},
			{"MaleDam", map[string]any{"tag": "X", "dam_id": o}, "dam_id"},
			{"OtherFarmsOutside", map[string]any{"tag": "X", "sire_id": foreign}, "sire_id"},
			{"UnknownID", map[string]any{"tag": "X", "sire_id": "7b0c1c1e-0000-4000-8000-000000000001"}, "sire_id"},
			{"FarmDamNoBirthDate", map[string]any{"tag": "X", "dam_id": cow}, "dam_id"},
			{"SameParent", map[string]any{"tag": "X", "dam_id": p, "sire_id": p}, "sire_id"},
			{"Self", map[string]any{"tag": "X", "sire_id": 12}, "sire_id"},
			{"NotUUID", map[string]any{"tag": "X", "dam_id": "P-1"}, "dam_id"},
			{"Malformed", `{"tag": "X", "sire_id": `, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do("POST", base+"/animals", owner.Token, tc.body), 400, "ValidationError", tc.field)
			})
		}
		herdbooktest.WantEnvelope(t, app.Do("POST", base+"/animals", "", map[string]any{"tag": "X", "sire_id": o}), 401, "Unauthorized", "")
		herdbooktest.WantEnvelope(t, app.Do("POST", base+"/animals", stranger.Token, map[string]any{"tag": "X", "sire_id": o}), 404, "ServiceError", "")

		// A pedigree fact written as such is checked as the register's is.
		ctx := app.Ctx(owner)
		if _, err := app.Service.RecordFact(ctx, f.ID, evidence.Fact{Kind: evidence.KindPedigree, AnimalID: cow.(string), Date: "2026-01-01"}); err == nil {
			t.Fatal("a pedigree fact naming no parent was accepted")
		}
		if _, err := app.Service.RecordFact(ctx, f.ID, evidence.Fact{Kind: evidence.KindPedigree, AnimalID: cow.(string), DamID: o, Date: "2026-01-01"}); err == nil {
			t.Fatal("a pedigree fact naming a male outside animal as dam was accepted")
		}
	})
}
