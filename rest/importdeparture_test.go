package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestImportDeparturesAreGuarded: the CSV import reads the export's status and status_date,
// so a departure travels with the register; and it meets the same withdrawal guard as every
// other departure path (issue 20, deliver 6): a slaughter or a sale of an animal under meat
// withdrawal is a 409 naming the row, and nothing of the file is written (GB VMR 2013; EU
// 2019/6 Art. 115 and 108: food from a treated animal only after the withdrawal).
func TestImportDeparturesAreGuarded(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Import Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "Europe/London"})
		base := "/v1/farm/" + f.ID.String()
		cow := app.MustAnimal(owner, f.ID, "C-1")
		med := mustCreate(t, app, base+"/medicines", owner.Token, map[string]any{"name": "Oxytetracycline", "withdrawal_meat_days": 28, "withdrawal_milk_hours": 168})
		if res := fact(app, f.ID, owner.Token, []string{cow.ID.String()}, map[string]any{"kind": "treatment", "medicine_id": med["id"],
			"animal_id": cow.ID.String(), "date": "2026-05-01"}, false); res.Status != http.StatusCreated {
			t.Fatalf("treatment: %d %s", res.Status, res.Body)
		}
		for _, c := range []struct{ name, file string }{
			{"Slaughter", "tag,status,status_date\nC-1,slaughtered,2026-05-10\n"},
			{"Sale", "tag,status,status_date\nC-1,sold,2026-05-10\n"},
			{"MovementOff", "tag,status,status_date\nC-1,moved_out,2026-05-28\n"},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := importCSV(t, app, f.ID, owner.Token, "", c.file)
				if res.Status != http.StatusConflict || !strings.Contains(string(res.Body), "WithdrawalError") ||
					!strings.Contains(string(res.Body), "row 2, status") {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
				// A dry run is refused the same way: it answers what the import would do.
				if res := importCSV(t, app, f.ID, owner.Token, "?dry_run=true", c.file); res.Status != http.StatusConflict {
					t.Fatalf("dry run: %d %s", res.Status, res.Body)
				}
			})
		}
		profile := func() map[string]any {
			return app.Do("GET", base+"/animals/"+cow.ID.String()+"?as_of=2026-06-30", owner.Token, nil).JSON(t)["profile"].(map[string]any)
		}
		if got := profile(); got["status"] != "on_farm" {
			t.Fatalf("a refused import wrote a departure: %v", got)
		}
		t.Run("ErrInput", func(t *testing.T) {
			for _, c := range []struct{ file, field string }{
				{"tag,status,status_date\nC-1,eaten,2026-07-01\n", "row 2, status"},
				{"tag,status\nC-1,sold\n", "row 2, status_date"},
				{"tag,status,status_date\nC-1,sold,2026-02-30\n", "row 2, status_date"},
			} {
				herdbooktest.WantEnvelope(t, importCSV(t, app, f.ID, owner.Token, "", c.file), http.StatusBadRequest, "ValidationError", c.field)
			}
		})
		// After the withdrawal (meat clears on 2026-05-29) the slaughter is recorded, and the
		// register's export imports again without adding anything.
		if res := importCSV(t, app, f.ID, owner.Token, "", "tag,status,status_date\nC-1,slaughtered,2026-06-02\n"); res.Status != http.StatusCreated {
			t.Fatalf("after the withdrawal: %d %s", res.Status, res.Body)
		}
		got := profile()
		if got["status"] != "died" || got["status_date"] != "2026-06-02" {
			t.Fatalf("after the import: %v", got)
		}
		export := app.Do("GET", base+"/animals.csv?as_of=2026-06-30", owner.Token, nil)
		if export.Status != http.StatusOK {
			t.Fatalf("export: %d", export.Status)
		}
		res := importCSV(t, app, f.ID, owner.Token, "", string(export.Body)).JSON(t)
		if res["updated"] != 0.0 || res["created"] != 0.0 {
			t.Fatalf("the export imported again changed something: %v", res)
		}
	})
}
