package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func strp(s string) *string { return &s }

// registerHerd creates a dam and a sire and n calves born of them on 2025-01-10, calf i
// with the EID 982000000000100+i.
func registerHerd(t testing.TB, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID, n int) (dam, sire uuid.UUID, calves []uuid.UUID) {
	t.Helper()
	ctx := app.Ctx(u)
	d, err := app.Service.CreateAnimal(ctx, farmID, herdbook.AnimalInput{Tag: "DAM", Sex: strp("female"), BirthDate: strp("2020-01-01")})
	if err != nil {
		t.Fatal(err)
	}
	s, err := app.Service.CreateAnimal(ctx, farmID, herdbook.AnimalInput{Tag: "SIRE", Sex: strp("male"), BirthDate: strp("2020-01-01")})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		c, err := app.Service.CreateAnimal(ctx, farmID, herdbook.AnimalInput{Tag: fmt.Sprintf("C%02d", i), Sex: strp("male"),
			BirthDate: strp("2025-01-10"), DamID: &d.ID, SireID: &s.ID, EID: strp(fmt.Sprintf("982%012d", 100+i))})
		if err != nil {
			t.Fatal(err)
		}
		calves = append(calves, c.ID)
	}
	return d.ID, s.ID, calves
}

const herdQuery = `query($f: ID!, $n: Int, $asOf: Date, $status: AnimalStatus, $search: String) {
  farm(id: $f) { animals(first: $n, asOf: $asOf, status: $status, search: $search) { totalCount edges { node {
    id tag dam { tag } sire { tag } identifiers { scheme value }
    profile { asOf sex birthDate status statusDate damID dam { tag isActive } sire { tag } identifiers { scheme value } }
  } } } } }`

// TestRegisterAnimalsStatementCount proves that a register page with every node's profile,
// parents and identifiers costs the same statements for 3 animals as for 30.
func TestRegisterAnimalsStatementCount(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Register")
		registerHerd(t, app, u, f.ID, 30)
		counts := map[int]int64{}
		for _, n := range []int{3, 30} {
			counts[n] = app.Queries(func() {
				out := app.GraphQL(u.Token, herdQuery, map[string]any{"f": f.ID.String(), "n": n + 2})
				wantNoErrors(t, out)
				edges := dig(t, out, "data.farm.animals.edges").([]any)
				if len(edges) != n+2 {
					t.Fatalf("%d edges, want %d", len(edges), n+2)
				}
				for _, e := range edges {
					if tag := dig(t, e, "node.tag"); tag == "DAM" || tag == "SIRE" {
						continue
					}
					if dig(t, e, "node.profile.dam.tag") != "DAM" || dig(t, e, "node.sire.tag") != "SIRE" ||
						dig(t, e, "node.profile.sex") != "MALE" || dig(t, e, "node.identifiers.0.scheme") != "EID" {
						t.Fatalf("node = %v", e)
					}
				}
			})
		}
		if counts[3] != counts[30] {
			t.Fatalf("statements grow with the page: %v", counts)
		}
		t.Logf("GraphQL register page with profiles and parents: %d statements for any page size", counts[30])
	})
}

