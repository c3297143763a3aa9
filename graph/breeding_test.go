package graph_test

import (
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestCalvingRecordGraphQL records twins through calvingRecord, replays it, and reads the
// weights and the reports the graph answers (docs/breeding.md).
func TestCalvingRecordGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Graph Calving")
		dam := app.MustAnimal(owner, f.ID, "DAM-G").ID.String()
		base := "/v1/farm/" + f.ID.String()
		res := app.Do("POST", base+"/records", owner.Token, map[string]any{"animal_ids": []string{dam}, "name": "profile", "type": "GENETIC",
			"applied_at": "2025-01-01T00:00:00Z", "record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
				"kind": "profile", "animal_id": dam, "sex": "female", "birth_date": "2021-04-01"}}}}})
		if res.Status != 201 {
			t.Fatalf("profile: %d %s", res.Status, res.Body)
		}
		v := map[string]any{"f": f.ID.String(), "dam": dam}
		out := app.GraphQL(owner.Token, `mutation($f: ID!) { protocolPut: putFollowUpProtocol(farmID: $f, steps: [
			{name: "Check the dam", offsetDays: 1}, {name: "Castrate", offsetDays: 30, sex: "male"}]) { version steps { name sex } } }`, v)
		wantNoErrors(t, out)
		const record = `mutation($f: ID!, $dam: ID!) { calvingRecord(input: {farmID: $f, damID: $dam, date: "2026-03-01", calves: [
			{tag: "G-1", sex: "male", status: "alive", twin: true, birthWeight: 40},
			{tag: "G-2", sex: "female", status: "alive", twin: true, freemartin: true, surrogateDamID: null}]}) {
			created calving { id date calves { animalID tag sex twin freemartin } tasks { name } sire { animalID } } } }`
		out = app.GraphQL(owner.Token, record, v)
		wantNoErrors(t, out)
		if dig(t, out, "data.calvingRecord.created") != true || len(dig(t, out, "data.calvingRecord.calving.tasks").([]any)) != 2 {
			t.Fatalf("calvingRecord = %v", out)
		}
		id := dig(t, out, "data.calvingRecord.calving.id")
		again := app.GraphQL(owner.Token, record, v)
		wantNoErrors(t, again)
		if dig(t, again, "data.calvingRecord.created") != false || dig(t, again, "data.calvingRecord.calving.id") != id {
			t.Fatalf("second calvingRecord = %v", again)
		}
		calf := dig(t, out, "data.calvingRecord.calving.calves").([]any)[0].(map[string]any)["animalID"].(string)
		res = app.Do("POST", base+"/records", owner.Token, map[string]any{"animal_ids": []string{calf}, "name": "weaning", "type": "GENETIC",
			"applied_at": "2026-09-17T00:00:00Z", "record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
				"kind": "weaning", "animal_id": calf, "date": "2026-09-17", "kg": 250}}}}})
		if res.Status != 201 {
			t.Fatalf("weaning: %d %s", res.Status, res.Body)
		}
		v["calf"] = calf
		out = app.GraphQL(owner.Token, `query($calf: ID!) { node(id: $calf) { ... on Animal {
			weights { weights { date kg kind } gains { dailyGainKG } }
			adjustedWeaningWeight { ageDays adjustedKG } } } }`, v)
		wantNoErrors(t, out)
		// BIF: (250 − 40) / 200 × 205 + 40 = 255.25.
		if dig(t, out, "data.node.adjustedWeaningWeight.adjustedKG") != 255.25 || dig(t, out, "data.node.adjustedWeaningWeight.ageDays") != 200.0 {
			t.Fatalf("weights = %v", out)
		}
		out = app.GraphQL(owner.Token, `query($f: ID!) { node(id: $f) { ... on Farm { reports {
			calvingSpread(from: "2026-01-01", to: "2026-12-31") { calvings periods { period calvings cumulativePercentage } }
			weaning(from: "2026-09-01", to: "2026-09-30") { calves byDamAge { damAgeYears meanAdjustedKG } }
			calving(from: "2026-01-01", to: "2026-12-31", exposureFrom: "2025-05-01", exposureTo: "2025-08-31") { calvesBornAlive calvingPercentage notExposed { calvesBornAlive } }
			scans(from: "2025-01-01", to: "2025-12-31") { checks pregnancyRate }
			gain(from: "2026-01-01", to: "2026-12-31") { groups { groupID } } } } } }`, v)
		wantNoErrors(t, out)
		// No exposure is recorded, so the twins' dam was never exposed: the calving report counts
		// her calves apart, in notExposed, and the percentage stays null (issue 28.5).
		if dig(t, out, "data.node.reports.calvingSpread.calvings") != 1.0 || dig(t, out, "data.node.reports.weaning.calves") != 1.0 ||
			dig(t, out, "data.node.reports.calving.calvesBornAlive") != 0.0 || dig(t, out, "data.node.reports.calving.notExposed.calvesBornAlive") != 2.0 ||
			dig(t, out, "data.node.reports.calving.calvingPercentage") != nil {
			t.Fatalf("reports = %v", out)
		}
		out = app.GraphQL(owner.Token, `mutation($f: ID!) { farmSettingsUpdate(input: {farmID: $f,
			calvingEaseScale: [{code: "1", label: "No difficulty"}], weaningAgeOfDam: [{minDays: 0, maxDays: 2000, maleKG: 10, femaleKG: 8}]}) {
			settings { calvingEaseScale { code label } weaningAgeOfDam { maleKG } } } }`, v)
		wantNoErrors(t, out)
		if dig(t, out, "data.farmSettingsUpdate.settings.calvingEaseScale").([]any)[0].(map[string]any)["code"] != "1" {
			t.Fatalf("settings = %v", out)
		}
	})
}
