package graph_test

import (
	"fmt"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

const weighingsImportMutation = `mutation($in: WeighingsImportInput!) { weighingsImport(input: $in) {
  dryRun layout rows recorded unchanged ignoredColumns weighings { line animalID tag eid date time kg action } } }`

// TestWeighingsImport: issue 31.4, a weigh scale's session file imported from the web app
// through GraphQL (the file's text in the input), on both databases. The layouts, and the
// REST route's cases, are in scalefile's and rest's tests.
func TestWeighingsImport(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader := app.MustUser(), app.MustUser()
		farm := app.MustFarm(owner, "Scale Farm").ID
		app.MustMember(farm, reader, herdbook.RoleReader)
		cow := app.MustAnimal(owner, farm, "C-1").ID
		if err := app.Service.WriteAnimalFacts(app.Ctx(owner), farm, []evidence.Fact{
			{Kind: evidence.KindProfile, AnimalID: cow.String(), Sex: "female", BirthDate: "2024-01-01"},
			{Kind: evidence.KindIdentifier, AnimalID: cow.String(), Scheme: evidence.SchemeEID, Value: "982000001088420", StartDate: "2024-01-01"},
		}); err != nil {
			t.Fatal(err)
		}
		in := func(file string, extra map[string]any) map[string]any {
			v := map[string]any{"farmID": farm.String(), "sessionFile": file}
			for k, x := range extra {
				v[k] = x
			}
			return map[string]any{"in": v}
		}
		// A Gallagher session saved with semicolons and a decimal comma, its date given.
		file := "Electronic ID;Visual ID;Weight;Condition Score\r\n982 000001088420;C-1;452,5;3\r\n"
		out := app.GraphQL(owner.Token, weighingsImportMutation, in(file, map[string]any{"unit": "KG", "date": "2026-03-20", "dryRun": true}))
		wantNoErrors(t, out)
		if dig(t, out, "data.weighingsImport.dryRun") != true || dig(t, out, "data.weighingsImport.recorded") != 1.0 {
			t.Fatalf("dry run %v", out)
		}
		out = app.GraphQL(owner.Token, weighingsImportMutation, in(file, map[string]any{"unit": "KG", "date": "2026-03-20"}))
		wantNoErrors(t, out)
		w := dig(t, out, "data.weighingsImport.weighings.0").(map[string]any)
		if w["line"] != 2.0 || w["animalID"] != cow.String() || w["tag"] != "C-1" || w["eid"] != "982000001088420" || w["kg"] != 452.5 ||
			w["date"] != "2026-03-20" || w["time"] != nil || w["action"] != "RECORDED" {
			t.Fatalf("weighing %v", w)
		}
		if got := fmt.Sprint(dig(t, out, "data.weighingsImport.ignoredColumns")); got != "[Condition Score]" {
			t.Fatalf("ignoredColumns %s", got)
		}
		out = app.GraphQL(owner.Token, weighingsImportMutation, in(file, map[string]any{"unit": "KG", "date": "2026-03-20"}))
		wantNoErrors(t, out)
		if dig(t, out, "data.weighingsImport.weighings.0.action") != "UNCHANGED" {
			t.Fatalf("again %v", out)
		}

		// A bad file: every problem with its line and column, nothing written.
		out = app.GraphQL(owner.Token, weighingsImportMutation, in("EID,Weight (kg),Date\n982000001088420,400,2023-12-01\n982000009999999,heavy,2026-03-21\n", nil))
		if errorCode(out) != "BAD_USER_INPUT" {
			t.Fatalf("bad file %v", out)
		}
		fields := dig(t, out, "errors.0.extensions.fields").([]any)
		if len(fields) != 1 || dig(t, out, "errors.0.extensions.fields.0.row") != 3.0 || dig(t, out, "errors.0.extensions.fields.0.column") != "weight" {
			t.Fatalf("fields %v", fields)
		}
		out = app.GraphQL(owner.Token, weighingsImportMutation, in("EID,Weight (kg),Date\n982000001088420,400,2023-12-01\n", nil))
		if errorCode(out) != "BAD_USER_INPUT" || dig(t, out, "errors.0.extensions.fields.0.column") != "date" {
			t.Fatalf("before birth %v", out)
		}
		// A control character other than a line break or a tab is refused, as in any text.
		out = app.GraphQL(owner.Token, weighingsImportMutation, in("EID,Weight (kg),Date\n982000001088420,400,2026-03-21\x00\n", nil))
		if errorCode(out) != "BAD_USER_INPUT" {
			t.Fatalf("NUL %v", out)
		}
		// Access: a reader may not, nor anyone without a token.
		if out := app.GraphQL(reader.Token, weighingsImportMutation, in(file, map[string]any{"unit": "KG", "date": "2026-03-22"})); errorCode(out) == "" {
			t.Fatalf("reader %v", out)
		}
		if out := app.GraphQL("", weighingsImportMutation, in(file, map[string]any{"unit": "KG", "date": "2026-03-22"})); errorCode(out) == "" {
			t.Fatalf("anonymous %v", out)
		}
	})
}