// TestRegisterProfileAsOf: a backdated sale changes the profile and the status filter on every
// later day, and only then; search finds an EID in any reader form; other farms' animals
// and missing auth are refused.
func TestRegisterProfileAsOf(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Register")
		_, _, calves := registerHerd(t, app, u, f.ID, 2)
		if _, err := app.Service.RecordFact(app.Ctx(u), f.ID, evidence.Fact{Kind: evidence.KindSale, AnimalID: calves[0].String(), Date: "2025-06-01"}); err != nil {
			t.Fatal(err)
		}
		q := `query($id: ID!, $d1: Date, $d2: Date) { node(id: $id) { ... on Animal {
			before: profile(asOf: $d1) { status statusDate birthDate }
			after: profile(asOf: $d2) { status statusDate } } } }`
		out := app.GraphQL(u.Token, q, map[string]any{"id": calves[0].String(), "d1": "2025-05-31", "d2": "2025-06-01"})
		wantNoErrors(t, out)
		if dig(t, out, "data.node.before.status") != "ON_FARM" || dig(t, out, "data.node.before.statusDate") != "2025-01-10" ||
			dig(t, out, "data.node.after.status") != "SOLD" || dig(t, out, "data.node.after.statusDate") != "2025-06-01" ||
			dig(t, out, "data.node.before.birthDate") != "2025-01-10" {
			t.Fatalf("profiles = %v", dig(t, out, "data.node"))
		}
		for day, want := range map[string]float64{"2025-05-31": 0, "2025-06-01": 1, "2026-01-01": 1} {
			out := app.GraphQL(u.Token, herdQuery, map[string]any{"f": f.ID.String(), "asOf": day, "status": "SOLD"})
			wantNoErrors(t, out)
			if got := dig(t, out, "data.farm.animals.totalCount"); got != want {
				t.Fatalf("sold on %s: %v, want %v", day, got, want)
			}
			if want == 1 && dig(t, out, "data.farm.animals.edges.0.node.profile.asOf") != day {
				t.Fatalf("the node's profile is not on the list's day %s: %v", day, dig(t, out, "data.farm.animals.edges.0.node.profile"))
			}
		}
		hex, _ := evidence.EIDHex("982000000000101")
		for _, form := range []string{"982000000000101", "982 000000000101", hex} {
			out := app.GraphQL(u.Token, herdQuery, map[string]any{"f": f.ID.String(), "search": form})
			wantNoErrors(t, out)
			if dig(t, out, "data.farm.animals.totalCount") != float64(1) || dig(t, out, "data.farm.animals.edges.0.node.id") != calves[1].String() {
				t.Fatalf("search %q = %v", form, dig(t, out, "data.farm.animals"))
			}
		}
		out = app.GraphQL(u.Token, herdQuery, map[string]any{"f": f.ID.String(), "asOf": "2025-02-30"})
		if errorCode(out) != "BAD_USER_INPUT" {
			t.Fatalf("a bad asOf: %v", out)
		}

		other := app.MustUser()
		of := app.MustFarm(other, "Elsewhere")
		out = app.GraphQL(other.Token, q, map[string]any{"id": calves[0].String()})
		if dig(t, out, "data.node") != nil {
			t.Fatalf("another farm's animal resolved: %v", out)
		}
		out = app.GraphQL(u.Token, herdQuery, map[string]any{"f": of.ID.String()})
		if dig(t, out, "data.farm") != nil {
			t.Fatalf("another farm's register resolved: %v", out)
		}
		out = app.GraphQL("", herdQuery, map[string]any{"f": f.ID.String()})
		if errorCode(out) != "UNAUTHENTICATED" {
			t.Fatalf("no token: %v", out)
		}
	})
}

// TestRegisterOffspringTimelineMembers: offspring from birth facts, the timeline newest first
// in pages, and group members as of a day from membership facts only.
func TestRegisterOffspringTimelineMembers(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Register")
		dam, _, calves := registerHerd(t, app, u, f.ID, 3)
		g := app.MustGroup(u, f.ID, "Pen")
		ctx := app.Ctx(u)
		for i, c := range calves {
			fact := evidence.Fact{Kind: evidence.KindMembership, AnimalID: c.String(), GroupID: g.ID.String(), StartDate: "2025-03-01"}
			if i == 0 {
				fact.EndDate = "2025-04-01"
			}
			if _, err := app.Service.RecordFact(ctx, f.ID, fact); err != nil {
				t.Fatal(err)
			}
		}
		out := app.GraphQL(u.Token, `query($id: ID!) { node(id: $id) { ... on Animal {
			offspring(first: 2) { totalCount edges { node { tag } } pageInfo { hasNextPage } }
			timeline(first: 1) { totalCount edges { cursor node { name } } pageInfo { hasNextPage endCursor } } } } }`, map[string]any{"id": dam.String()})
		wantNoErrors(t, out)
		if dig(t, out, "data.node.offspring.totalCount") != float64(3) || dig(t, out, "data.node.offspring.pageInfo.hasNextPage") != true {
			t.Fatalf("offspring = %v", dig(t, out, "data.node.offspring"))
		}
		total := dig(t, out, "data.node.timeline.totalCount").(float64)
		if total < 2 || dig(t, out, "data.node.timeline.pageInfo.hasNextPage") != true {
			t.Fatalf("timeline = %v", dig(t, out, "data.node.timeline"))
		}
		next := app.GraphQL(u.Token, `query($id: ID!, $c: Cursor) { node(id: $id) { ... on Animal { timeline(first: 1, after: $c) { edges { node { name } } } } } }`,
			map[string]any{"id": dam.String(), "c": dig(t, out, "data.node.timeline.pageInfo.endCursor")})
		wantNoErrors(t, next)
		if len(dig(t, next, "data.node.timeline.edges").([]any)) != 1 {
			t.Fatalf("timeline page 2 = %v", next)
		}
		q := `query($id: ID!, $d: Date) { node(id: $id) { ... on Group { members(asOf: $d) { totalCount edges { node { id profile { asOf groupIDs } } } } } } }`
		for day, want := range map[string]float64{"2025-02-28": 0, "2025-03-15": 3, "2025-04-02": 2} {
			out := app.GraphQL(u.Token, q, map[string]any{"id": g.ID.String(), "d": day})
			wantNoErrors(t, out)
			if dig(t, out, "data.node.members.totalCount") != want {
				t.Fatalf("members on %s = %v, want %v", day, dig(t, out, "data.node.members"), want)
			}
			if want > 0 && (dig(t, out, "data.node.members.edges.0.node.profile.asOf") != day || dig(t, out, "data.node.members.edges.0.node.profile.groupIDs.0") != g.ID.String()) {
				t.Fatalf("member profile on %s = %v", day, dig(t, out, "data.node.members.edges.0"))
			}
		}
	})
}

