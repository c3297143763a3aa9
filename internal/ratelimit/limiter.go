package ratelimit

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Limiter allows at most a fixed number of requests per key in each fixed
// window, counting them in a [Store]. A Limiter is safe for concurrent use.
type Limiter struct {
	// Clock returns the current time, used to compute Retry-After and the
	// RateLimit-Reset header. Nil means time.Now. Tests that give the store
	// a fake clock set the same clock here. Set it before the Limiter is
	// first used.
	Clock func() time.Time

	store  Store
	name   string
	limit  int64
	window time.Duration
}

// New returns a Limiter that allows limit requests per key in each window,
// counting them in store. The name scopes the limiter's keys within the
// store, so limiters sharing a store (or a Redis database) must have
// distinct names without colons, for example "oauth-device" and "api". New
// panics if store is nil, limit is less than one or window is shorter than a
// millisecond, since each is a programming error.
func New(store Store, name string, limit int64, window time.Duration) *Limiter {
	if store == nil {
		panic("ratelimit: nil Store")
	}
	if limit < 1 {
		panic(fmt.Sprintf("ratelimit: limit must be at least 1, got %d", limit))
	}
	if window < time.Millisecond {
		panic(fmt.Sprintf("ratelimit: window must be at least 1ms, got %v", window))
	}
	return &Limiter{store: store, name: name, limit: limit, window: window}
}

// Decision is the outcome of one [Limiter.Allow] call.
type Decision struct {
	// Allowed reports whether the request is within the limit.
	Allowed bool
	// Limit is the number of requests allowed per window.
	Limit int64
	// Remaining is how many more requests the window allows; it is zero
	// once the limit is reached.
	Remaining int64
	// ResetAt is when the current window ends and the budget refills.
	ResetAt time.Time
	// RetryAfter is how long a rejected client should wait before trying
	// again; it is zero when Allowed is true.
	RetryAfter time.Duration
	// Window is the length of the limiter's window, reported in the
	// RateLimit-Policy header.
	Window time.Duration
}

// Allow counts one request for key and reports whether it is within the
// limit. The request counts against the budget even when it is rejected, so
// a client that keeps retrying stays limited until the window ends. If the
// store fails, Allow returns the zero Decision and the error; the caller
// chooses whether to fail open, as [Limiter.Middleware] does, or closed.
func (l *Limiter) Allow(ctx context.Context, key string) (Decision, error) {
	count, resetAt, err := l.store.Incr(ctx, l.name+":"+key, l.window)
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit %q: %w", l.name, err)
	}
	d := Decision{
		Allowed:   count <= l.limit,
		Limit:     l.limit,
		Remaining: max(l.limit-count, 0),
		ResetAt:   resetAt,
		Window:    l.window,
	}
	if !d.Allowed {
		d.RetryAfter = max(resetAt.Sub(l.now()), 0)
	}
	return d, nil
}

// Peek reports whether one more request for key would be within the limit,
// without counting one. It serves budgets that only failures spend (failed
// authentication): the caller peeks before the work and counts with Allow
// only when the work failed. Allowed is false once the window holds Limit
// hits; RetryAfter is then the time to the window's end. Store errors are
// returned as for Allow.
func (l *Limiter) Peek(ctx context.Context, key string) (Decision, error) {
	count, resetAt, err := l.store.Count(ctx, l.name+":"+key, l.window)
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit %q: %w", l.name, err)
	}
	d := Decision{
		Allowed:   count < l.limit,
		Limit:     l.limit,
		Remaining: max(l.limit-count, 0),
		ResetAt:   resetAt,
		Window:    l.window,
	}
	if !d.Allowed {
		d.RetryAfter = max(resetAt.Sub(l.now()), 0)
	}
	return d, nil
}

func (l *Limiter) now() time.Time {
	if l.Clock != nil {
		return l.Clock()
	}
	return time.Now()
}

// SetHeaders describes the decision's window in h as of now.
//
// It sets RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (whole
// seconds until the window ends, rounded up, never negative) and
// RateLimit-Policy (for example "100;w=900"; omitted when Window is zero).
// When the request is not allowed it also sets Retry-After to the whole
// seconds until the window ends, rounded up and at least 1, so that a client
// honouring it never retries into the same window.
func (d Decision) SetHeaders(h http.Header, now time.Time) {
	reset := ceilSeconds(d.ResetAt.Sub(now))
	h.Set("RateLimit-Limit", strconv.FormatInt(d.Limit, 10))
	h.Set("RateLimit-Remaining", strconv.FormatInt(d.Remaining, 10))
	h.Set("RateLimit-Reset", strconv.FormatInt(reset, 10))
	if d.Window > 0 {
		h.Set("RateLimit-Policy", strconv.FormatInt(d.Limit, 10)+";w="+strconv.FormatInt(ceilSeconds(d.Window), 10))
	}
	if !d.Allowed {
		h.Set("Retry-After", strconv.FormatInt(max(reset, 1), 10))
	}
}

// ceilSeconds converts d to whole seconds, rounding up; negative durations
// become zero.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
