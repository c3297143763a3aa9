package graph_test

import (
	"fmt"
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
func registerHerd(t *testing.T, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID, n int) (dam, sire uuid.UUID, calves []uuid.UUID) {
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
