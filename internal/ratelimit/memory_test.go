package ratelimit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/ratelimit"
)

// TestMemoryStoreSweep checks that counters of ended windows are dropped so
// that memory stays bounded by the keys seen recently.
func TestMemoryStoreSweep(t *testing.T) {
	cases := []struct {
		name    string
		advance time.Duration // after filling the store, before one more hit
		wantLen int
	}{
		{"current window is kept", 5 * time.Minute, 101},
		{"swept after the window ends", window + time.Minute, 1},
		{"swept long after", 10 * window, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock(0)
			store := ratelimit.NewMemoryStore(clock.Now)
			for i := range 100 {
				if _, _, err := store.Incr(t.Context(), fmt.Sprint("client-", i), window); err != nil {
					t.Fatal(err)
				}
			}
			if got := store.Len(); got != 100 {
				t.Fatalf("Len after 100 keys = %d, want 100", got)
			}
			clock.Advance(tc.advance)
			if _, _, err := store.Incr(t.Context(), "late", window); err != nil {
				t.Fatal(err)
			}
			if got := store.Len(); got != tc.wantLen {
				t.Errorf("Len = %d, want %d", got, tc.wantLen)
			}
		})
	}
}

// TestMemoryStoreClockStepsBack checks that a clock stepping back across a
// window boundary keeps counting in the newer window instead of resetting.
func TestMemoryStoreClockStepsBack(t *testing.T) {
	clock := newFakeClock(window - time.Second)
	store := ratelimit.NewMemoryStore(clock.Now)
	clock.Advance(2 * time.Second)
	store.Incr(t.Context(), "k", window)
	clock.Advance(-2 * time.Second)
	n, resetAt, err := store.Incr(t.Context(), "k", window)
	if err != nil {
		t.Fatal(err)
	}
	if want := windowStart(clock.Now()).Add(2 * window); n != 2 || !resetAt.Equal(want) {
		t.Errorf("got count %d resetAt %v, want 2 and %v", n, resetAt, want)
	}
}

// TestNewMemoryStoreNilClock checks that a nil clock means the system clock.
func TestNewMemoryStoreNilClock(t *testing.T) {
	store := ratelimit.NewMemoryStore(nil)
	before := time.Now()
	_, resetAt, err := store.Incr(t.Context(), "k", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !resetAt.After(before) || resetAt.After(before.Add(time.Minute)) {
		t.Errorf("resetAt %v not within a minute after %v", resetAt, before)
	}
}
