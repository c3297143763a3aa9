package rest_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"slices"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// bookColumn returns a book row's cell by column name.
func bookColumn(row []string, name string) string {
	return row[slices.Index(herdbook.MedicineBookHeader, name)]
}

// TestTreatmentRecord: a treatment carries the whole keeper's record of EU 2019/6 Art. 108(2)
// and GB VMR 2013 regs 17 to 19 (quantity, prescribing vet, course, reason, batch, the animal's
// official identity), the withdrawal runs from the course's LAST administration (Art. 4(34)),
// and malformed parts are 400s naming the field.
func TestTreatmentRecord(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "UTC"}) // bare dates are the farm's local days
		cow := app.MustAnimal(owner, f.ID, "C1")
		ids := []string{cow.ID.String()}
		med := mustCreate(t, app, "/v1/farm/"+f.ID.String()+"/medicines", owner.Token,
			map[string]any{"name": "Oxytetracycline LA", "withdrawal_meat_days": 28, "withdrawal_milk_hours": 168})
		for _, id := range []map[string]any{
			{"kind": "identifier", "animal_id": cow.ID.String(), "scheme": "eid", "value": "826000301234567", "start_date": "2024-05-01"},
			{"kind": "identifier", "animal_id": cow.ID.String(), "scheme": "visual", "value": "UK 284205 700016", "start_date": "2024-05-01"},
		} {
			if res := fact(app, f.ID, owner.Token, ids, id, false); res.Status != http.StatusCreated {
				t.Fatalf("identifier: %d %s", res.Status, res.Body)
			}
		}
		treatment := map[string]any{"kind": "treatment", "medicine_id": med["id"], "animal_id": cow.ID.String(),
			"date": "2025-03-01", "last_administration": "2025-03-03", "batch": "B-17",
			"quantity_per_animal": 15, "quantity_total": 15, "quantity_unit": "ml",
			"prescribing_vet": "A. Vet MRCVS", "prescribing_practice": "Hill Vets, 1 High St, Hexham NE46 1AA", "reason": "pneumonia"}

		t.Run("ErrInput", func(t *testing.T) {
			for _, c := range []struct {
				name  string
				set   map[string]any
				field string
			}{
				{"LastBeforeFirst", map[string]any{"last_administration": "2025-02-28"}, "birth_history.last_administration"},
				{"LastNotADate", map[string]any{"last_administration": "soon"}, "birth_history.last_administration"},
				{"CourseTooLong", map[string]any{"last_administration": "2026-03-03"}, "birth_history.last_administration"},
				{"QuantityWrongType", map[string]any{"quantity_total": "15ml"}, "birth_history.quantity_total"},
				{"QuantityNegative", map[string]any{"quantity_per_animal": -1}, "birth_history.quantity_per_animal"},
				{"QuantityOutOfRange", map[string]any{"quantity_total": 1e10}, "birth_history.quantity_total"},
				{"UnitMissing", map[string]any{"quantity_unit": nil}, "birth_history.quantity_unit"},
				{"VetBlank", map[string]any{"prescribing_vet": " "}, "birth_history.prescribing_vet"},
				{"ReasonWrongType", map[string]any{"reason": true}, "birth_history.reason"},
			} {
				t.Run(c.name, func(t *testing.T) {
					body := map[string]any{}
					for k, v := range treatment {
						body[k] = v
					}
					for k, v := range c.set {
						body[k] = v
					}
					herdbooktest.WantEnvelope(t, fact(app, f.ID, owner.Token, ids, body, false), http.StatusBadRequest, "ValidationError",
						"record_items[0].metadata."+c.field)
				})
			}
		})

		res := fact(app, f.ID, owner.Token, ids, treatment, false)
		if res.Status != http.StatusCreated {
			t.Fatalf("treatment: %d %s", res.Status, res.Body)
		}

		t.Run("WithdrawalFromLastAdministration", func(t *testing.T) {
			// Last administration 2025-03-03 + 28 days = 2025-03-31 (not 2025-03-29 from the first).
			// Milk: the end of the bare last day in the farm's zone (UTC), 2025-03-04T00:00Z, + 168 h.
			herdbooktest.WantEnvelope(t, fact(app, f.ID, owner.Token, ids, map[string]any{"kind": "sale", "animal_id": cow.ID.String(), "date": "2025-03-30"}, false),
				http.StatusConflict, "WithdrawalError", "clears for slaughter on 2025-03-31")
			b := app.Do("GET", "/v1/farm/"+f.ID.String()+"/withdrawals?as_of=2025-03-29", owner.Token, nil).JSON(t)
			a := b["records"].([]any)[0].(map[string]any)
			if a["meat_clear_on"] != "2025-03-31" || a["milk_clear_at"] != "2025-03-11T00:00:00Z" {
				t.Fatalf("withdrawal: %v", a)
			}
		})

		t.Run("Book", func(t *testing.T) {
			res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/medicine-book.csv?from=2025-01-01&to=2025-12-31", owner.Token, nil)
			rows, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
			if err != nil || len(rows) != 2 {
				t.Fatalf("book: %v %q", err, rows)
			}
			r := rows[1]
			for col, want := range map[string]string{"date": "2025-03-01", "last_administration": "2025-03-03", "treatment_days": "3",
				"animal_eid": "826000301234567", "animal_official_tag": "UK 284205 700016", "batch": "B-17",
				"quantity_per_animal": "15", "quantity_total": "15", "quantity_unit": "ml", "prescribing_vet": "A. Vet MRCVS",
				"prescribing_practice": "Hill Vets, 1 High St, Hexham NE46 1AA", "reason": "pneumonia",
				"meat_clear_on": "2025-03-31", "withdrawal_meat_days": "28"} {
				if got := bookColumn(r, col); got != want {
					t.Errorf("%s = %q, want %q", col, got, want)
				}
			}
		})
	})
}
