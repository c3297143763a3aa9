package graph_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// contractStatementBudget is what each read operation of the web app's contract may cost,
// authentication (two statements) included. The test fails above it, and when a larger farm
// costs more than a smaller one.
var contractStatementBudget = map[string]int64{
	"MyFarms":       4,
	"FarmDashboard": 18,
	// Membership is derived from dated facts: the groups' counts cost three statements
	// (their membership facts, the candidates' facts, the active animals), the page's
	// animals' groups two (their facts, the groups), and "today" is the farm's (its settings,
	// once), whatever the page. The counts are kept by the farm's change counter (derived.go):
	// reading it is one more statement, and a list seen again before the farm changes skips
	// the three.
	"HerdList":            14,
	"RecordPage":          12,
	"FarmRecords":         8,
	"BirthEvidenceReview": 12,
	"TaskBoard":           8,
	"Notifications":       5,
}

// TestContractOperationsStatements: every page shape of the web app's contract costs the
// same statements on a farm with one of everything as on a farm with several (no N+1), and
// at most its budget.
func TestContractOperationsStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(contractDir, "operations", name))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		counts := map[string][]int64{}
		for _, n := range []int{1, 3} {
			owner := app.MustUser()
			run := func(file, op string, vars map[string]any) map[string]any {
				t.Helper()
				res := app.Do("POST", "/graphql", owner.Token, map[string]any{"query": read(file), "operationName": op, "variables": vars})
				out := res.JSON(t)
				if res.Status != 200 || out["errors"] != nil {
					t.Fatalf("%s %s: %d %v", file, op, res.Status, out)
				}
				return out
			}
			// n farms, n sire candidates, n groups, n records with n animals, n births' tasks.
			var c calvingFarm
			for i := 0; i < n; i++ {
				c = newCalvingFarm(t, app, owner, n)
			}
			farmID := uuid.MustParse(c.farmID)
			var animals []string
			for i := 0; i < n; i++ {
				g := app.MustGroup(owner, farmID, fmt.Sprintf("G%d", i))
				a := app.MustAnimal(owner, farmID, fmt.Sprintf("A%d", i))
				animals = append(animals, a.ID.String())
				out := app.GraphQL(owner.Token, `mutation($g: ID!, $a: [ID!]!) { groupAnimalsSet(input: {id: $g, animalIDs: $a}) { group { id } } }`,
					map[string]any{"g": g.ID.String(), "a": animals})
				wantNoErrors(t, out)
			}
			var record any
			for i := 0; i < n; i++ {
				out := app.GraphQL(owner.Token, `mutation($f: ID!, $a: [ID!]!) { recordCreate(input: {farmID: $f, animalIDs: $a, name: "Weighing", type: HEALTH, appliedAt: "2026-01-02T00:00:00Z", items: [{name: "a"}, {name: "b"}]}) { record { id } } }`,
					map[string]any{"f": c.farmID, "a": animals})
				wantNoErrors(t, out)
				record = dig(t, out, "data.recordCreate.record.id")
			}
			for i := 0; i < n; i++ {
				dam := app.MustAnimal(owner, farmID, fmt.Sprintf("COW-%d", i)).ID.String()
				out := run("birth-evidence.graphql", "CreateBirthPreview", map[string]any{"input": map[string]any{"farmID": c.farmID, "damID": dam, "birthDate": "2026-04-20"}})
				run("birth-evidence.graphql", "ApproveBirthPreview", map[string]any{"input": map[string]any{"farmID": c.farmID,
					"id": dig(t, out, "data.birthPreviewCreate.birthPreview.id"), "requestID": fmt.Sprint("contract-", i),
					"calves": []map[string]any{{"tag": fmt.Sprint("CONTRACT-CALF-", i), "sex": "female", "status": "alive"}}}})
			}
			for _, tc := range []struct {
				file, op string
				vars     map[string]any
			}{
				{"farm-dashboard.graphql", "MyFarms", map[string]any{"first": 10}},
				{"farm-dashboard.graphql", "FarmDashboard", map[string]any{"farmID": c.farmID}},
				{"herd-list.graphql", "HerdList", map[string]any{"farmID": c.farmID, "first": 10}},
				{"record-page.graphql", "RecordPage", map[string]any{"id": record}},
				{"record-page.graphql", "FarmRecords", map[string]any{"farmID": c.farmID, "first": 10}},
				{"birth-evidence.graphql", "BirthEvidenceReview", map[string]any{"farmID": c.farmID, "damID": c.dam, "dateOfBirth": "2026-04-20"}},
				{"task-board.graphql", "TaskBoard", map[string]any{"farmID": c.farmID, "first": 10}},
				{"notifications.graphql", "Notifications", map[string]any{"farmID": c.farmID, "first": 10}},
			} {
				counts[tc.op] = append(counts[tc.op], app.Queries(func() { run(tc.file, tc.op, tc.vars) }))
			}
			// The herd list's group counts, loaded for every group at once, are each group's:
			// G0 has one animal, G1 two, G2 three.
			out := run("herd-list.graphql", "HerdList", map[string]any{"farmID": c.farmID, "first": 10})
			for i, e := range dig(t, out, "data.farm.groups.edges").([]any) {
				name := dig(t, e, "node.name").(string)
				var k int
				if _, err := fmt.Sscanf(name, "G%d", &k); err != nil {
					continue
				}
				if got := dig(t, e, "node.animalsConnection.totalCount"); got != float64(k+1) {
					t.Fatalf("group %d %s counts %v animals, want %d", i, name, got, k+1)
				}
			}
		}
		for op, budget := range contractStatementBudget {
			c := counts[op]
			if len(c) != 2 || c[0] != c[1] || c[1] > budget {
				t.Errorf("%s: %v statements (one of everything, three of everything), want equal and at most %d", op, c, budget)
			}
			t.Logf("%s: %v statements", op, c)
		}
	})
}
