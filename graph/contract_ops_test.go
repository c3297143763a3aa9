package graph_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestContractOperationsRun sends the web app's operations (web/contract/operations) as they
// are to a server with a farm that has animals, facts, a preview, tasks and a record: each
// answers without errors, so the contract is not only well-typed but served.
func TestContractOperationsRun(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		c := newCalvingFarm(t, app, owner, 2)
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(contractDir, "operations", name))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		run := func(t *testing.T, file, op string, vars map[string]any) map[string]any {
			t.Helper()
			res := app.Do("POST", "/graphql", owner.Token, map[string]any{"query": read(file), "operationName": op, "variables": vars})
			out := res.JSON(t)
			if res.Status != 200 || out["errors"] != nil {
				t.Fatalf("%s %s: %d %v", file, op, res.Status, out)
			}
			return out
		}

		out := run(t, "birth-evidence.graphql", "CreateBirthPreview", map[string]any{"input": map[string]any{"farmID": c.farmID, "damID": c.dam, "birthDate": "2026-04-20"}})
		preview := dig(t, out, "data.birthPreviewCreate.birthPreview.id")
		run(t, "birth-evidence.graphql", "ApproveBirthPreview", map[string]any{"input": map[string]any{"farmID": c.farmID, "id": preview, "requestID": "contract-1",
			"calves": []map[string]any{{"tag": "CONTRACT-CALF", "sex": "female", "status": "alive"}}}})
		out = run(t, "farm-dashboard.graphql", "FarmDashboard", map[string]any{"farmID": c.farmID})
		record := dig(t, out, "data.farm.records.edges.0.node.id")

		for _, tc := range []struct {
			file, op string
			vars     map[string]any
			want     string // a path that must be there
		}{
			{"farm-dashboard.graphql", "MyFarms", map[string]any{"first": 10}, "data.farms.edges.0.node.name"},
			{"farm-dashboard.graphql", "FarmDashboard", map[string]any{"farmID": c.farmID}, "data.farm.tasks.edges.0.node.animals.0.tag"},
			{"herd-list.graphql", "HerdList", map[string]any{"farmID": c.farmID, "first": 10}, "data.farm.animals.edges.0.node.tag"},
			{"record-page.graphql", "RecordPage", map[string]any{"id": record}, "data.node.animalsConnection.totalCount"},
			{"record-page.graphql", "FarmRecords", map[string]any{"farmID": c.farmID, "first": 10}, "data.farm.records.edges.0.node.items.0.id"},
			{"birth-evidence.graphql", "BirthEvidenceReview", map[string]any{"farmID": c.farmID, "damID": c.dam, "dateOfBirth": "2026-04-20"}, "data.birthEvidence.sire.candidates.1.animal.tag"},
			{"task-board.graphql", "TaskBoard", map[string]any{"farmID": c.farmID, "status": "TODO", "first": 10}, "data.farm.tasks.edges.0.node.birthEvent.dam.tag"},
			{"notifications.graphql", "Notifications", map[string]any{"farmID": c.farmID, "first": 10}, "data.farm.notifications.totalCount"},
			{"notifications.graphql", "MarkNotificationsRead", map[string]any{"input": map[string]any{"farmID": c.farmID}}, "data.notificationsMarkRead.markedCount"},
			{"herd-register.graphql", "HerdRegister", map[string]any{"farmID": c.farmID, "first": 10, "asOf": "2026-04-21", "status": "ON_FARM"}, "data.farm.animals.edges.0.node.profile.status"},
			{"animal-page.graphql", "AnimalPage", map[string]any{"id": c.dam, "asOf": "2026-04-21"}, "data.node.profile.asOf"},
			{"animal-page.graphql", "RecordWeight", map[string]any{"input": map[string]any{"farmID": c.farmID, "animalID": c.dam, "date": "2026-04-21", "kg": 512.5}}, "data.weightRecord.animal.profile.weighedOn"},
			{"herd-list.graphql", "CreateAnimal", map[string]any{"input": map[string]any{"farmID": c.farmID, "tag": "NEW"}}, "data.animalCreate.animal.id"},
		} {
			t.Run(tc.op, func(t *testing.T) {
				out := run(t, tc.file, tc.op, tc.vars)
				if v := dig(t, out, tc.want); v == nil || v == "" {
					t.Fatalf("%s is empty: %v", tc.want, out)
				}
			})
		}
		out = run(t, "task-board.graphql", "TaskBoard", map[string]any{"farmID": c.farmID, "first": 10})
		task := dig(t, out, "data.farm.tasks.edges.0.node.id")
		out = run(t, "task-board.graphql", "UpdateTask", map[string]any{"input": map[string]any{"farmID": c.farmID, "id": task, "status": "DONE", "dueOn": "2026-05-02"}})
		if dig(t, out, "data.taskUpdate.task.status") != "DONE" || dig(t, out, "data.taskUpdate.task.dueOn") != "2026-05-02" {
			t.Fatalf("UpdateTask = %v", out)
		}
		if entries, _ := os.ReadDir(filepath.Join(contractDir, "operations")); len(entries) != 8 {
			t.Fatalf("the contract has %d operation files; run each new one here too", len(entries))
		}
	})
}
