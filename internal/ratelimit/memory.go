package ratelimit

import (
	"context"
	"errors"
	"sync"
	"time"
)

// memorySweepInterval is how often, at most, a MemoryStore scans its map for
// windows that have ended. A sweep costs O(entries) under the lock, so it is
// amortised over all hits in the interval; between sweeps an ended window
// lingers at most this long, which keeps memory bounded by the number of keys
// seen in the last window plus this interval.
const memorySweepInterval = time.Minute

type memoryKey struct {
	key    string
	window time.Duration
}

type memoryEntry struct {
	count   int64
	resetAt time.Time
}

// MemoryStore is a [Store] that keeps counters in process memory. It suits a
// single API node and tests; counters are not shared between processes and
// are lost on restart. The zero value is not usable; call [NewMemoryStore].
type MemoryStore struct {
	clock func() time.Time

	mu        sync.Mutex
	entries   map[memoryKey]memoryEntry
	nextSweep time.Time
}

// NewMemoryStore returns an empty MemoryStore that reads the current time
// from clock. A nil clock means time.Now; tests pass a fake clock to move
// between windows without sleeping.
func NewMemoryStore(clock func() time.Time) *MemoryStore {
	if clock == nil {
		clock = time.Now
	}
	return &MemoryStore{
		clock:   clock,
		entries: make(map[memoryKey]memoryEntry),
	}
}

// Incr counts one hit for key in the current window of the given length and
// implements [Store]. Windows that have ended are swept from memory at most
// once a minute, during a later call.
func (s *MemoryStore) Incr(ctx context.Context, key string, window time.Duration) (int64, time.Time, error) {
	if window <= 0 {
		return 0, time.Time{}, errors.New("ratelimit: window must be positive")
	}
	if err := ctx.Err(); err != nil {
		return 0, time.Time{}, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()

	// The clock is read under the lock so that hits are counted in the
	// order in which they observed time; otherwise a goroutine that read
	// the clock just before a window boundary could reset a counter that a
	// later goroutine had already moved into the next window.
	now := s.clock()
	s.sweepLocked(now)

	_, end := windowBounds(now, window)
	k := memoryKey{key: key, window: window}
	e, ok := s.entries[k]
	if !ok || end.After(e.resetAt) {
		// A new window has begun. If the clock stepped backwards, the
		// hit is counted in the newer window we already have instead.
		e = memoryEntry{resetAt: end}
	}
	e.count++
	s.entries[k] = e
	return e.count, e.resetAt, nil
}

// Count returns the hits counted for key in the current window without
// counting one, and implements [Store].
func (s *MemoryStore) Count(ctx context.Context, key string, window time.Duration) (int64, time.Time, error) {
	if window <= 0 {
		return 0, time.Time{}, errors.New("ratelimit: window must be positive")
	}
	if err := ctx.Err(); err != nil {
		return 0, time.Time{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, end := windowBounds(s.clock(), window)
	e, ok := s.entries[memoryKey{key: key, window: window}]
	if !ok || end.After(e.resetAt) {
		return 0, end, nil // no hits yet, or only in a window that has ended
	}
	return e.count, e.resetAt, nil
}

// Len reports how many counters the store currently holds, including those
// of ended windows that have not been swept yet. It exists for tests and
// metrics.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// sweepLocked deletes counters whose window has ended, unless a sweep ran
// less than memorySweepInterval ago. The caller must hold s.mu.
func (s *MemoryStore) sweepLocked(now time.Time) {
	if now.Before(s.nextSweep) {
		return
	}
	for k, e := range s.entries {
		if !now.Before(e.resetAt) {
			delete(s.entries, k)
		}
	}
	s.nextSweep = now.Add(memorySweepInterval)
}
