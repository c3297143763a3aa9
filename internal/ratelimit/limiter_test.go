package ratelimit_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/herdbook/herdbook/internal/ratelimit"
)

// TestLimiterAllow checks decisions up to and past the limit, on every store.
func TestLimiterAllow(t *testing.T) {
	type step struct {
		advance       time.Duration
		key           string
		wantAllowed   bool
		wantRemaining int64
		wantRetry     time.Duration
	}
	cases := []struct {
		name  string
		limit int64
		into  time.Duration
		steps []step
	}{
		{
			name:  "limit reached at N+1",
			limit: 3,
			into:  10 * time.Minute,
			steps: []step{
				{key: "a", wantAllowed: true, wantRemaining: 2},
				{key: "a", wantAllowed: true, wantRemaining: 1},
				{key: "a", wantAllowed: true, wantRemaining: 0},
				{key: "a", wantAllowed: false, wantRemaining: 0, wantRetry: 5 * time.Minute},
				{advance: time.Minute, key: "a", wantAllowed: false, wantRemaining: 0, wantRetry: 4 * time.Minute},
			},
		},
		{
			name:  "budget refills in the next window",
			limit: 1,
			into:  14 * time.Minute,
			steps: []step{
				{key: "a", wantAllowed: true, wantRemaining: 0},
				{key: "a", wantAllowed: false, wantRetry: time.Minute},
				{advance: time.Minute, key: "a", wantAllowed: true, wantRemaining: 0},
				{key: "a", wantAllowed: false, wantRetry: window},
			},
		},
		{
			name:  "keys have separate budgets",
			limit: 1,
			steps: []step{
				{key: "ip:192.0.2.1", wantAllowed: true},
				{key: "ip:192.0.2.1", wantAllowed: false, wantRetry: window},
				{key: "ip:192.0.2.2", wantAllowed: true},
				{key: "key:5f2b", wantAllowed: true},
			},
		},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					clock := newFakeClock(tc.into)
					resetAt := windowStart(clock.Now()).Add(window)
					l := ratelimit.New(st.new(t, clock), "test", tc.limit, window)
					l.Clock = clock.Now
					for i, s := range tc.steps {
						clock.Advance(s.advance)
						d, err := l.Allow(t.Context(), s.key)
						if err != nil {
							t.Fatalf("step %d: %v", i, err)
						}
						if !resetAt.After(clock.Now()) {
							resetAt = resetAt.Add(window)
						}
						want := ratelimit.Decision{
							Allowed:    s.wantAllowed,
							Limit:      tc.limit,
							Remaining:  s.wantRemaining,
							ResetAt:    resetAt,
							RetryAfter: s.wantRetry,
							Window:     window,
						}
						if d.Allowed != want.Allowed || d.Limit != want.Limit || d.Remaining != want.Remaining ||
							!d.ResetAt.Equal(want.ResetAt) || d.RetryAfter != want.RetryAfter || d.Window != want.Window {
							t.Errorf("step %d (%q):\n got %+v\nwant %+v", i, s.key, d, want)
						}
					}
				})
			}
		})
	}
}

// TestLimiterPeek checks that Peek tells whether one more hit is allowed
// without spending the budget, on every store.
func TestLimiterPeek(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			clock := newFakeClock(10 * time.Minute)
			l := ratelimit.New(st.new(t, clock), "peek", 2, window)
			l.Clock = clock.Now
			peek := func(wantAllowed bool, wantRemaining int64, wantRetry time.Duration) {
				t.Helper()
				d, err := l.Peek(t.Context(), "ip:192.0.2.1")
				if err != nil {
					t.Fatal(err)
				}
				if d.Allowed != wantAllowed || d.Remaining != wantRemaining || d.RetryAfter != wantRetry || d.Limit != 2 {
					t.Fatalf("Peek = %+v; want allowed %v, remaining %d, retry %v", d, wantAllowed, wantRemaining, wantRetry)
				}
			}
			for range 5 {
				peek(true, 2, 0) // peeking spends nothing
			}
			if _, err := l.Allow(t.Context(), "ip:192.0.2.1"); err != nil {
				t.Fatal(err)
			}
			peek(true, 1, 0)
			if _, err := l.Allow(t.Context(), "ip:192.0.2.1"); err != nil {
				t.Fatal(err)
			}
			peek(false, 0, 5*time.Minute)
			clock.Advance(5 * time.Minute)
			peek(true, 2, 0)
		})
	}
}

// TestLimiterConcurrent sends 200 concurrent requests for one key and checks
// that exactly the limit is allowed, on every store.
func TestLimiterConcurrent(t *testing.T) {
	const limit, requests = 100, 200
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			clock := newFakeClock(time.Minute)
			l := ratelimit.New(st.new(t, clock), "api", limit, window)
			allowed := make([]bool, requests)
			var g errgroup.Group
			for i := range requests {
				g.Go(func() error {
					d, err := l.Allow(t.Context(), "ip:198.51.100.7")
					allowed[i] = d.Allowed
					return err
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			if got := countTrue(allowed); got != limit {
				t.Errorf("allowed %d of %d requests, want exactly %d", got, requests, limit)
			}
		})
	}
}

