package rest_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestInspectorBook: the book an inspector reads has an acquisition section (GB VMR 2013
// reg. 17) and an administration section (regs 18-19; EU 2019/6 Art. 108(2)) with the
// animals' official identifiers and each batch's supplier and proof, covers five years unless
// asked otherwise (Art. 108(3): records kept five years), and prints as a page without script.
func TestInspectorBook(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, stranger := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Hill <Farm>")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "UTC"}) // bare dates are the farm's local days
		base := "/v1/farm/" + f.ID.String()
		cow := app.MustAnimal(owner, f.ID, "C1")
		ids := []string{cow.ID.String()}
		med := mustCreate(t, app, base+"/medicines", owner.Token,
			map[string]any{"name": "Penicillin", "withdrawal_meat_days": 10, "withdrawal_milk_hours": 72})["id"].(string)
		if res := fact(app, f.ID, owner.Token, ids, map[string]any{"kind": "identifier", "animal_id": cow.ID.String(), "scheme": "visual",
			"value": "UK 284205 700016", "start_date": "2020-01-01"}, false); res.Status != http.StatusCreated {
			t.Fatalf("identifier: %d %s", res.Status, res.Body)
		}
		today := time.Now().UTC()
		recent, old := today.AddDate(0, -1, 0).Format(time.DateOnly), today.AddDate(-6, 0, 0).Format(time.DateOnly)
		p := mustCreate(t, app, base+"/medicine-purchases", owner.Token, purchase(med, map[string]any{"batch": "B-1", "purchased_on": recent,
			"supplier_name": "Hill Vets <Ltd>"}))
		mustCreate(t, app, base+"/medicine-purchases", owner.Token, purchase(med, map[string]any{"batch": "OLD", "purchased_on": old}))
		for _, day := range []string{recent, old} {
			if res := fact(app, f.ID, owner.Token, ids, map[string]any{"kind": "treatment", "medicine_id": med, "animal_id": cow.ID.String(),
				"date": day, "batch": "b-1", "quantity_total": 5, "quantity_unit": "ml", "reason": "<script>alert(1)</script>"}, false); res.Status != http.StatusCreated {
				t.Fatalf("treatment: %d %s", res.Status, res.Body)
			}
		}
		readCSV := func(path string) [][]string {
			t.Helper()
			res := app.Do("GET", path, owner.Token, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", path, res.Status, res.Body)
			}
			rows, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			return rows
		}

		t.Run("FiveYearsByDefault", func(t *testing.T) {
			rows := readCSV(base + "/medicine-book.csv")
			if len(rows) != 2 || rows[1][0] != recent {
				t.Fatalf("administration, default window: %q", rows)
			}
			r := rows[1]
			if bookColumn(r, "supplier_name") != "Hill Vets <Ltd>" || bookColumn(r, "proof_of_acquisition") != "INV-2291" ||
				bookColumn(r, "purchase_id") != p["id"] || bookColumn(r, "animal_official_tag") != "UK 284205 700016" {
				t.Fatalf("administration row: %q", r)
			}
			acq := readCSV(base + "/medicine-book.csv?section=acquisitions")
			if !slices.Equal(acq[0], herdbook.MedicineAcquisitionHeader) || len(acq) != 2 || acq[1][0] != recent || acq[1][3] != "B-1" {
				t.Fatalf("acquisitions, default window: %q", acq)
			}
			// An explicit window reaches further back.
			if rows := readCSV(base + "/medicine-book.csv?from=" + old); len(rows) != 3 {
				t.Fatalf("administration since %s: %q", old, rows)
			}
			if rows := readCSV(base + "/medicine-book.csv?section=acquisitions&from=" + old + "&to=" + old); len(rows) != 2 || rows[1][3] != "OLD" {
				t.Fatalf("acquisitions on %s: %q", old, rows)
			}
		})
		t.Run("Errors", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/medicine-book.csv?section=sales", owner.Token, nil), http.StatusBadRequest, "ValidationError", "section")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/medicine-book.html?from=2025-13-01", owner.Token, nil), http.StatusBadRequest, "ValidationError", "from")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/medicine-book.html?from=2025-03-02&to=2025-03-01", owner.Token, nil), http.StatusBadRequest, "ValidationError", "to")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/medicine-book.html", "", nil), http.StatusUnauthorized, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/medicine-book.html", stranger.Token, nil), http.StatusNotFound, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/not-a-farm/medicine-book.html", owner.Token, nil), http.StatusBadRequest, "ValidationError", "farm_id")
		})
		t.Run("PrintablePage", func(t *testing.T) {
			res := app.Do("GET", base+"/medicine-book.html", owner.Token, nil)
			if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("page: %d %s", res.Status, res.Body)
			}
			page := string(res.Body)
			for _, want := range []string{"Hill &lt;Farm&gt;", "Acquisitions", "Administration", "@page", "UK 284205 700016",
				"Hill Vets &lt;Ltd&gt;", "INV-2291", "&lt;script&gt;alert(1)&lt;/script&gt;", recent} {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			if strings.Contains(strings.ToLower(page), "<script") || !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'none'") {
				t.Errorf("the page may run a script: %s", page)
			}
			if strings.Index(page, "Acquisitions") > strings.Index(page, "Administration (") || strings.Contains(page, ">"+old+"<") {
				t.Errorf("sections out of order, or older than five years: %s", page)
			}
			// An empty window says so in both sections.
			empty := string(app.Do("GET", base+"/medicine-book.html?from=2001-01-01&to=2001-12-31", owner.Token, nil).Body)
			if strings.Count(empty, "Nothing recorded in this period.") != 2 {
				t.Errorf("empty book: %s", empty)
			}
		})
	})
}
