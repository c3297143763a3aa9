package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/herdbook/herdbook/internal/ratelimit"
)

// TestStores checks the Store contract against every implementation.
func TestStores(t *testing.T) {
	type hit struct {
		advance   time.Duration // moved forward before the hit
		key       string
		wantCount int64
		wantReset time.Duration // window end, relative to the clock's start window
	}
	cases := []struct {
		name string
		into time.Duration // where in the window the clock starts
		hits []hit
	}{
		{
			name: "counts hits within a window",
			into: time.Minute,
			hits: []hit{
				{key: "a", wantCount: 1, wantReset: window},
				{advance: time.Minute, key: "a", wantCount: 2, wantReset: window},
				{advance: 12 * time.Minute, key: "a", wantCount: 3, wantReset: window},
			},
		},
		{
			name: "window is aligned to the epoch, not to the first hit",
			into: 14*time.Minute + 59*time.Second,
			hits: []hit{
				{key: "a", wantCount: 1, wantReset: window},
				{advance: time.Second, key: "a", wantCount: 1, wantReset: 2 * window},
			},
		},
		{
			name: "count resets in the next window",
			into: 5 * time.Minute,
			hits: []hit{
				{key: "a", wantCount: 1, wantReset: window},
				{key: "a", wantCount: 2, wantReset: window},
				{key: "a", wantCount: 3, wantReset: window},
				{advance: 10 * time.Minute, key: "a", wantCount: 1, wantReset: 2 * window},
				{key: "a", wantCount: 2, wantReset: 2 * window},
				{advance: 2 * window, key: "a", wantCount: 1, wantReset: 4 * window},
			},
		},
		{
			name: "keys are independent",
			hits: []hit{
				{key: "a", wantCount: 1, wantReset: window},
				{key: "a", wantCount: 2, wantReset: window},
				{key: "b", wantCount: 1, wantReset: window},
				{key: "a", wantCount: 3, wantReset: window},
				{key: "a:b", wantCount: 1, wantReset: window},
			},
		},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					clock := newFakeClock(tc.into)
					start := windowStart(clock.Now())
					store := st.new(t, clock)
					for i, h := range tc.hits {
						clock.Advance(h.advance)
						count, resetAt, err := store.Incr(t.Context(), h.key, window)
						if err != nil {
							t.Fatalf("hit %d: Incr: %v", i, err)
						}
						if count != h.wantCount {
							t.Errorf("hit %d (%q): count = %d, want %d", i, h.key, count, h.wantCount)
						}
						if want := start.Add(h.wantReset); !resetAt.Equal(want) {
							t.Errorf("hit %d (%q): resetAt = %v, want %v", i, h.key, resetAt, want)
						}
					}
				})
			}
		})
	}
}

// TestStoresWindowLengths checks that one key counted in windows of
// different lengths keeps separate counters.
func TestStoresWindowLengths(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			clock := newFakeClock(0)
			store := st.new(t, clock)
			for _, w := range []time.Duration{window, time.Minute, window, time.Minute, window} {
				if _, _, err := store.Incr(t.Context(), "k", w); err != nil {
					t.Fatal(err)
				}
			}
			if n, _, _ := store.Incr(t.Context(), "k", window); n != 4 {
				t.Errorf("15m count = %d, want 4", n)
			}
			if n, _, _ := store.Incr(t.Context(), "k", time.Minute); n != 3 {
				t.Errorf("1m count = %d, want 3", n)
			}
		})
	}
}

// TestStoresConcurrentHits checks that concurrent hits are each counted
// exactly once.
func TestStoresConcurrentHits(t *testing.T) {
	const hits = 200
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			clock := newFakeClock(time.Minute)
			store := st.new(t, clock)
			counts := make([]int64, hits)
			var g errgroup.Group
			for i := range hits {
				g.Go(func() error {
					n, _, err := store.Incr(t.Context(), "shared", window)
					counts[i] = n
					return err
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			seen := make(map[int64]bool, hits)
			for _, n := range counts {
				if n < 1 || n > hits || seen[n] {
					t.Fatalf("counts are not a permutation of 1..%d: duplicate or out-of-range %d", hits, n)
				}
				seen[n] = true
			}
		})
	}
}

// TestStoresCount checks that Count reads a key's hits in the current window
// without counting one.
func TestStoresCount(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			clock := newFakeClock(time.Minute)
			start := windowStart(clock.Now())
			store := st.new(t, clock)
			count := func(want int64, wantReset time.Duration) {
				t.Helper()
				n, resetAt, err := store.Count(t.Context(), "k", window)
				if err != nil {
					t.Fatal(err)
				}
				if n != want || !resetAt.Equal(start.Add(wantReset)) {
					t.Fatalf("Count = %d, %v; want %d, %v", n, resetAt, want, start.Add(wantReset))
				}
			}
			count(0, window)
			for range 3 {
				if _, _, err := store.Incr(t.Context(), "k", window); err != nil {
					t.Fatal(err)
				}
			}
			count(3, window)
			count(3, window) // counting is not a hit
			if n, _, _ := store.Incr(t.Context(), "k", window); n != 4 {
				t.Fatalf("Incr after Count = %d, want 4", n)
			}
			if n, _, _ := store.Count(t.Context(), "other", window); n != 0 {
				t.Fatalf("another key counts %d", n)
			}
			clock.Advance(window)
			count(0, 2*window)
		})
	}
}

// TestStoresContextCancelled checks that a cancelled context is reported as
// an error.
func TestStoresContextCancelled(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.new(t, newFakeClock(0))
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if _, _, err := store.Incr(ctx, "k", window); err == nil {
				t.Error("Incr with a cancelled context: got nil error")
			}
		})
	}
}

// TestStoresRejectBadWindow checks that a non-positive window is an error.
func TestStoresRejectBadWindow(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.new(t, newFakeClock(0))
			for _, w := range []time.Duration{0, -time.Second} {
				if _, _, err := store.Incr(t.Context(), "k", w); err == nil {
					t.Errorf("Incr with window %v: got nil error", w)
				}
			}
		})
	}
}

var (
	_ ratelimit.Store = (*ratelimit.MemoryStore)(nil)
	_ ratelimit.Store = (*ratelimit.RedisStore)(nil)
)
