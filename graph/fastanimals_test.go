package graph_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestFastAnimalsPageMatches: the one-pass writer of an animals page (fastanimals.go)
// answers byte for byte what the executor answers field by field: the app's Register
// document and its filters, every field of the animal and its profile, two days' profiles
// under aliases, fragments, @skip/@include, __typename, page info and cursors, nulls,
// identifiers and strings to escape; and a selection it does not know (dam, identifiers on
// the animal, a profile the page did not load) is answered by the executor, identically.
func TestFastAnimalsPageMatches(t *testing.T) {
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		s := newScreensFarm(t, app, 60)
		odd := "quote \" backslash \\ <tag> & é 🐄 \u2028 end"
		sex, born, breed, eid := "male", "2023-03-04", odd, "982000123456789"
		cow := s.cow
		if _, err := app.Service.CreateAnimal(app.Ctx(s.owner), s.Farm, herdbook.AnimalInput{Tag: "A-ODD", Name: &odd,
			Sex: &sex, BirthDate: &born, Breed: &breed, DamID: &cow, EID: &eid}); err != nil {
			t.Fatal(err)
		}
		past := time.Now().UTC().AddDate(0, -1, 0).Format(time.DateOnly)
		everything := `query($f: ID!, $d: Date) { farm(id: $f) { animals(first: 100, asOf: $d) {
			__typename totalCount pageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor }
			edges { __typename cursor node { __typename id createdAt updatedAt isActive farmID tag name
				profile(asOf: $d) { __typename asOf sex birthDate breed damID sireID geneticDamID surrogateDamID intact status
					statusDate groupIDs identifiers { __typename scheme value } weightKg weighedOn adgKg } } } } } }`
		for _, c := range []struct {
			name  string
			query string
			vars  map[string]any
			fast  bool
		}{
			{"register", s.ops["Register"], map[string]any{"farmID": s.Farm.String(), "first": 50, "asOf": s.today}, true},
			{"register, no day", s.ops["Register"], map[string]any{"farmID": s.Farm.String(), "first": 50}, true},
			{"register, females", s.ops["Register"], map[string]any{"farmID": s.Farm.String(), "first": 50, "asOf": s.today, "sex": "FEMALE"}, true},
			{"register, search", s.ops["Register"], map[string]any{"farmID": s.Farm.String(), "first": 50, "asOf": s.today, "search": "ODD"}, true},
			{"register, group", s.ops["Register"], map[string]any{"farmID": s.Farm.String(), "first": 50, "asOf": s.today, "groupID": s.Group.String()}, true},
			{"everything", everything, map[string]any{"f": s.Farm.String(), "d": s.today}, true},
			{"everything, a month ago", everything, map[string]any{"f": s.Farm.String(), "d": past}, true},
			{"aliases and fragments", `query($f: ID!, $d: Date, $p: Date, $yes: Boolean!) { farm(id: $f) { page: animals(first: 70, asOf: $d, orderBy: {field: CREATED_AT, direction: DESC}) {
				count: totalCount edges { node { ...A key: id ... on Animal { t2: tag } skipped: tag @skip(if: $yes) kept: tag @include(if: $yes)
					then: profile(asOf: $p) { ...P } now: profile { status } } } } } }
				fragment A on Animal { id name profile(asOf: $d) { ...P weight: weightKg } }
				fragment P on AnimalProfile { sex ids: identifiers { v: value scheme } groupIDs }`,
				map[string]any{"f": s.Farm.String(), "d": s.today, "p": past, "yes": true}, true},
			{"second page", `query($f: ID!, $a: Cursor) { farm(id: $f) { animals(first: 10, after: $a) { edges { cursor node { tag profile { sex } } } pageInfo { endCursor } } } }`,
				map[string]any{"f": s.Farm.String(), "a": nil}, true},
			{"empty", `query($f: ID!) { farm(id: $f) { animals(first: 0) { totalCount edges { node { id } } pageInfo { hasNextPage endCursor } } } }`,
				map[string]any{"f": s.Farm.String()}, true},
			{"falls back: dam", `query($f: ID!) { farm(id: $f) { animals(first: 70) { edges { node { tag profile { dam { tag } } } } } } }`,
				map[string]any{"f": s.Farm.String()}, false},
			{"falls back: identifiers", `query($f: ID!) { farm(id: $f) { animals(first: 70) { edges { node { tag identifiers { value } } } } } }`,
				map[string]any{"f": s.Farm.String()}, false},
			{"offspring without profiles", `query($id: ID!) { node(id: $id) { ... on Animal { offspring(first: 5) { totalCount edges { node { id tag name } } } } } }`,
				map[string]any{"id": cow.String()}, true},
			{"falls back: offspring's profiles", `query($id: ID!) { node(id: $id) { ... on Animal { offspring(first: 5) { edges { node { tag profile { sex } } } } } } }`,
				map[string]any{"id": cow.String()}, false},
		} {
			answer := func(slow bool) []byte {
				graph.SetSlowRecordsPage(slow)
				defer graph.SetSlowRecordsPage(false)
				body, _ := json.Marshal(map[string]any{"query": c.query, "variables": c.vars})
				before := graph.OnePassPages()
				res := app.Do("POST", "/graphql", s.owner.Token, body)
				if res.Status != 200 || bytes.Contains(res.Body, []byte(`"errors"`)) {
					t.Fatalf("%s: %d %s", c.name, res.Status, res.Body)
				}
				if fast := graph.OnePassPages() > before; !slow && fast != c.fast {
					t.Errorf("%s: written in one pass %v, want %v", c.name, fast, c.fast)
				}
				return res.Body
			}
			fast, slow := answer(false), answer(true)
			if !bytes.Equal(fast, slow) {
				t.Errorf("%s: the one-pass page differs from the executor's:\n%s\n%s", c.name, fast, slow)
			}
			if !bytes.Contains(fast, []byte(`"edges"`)) {
				t.Errorf("%s: no edges in %s", c.name, fast)
			}
		}
	})
}
