package graph_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// graphFact records one birth-history fact over REST, as the web app's record form does.
func graphFact(t testing.TB, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID, animal string, f map[string]any) {
	t.Helper()
	res := app.Do("POST", "/v1/farm/"+farmID.String()+"/records", u.Token, map[string]any{"animal_ids": []string{animal}, "name": "fact",
		"type": "GENETIC", "applied_at": "2025-01-01T00:00:00Z", "record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": f}}}})
	if res.Status != 201 {
		t.Fatalf("fact %v: %d %s", f, res.Status, res.Body)
	}
}

// TestOutsideAnimalsGraphQL: an AI sire (issue 21.1) recorded, listed, read as a Node,
// replaced and deleted through the graph, with REST's rules: members read, EDITORs write,
// other farms' ids are not found, and one that a fact names keeps its sex and cannot go
// (CONFLICT).
func TestOutsideAnimalsGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Outside Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		g := app.MustFarm(stranger, "Other Farm")
		theirs, err := app.Service.CreateOutsideAnimal(app.Ctx(stranger), g.ID, herdbook.OutsideAnimalInput{Name: strp("Theirs"), Sex: strp("male")})
		if err != nil {
			t.Fatal(err)
		}
		v := map[string]any{"f": f.ID.String(), "theirs": theirs.ID.String()}
		do := func(u herdbooktest.User, q string) map[string]any {
			t.Helper()
			return app.GraphQL(u.Token, q, v)
		}

		const create = `mutation($f: ID!, $name: String!) { outsideAnimalCreate(input: {farmID: $f, name: $name, sex: "male", breed: "Angus",
			registry: "American Angus Association", registrationNumber: "19000001", batch: "7AN0123", birthDate: "2019-02-11"}) {
			outsideAnimal { id farmID name sex breed registry registrationNumber batch birthDate createdAt updatedAt } } }`
		v["name"] = "Connealy Black Granite"
		out := do(owner, create)
		wantNoErrors(t, out)
		if dig(t, out, "data.outsideAnimalCreate.outsideAnimal.registrationNumber") != "19000001" ||
			dig(t, out, "data.outsideAnimalCreate.outsideAnimal.birthDate") != "2019-02-11" ||
			dig(t, out, "data.outsideAnimalCreate.outsideAnimal.farmID") != f.ID.String() {
			t.Fatalf("outsideAnimalCreate = %v", out)
		}
		v["a"] = dig(t, out, "data.outsideAnimalCreate.outsideAnimal.id")
		v["name"] = "Basin Payweight"
		out = do(owner, create)
		wantNoErrors(t, out)
		v["b"] = dig(t, out, "data.outsideAnimalCreate.outsideAnimal.id")

		t.Run("Invalid", func(t *testing.T) {
			out := do(owner, `mutation($f: ID!) { outsideAnimalCreate(input: {farmID: $f, name: "X", sex: "bull"}) { outsideAnimal { id } } }`)
			if errorCode(out) != "BAD_USER_INPUT" {
				t.Fatalf("sex bull: %v", out)
			}
			out = do(owner, `mutation($f: ID!) { outsideAnimalCreate(input: {farmID: $f, name: "X", sex: "male", birthDate: "2019-02-30"}) { outsideAnimal { id } } }`)
			if errorCode(out) != "BAD_USER_INPUT" {
				t.Fatalf("birthDate 2019-02-30: %v", out)
			}
		})

		t.Run("Read", func(t *testing.T) {
			// By name, paged by cursor as Farm.medicines.
			out := do(reader, `query($f: ID!) { node(id: $f) { ... on Farm { outsideAnimals(first: 1) { totalCount edges { cursor node { name } } pageInfo { hasNextPage endCursor } } } } }`)
			wantNoErrors(t, out)
			if dig(t, out, "data.node.outsideAnimals.totalCount") != 2.0 || dig(t, out, "data.node.outsideAnimals.edges.0.node.name") != "Basin Payweight" ||
				dig(t, out, "data.node.outsideAnimals.pageInfo.hasNextPage") != true {
				t.Fatalf("outsideAnimals = %v", out)
			}
			v["after"] = dig(t, out, "data.node.outsideAnimals.pageInfo.endCursor")
			out = do(reader, `query($f: ID!, $after: String) { node(id: $f) { ... on Farm { outsideAnimals(first: 5, after: $after) { edges { node { name } } pageInfo { hasNextPage hasPreviousPage } } } } }`)
			wantNoErrors(t, out)
			if dig(t, out, "data.node.outsideAnimals.edges.0.node.name") != "Connealy Black Granite" || dig(t, out, "data.node.outsideAnimals.pageInfo.hasPreviousPage") != true ||
				dig(t, out, "data.node.outsideAnimals.pageInfo.hasNextPage") != false {
				t.Fatalf("second page = %v", out)
			}
			out = do(reader, `query($f: ID!) { node(id: $f) { ... on Farm { outsideAnimals(after: "nonsense") { totalCount } } } }`)
			if errorCode(out) != "BAD_USER_INPUT" {
				t.Fatalf("bad cursor: %v", out)
			}
			// A Node for the farm's members; not found for anyone else.
			out = do(reader, `query($a: ID!) { node(id: $a) { id ... on OutsideAnimal { name breed } } nodes(ids: [$a]) { id } }`)
			wantNoErrors(t, out)
			if dig(t, out, "data.node.name") != "Connealy Black Granite" || dig(t, out, "data.node.breed") != "Angus" || dig(t, out, "data.nodes.0.id") != v["a"] {
				t.Fatalf("node = %v", out)
			}
			if out := do(stranger, `query($a: ID!) { node(id: $a) { id } }`); errorCode(out) != "NOT_FOUND" {
				t.Fatalf("a stranger reads the outside animal: %v", out)
			}
			if out := do(owner, `query($theirs: ID!) { node(id: $theirs) { id } }`); errorCode(out) != "NOT_FOUND" {
				t.Fatalf("another farm's outside animal: %v", out)
			}
			if out := do(stranger, `query($f: ID!) { node(id: $f) { ... on Farm { outsideAnimals { totalCount } } } }`); errorCode(out) == "" {
				t.Fatalf("a stranger lists the farm's outside animals: %v", out)
			}
		})

		t.Run("ReaderRefused", func(t *testing.T) {
			for name, q := range map[string]string{
				"create": `mutation($f: ID!) { outsideAnimalCreate(input: {farmID: $f, name: "R", sex: "male"}) { outsideAnimal { id } } }`,
				"update": `mutation($f: ID!, $a: ID!) { outsideAnimalUpdate(input: {farmID: $f, id: $a, name: "R", sex: "male"}) { outsideAnimal { id } } }`,
				"delete": `mutation($f: ID!, $a: ID!) { outsideAnimalDelete(input: {farmID: $f, id: $a}) { deletedOutsideAnimalID } }`,
			} {
				// A role too low is EUNAUTHORIZED in the service, shown as UNAUTHENTICATED as
				// for every mutation (graph/error.go; audit_test's ErrVoidReader).
				if out := do(reader, q); errorCode(out) != "UNAUTHENTICATED" {
					t.Fatalf("reader %s: %v", name, out)
				}
			}
		})

		t.Run("OtherFarmsID", func(t *testing.T) {
			for name, q := range map[string]string{
				"update": `mutation($f: ID!, $theirs: ID!) { outsideAnimalUpdate(input: {farmID: $f, id: $theirs, name: "R", sex: "male"}) { outsideAnimal { id } } }`,
				"delete": `mutation($f: ID!, $theirs: ID!) { outsideAnimalDelete(input: {farmID: $f, id: $theirs}) { deletedOutsideAnimalID } }`,
			} {
				if out := do(owner, q); errorCode(out) != "NOT_FOUND" {
					t.Fatalf("%s another farm's id: %v", name, out)
				}
			}
			if _, err := app.Service.OutsideAnimalByID(app.Ctx(stranger), g.ID, theirs.ID); err != nil {
				t.Fatalf("their outside animal after the refusals: %v", err)
			}
		})

		// Update replaces every field: those left out are cleared, as REST's PUT.
		out = do(owner, `mutation($f: ID!, $a: ID!) { outsideAnimalUpdate(input: {farmID: $f, id: $a, name: "Connealy Black Granite", sex: "male", batch: "7AN0200"}) {
			outsideAnimal { name batch breed registry registrationNumber birthDate } } }`)
		wantNoErrors(t, out)
		if dig(t, out, "data.outsideAnimalUpdate.outsideAnimal.batch") != "7AN0200" || dig(t, out, "data.outsideAnimalUpdate.outsideAnimal.breed") != nil ||
			dig(t, out, "data.outsideAnimalUpdate.outsideAnimal.birthDate") != nil {
			t.Fatalf("outsideAnimalUpdate = %v", out)
		}

		// Named by an insemination: its sex stays and it cannot be deleted (CONFLICT).
		cow := app.MustAnimal(owner, f.ID, "COW-1").ID.String()
		graphFact(t, app, owner, f.ID, cow, map[string]any{"kind": "profile", "animal_id": cow, "sex": "female", "birth_date": "2021-04-01"})
		graphFact(t, app, owner, f.ID, cow, map[string]any{"kind": "insemination", "dam_id": cow, "sire_id": v["a"], "date": "2025-07-12", "straw": "7AN0200-1"})
		out = do(owner, `mutation($f: ID!, $a: ID!) { outsideAnimalUpdate(input: {farmID: $f, id: $a, name: "Connealy Black Granite", sex: "female"}) { outsideAnimal { id } } }`)
		if errorCode(out) != "CONFLICT" {
			t.Fatalf("sex change of a named sire: %v", out)
		}
		out = do(owner, `mutation($f: ID!, $a: ID!) { outsideAnimalDelete(input: {farmID: $f, id: $a}) { deletedOutsideAnimalID } }`)
		if errorCode(out) != "CONFLICT" {
			t.Fatalf("delete of a named sire: %v", out)
		}

		// The other one no fact names goes, and is then not found.
		out = do(owner, `mutation($f: ID!, $b: ID!) { outsideAnimalDelete(input: {farmID: $f, id: $b}) { deletedOutsideAnimalID } }`)
		wantNoErrors(t, out)
		if dig(t, out, "data.outsideAnimalDelete.deletedOutsideAnimalID") != v["b"] {
			t.Fatalf("outsideAnimalDelete = %v", out)
		}
		if out := do(owner, `query($b: ID!) { node(id: $b) { id } }`); errorCode(out) != "NOT_FOUND" {
			t.Fatalf("deleted outside animal: %v", out)
		}
		if out := do(owner, `mutation($f: ID!, $b: ID!) { outsideAnimalDelete(input: {farmID: $f, id: $b}) { deletedOutsideAnimalID } }`); errorCode(out) != "NOT_FOUND" {
			t.Fatalf("second delete: %v", out)
		}
	})
}

