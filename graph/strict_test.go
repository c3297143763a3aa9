package graph_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestStrictInput sends issue 22.8's fuzzer findings: GraphQL's Time took "" as 0001-01-01
// (after which every read of the record's appliedAt failed and its edges came back null)
// and a date-time without a zone as UTC; first with last erred without extensions.code.
// Each is now BAD_USER_INPUT naming the argument, and the record is unchanged.
func TestStrictInput(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Fuzzed")
		seedRecords(t, app, u, f.ID, 1)
		page := app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { records(first: 1) { edges { node { id appliedAt } } } } }`, map[string]any{"f": f.ID.String()})
		id := dig(t, page, "data.farm.records.edges.0.node.id").(string)
		applied := dig(t, page, "data.farm.records.edges.0.node.appliedAt")
		const update = `mutation($in: RecordUpdateInput!) { recordUpdate(input: $in) { record { id appliedAt } } }`
		for _, tc := range []struct{ name, value string }{
			{"ErrEmptyTime", ""},
			{"ErrTimeWithoutZone", "2026-03-01 08:00:00"},
			{"ErrTimeWithoutZoneT", "2026-03-01T08:00:00"},
			{"ErrZeroTime", "0001-01-01T00:00:00Z"},
			{"ErrFirstDay", "0001-01-01T23:59:59Z"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				out := app.GraphQL(u.Token, update, map[string]any{"in": map[string]any{"farmID": f.ID.String(), "id": id, "appliedAt": tc.value}})
				if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(dig(t, out, "errors.0.extensions.fields")), "appliedAt") {
					t.Fatalf("answer %v", out)
				}
			})
		}
		t.Run("OKEarliest", func(t *testing.T) {
			out := app.GraphQL(u.Token, update, map[string]any{"in": map[string]any{"farmID": f.ID.String(), "id": id, "appliedAt": "0001-01-02T00:00:00Z"}})
			wantNoErrors(t, out)
			if got := dig(t, out, "data.recordUpdate.record.appliedAt"); got != "0001-01-02T00:00:00Z" {
				t.Fatalf("appliedAt %v", got)
			}
			out = app.GraphQL(u.Token, update, map[string]any{"in": map[string]any{"farmID": f.ID.String(), "id": id, "appliedAt": applied}})
			wantNoErrors(t, out)
		})
		t.Run("ReadsStillWork", func(t *testing.T) {
			out := app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { records(first: 5) { edges { node { id appliedAt } } } } }`, map[string]any{"f": f.ID.String()})
			wantNoErrors(t, out)
			if dig(t, out, "data.farm.records.edges.0.node.appliedAt") != applied {
				t.Fatalf("record changed: %v", out)
			}
		})
		t.Run("ErrFirstWithLast", func(t *testing.T) {
			res := app.Do("POST", "/graphql", u.Token, query(`{ farms(first: 1, last: 1) { totalCount } }`, nil))
			if res.Status != http.StatusOK {
				t.Fatalf("status %d", res.Status)
			}
			out := res.JSON(t)
			if errorCode(out) != "BAD_USER_INPUT" || dig(t, out, "errors.0.extensions.fields.0.field") != "farms.last" {
				t.Fatalf("answer %s", res.Body)
			}
		})
	})
}

