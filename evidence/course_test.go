package evidence_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// TestParseTreatmentRecord checks the keeper's record of a treatment that EU 2019/6
// Art. 108(2) and GB VMR 2013 regs 17 to 19 ask for: quantity (per animal and in all, with a
// unit), prescribing vet and practice, the course's last administration, the reason.
func TestParseTreatmentRecord(t *testing.T) {
	a, m := uid("a"), uid("m")
	head := fmt.Sprintf(`{"kind":"treatment","medicine_id":%q,"animal_id":%q,`, m, a)
	tests := []struct {
		name   string
		rest   string
		fields []string
	}{
		{"OKFull", `"date":"2025-03-01","last_administration":"2025-03-05","quantity_per_animal":10,"quantity_total":10,"quantity_unit":"ml","prescribing_vet":"A. Vet MRCVS","prescribing_practice":"Hill Vets, 1 High St, Hexham","reason":"pneumonia","batch":"B-17"}`, nil},
		{"OKCourseDateTimes", `"date":"2025-03-01T18:00:00Z","last_administration":"2025-03-01T20:00:00+01:00"}`, nil},
		{"OKSameDay", `"date":"2025-03-01","last_administration":"2025-03-01T07:00:00Z"}`, nil},
		{"ErrLastBeforeFirst", `"date":"2025-03-05","last_administration":"2025-03-04"}`, []string{"birth_history.last_administration"}},
		{"ErrLastBeforeFirstInstant", `"date":"2025-03-05T10:00:00Z","last_administration":"2025-03-05T09:00:00Z"}`, []string{"birth_history.last_administration"}},
		{"ErrCourseTooLong", `"date":"2025-03-01","last_administration":"2026-03-03"}`, []string{"birth_history.last_administration"}},
		{"ErrLastNotADate", `"date":"2025-03-01","last_administration":"next week"}`, []string{"birth_history.last_administration"}},
		{"ErrQuantityWithoutUnit", `"date":"2025-03-01","quantity_total":30}`, []string{"birth_history.quantity_unit"}},
		{"ErrQuantityType", `"date":"2025-03-01","quantity_per_animal":"10 ml","quantity_unit":"ml"}`, []string{"birth_history.quantity_per_animal"}},
		{"ErrQuantityZero", `"date":"2025-03-01","quantity_total":0,"quantity_unit":"ml"}`, []string{"birth_history.quantity_total"}},
		{"ErrVetBlank", `"date":"2025-03-01","prescribing_vet":"  "}`, []string{"birth_history.prescribing_vet"}},
		{"ErrReasonType", `"date":"2025-03-01","reason":4}`, []string{"birth_history.reason"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, errs := evidence.ParseFact(json.RawMessage(head + tt.rest))
			if got := fieldsOf(errs); !slices.Equal(got, tt.fields) {
				t.Fatalf("fields = %q, want %q (%v)", got, tt.fields, errs)
			}
			if tt.fields == nil {
				b, _ := json.Marshal(f)
				g, errs := evidence.ParseFact(b)
				if errs != nil || MustJSON(t, g) != MustJSON(t, f) {
					t.Fatalf("round trip: %s -> %+v %v", b, g, errs)
				}
			}
		})
	}
	// The record's fields belong to treatments only.
	_, errs := evidence.ParseFact(json.RawMessage(fmt.Sprintf(`{"kind":"sale","animal_id":%q,"date":"2025-03-01","reason":"cull"}`, a)))
	if got := fieldsOf(errs); !slices.Equal(got, []string{"birth_history.reason"}) {
		t.Fatalf("reason on a sale: %v", errs)
	}
}

func TestCourseDays(t *testing.T) {
	for _, c := range []struct {
		first, last string
		want        int
	}{
		{"2025-03-01", "", 0},
		{"2025-03-01", "2025-03-01", 0},
		{"2024-02-27", "2024-03-01", 3}, // 28, 29 (leap day), 1 March
		{"2025-02-27", "2025-03-01", 2},
		{"2025-03-01T23:00:00Z", "2025-03-03T01:00:00+01:00", 2}, // calendar dates as written
	} {
		if got := evidence.CourseDays(c.first, c.last); got != c.want {
			t.Errorf("CourseDays(%s, %s) = %d, want %d", c.first, c.last, got, c.want)
		}
	}
}
