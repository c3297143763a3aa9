package graph_test

import (
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func TestBirthHistoryGraph(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Graph Calving")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		dam, bull := app.MustAnimal(owner, f.ID, "D").ID.String(), app.MustAnimal(owner, f.ID, "B").ID.String()
		herd := app.MustGroup(owner, f.ID, "H").ID.String()
		vars := map[string]any{"f": f.ID.String(), "dam": dam, "bull": bull, "herd": herd}

		out := app.GraphQL(owner.Token, `mutation($f: ID!, $dam: ID!, $bull: ID!, $herd: ID!) {
			a: recordProfile(farmID: $f, input: {animalID: $dam, sex: FEMALE, birthDate: "2021-04-01", breed: "Angus"}) { id type }
			b: recordProfile(farmID: $f, input: {animalID: $bull, sex: MALE, birthDate: "2022-03-10", breed: "Hereford"}) { id }
			c: recordMembership(farmID: $f, input: {animalID: $dam, groupID: $herd, startDate: "2025-04-01"}) { id }
			d: recordExposure(farmID: $f, input: {sireID: $bull, groupID: $herd, startDate: "2025-06-15", endDate: "2025-08-01"}) { id items { metadata } }
			e: recordMovement(farmID: $f, input: {kind: PURCHASE, animalID: $dam, date: "2024-10-01"}) { id type }
			s: putBirthSettings(farmID: $f, input: {version: 1, species: "CATTLE", gestationDays: {min: 279, max: 292}, minimumSireAgeDays: 365}) { settingsVersion settings { gestationDays { max } } }
			p: putFollowUpProtocol(farmID: $f, steps: [{name: "Weigh", offsetDays: 1}]) { version }
		}`, vars)
		wantNoErrors(t, out)
		if dig(t, out, "data.e.type") != "MOVEMENT" || dig(t, out, "data.a.type") != "GENETIC" || dig(t, out, "data.s.settingsVersion") != float64(1) {
			t.Fatalf("facts = %v", out)
		}
		if dig(t, out, "data.d.items.0.metadata.birth_history.kind") != "exposure" {
			t.Fatalf("exposure item = %v", dig(t, out, "data.d.items"))
		}

		out = app.GraphQL(reader.Token, `query($f: ID!, $dam: ID!) {
			birthEvidence(farmID: $f, damID: $dam, birthDate: "2026-04-20") {
				evidenceVersion settingsStatus plannedWindowStatus conceptionWindow { startDate endDate }
				sire { status animalID confidence presumedCross candidates { animalID eligibility reasons membershipRecordIDs overlapIntervals { startDate endDate } } }
				movementComparisons { kind relationToConception } unresolved }
			farm(id: $f) { birthSettings { species settingsVersion } followUpProtocol { version steps { name offsetDays } } }
		}`, vars)
		wantNoErrors(t, out)
		if dig(t, out, "data.birthEvidence.sire.status") != "presumed" || dig(t, out, "data.birthEvidence.sire.animalID") != bull ||
			dig(t, out, "data.birthEvidence.sire.presumedCross") == nil || dig(t, out, "data.birthEvidence.movementComparisons.0.relationToConception") != "before" {
			t.Fatalf("evidence = %v", dig(t, out, "data.birthEvidence"))
		}

		out = app.GraphQL(owner.Token, `mutation($f: ID!, $dam: ID!) { createBirthPreview(farmID: $f, damID: $dam, birthDate: "2026-04-20") { id stale tasks { name dueDate } evidence { sire { status } } } }`, vars)
		wantNoErrors(t, out)
		vars["p"] = dig(t, out, "data.createBirthPreview.id")
		out = app.GraphQL(owner.Token, `mutation($f: ID!, $p: ID!) { approveBirthPreview(farmID: $f, id: $p, requestID: "g-1", calves: [{tag: "G-CALF", sex: "female", status: "alive"}]) { id tasks { id status dueDate animalIDs } } }`, vars)
		wantNoErrors(t, out)
		vars["t"] = dig(t, out, "data.approveBirthPreview.tasks.0.id")
		vars["e"] = dig(t, out, "data.approveBirthPreview.id")

		// Issue 19 defect 4: approval is idempotent on (dam, birth date). A second preview of
		// the same calving, approved with another request id, answers the first birth.
		out = app.GraphQL(owner.Token, `mutation($f: ID!, $dam: ID!) { createBirthPreview(farmID: $f, damID: $dam, birthDate: "2026-04-20") { id } }`, vars)
		wantNoErrors(t, out)
		vars["p2"] = dig(t, out, "data.createBirthPreview.id")
		out = app.GraphQL(owner.Token, `mutation($f: ID!, $p2: ID!) { birthPreviewApprove(input: {farmID: $f, id: $p2, requestID: "g-2", calves: [{tag: "G-CALF-2", sex: "female", status: "alive"}]}) { birthEvent { id tasks { id } } } }`, vars)
		wantNoErrors(t, out)
		if dig(t, out, "data.birthPreviewApprove.birthEvent.id") != vars["e"] || dig(t, out, "data.birthPreviewApprove.birthEvent.tasks.0.id") != vars["t"] {
			t.Fatalf("second approval of the same calving = %v, want birth %v", out, vars["e"])
		}
		out = app.GraphQL(reader.Token, `query($f: ID!) { farm(id: $f) { farmTasks { total } } }`, vars)
		if dig(t, out, "data.farm.farmTasks.total") != float64(1) {
			t.Fatalf("tasks after a second approval = %v, want the first birth's one", out)
		}
		out = app.GraphQL(owner.Token, `mutation($f: ID!, $t: ID!) { updateFarmTask(farmID: $f, id: $t, input: {status: DONE, dueDate: null}) { status dueDate } }`, vars)
		wantNoErrors(t, out)
		if dig(t, out, "data.updateFarmTask.status") != "DONE" || dig(t, out, "data.updateFarmTask.dueDate") != nil {
			t.Fatalf("update = %v", out)
		}
		out = app.GraphQL(reader.Token, `query($f: ID!) { farm(id: $f) { farmTasks(status: DONE) { total records { name } } } }`, vars)
		if dig(t, out, "data.farm.farmTasks.total") != float64(1) {
			t.Fatalf("tasks = %v", out)
		}

		for _, tc := range []struct{ name, token, query, code string }{
			{"ErrEvidenceNeedsReadAnimals", app.MustToken(reader.ID, herdbook.ScopeReadRecords, herdbook.ScopeReadFarms),
				`query($f: ID!, $dam: ID!) { birthEvidence(farmID: $f, damID: $dam, birthDate: "2026-04-20") { evidenceVersion } }`, "FORBIDDEN"},
			{"ErrReaderPutsSettings", reader.Token,
				`mutation($f: ID!) { putBirthSettings(farmID: $f, input: {version: 1, species: "CATTLE"}) { settingsVersion } }`, "UNAUTHENTICATED"},
			{"ErrSpeciesMismatch", owner.Token,
				`mutation($f: ID!) { putBirthSettings(farmID: $f, input: {version: 1, species: "GOAT"}) { settingsVersion } }`, "BAD_USER_INPUT"},
			{"ErrFactDate", owner.Token,
				`mutation($f: ID!, $dam: ID!) { recordCastration(farmID: $f, input: {animalID: $dam, date: "2025-02-30"}) { id } }`, "BAD_USER_INPUT"},
			{"ErrReusedRequestID", owner.Token,
				`mutation($f: ID!, $dam: ID!) { p: createBirthPreview(farmID: $f, damID: $dam, birthDate: "2026-05-01") { id } }`, ""},
			{"ErrTake", reader.Token, `query($f: ID!) { farm(id: $f) { farmTasks(take: 0) { total } } }`, "BAD_USER_INPUT"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := app.Do("POST", "/graphql", tc.token, map[string]any{"query": tc.query, "variables": vars}).JSON(t)
				if got := errorCode(res); got != tc.code {
					t.Fatalf("code %q, want %q: %v", got, tc.code, res)
				}
			})
		}
	})
}