// TestDueGraphQL: Farm.due answers REST's due list (issue 21.3): an AI service with an
// outside sire and a positive scan is due service date + gestation (279..292 days here, the
// farm's setting; BIF Guidelines leave gestation to the breed and the herd), paged by
// cursor, in the same number of statements for 1 and for 8 due cows.
func TestDueGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Due Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		if _, err := app.Service.PutBirthSettings(app.Ctx(owner), f.ID, evidence.Settings{Version: 1, Species: "CATTLE",
			GestationDays: &evidence.Range{Min: 279, Max: 292}}); err != nil {
			t.Fatal(err)
		}
		sire, err := app.Service.CreateOutsideAnimal(app.Ctx(owner), f.ID, herdbook.OutsideAnimalInput{Name: strp("AI Sire"), Sex: strp("male"), Breed: strp("Angus")})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		add := func(k int) {
			for range k {
				n++
				cow := app.MustAnimal(owner, f.ID, fmt.Sprint("DUE-", n)).ID.String()
				graphFact(t, app, owner, f.ID, cow, map[string]any{"kind": "profile", "animal_id": cow, "sex": "female", "birth_date": "2020-04-01"})
				// Served 2025-07-08, scanned in calf: due 2025-07-08 + 279..292 = 2026-04-13..2026-04-26.
				graphFact(t, app, owner, f.ID, cow, map[string]any{"kind": "insemination", "dam_id": cow, "sire_id": sire.ID.String(), "date": "2025-07-08", "straw": "S-1"})
				graphFact(t, app, owner, f.ID, cow, map[string]any{"kind": "pregnancy_check", "animal_id": cow, "date": "2025-09-01", "method": "scan", "result": "pregnant"})
			}
		}
		v := map[string]any{"f": f.ID.String()}
		const query = `query($f: ID!) { node(id: $f) { ... on Farm { due(first: 100) { totalCount pageInfo { hasNextPage endCursor }
			edges { cursor node { animalID checkRecordID checkDate method basis serviceKind serviceDate serviceRecordID sireID
				expectedDate expectedFrom expectedTo gestationDays { min max } gestationBreed } } } } } }`
		count := func(want int) int64 {
			return app.Queries(func() {
				out := app.GraphQL(reader.Token, query, v)
				wantNoErrors(t, out)
				if dig(t, out, "data.node.due.totalCount") != float64(want) {
					t.Fatalf("due = %v, want %d", out, want)
				}
			})
		}
		count(0) // a list kept before the writes, as there is before the 7 below
		add(1)
		// Counted as the first read after the writes, as for 8 below: the list is kept by the
		// farm's change counter (derived.go) and the writes since are read (patch.go).
		few := count(1)
		out := app.GraphQL(reader.Token, query, v)
		wantNoErrors(t, out)
		e := dig(t, out, "data.node.due.edges.0.node").(map[string]any)
		if e["basis"] != "service" || e["serviceKind"] != "insemination" || e["serviceDate"] != "2025-07-08" || e["sireID"] != sire.ID.String() ||
			e["expectedFrom"] != "2026-04-13" || e["expectedTo"] != "2026-04-26" || e["expectedDate"] != "2026-04-19" ||
			e["checkDate"] != "2025-09-01" || e["method"] != "scan" || e["gestationBreed"] != nil {
			t.Fatalf("due entry = %v", e)
		}
		add(7)
		many := count(8)
		if few != many {
			t.Fatalf("statements: %d for 1 due cow, %d for 8", few, many)
		}
		t.Logf("Farm.due: %d statements", many)

		out = app.GraphQL(reader.Token, `query($f: ID!) { node(id: $f) { ... on Farm { due(first: 5) { pageInfo { endCursor hasNextPage } } } } }`, v)
		wantNoErrors(t, out)
		v["after"] = dig(t, out, "data.node.due.pageInfo.endCursor")
		out = app.GraphQL(reader.Token, `query($f: ID!, $after: String) { node(id: $f) { ... on Farm { due(first: 5, after: $after) { edges { cursor } pageInfo { hasNextPage hasPreviousPage } } } } }`, v)
		wantNoErrors(t, out)
		if len(dig(t, out, "data.node.due.edges").([]any)) != 3 || dig(t, out, "data.node.due.pageInfo.hasPreviousPage") != true {
			t.Fatalf("second page = %v", out)
		}
		if out := app.GraphQL(stranger.Token, `query($f: ID!) { node(id: $f) { ... on Farm { due { totalCount } } } }`, v); errorCode(out) == "" {
			t.Fatalf("a stranger reads the due list: %v", out)
		}
	})
}

