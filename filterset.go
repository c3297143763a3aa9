package herdbook

import (
	"context"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/evidence"
)

// The register's sex and group filters are sets of animals derived from every animal's
// dated facts: the animals of a sex on a day (their profile facts), a group's members on a
// day (membership facts). On a 10,000-animal farm deriving one costs a few hundred
// milliseconds, and a scroll through a filtered register asks for it at every page of 200.
// s.filterSets, a derivedCache of its own (derived.go), keeps the sets between pages, keyed
// by the farm's change counter (feed.go): every transaction that changes a farm's records or
// animals takes the counter's next number, so a set is only reused while nothing it was
// derived from can have changed, on this node or any other. A write inside a transaction
// makes the counter's next number visible to that transaction before it commits, and it may
// yet roll back: reads inside a transaction neither use nor fill the cache.

// filterSetCacheSize bounds the sets kept, apart from the other derived answers (derived.go):
// each holds at most a farm's animal ids. The cache is emptied whole when full (the sets of a
// scroll are made again in one page each).
const filterSetCacheSize = 64

// filterSet answers the set of the farm's animals of a sex (or in a group) on day at the
// farm's current change position, deriving it with derive on a miss (one statement to read
// the counter, then derive's), or, after a write, patching the set kept before it: among
// answers which of the animals the write touched are in the set now (patch.go).
func (s *Service) filterSet(ctx context.Context, farmID uuid.UUID, day, sex string, group uuid.UUID,
	derive func() ([]uuid.UUID, error), among func(touched []uuid.UUID) ([]uuid.UUID, error)) ([]uuid.UUID, error) {
	// A sex is read from the profile facts, a group's members from evidence.GroupKinds.
	kinds := []string{string(evidence.KindProfile)}
	if sex == "" {
		kinds = groupKinds
	}
	ids, _, err := keptPatched(ctx, s, s.filterSets, farmID, "day "+day+" sex "+sex+" group "+group.String(), kinds, derive,
		func(old []uuid.UUID, touched []uuid.UUID, _ int64) ([]uuid.UUID, error) {
			if len(touched) == 0 {
				return old, nil
			}
			in, err := among(touched)
			if err != nil {
				return nil, err
			}
			return patchSet(old, touched, in), nil
		})
	return ids, err
}
