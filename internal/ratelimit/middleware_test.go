package ratelimit_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/ratelimit"
)

// apiKeyOrIP keys API requests by legacy API key when one is sent, else by
// client IP, as the product spec asks. The key is hashed so that secrets
// never reach the store.
func apiKeyOrIP(r *http.Request) string {
	if k := r.Header.Get("X-Api-Key"); k != "" {
		sum := sha256.Sum256([]byte(k))
		return "key:" + hex.EncodeToString(sum[:16])
	}
	return "ip:" + ratelimit.ClientIP{}.Of(r)
}

// testServer is an httptest.Server whose handler is wrapped in a limiter's
// middleware and counts calls to each handler.
type testServer struct {
	*httptest.Server
	next, limited, errs atomic.Int64
	lastErr             atomic.Pointer[error]
}

func newTestServer(t *testing.T, l *ratelimit.Limiter, onLimited http.Handler) *testServer {
	t.Helper()
	s := &testServer{}
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.next.Add(1)
		io.WriteString(w, `{"ok":true}`)
	})
	if onLimited == nil {
		onLimited = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			s.limited.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":"rate_limited"}`)
		})
	}
	onError := func(_ http.ResponseWriter, _ *http.Request, err error) {
		s.errs.Add(1)
		s.lastErr.Store(&err)
	}
	s.Server = httptest.NewServer(l.Middleware(apiKeyOrIP, onLimited, onError)(next))
	t.Cleanup(s.Close)
	return s
}

func (s *testServer) get(t *testing.T, apiKey string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/api/ops", nil)
	if err != nil {
		t.Fatal(err)
	}
	if apiKey != "" {
		req.Header.Set("X-Api-Key", apiKey)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestMiddleware drives the middleware through a real HTTP server.
func TestMiddleware(t *testing.T) {
	const limit = 100
	cases := []struct {
		name    string
		apiKeys []string // one request per entry; "" means no API key
		// wantStatus lists the expected status of each request, by
		// index; requests not listed must succeed.
		wantStatus  map[int]int
		wantNext    int64
		wantLimited int64
	}{
		{
			name:        "101st request is limited",
			apiKeys:     make([]string, limit+1),
			wantStatus:  map[int]int{limit: http.StatusTooManyRequests},
			wantNext:    limit,
			wantLimited: 1,
		},
		{
			name:        "requests past the limit stay limited",
			apiKeys:     make([]string, limit+3),
			wantStatus:  map[int]int{limit: 429, limit + 1: 429, limit + 2: 429},
			wantNext:    limit,
			wantLimited: 3,
		},
		{
			name:     "API key and IP have separate budgets",
			apiKeys:  append(repeat("", limit), repeat("legacy-key-1", limit)...),
			wantNext: 2 * limit,
		},
		{
			name:        "each API key has its own budget",
			apiKeys:     append(repeat("legacy-key-1", limit+1), "legacy-key-2"),
			wantStatus:  map[int]int{limit: 429},
			wantNext:    limit + 1,
			wantLimited: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock(10 * time.Minute)
			l := ratelimit.New(ratelimit.NewMemoryStore(clock.Now), "api", limit, window)
			l.Clock = clock.Now
			srv := newTestServer(t, l, nil)
			remaining := map[string]int{}
			for i, key := range tc.apiKeys {
				resp := srv.get(t, key)
				want, ok := tc.wantStatus[i]
				if !ok {
					want = http.StatusOK
				}
				if resp.StatusCode != want {
					t.Fatalf("request %d: status %d, want %d", i, resp.StatusCode, want)
				}
				remaining[key]++
				wantHeaders := map[string]string{
					"RateLimit-Limit":     "100",
					"RateLimit-Remaining": strconv.Itoa(max(limit-remaining[key], 0)),
					"RateLimit-Reset":     "300",
					"RateLimit-Policy":    "100;w=900",
					"Retry-After":         "",
				}
				if want == http.StatusTooManyRequests {
					wantHeaders["Retry-After"] = "300"
				}
				for name, w := range wantHeaders {
					if got := resp.Header.Get(name); got != w {
						t.Errorf("request %d: %s = %q, want %q", i, name, got, w)
					}
				}
			}
			if got := srv.next.Load(); got != tc.wantNext {
				t.Errorf("next handler called %d times, want %d", got, tc.wantNext)
			}
			if got := srv.limited.Load(); got != tc.wantLimited {
				t.Errorf("onLimited called %d times, want %d", got, tc.wantLimited)
			}
			if got := srv.errs.Load(); got != 0 {
				t.Errorf("onError called %d times, want 0", got)
			}
		})
	}
}

// TestMiddlewareDefaultOnLimited checks the plain-text 429 written when
// onLimited is nil.
func TestMiddlewareDefaultOnLimited(t *testing.T) {
	l := ratelimit.New(ratelimit.NewMemoryStore(nil), "api", 1, window)
	h := l.Middleware(apiKeyOrIP, nil, nil)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/oauth/device", nil))
		if rec.Code != want {
			t.Errorf("request %d: status %d, want %d", i, rec.Code, want)
		}
		if want == http.StatusTooManyRequests && rec.Header().Get("Retry-After") == "" {
			t.Errorf("request %d: no Retry-After", i)
		}
	}
}

// TestMiddlewareFailsOpen checks that requests go through, without
// rate-limit headers, and that onError sees the failure when the store is
// unavailable.
func TestMiddlewareFailsOpen(t *testing.T) {
	cases := []struct {
		name  string
		store func(t *testing.T) ratelimit.Store
	}{
		{"store error", func(*testing.T) ratelimit.Store { return errStore{errors.New("boom")} }},
		{"redis unreachable", func(t *testing.T) ratelimit.Store {
			s, err := ratelimit.NewRedisStoreFromURL("redis://" + unreachableRedis(t) + "/0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}},
		{"redis hangs", func(t *testing.T) ratelimit.Store {
			s, err := ratelimit.NewRedisStoreFromURL("redis://" + blackholeRedis(t) + "/0")
			if err != nil {
				t.Fatal(err)
			}
			s.Timeout = 100 * time.Millisecond
			t.Cleanup(func() { s.Close() })
			return s
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := ratelimit.New(tc.store(t), "api", 1, window)
			srv := newTestServer(t, l, nil)
			for i := range 3 {
				resp := srv.get(t, "")
				if resp.StatusCode != http.StatusOK {
					t.Errorf("request %d: status %d, want 200", i, resp.StatusCode)
				}
				for _, name := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Retry-After"} {
					if v := resp.Header.Get(name); v != "" {
						t.Errorf("request %d: %s = %q, want absent", i, name, v)
					}
				}
			}
			if got := srv.next.Load(); got != 3 {
				t.Errorf("next handler called %d times, want 3", got)
			}
			if got := srv.errs.Load(); got != 3 {
				t.Errorf("onError called %d times, want 3", got)
			}
			if p := srv.lastErr.Load(); p == nil || *p == nil {
				t.Error("onError got no error")
			}
		})
	}
}

// TestMiddlewareNilKeyFunc checks that a nil keyFunc panics when the
// middleware is built, not on the first request.
func TestMiddlewareNilKeyFunc(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Middleware(nil, ...) did not panic")
		}
	}()
	ratelimit.New(ratelimit.NewMemoryStore(nil), "api", 1, window).Middleware(nil, nil, nil)
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
