package graph_test

import (
	"net/http"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestMalformedScalars wants a malformed cursor or time, as a literal or a variable, to be
// BAD_USER_INPUT naming the argument (issue 14.10: INTERNAL_SERVER_ERROR and an ERROR line),
// and a mutation with one to change nothing.
func TestMalformedScalars(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Scalars")
		farm := f.ID.String()
		for _, tc := range []struct {
			name, query, field string
			vars               map[string]any
		}{
			{"CursorLiteral", `query($f: ID!) { farm(id: $f) { records(first: 1, after: "not-a-cursor") { totalCount } } }`, "farm.records.after", nil},
			{"CursorVariable", `query($f: ID!, $c: Cursor) { farm(id: $f) { animals(before: $c, last: 2) { totalCount } } }`, "farm.animals.before", map[string]any{"c": "%%%"}},
			{"CursorNotAString", `query($f: ID!, $c: Cursor) { farm(id: $f) { groups(after: $c) { totalCount } } }`, "farm.groups.after", map[string]any{"c": 12}},
			{"TimeInFilter", `query($f: ID!) { farm(id: $f) { records(where: {appliedAtGT: "yesterday"}) { totalCount } } }`, "farm.records.where.appliedAtGT", nil},
			{"TimeLiteral", `mutation($f: ID!) { createRecord(farmID: $f, input: {name: "x", type: OTHER, appliedAt: "yesterday"}) { id } }`, "createRecord.input.appliedAt", nil},
			{"TimeVariable", `mutation($f: ID!, $t: Time!) { createRecord(farmID: $f, input: {name: "x", type: OTHER, appliedAt: $t}) { id } }`, "createRecord.input.appliedAt", map[string]any{"t": "2026-13-45T99:00:00Z"}},
			{"TimeWithoutZone", `mutation($f: ID!, $t: Time) { updateRecord(farmID: $f, id: $f, input: {appliedAt: $t}) { id } }`, "updateRecord.input.appliedAt", map[string]any{"t": "2026-05-01T09:00:00"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				vars := map[string]any{"f": farm}
				for k, v := range tc.vars {
					vars[k] = v
				}
				wantNoErrorLog(t, func() {
					out := wantError(t, post(t, app, u.Token, query(tc.query, vars)), http.StatusOK, "BAD_USER_INPUT", "")
					if got := dig(t, out, "errors.0.extensions.fields.0.field"); got != tc.field {
						t.Fatalf("field %v, want %s: %v", got, tc.field, out)
					}
					t.Logf("%v", dig(t, out, "errors.0.extensions.fields.0.message"))
				})
			})
		}
		out := app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { records { totalCount } } }`, map[string]any{"f": farm})
		if dig(t, out, "data.farm.records.totalCount") != float64(0) {
			t.Fatalf("a refused mutation wrote: %v", out)
		}
	})
}
