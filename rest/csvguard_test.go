package rest_test

import (
	"net/http"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// formulaLead reports whether a spreadsheet would run cell as a formula (OWASP, CSV
// Injection): it begins with = + - @ tab or CR and is not a plain number.
func formulaLead(cell string) bool {
	if cell == "" || !strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return false
	}
	if cell[0] == '+' || cell[0] == '-' {
		digits := 0
		for _, c := range cell[1:] {
			switch {
			case c >= '0' && c <= '9':
				digits++
			case c == '.':
			default:
				return true
			}
		}
		return digits == 0
	}
	return true
}

// TestCSVFormulaCells: issue 33.2. An animal tagged =1+2 or named =HYPERLINK("http://x","y")
// came out of animals.csv as it was, and a record so named out of records.csv; a farmer who
// opened the export in a spreadsheet ran it. Every CSV export now guards every cell the way
// medicine-book.csv did (a leading apostrophe, herdbook.GuardCell), numbers stay numbers,
// and animals.csv imports back to the original values.
func TestCSVFormulaCells(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		src := app.MustFarm(owner, "Formula Farm")
		base := "/v1/farm/" + src.ID.String()
		evil := []struct{ tag, name string }{
			{"=1+2", `=HYPERLINK("http://x","y")`},
			{"@SUM(A1)", "+44 20 7946 0958"},
			{"-2+3", "'=already quoted"},
			{"-5", "-5 kg"},
			{"Plain-1", "''@two quotes"},
		}
		var ids []string
		for _, e := range evil {
			res := app.Do("POST", base+"/animals", owner.Token, map[string]any{"tag": e.tag, "name": e.name})
			if res.Status != http.StatusCreated {
				t.Fatalf("animal %q: %d %s", e.tag, res.Status, res.Body)
			}
			ids = append(ids, res.JSON(t)["id"].(string))
		}
		group := app.MustGroup(owner, src.ID, "=Group")
		res := app.Do("POST", base+"/records", owner.Token, map[string]any{"animal_ids": ids, "group_ids": []string{group.ID.String()},
			"name": "=cmd|' /C calc'!A0", "type": "HEALTH", "applied_at": "2026-03-01T08:00:00Z", "description": "\t-desc",
			"record_items": []map[string]any{{"name": "@item", "description": "+1 more", "metadata": map[string]any{"k": "=v"}}}})
		if res.Status != http.StatusCreated {
			t.Fatalf("record: %d %s", res.Status, res.Body)
		}
		if res := app.Do("POST", base+"/medicines", owner.Token, map[string]any{"name": "=Medicine", "active_substance": "-x",
			"withdrawal_meat_days": 1, "withdrawal_milk_hours": 1}); res.Status != http.StatusCreated {
			t.Fatalf("medicine: %d %s", res.Status, res.Body)
		}

		exports := []string{"/animals.csv", "/records.csv", "/breeding.csv", "/due.csv", "/audit.csv", "/medicine-book.csv",
			"/medicine-book.csv?section=acquisitions"}
		for _, name := range herdbook.Reports {
			q := "?from=2020-01-01&to=2026-12-31"
			if name == herdbook.ReportCalving {
				q += "&exposure_from=2025-01-01&exposure_to=2025-12-31"
			}
			exports = append(exports, "/reports/"+name+".csv"+q)
		}
		for _, path := range exports {
			t.Run("Guarded"+path, func(t *testing.T) {
				res := app.Do("GET", base+path, owner.Token, nil)
				if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
					t.Fatalf("status %d %s: %s", res.Status, res.Header.Get("Content-Type"), res.Body)
				}
				for r, row := range readCSV(t, res) {
					for c, cell := range row {
						if formulaLead(cell) {
							t.Errorf("row %d cell %d is a formula: %q", r, c, cell)
						}
					}
				}
			})
		}
		t.Run("GuardedCells", func(t *testing.T) {
			rows := readCSV(t, app.Do("GET", base+"/animals.csv", owner.Token, nil))
			tags, names := column(t, rows, "tag"), column(t, rows, "name")
			want := map[string]string{"'=1+2": `'=HYPERLINK("http://x","y")`, "'@SUM(A1)": "'+44 20 7946 0958",
				"'-2+3": "''=already quoted", "-5": "'-5 kg", "Plain-1": "'''@two quotes"}
			for i, tag := range tags {
				if want[tag] != names[i] {
					t.Errorf("tag %q name %q, want name %q", tag, names[i], want[tag])
				}
			}
			rec := readCSV(t, app.Do("GET", base+"/records.csv", owner.Token, nil))
			if got := column(t, rec, "name")[0]; got != "'=cmd|' /C calc'!A0" {
				t.Errorf("records.csv name %q", got)
			}
		})
		t.Run("RoundTrip", func(t *testing.T) {
			dst := app.MustFarm(owner, "Formula Farm again")
			rows := readCSV(t, app.Do("GET", base+"/animals.csv", owner.Token, nil))
			var b strings.Builder
			for _, r := range rows {
				b.WriteString(csvLine(r))
			}
			if res := importCSV(t, app, dst.ID, owner.Token, "", b.String()); res.Status != http.StatusCreated {
				t.Fatalf("import: %d %s", res.Status, res.Body)
			}
			before, after := registerCSV(t, app, owner, src.ID), registerCSV(t, app, owner, dst.ID)
			if strings.Join(joinRows(before), "|") != strings.Join(joinRows(after), "|") {
				t.Fatalf("round trip changed the register:\n%v\n%v", before, after)
			}
			res := app.Do("GET", "/v1/farm/"+dst.ID.String()+"/animals?take=50", owner.Token, nil)
			got := map[string]string{}
			for _, a := range res.JSON(t)["records"].([]any) {
				a := a.(map[string]any)
				name, _ := a["name"].(string)
				got[a["tag"].(string)] = name
			}
			for _, e := range evil {
				if got[e.tag] != e.name {
					t.Errorf("imported tag %q name %q, want %q (all: %v)", e.tag, got[e.tag], e.name, got)
				}
			}
		})
	})
}

// joinRows returns each CSV row as one comma-joined line, for comparing two exports.
func joinRows(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, ",")
	}
	return out
}
