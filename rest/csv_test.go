package rest_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// readCSV parses a CSV answer into its rows, header first.
func readCSV(t *testing.T, res herdbooktest.Response) [][]string {
	t.Helper()
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
	rows, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, res.Body)
	}
	return rows
}

// column returns the values of the named column, header left out.
func column(t *testing.T, rows [][]string, name string) []string {
	t.Helper()
	for i, h := range rows[0] {
		if h == name {
			var out []string
			for _, r := range rows[1:] {
				out = append(out, r[i])
			}
			return out
		}
	}
	t.Fatalf("no column %s in %v", name, rows[0])
	return nil
}

func TestExportRecordsCSV(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		noScope := app.MustUser(herdbook.ScopeReadFarms)
		f := app.MustFarm(owner, "Export Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		app.MustMember(f.ID, noScope, herdbook.RoleReader)
		cow := app.MustAnimal(owner, f.ID, "C-1")
		calf := app.MustAnimal(owner, f.ID, "C-2")
		herd := app.MustGroup(owner, f.ID, "Summer herd")
		path := "/v1/farm/" + f.ID.String() + "/records.csv"
		post := func(name, at string, body map[string]any) string {
			t.Helper()
			b := map[string]any{"animal_ids": []string{cow.ID.String(), calf.ID.String()}, "group_ids": []string{herd.ID.String()},
				"name": name, "type": "HEALTH", "applied_at": at}
			for k, v := range body {
				b[k] = v
			}
			res := app.Do("POST", "/v1/farm/"+f.ID.String()+"/records", owner.Token, b)
			if res.Status != http.StatusCreated {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			return res.JSON(t)["id"].(string)
		}
		later := post("Booster, \"second\"", "2026-03-02T09:00:00Z", map[string]any{"description": "line one\nline two"})
		earlier := post("Profile", "2026-01-10T23:30:00-02:00", map[string]any{"record_items": []map[string]any{
			{"name": "Cow", "metadata": map[string]any{"birth_history": map[string]any{"kind": "profile", "animal_id": cow.ID.String(), "sex": "female", "birth_date": "2020-04-02"}}},
			{"name": "Note", "description": "calm", "metadata": map[string]any{"note": "ok"}},
		}})

		t.Run("OK", func(t *testing.T) {
			rows := readCSV(t, app.Do("GET", path, reader.Token, nil))
			if strings.Join(rows[0], ",") != strings.Join(herdbook.RecordCSVColumns, ",") {
				t.Fatalf("header %v", rows[0])
			}
			if len(rows) != 4 {
				t.Fatalf("rows %v", rows)
			}
			if got := column(t, rows, "record_id"); got[0] != earlier || got[1] != earlier || got[2] != later {
				t.Fatalf("order by applied_at: %v", got)
			}
			if got := column(t, rows, "applied_at"); got[0] != "2026-01-11T01:30:00Z" {
				t.Fatalf("applied_at %v", got)
			}
			if got := column(t, rows, "fact_kind"); got[0] != "profile" || got[1] != "" || got[2] != "" {
				t.Fatalf("fact_kind %v", got)
			}
			if got := column(t, rows, "animal_tags")[0]; got != "C-1;C-2" {
				t.Fatalf("animal_tags %q", got)
			}
			if got := column(t, rows, "group_names")[2]; got != "Summer herd" {
				t.Fatalf("group_names %q", got)
			}
			if got := column(t, rows, "name")[2]; got != `Booster, "second"` {
				t.Fatalf("quoting: %q", got)
			}
			if got := column(t, rows, "description")[2]; got != "line one\nline two" {
				t.Fatalf("newlines: %q", got)
			}
			if got := column(t, rows, "metadata")[1]; got != `{"note":"ok"}` {
				t.Fatalf("metadata %q", got)
			}
			if got := column(t, rows, "item_id")[2]; got != "" {
				t.Fatalf("a record without items has empty item columns: %q", got)
			}
		})
		t.Run("Range", func(t *testing.T) {
			rows := readCSV(t, app.Do("GET", "/api"+path+"?from=2026-01-11&to=2026-01-11", owner.Token, nil))
			if len(rows) != 3 || rows[1][0] != earlier {
				t.Fatalf("from/to are UTC days, both included: %v", rows)
			}
			rows = readCSV(t, app.Do("GET", path+"?from=2026-01-12", owner.Token, nil))
			if len(rows) != 2 || rows[1][0] != later {
				t.Fatalf("from: %v", rows)
			}
			rows = readCSV(t, app.Do("GET", path+"?to=2026-01-10", owner.Token, nil))
			if len(rows) != 1 {
				t.Fatalf("an empty range still has its header: %v", rows)
			}
		})
		t.Run("DeletedRecordsLeftOut", func(t *testing.T) {
			gone := post("Gone", "2026-02-01T00:00:00Z", nil)
			if res := app.Do("DELETE", "/v1/farm/"+f.ID.String()+"/records/"+gone, owner.Token, nil); res.Status != 204 {
				t.Fatalf("delete %d", res.Status)
			}
			rows := readCSV(t, app.Do("GET", path, owner.Token, nil))
			for _, id := range column(t, rows, "record_id") {
				if id == gone {
					t.Fatal("a deleted record was exported")
				}
			}
		})
		t.Run("Errors", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", path+"?from=2026-13-01", owner.Token, nil), 400, "ValidationError", "from: must be a calendar date")
			herdbooktest.WantEnvelope(t, app.Do("GET", path+"?from=2026-02-01&to=2026-01-01", owner.Token, nil), 400, "ValidationError", "to: must not be before from")
			herdbooktest.WantEnvelope(t, app.Do("GET", path, "", nil), 401, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", path, noScope.Token, nil), 403, "ForbiddenError", "read:records")
			herdbooktest.WantEnvelope(t, app.Do("GET", path, stranger.Token, nil), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/nope/records.csv", owner.Token, nil), 400, "ValidationError", "farm_id")
		})
		t.Run("Batched", func(t *testing.T) {
			// The statements of an export grow with its batches, not its rows.
			other := app.MustFarm(owner, "Counted")
			a := app.MustAnimal(owner, other.ID, "A")
			count := func(n int) int64 {
				for i := 0; i < n; i++ {
					if _, err := app.Service.CreateRecord(app.Ctx(owner), other.ID, herdbook.RecordInput{
						AnimalIDs: []uuid.UUID{a.ID}, Name: fmt.Sprint("R", i), Type: "FEED", AppliedAt: ptrTime(),
						Items: []herdbook.RecordItemInput{{Metadata: map[string]any{"n": i}}},
					}); err != nil {
						t.Fatal(err)
					}
				}
				return app.Queries(func() { readCSV(t, app.Do("GET", "/v1/farm/"+other.ID.String()+"/records.csv", owner.Token, nil)) })
			}
			if three, thirty := count(3), count(27); three != thirty {
				t.Fatalf("3 records cost %d statements, 30 cost %d", three, thirty)
			}
		})
	})
}
