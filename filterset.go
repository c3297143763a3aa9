package herdbook

import (
	"context"
	"sync"

	"github.com/google/uuid"
)

// The register's sex and group filters are sets of animals derived from every animal's
// dated facts: the animals of a sex on a day (their profile facts), a group's members on a
// day (membership facts). On a 10,000-animal farm deriving one costs a few hundred
// milliseconds, and a scroll through a filtered register asks for it at every page of 200.
// filterSetCache keeps the sets between pages, keyed by the farm's change counter
// (feed.go): every transaction that changes a farm's records or animals takes the counter's
// next number, so a set is only reused while nothing it was derived from can have changed,
// on this node or any other. A write inside a transaction makes the counter's next number
// visible to that transaction before it commits, and it may yet roll back: reads inside a
// transaction neither use nor fill the cache.

// filterSetKey names one derived set: a farm at one position of its change counter, a
// day, and the sex or the group.
type filterSetKey struct {
	farm  uuid.UUID
	seq   int64
	day   string
	sex   string
	group uuid.UUID
}

// filterSetCacheSize bounds the sets kept; each holds at most a farm's animal ids.
const filterSetCacheSize = 64

// filterSetCache is a small map of derived sets, emptied whole when full (the sets of a
// scroll are made again in one page each).
type filterSetCache struct {
	mu   sync.Mutex
	sets map[filterSetKey][]uuid.UUID
}

// filterSet answers the set key names at the farm's current change position, deriving it
// with derive on a miss (one statement to read the counter, then derive's).
func (s *Service) filterSet(ctx context.Context, key filterSetKey, derive func() ([]uuid.UUID, error)) ([]uuid.UUID, error) {
	if deriveAfresh(ctx) {
		return derive()
	}
	seq, err := s.farmPosition(ctx, key.farm)
	if err != nil {
		return nil, err
	}
	key.seq = seq
	c := s.filterSets
	c.mu.Lock()
	ids, ok := c.sets[key]
	c.mu.Unlock()
	if ok {
		return ids, nil
	}
	if ids, err = derive(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.sets) >= filterSetCacheSize {
		clear(c.sets)
	}
	c.sets[key] = ids
	c.mu.Unlock()
	return ids, nil
}
