package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// gqlErrors returns the errors of a GraphQL answer as "CODE field: message" lines.
func gqlErrors(t *testing.T, body map[string]any) []string {
	t.Helper()
	var out []string
	errs, _ := body["errors"].([]any)
	for _, e := range errs {
		ext, _ := e.(map[string]any)["extensions"].(map[string]any)
		line, _ := ext["code"].(string)
		fields, _ := ext["fields"].([]any)
		for _, f := range fields {
			fm := f.(map[string]any)
			line += " " + fm["field"].(string) + ": " + fm["message"].(string)
		}
		out = append(out, line)
	}
	return out
}

// TestGraphQLControlCharacters: GraphQL inputs reach the same service text rule as REST: a
// NUL in a mutation input or a where filter is BAD_USER_INPUT naming the field by its full
// path from the argument (issue 33.1: input.name), on both databases (PostgreSQL answered
// INTERNAL_SERVER_ERROR, SQLite stored the NUL).
func TestGraphQLControlCharacters(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Graph Farm")
		for _, tc := range []struct {
			name, query string
			vars        map[string]any
			want        string
		}{
			{"ErrCreateFarmLiteral", `mutation { createFarm(input: {name: "North\u0000Field", species: CATTLE}) { farm { id } } }`, nil,
				"BAD_USER_INPUT input.name: must not contain control characters"},
			{"ErrCreateFarmVariable", `mutation($in: CreateFarmInput!) { createFarm(input: $in) { farm { id } } }`,
				map[string]any{"in": map[string]any{"name": "North\x00Field", "species": "CATTLE"}}, "BAD_USER_INPUT input.name: must not contain control characters"},
			{"ErrCreateGroup", `mutation($f: ID!) { createGroup(farmID: $f, input: {name: "Heif\u0000ers"}) { id } }`,
				map[string]any{"f": f.ID.String()}, "BAD_USER_INPUT input.name: must not contain"},
			{"ErrWhereFilter", `{ farms(first: 5, where: {nameContains: "\u0000"}) { totalCount } }`, nil,
				"BAD_USER_INPUT where.nameContains: must not contain control characters"},
			{"ErrNestedWhereFilter", `query($f: ID!) { node(id: $f) { ... on Farm { records(first: 5, where: {or: [{name: "a"}, {descriptionContains: "b\u0000"}]}) { totalCount } } } }`,
				map[string]any{"f": f.ID.String()}, "BAD_USER_INPUT where.or[1].descriptionContains: must not contain"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := gqlErrors(t, app.GraphQL(u.Token, tc.query, tc.vars))
				if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
					t.Fatalf("errors %q, want %q", got, tc.want)
				}
			})
		}
		t.Run("NothingStored", func(t *testing.T) {
			body := app.GraphQL(u.Token, `{ farms(first: 10) { totalCount } }`, nil)
			b, _ := json.Marshal(body)
			if !strings.Contains(string(b), `"totalCount":1`) {
				t.Fatalf("farms: %s", b)
			}
		})
	})
}
