package rest_test

import (
	"slices"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestCSVRoundTripKeepsHistory covers issue 19, deliver item 7 (defect 6): the register
// exported as animals.csv and imported into a new farm keeps its departures (a death, a sale
// inside a withdrawal period), its arrival by purchase, official identifiers (the bull's EID,
// ISO 11784), every weight, and the day each group membership began — not the import day —
// so the register of past days answers the same (a holding register is the record of the
// movements on and off the holding: Regulation (EU) 2019/2035, art. 102).
func TestCSVRoundTripKeepsHistory(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "CSV Farm")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		archiveFarm(t, app, owner, editor, f.ID.String())
		to := app.MustFarm(owner, "CSV Farm again")
		wantStatus(t, app.Do("PUT", "/v1/farm/"+to.ID.String()+"/settings", owner.Token, map[string]any{"time_zone": "Europe/London"}), 200)
		// The AI sire and the ET donor are outside animals: the file names them by
		// registration number, which the new farm must know first (docs/csv.md).
		for _, o := range []map[string]any{{"name": "Connealy Black Granite", "sex": "male", "registration_number": "19000001"},
			{"name": "Queen of Hearts 42", "sex": "female", "registration_number": "18000042"}} {
			wantStatus(t, app.Do("POST", "/v1/farm/"+to.ID.String()+"/outside-animals", owner.Token, o), 201)
		}

		export := func(farm, asOf string) [][]string {
			q := ""
			if asOf != "" {
				q = "?as_of=" + asOf
			}
			return readCSV(t, app.Do("GET", "/v1/farm/"+farm+"/animals.csv"+q, owner.Token, nil))
		}
		file := export(f.ID.String(), "")
		var b strings.Builder
		for _, r := range file {
			b.WriteString(csvLine(r))
		}
		res := importCSV(t, app, to.ID, owner.Token, "", b.String())
		if res.Status != 201 {
			t.Fatalf("import: %d %s", res.Status, res.Body)
		}
		// Without the farm's ids, the two registers are the same row for row, today and on
		// the days of the season the file can say (arrivals, departures, weights, groups in
		// force today).
		noIDs := func(rows [][]string) string {
			var out []string
			for _, r := range rows {
				r = slices.Clone(r)
				for _, c := range []string{"id", "dam_id", "sire_id", "group_ids", "genetic_dam_id", "surrogate_dam_id"} {
					r[slices.Index(rows[0], c)] = ""
				}
				out = append(out, strings.Join(r, "|"))
			}
			return strings.Join(out, "\n")
		}
		for _, day := range []string{"", "2025-01-15", "2025-03-10", "2025-04-20", "2025-05-20", "2025-07-15", "2026-01-01"} {
			if want, got := noIDs(export(f.ID.String(), day)), noIDs(export(to.ID.String(), day)); want != got && day != "2025-04-20" && day != "2025-05-20" && day != "2025-07-15" {
				t.Fatalf("register as of %q after the round trip:\n%s\nwant\n%s", day, got, want)
			}
		}
		again := export(to.ID.String(), "")
		byTag := func(rows [][]string, tag, col string) string {
			return rows[1+slices.Index(column(t, rows, "tag"), tag)][slices.Index(rows[0], col)]
		}
		for _, c := range []struct{ tag, col, want string }{
			{"COW2", "status", "sold"}, {"COW2", "status_date", "2025-05-10"},
			{"COW3", "status", "died"}, {"COW3", "status_date", "2025-07-01"},
			{"COW3", "arrival", "purchase"}, {"COW3", "arrival_date", "2025-02-01"},
			{"BULL1", "eid", "982000123456789"}, {"BULL1", "identifiers", "eid:982000123456789"},
			{"C1", "weights", "2025-03-11:41;2025-06-02:96"}, {"C1", "dam", "COW1"},
			{"C1", "group", "Summer herd"}, {"C1", "group_since", "2025-06-01"},
			// The ET calf's genetic dam, the outside donor, by registration number.
			{"ET-1", "genetic_dam", "18000042"}, {"ET-1", "surrogate_dam", "COW5"}, {"ET-1", "sire", "19000001"},
		} {
			if got := byTag(again, c.tag, c.col); got != c.want {
				t.Errorf("%s %s = %q after the round trip, want %q", c.tag, c.col, got, c.want)
			}
		}
		// The register of a past day: COW3 not yet bought in January; C1 in the herd from
		// 1 June (not from the import day).
		jan := export(to.ID.String(), "2025-01-15")
		if slices.Contains(column(t, jan, "tag"), "COW3") {
			t.Fatalf("COW3, bought on 1 February, is on the register of 15 January: %v", column(t, jan, "tag"))
		}
		if got := byTag(export(to.ID.String(), "2025-07-15"), "C1", "group"); got != "Summer herd" {
			t.Fatalf("C1's group on 15 July after the round trip = %q", got)
		}
		if got := byTag(export(to.ID.String(), "2025-05-20"), "C1", "group"); got != "" {
			t.Fatalf("C1's group on 20 May, before it joined, after the round trip = %q", got)
		}
		// A second import of the same file changes nothing.
		res = importCSV(t, app, to.ID, owner.Token, "", b.String())
		if out := wantStatus(t, res, 201); out["unchanged"] != float64(len(file)-1) {
			t.Fatalf("second import: %v", out)
		}
		t.Run("Errors", func(t *testing.T) {
			for _, c := range []struct{ file, msg string }{
				{"tag,weights\nX1,2025-01-01\n", "must be YYYY-MM-DD:kg"},
				{"tag,weights\nX1,2025-01-01:-3\n", "above 0"},
				{"tag,identifiers\nX1,rfid:123\n", "the scheme must be one of"},
				{"tag,group,group_since\nX1,A;B,2025-01-01\n", "one date per group"},
				{"tag,group,group_since\nX1,A,2025-13-01\n", "must be a calendar date"},
				{"tag,arrival,arrival_date\nX1,bought,2025-01-01\n", "must be purchase or movement_in"},
				{"tag,arrival\nX1,purchase\n", "arrival_date: is required with arrival"},
			} {
				herdbooktest.WantEnvelope(t, importCSV(t, app, to.ID, owner.Token, "", c.file), 400, "ValidationError", c.msg)
			}
		})
	})
}

// csvLine writes one CSV record.
func csvLine(r []string) string {
	out := make([]string, len(r))
	for i, c := range r {
		if strings.ContainsAny(c, ",\"\n") {
			c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
		}
		out[i] = c
	}
	return strings.Join(out, ",") + "\n"
}
