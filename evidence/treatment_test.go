package evidence_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

func TestParseTreatment(t *testing.T) {
	a, g, m := uid("a"), uid("g"), uid("m")
	tests := []struct {
		name   string
		raw    string
		fields []string
	}{
		{"OKAnimalDate", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2024-02-29"}`, m, a), nil},
		{"OKGroupDateTime", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"group_id":%q,"date":"2025-03-01T08:30:00+01:00","dose":12.5,"unit":"ml","route":"intramuscular","batch":"B-17","administered_by":"Dr Jones","withdrawal_meat_days":28,"withdrawal_milk_hours":96,"medicine_version":2}`, m, g), nil},
		{"ErrNeitherAnimalNorGroup", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"date":"2025-03-01"}`, m), []string{"birth_history.animal_id"}},
		{"ErrBoth", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"group_id":%q,"date":"2025-03-01"}`, m, a, g), []string{"birth_history.group_id"}},
		{"ErrMedicineMissing", fmt.Sprintf(`{"kind":"treatment","animal_id":%q,"date":"2025-03-01"}`, a), []string{"birth_history.medicine_id"}},
		{"ErrMedicineNotUUID", fmt.Sprintf(`{"kind":"treatment","medicine_id":"penicillin","animal_id":%q,"date":"2025-03-01"}`, a), []string{"birth_history.medicine_id"}},
		{"ErrDate", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-02-29T10:00:00Z"}`, m, a), []string{"birth_history.date"}},
		{"ErrDateNoZone", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-03-01T10:00:00"}`, m, a), []string{"birth_history.date"}},
		{"ErrDoseType", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-03-01","dose":"5ml"}`, m, a), []string{"birth_history.dose"}},
		{"ErrDoseZero", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-03-01","dose":0}`, m, a), []string{"birth_history.dose"}},
		{"ErrMeatNegative", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-03-01","withdrawal_meat_days":-1}`, m, a), []string{"birth_history.withdrawal_meat_days"}},
		{"ErrMeatFraction", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-03-01","withdrawal_meat_days":1.5}`, m, a), []string{"birth_history.withdrawal_meat_days"}},
		{"ErrMilkTooLong", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-03-01","withdrawal_milk_hours":87601}`, m, a), []string{"birth_history.withdrawal_milk_hours"}},
		{"ErrVersionZero", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-03-01","medicine_version":0}`, m, a), []string{"birth_history.medicine_version"}},
		{"ErrBatchBlank", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-03-01","batch":" "}`, m, a), []string{"birth_history.batch"}},
		{"ErrRouteTooLong", fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,"date":"2025-03-01","route":%q}`, m, a, strings.Repeat("r", 201)), []string{"birth_history.route"}},
		{"ErrMedicineOnPurchase", fmt.Sprintf(`{"kind":"purchase","medicine_id":%q,"animal_id":%q,"date":"2025-03-01"}`, m, a), []string{"birth_history.medicine_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, errs := evidence.ParseFact(json.RawMessage(tt.raw))
			if got := fieldsOf(errs); !slices.Equal(got, tt.fields) {
				t.Fatalf("fields = %q, want %q (%v)", got, tt.fields, errs)
			}
			if tt.fields == nil {
				// The canonical form parses back to the same fact.
				b, _ := json.Marshal(f)
				g, errs := evidence.ParseFact(b)
				if errs != nil || MustJSON(t, g) != MustJSON(t, f) {
					t.Fatalf("round trip: %s -> %+v %v", b, g, errs)
				}
			}
		})
	}
}
