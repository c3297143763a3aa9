package herdbook

import (
	"context"

	"github.com/google/uuid"
)

// Afresh returns a context in which kept answers are neither used nor kept: each read derives
// its answer whole (derived.go), the answer a kept or patched one must equal.
func Afresh(ctx context.Context) context.Context { return context.WithValue(ctx, afreshKey{}, true) }

// GroupCounts exposes countGroupAnimals, the dashboard's group head counts.
func (s *Service) GroupCounts(ctx context.Context, farmID uuid.UUID, groups []uuid.UUID) (map[uuid.UUID]int, error) {
	return s.countGroupAnimals(ctx, farmID, groups)
}

// KeptUnless exposes keptUnless (patch.go) with the caller's derive; whole tells that derive
// made the answer. (A function, not a method: the service's methods take only checked text.)
func KeptUnless(ctx context.Context, s *Service, farmID uuid.UUID, name string, kinds []string, derive func() (int, error)) (int, bool, error) {
	return keptUnless(ctx, s, farmID, name, kinds, derive)
}