// TestLimiterNamesScopeKeys checks that limiters sharing a store keep
// separate budgets when their names differ.
func TestLimiterNamesScopeKeys(t *testing.T) {
	clock := newFakeClock(0)
	store := ratelimit.NewMemoryStore(clock.Now)
	device := ratelimit.New(store, "oauth-device", 1, window)
	token := ratelimit.New(store, "oauth-token", 1, window)
	for _, l := range []*ratelimit.Limiter{device, token} {
		d, err := l.Allow(t.Context(), "ip:192.0.2.1")
		if err != nil || !d.Allowed {
			t.Errorf("first request: got %+v, %v; want allowed", d, err)
		}
	}
}

// TestLimiterStoreError checks that a store failure is returned, wrapped,
// with the zero Decision.
func TestLimiterStoreError(t *testing.T) {
	boom := errors.New("boom")
	l := ratelimit.New(errStore{boom}, "api", 10, window)
	d, err := l.Allow(t.Context(), "k")
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want wrapping %v", err, boom)
	}
	if d != (ratelimit.Decision{}) {
		t.Errorf("decision = %+v, want zero", d)
	}
	if d, err := l.Peek(t.Context(), "k"); !errors.Is(err, boom) || d != (ratelimit.Decision{}) {
		t.Errorf("Peek = %+v, %v; want zero, wrapping %v", d, err, boom)
	}
}

// TestNewPanics checks that invalid configuration panics.
func TestNewPanics(t *testing.T) {
	cases := []struct {
		name   string
		store  ratelimit.Store
		limit  int64
		window time.Duration
	}{
		{"nil store", nil, 10, window},
		{"zero limit", ratelimit.NewMemoryStore(nil), 0, window},
		{"negative limit", ratelimit.NewMemoryStore(nil), -1, window},
		{"zero window", ratelimit.NewMemoryStore(nil), 10, 0},
		{"sub-millisecond window", ratelimit.NewMemoryStore(nil), 10, time.Microsecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("New did not panic")
				}
			}()
			ratelimit.New(tc.store, "x", tc.limit, tc.window)
		})
	}
}

// TestDecisionSetHeaders checks the header values for typical and edge-case
// decisions.
func TestDecisionSetHeaders(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC)
	cases := []struct {
		name string
		d    ratelimit.Decision
		want map[string]string // "" means the header must be absent
	}{
		{
			name: "allowed",
			d:    ratelimit.Decision{Allowed: true, Limit: 100, Remaining: 42, ResetAt: now.Add(10 * time.Minute), Window: window},
			want: map[string]string{
				"RateLimit-Limit": "100", "RateLimit-Remaining": "42", "RateLimit-Reset": "600",
				"RateLimit-Policy": "100;w=900", "Retry-After": "",
			},
		},
		{
			name: "rejected",
			d:    ratelimit.Decision{Limit: 30, ResetAt: now.Add(4 * time.Minute), RetryAfter: 4 * time.Minute, Window: window},
			want: map[string]string{
				"RateLimit-Limit": "30", "RateLimit-Remaining": "0", "RateLimit-Reset": "240",
				"RateLimit-Policy": "30;w=900", "Retry-After": "240",
			},
		},
		{
			name: "fractional seconds round up",
			d:    ratelimit.Decision{Limit: 240, ResetAt: now.Add(1500 * time.Millisecond), Window: window},
			want: map[string]string{"RateLimit-Reset": "2", "Retry-After": "2", "RateLimit-Policy": "240;w=900"},
		},
		{
			name: "Retry-After is at least one second",
			d:    ratelimit.Decision{Limit: 240, ResetAt: now.Add(time.Millisecond), Window: window},
			want: map[string]string{"RateLimit-Reset": "1", "Retry-After": "1"},
		},
		{
			name: "reset in the past is clamped",
			d:    ratelimit.Decision{Limit: 240, ResetAt: now.Add(-3 * time.Second), Window: window},
			want: map[string]string{"RateLimit-Reset": "0", "Retry-After": "1"},
		},
		{
			name: "window in whole seconds rounded up",
			d:    ratelimit.Decision{Allowed: true, Limit: 5, Remaining: 5, ResetAt: now.Add(time.Second), Window: 1500 * time.Millisecond},
			want: map[string]string{"RateLimit-Policy": "5;w=2"},
		},
		{
			name: "no policy without a window",
			d:    ratelimit.Decision{Allowed: true, Limit: 5, Remaining: 5, ResetAt: now.Add(time.Second)},
			want: map[string]string{"RateLimit-Policy": "", "RateLimit-Limit": "5"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			tc.d.SetHeaders(h, now)
			for name, want := range tc.want {
				if got := h.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}