// TestRegisterMutations records the new facts and checks their errors: fields named, other
// farms' ids refused, no auth refused.
func TestRegisterMutations(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Register")
		dam, sire, calves := registerHerd(t, app, u, f.ID, 1)
		c := calves[0].String()
		vars := map[string]any{"f": f.ID.String(), "a": c, "dam": dam.String(), "sire": sire.String()}
		out := app.GraphQL(u.Token, `mutation($f: ID!, $a: ID!, $sire: ID!) {
			identifierAdd(input: {farmID: $f, animalID: $a, scheme: VISUAL, value: "Y-7", startDate: "2025-02-01"}) { record { id } animal { id } }
			weightRecord(input: {farmID: $f, animalID: $a, date: "2025-02-01", kg: 80.5}) { animal { id } }
			dnaParentageRecord(input: {farmID: $f, offspringID: $a, parentID: $sire, relation: SIRE, result: EXCLUDED, date: "2025-02-02"}) { animal { id } }
			saleRecord(input: {farmID: $f, animalID: $a, date: "2025-05-01", buyer: "Neighbour"}) { animal { profile(asOf: "2025-05-01") {
				status weightKg sireID identifiers { scheme value } } } } }`, vars)
		wantNoErrors(t, out)
		p := dig(t, out, "data.saleRecord.animal.profile")
		if dig(t, p, "status") != "SOLD" || dig(t, p, "weightKg") != 80.5 || dig(t, p, "sireID") != nil || len(dig(t, p, "identifiers").([]any)) != 2 {
			t.Fatalf("profile = %v", p)
		}
		out = app.GraphQL(u.Token, `mutation($f: ID!, $a: ID!) { deathRecord(input: {farmID: $f, animalID: $a, date: "2025-06-01", cause: "age"}) {
			animal { profile(asOf: "2025-06-01") { status statusDate } } } }`, vars)
		wantNoErrors(t, out)
		if dig(t, out, "data.deathRecord.animal.profile.status") != "DIED" {
			t.Fatalf("death = %v", out)
		}

		fieldNamed := func(res map[string]any, field string) bool {
			errs, _ := res["errors"].([]any)
			if len(errs) == 0 {
				return false
			}
			fields, _ := dig(t, errs[0], "extensions").(map[string]any)["fields"].([]any)
			for _, fe := range fields {
				if strings.Contains(fmt.Sprint(fe.(map[string]any)["field"]), field) {
					return true
				}
			}
			return false
		}
		bad := app.GraphQL(u.Token, `mutation($f: ID!, $a: ID!) { weightRecord(input: {farmID: $f, animalID: $a, date: "2025-02-01", kg: -1}) { animal { id } } }`, vars)
		if errorCode(bad) != "BAD_USER_INPUT" || !fieldNamed(bad, "kg") {
			t.Fatalf("a negative weight: %v", bad)
		}
		bad = app.GraphQL(u.Token, `mutation($f: ID!, $a: ID!) { saleRecord(input: {farmID: $f, animalID: $a, date: "2025-02-30"}) { animal { id } } }`, vars)
		if errorCode(bad) != "BAD_USER_INPUT" || !fieldNamed(bad, "date") {
			t.Fatalf("a bad date: %v", bad)
		}
		bad = app.GraphQL(u.Token, `mutation($f: ID!, $a: ID!) { identifierAdd(input: {farmID: $f, animalID: $a, scheme: EID, value: "not an eid", startDate: "2025-02-01"}) { animal { id } } }`, vars)
		if errorCode(bad) != "BAD_USER_INPUT" || !fieldNamed(bad, "value") {
			t.Fatalf("a bad EID: %v", bad)
		}

		other := app.MustUser()
		of := app.MustFarm(other, "Elsewhere")
		bad = app.GraphQL(other.Token, `mutation($f: ID!, $a: ID!) { weightRecord(input: {farmID: $f, animalID: $a, date: "2025-02-01", kg: 10}) { animal { id } } }`,
			map[string]any{"f": of.ID.String(), "a": c})
		if errorCode(bad) == "" || dig(t, bad, "data") != nil {
			t.Fatalf("another farm's animal was weighed: %v", bad)
		}
		bad = app.GraphQL("", `mutation($f: ID!, $a: ID!) { weightRecord(input: {farmID: $f, animalID: $a, date: "2025-02-01", kg: 10}) { animal { id } } }`, vars)
		if errorCode(bad) != "UNAUTHENTICATED" {
			t.Fatalf("no token: %v", bad)
		}
	})
}

func BenchmarkRegisterAnimalsGraphQL(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			f := app.MustFarm(u, "Bench")
			registerHerd(b, app, u, f.ID, 50)
			vars := map[string]any{"f": f.ID.String(), "n": 50}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if out := app.GraphQL(u.Token, herdQuery, vars); out["errors"] != nil {
					b.Fatal(out["errors"])
				}
			}
		})
	}
}
