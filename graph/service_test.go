package graph_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestServiceFactsGraphQL: factCreate takes the breeding year's facts REST's records take
// (issue 21 items 2, 3 and 5) with the same checks: a heat, an insemination by an outside
// AI sire, a hand mating, an embryo transfer from an outside donor, a positive scan that puts
// the cow on the due list, and a weaning weight; a bull as the served dam and a foetal age
// on an empty scan are refused naming the field, and nothing is written.
func TestServiceFactsGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Service Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		if _, err := app.Service.PutBirthSettings(app.Ctx(owner), f.ID, evidence.Settings{Version: 1, Species: "CATTLE",
			GestationDays: &evidence.Range{Min: 279, Max: 292}}); err != nil {
			t.Fatal(err)
		}
		ai, err := app.Service.CreateOutsideAnimal(app.Ctx(owner), f.ID, herdbook.OutsideAnimalInput{Name: strp("AI Sire"), Sex: strp("male"), Breed: strp("Angus")})
		if err != nil {
			t.Fatal(err)
		}
		donor, err := app.Service.CreateOutsideAnimal(app.Ctx(owner), f.ID, herdbook.OutsideAnimalInput{Name: strp("Donor"), Sex: strp("female")})
		if err != nil {
			t.Fatal(err)
		}
		animal := func(tag, sex, born string) string {
			id := app.MustAnimal(owner, f.ID, tag).ID.String()
			graphFact(t, app, owner, f.ID, id, map[string]any{"kind": "profile", "animal_id": id, "sex": sex, "birth_date": born})
			return id
		}
		cow, heifer, recipient := animal("COW-1", "female", "2020-04-01"), animal("HEI-1", "female", "2022-04-01"), animal("REC-1", "female", "2021-04-01")
		bull, calf := animal("BULL-1", "male", "2019-04-01"), animal("CALF-1", "male", "2025-03-01")
		v := map[string]any{"f": f.ID.String(), "cow": cow, "heifer": heifer, "rec": recipient, "bull": bull, "calf": calf,
			"ai": ai.ID.String(), "donor": donor.ID.String()}
		create := func(fact string) map[string]any {
			t.Helper()
			decl, vars := "$f: ID!", map[string]any{"f": v["f"]}
			for _, m := range regexp.MustCompile(`\$(\w+)`).FindAllStringSubmatch(fact, -1) {
				if _, ok := vars[m[1]]; !ok {
					decl += ", $" + m[1] + ": ID!"
					vars[m[1]] = v[m[1]]
				}
			}
			return app.GraphQL(owner.Token, `mutation(`+decl+`) { factCreate(input: {farmID: $f, fact: {`+fact+`}}) { record { id } } }`, vars)
		}
		for _, fact := range []string{
			`heat: {animalID: $cow, date: "2025-06-20"}`,
			`insemination: {damID: $cow, sireID: $ai, date: "2025-07-08", straw: "S-1", technician: "J. Vet"}`,
			`handMating: {damID: $heifer, sireID: $bull, date: "2025-07-10"}`,
			`embryoTransfer: {donorID: $donor, sireID: $ai, recipientID: $rec, date: "2025-07-12", embryo: "E-7"}`,
			`pregnancyCheck: {animalID: $cow, date: "2025-09-01", method: SCAN, result: PREGNANT, foetalAgeDays: 55}`,
			`weaning: {animalID: $calf, date: "2025-10-01", kg: 251.5}`,
		} {
			out := create(fact)
			wantNoErrors(t, out)
		}
		out := app.GraphQL(reader.Token, `query($f: ID!) { node(id: $f) { ... on Farm { due { edges { node { animalID basis serviceKind sireID } } } } } }`, v)
		wantNoErrors(t, out)
		if e := dig(t, out, "data.node.due.edges.0.node").(map[string]any); e["animalID"] != cow || e["serviceKind"] != "insemination" || e["sireID"] != ai.ID.String() {
			t.Fatalf("due entry = %v", e)
		}

		// Refused with the engine's field errors, nothing written.
		before := app.Do("GET", "/v1/farm/"+f.ID.String()+"/records", owner.Token, nil).Body
		for _, c := range []struct{ fact, field string }{
			{`insemination: {damID: $bull, sireID: $ai, date: "2025-07-08"}`, "dam_id"},
			{`pregnancyCheck: {animalID: $cow, date: "2025-10-01", method: SCAN, result: EMPTY, foetalAgeDays: 40}`, "result"},
			{`weaning: {animalID: $calf, date: "2025-10-01", kg: -1}`, "kg"},
		} {
			out := create(c.fact)
			if errorCode(out) == "" {
				t.Fatalf("%s: accepted: %v", c.fact, out)
			}
			if !containsField(out, c.field) {
				t.Errorf("%s: error does not name %s: %v", c.fact, c.field, out)
			}
		}
		if after := app.Do("GET", "/v1/farm/"+f.ID.String()+"/records", owner.Token, nil).Body; string(after) != string(before) {
			t.Fatal("a refused fact changed the records")
		}
		if out := app.GraphQL(reader.Token, `mutation($f: ID!, $cow: ID!) { factCreate(input: {farmID: $f, fact: {heat: {animalID: $cow, date: "2025-06-21"}}}) { record { id } } }`,
			map[string]any{"f": v["f"], "cow": cow}); errorCode(out) == "" {
			t.Fatalf("a READER recorded a heat: %v", out)
		}
	})
}

// containsField reports whether an answer's errors mention the field.
func containsField(out map[string]any, field string) bool {
	return strings.Contains(fmt.Sprint(out["errors"]), field)
}
