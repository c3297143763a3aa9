package evidence_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// TestHoldingFields: arrivals and departures name the other holding by scheme and number (the
// holding register's "CPH or keeper from/to", gov.uk Keep a holding register for cattle), a
// death its disposal route (ICAR icarDeathDisposalMethodType). Numbers are stored canonical.
func TestHoldingFields(t *testing.T) {
	a := uid("a")
	ok := []struct{ name, raw, number string }{
		{"PurchaseCPH", fmt.Sprintf(`{"kind":"purchase","animal_id":%q,"date":"2026-03-01","holding_scheme":"uk.cph","holding_number":"341231234"}`, a), "34/123/1234"},
		{"SaleBNR15", fmt.Sprintf(`{"kind":"sale","animal_id":%q,"date":"2026-03-01","holding_scheme":"de.hitier.bnr","holding_number":"276 09 123 456 7890"}`, a), "091234567890"},
		{"MovementIn", fmt.Sprintf(`{"kind":"movement_in","animal_id":%q,"date":"2026-03-01","holding_scheme":"au.nlis.pic","holding_number":"qabc1234"}`, a), "QABC1234"},
		{"MovementOut", fmt.Sprintf(`{"kind":"movement_out","animal_id":%q,"date":"2026-03-01","holding_scheme":"nl.ubn","holding_number":"123456"}`, a), "123456"},
		{"Death", fmt.Sprintf(`{"kind":"death","animal_id":%q,"date":"2026-03-01","disposal":"approved_service"}`, a), ""},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			f, errs := evidence.ParseFact([]byte(c.raw))
			if len(errs) > 0 || f.HoldingNumber != c.number {
				t.Fatalf("ParseFact = %+v, %v; want number %q", f, errs, c.number)
			}
		})
	}
	bad := []struct{ name, raw, field string }{
		{"ErrNumberWithoutScheme", fmt.Sprintf(`{"kind":"purchase","animal_id":%q,"date":"2026-03-01","holding_number":"34/123/1234"}`, a), "birth_history.holding_scheme"},
		{"ErrSchemeWithoutNumber", fmt.Sprintf(`{"kind":"purchase","animal_id":%q,"date":"2026-03-01","holding_scheme":"uk.cph"}`, a), "birth_history.holding_number"},
		{"ErrUnknownScheme", fmt.Sprintf(`{"kind":"sale","animal_id":%q,"date":"2026-03-01","holding_scheme":"uk.cts","holding_number":"1"}`, a), "birth_history.holding_scheme"},
		{"ErrBadCPH", fmt.Sprintf(`{"kind":"sale","animal_id":%q,"date":"2026-03-01","holding_scheme":"uk.cph","holding_number":"34/123/123"}`, a), "birth_history.holding_number"},
		{"ErrNumberNotString", fmt.Sprintf(`{"kind":"sale","animal_id":%q,"date":"2026-03-01","holding_scheme":"uk.cph","holding_number":341231234}`, a), "birth_history.holding_number"},
		{"ErrDisposal", fmt.Sprintf(`{"kind":"death","animal_id":%q,"date":"2026-03-01","disposal":"buried"}`, a), "birth_history.disposal"},
		{"ErrDisposalOnSale", fmt.Sprintf(`{"kind":"sale","animal_id":%q,"date":"2026-03-01","disposal":"other"}`, a), "birth_history.disposal"},
		{"ErrHoldingOnDeath", fmt.Sprintf(`{"kind":"death","animal_id":%q,"date":"2026-03-01","holding_scheme":"uk.cph","holding_number":"34/123/1234"}`, a), "birth_history.holding_scheme"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, errs := evidence.ParseFact([]byte(c.raw))
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
			}
			if !slices.Contains(fields, c.field) {
				t.Fatalf("errors %v; want one on %s", errs, c.field)
			}
		})
	}
}
