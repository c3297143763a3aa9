package herdbook

import (
	"context"
	"sync"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema"
)

// Some answers are derived from a whole farm: the dashboard's head count of each group (every
// member's membership facts) and its withdrawal board (every treatment that may still withhold,
// with the memberships and departures of the animals it reached). On a farm of 10,000 animals
// deriving them costs hundreds of milliseconds, and the farm's screens ask for them again at
// every visit. derivedCache keeps each one keyed by the farm's change counter (feed.go), as
// filterset.go keeps the register's filter sets: every transaction that changes the farm's
// records, animals or tasks takes the counter's next number, so a kept answer is used only
// while nothing it came from can have changed, on this node or another. What else such an
// answer depends on goes into its name (the day asked, the farm's species). Reads inside a
// transaction neither use nor fill the cache: the counter they see may yet roll back.

// derivedKey names one derived answer: a farm at one position of its change counter, and what
// was derived, with its parameters.
type derivedKey struct {
	farm uuid.UUID
	seq  int64
	name string
}

// derivedCacheSize bounds the answers kept in the service's derivedCache; the cache is emptied
// whole when full.
const derivedCacheSize = 256

// derivedCache holds derived answers, at most size of them. They are shared between
// requests: whoever reads one must never change it.
type derivedCache struct {
	mu   sync.Mutex
	size int
	vals map[derivedKey]any
	// latest is the newest position each (farm, name) is kept at, for answers that a write
	// patches rather than derives again (keptPatched, patch.go).
	latest map[derivedKey]int64
}

func newDerivedCache(size int) *derivedCache {
	return &derivedCache{size: size, vals: map[derivedKey]any{}, latest: map[derivedKey]int64{}}
}

// keep stores an answer at its position; the answer of the same name kept at an earlier
// position is dropped (a newer one supersedes it), so a farm written often does not fill the
// cache with its past.
func (c *derivedCache) keep(key derivedKey, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := derivedKey{farm: key.farm, name: key.name}
	if old, ok := c.latest[at]; ok {
		if old > key.seq {
			return
		}
		if old < key.seq {
			delete(c.vals, derivedKey{farm: key.farm, seq: old, name: key.name})
		}
	}
	if len(c.vals) >= c.size {
		clear(c.vals)
		clear(c.latest)
	}
	c.vals[key] = v
	c.latest[at] = key.seq
}

// newest answers the newest kept answer of the farm's name and its position.
func (c *derivedCache) newest(farm uuid.UUID, name string) (any, int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seq, ok := c.latest[derivedKey{farm: farm, name: name}]
	if !ok {
		return nil, 0, false
	}
	v, ok := c.vals[derivedKey{farm: farm, seq: seq, name: name}]
	return v, seq, ok
}

// farmPosition is the farm's change counter, read once per request (the request's scope is
// forgotten at every write, request.go) and with a statement otherwise.
func (s *Service) farmPosition(ctx context.Context, farmID uuid.UUID) (int64, error) {
	return onceInRequest(ctx, "farm-position "+farmID.String(), func() (int64, error) {
		pos, err := s.position(ctx, "derived", farmID)
		return pos.Seq, err
	})
}

// deriveAfresh tells whether a read must derive its answer rather than use or fill a kept one
// (here and in filterset.go): inside a transaction the counter may yet roll back, and as
// known at an earlier moment (known_at) the answer is another one than the current.
func deriveAfresh(ctx context.Context) bool {
	_, asKnown := schema.KnownAtFrom(ctx)
	return asKnown || ent.TxFromContext(ctx) != nil || ctx.Value(afreshKey{}) != nil
}

// afreshKey marks a context whose reads derive every answer whole: the tests hold kept and
// patched answers to those (export_test.go).
type afreshKey struct{}