// BenchmarkFarmDueGraphQL reads Farm.due of 100 scanned cows, each served by an outside
// sire, with the farm's outside animals, through the whole GraphQL stack.
func BenchmarkFarmDueGraphQL(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			f := app.MustFarm(u, "Bench Due")
			ctx := app.Ctx(u)
			if _, err := app.Service.PutBirthSettings(ctx, f.ID, evidence.Settings{Version: 1, Species: "CATTLE",
				GestationDays: &evidence.Range{Min: 279, Max: 292}}); err != nil {
				b.Fatal(err)
			}
			var sires []string
			for i := range 5 {
				s, err := app.Service.CreateOutsideAnimal(ctx, f.ID, herdbook.OutsideAnimalInput{Name: strp(fmt.Sprint("AI ", i)), Sex: strp("male")})
				if err != nil {
					b.Fatal(err)
				}
				sires = append(sires, s.ID.String())
			}
			at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := range 100 {
				cow := app.MustAnimal(u, f.ID, fmt.Sprint("B-", i))
				var items []herdbook.RecordItemInput
				for _, fact := range []map[string]any{
					{"kind": "profile", "animal_id": cow.ID.String(), "sex": "female", "birth_date": "2020-04-01"},
					{"kind": "insemination", "dam_id": cow.ID.String(), "sire_id": sires[i%len(sires)], "date": fmt.Sprintf("2025-07-%02d", 1+i%28)},
					{"kind": "pregnancy_check", "animal_id": cow.ID.String(), "date": "2025-09-01", "method": "scan", "result": "pregnant"},
				} {
					items = append(items, herdbook.RecordItemInput{Metadata: map[string]any{"birth_history": fact}})
				}
				if _, err := app.Service.CreateRecord(ctx, f.ID, herdbook.RecordInput{AnimalIDs: []uuid.UUID{cow.ID}, Name: "facts", Type: "GENETIC",
					AppliedAt: &at, Items: items}); err != nil {
					b.Fatal(err)
				}
			}
			const q = `query($f: ID!) { farm(id: $f) { due(first: 100) { totalCount edges { node { animalID basis expectedDate sireID } } }
				outsideAnimals(first: 20) { totalCount edges { node { id name } } } } }`
			vars := map[string]any{"f": f.ID.String()}
			out := app.GraphQL(u.Token, q, vars)
			if out["errors"] != nil {
				b.Fatal(out["errors"])
			}
			if total := out["data"].(map[string]any)["farm"].(map[string]any)["due"].(map[string]any)["totalCount"]; total != 100.0 {
				b.Fatalf("due totalCount = %v, want 100", total)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if out := app.GraphQL(u.Token, q, vars); out["errors"] != nil {
					b.Fatal(out["errors"])
				}
			}
		})
	}
}