// TestStrictNestedInput: issue 33's findings through GraphQL. medicineCreate's dose unit took
// control characters (NUL answered 500 on PostgreSQL); the text rule now runs over every
// argument at any depth before the resolver, naming the path. Nested input objects were
// already typed by the schema: an unknown key, a missing min or [null] in the age-of-dam
// lines is a validation error and nothing is stored, as over REST.
func TestStrictNestedInput(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Strict Graph")
		const create = `mutation($in: MedicineCreateInput!) { medicineCreate(input: $in) { medicine { id } } }`
		line := func(dose map[string]any) map[string]any {
			return map[string]any{"farmID": f.ID.String(), "name": "Pen", "withdrawalMeatDays": 1, "withdrawalMilkHours": 1,
				"speciesWithdrawals": []any{map[string]any{"species": "CATTLE", "withdrawalMeatDays": 1, "withdrawalMilkHours": 1, "dose": dose}}}
		}
		for _, tc := range []struct{ name, unit string }{{"ErrNUL", "ml\u0000"}, {"ErrBackspace", "ml\u0008"}, {"ErrEscape", "ml\u001b"}, {"ErrNewline", "ml\n"}} {
			t.Run(tc.name, func(t *testing.T) {
				out := app.GraphQL(u.Token, create, map[string]any{"in": line(map[string]any{"unit": tc.unit, "min": 1, "max": 2})})
				if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(dig(t, out, "errors.0.extensions.fields")), "input.speciesWithdrawals[0].dose.unit") {
					t.Fatalf("answer %v", out)
				}
			})
		}
		t.Run("ErrLiteralArgument", func(t *testing.T) {
			out := app.GraphQL(u.Token, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Pen\u0007", withdrawalMeatDays: 1, withdrawalMilkHours: 1}) { medicine { id } } }`,
				map[string]any{"f": f.ID.String()})
			if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(dig(t, out, "errors.0.extensions.fields")), "input.name") {
				t.Fatalf("answer %v", out)
			}
		})
		t.Run("ErrUnknownKeyInDose", func(t *testing.T) {
			out := refused(t, app, u.Token, create, map[string]any{"in": line(map[string]any{"unit": "ml", "min": 1, "max": 2, "bogus": 1})})
			if fmt.Sprint(dig(t, out, "errors.0.path")) != "[variable in speciesWithdrawals 0 dose bogus]" {
				t.Fatalf("answer %v", out)
			}
		})
		t.Run("ErrMissingMin", func(t *testing.T) {
			out := refused(t, app, u.Token, create, map[string]any{"in": line(map[string]any{"unit": "ml", "max": 2})})
			if fmt.Sprint(dig(t, out, "errors.0.path")) != "[variable in speciesWithdrawals 0 dose min]" {
				t.Fatalf("answer %v", out)
			}
		})
		t.Run("ErrWeaningNull", func(t *testing.T) {
			out := refused(t, app, u.Token, `mutation($in: FarmSettingsUpdateInput!) { farmSettingsUpdate(input: $in) { settings { weaningAgeOfDam { minDays } } } }`,
				map[string]any{"in": map[string]any{"farmID": f.ID.String(), "weaningAgeOfDam": []any{nil}}})
			if fmt.Sprint(dig(t, out, "errors.0.path")) != "[variable in weaningAgeOfDam 0]" {
				t.Fatalf("answer %v", out)
			}
		})
		t.Run("OKProse", func(t *testing.T) {
			out := app.GraphQL(u.Token, create, map[string]any{"in": line(map[string]any{"unit": "ml", "min": 1, "max": 2})})
			wantNoErrors(t, out)
		})
		t.Run("NothingStored", func(t *testing.T) {
			out := app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { medicines(first: 10) { totalCount } } }`, map[string]any{"f": f.ID.String()})
			wantNoErrors(t, out)
			if dig(t, out, "data.farm.medicines.totalCount") != float64(1) {
				t.Fatalf("medicines %v", out)
			}
		})
	})
}

// refused sends a GraphQL request whose variables the schema refuses and returns the answer:
// gqlgen answers such a request 422 with GRAPHQL_VALIDATION_FAILED and the variable's path,
// before any resolver runs.
func refused(t *testing.T, app *herdbooktest.App, token, q string, vars map[string]any) map[string]any {
	t.Helper()
	res := app.Do("POST", "/graphql", token, query(q, vars))
	out := res.JSON(t)
	if res.Status != http.StatusUnprocessableEntity || errorCode(out) != "GRAPHQL_VALIDATION_FAILED" {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	return out
}
