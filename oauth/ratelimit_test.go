package oauth_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/ratelimit"
	"github.com/herdbook/herdbook/internal/server"
	"github.com/herdbook/herdbook/oauth"
)

// wantLimited fails unless res is SPEC.md's 429: the envelope with ServiceError, an integer
// Retry-After and the RateLimit headers.
func wantLimited(t *testing.T, res response, limit int) {
	t.Helper()
	herdbooktest.WantEnvelope(t, res.res(), http.StatusTooManyRequests, "ServiceError", "too many requests")
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 900 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	if res.Header.Get("RateLimit-Limit") != strconv.Itoa(limit) || res.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("RateLimit headers %v", res.Header)
	}
}

// TestRateLimits: SPEC.md's limits per client IP and 15-minute window.
func TestRateLimits(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		for _, tc := range []struct {
			name  string
			path  string
			limit int
			form  url.Values
		}{
			{"Device", "/oauth/device", oauth.LimitDevice, url.Values{"client_id": {"nobody"}}},
			{"Token", "/oauth/token", oauth.LimitToken, url.Values{"grant_type": {"refresh_token"}, "client_id": {e.public}, "refresh_token": {"hbrt_x"}}},
			{"DeviceToken", "/oauth/device/token", oauth.LimitToken, url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.public}, "device_code": {"x"}}},
			{"Revoke", "/oauth/revoke", oauth.LimitToken, url.Values{"client_id": {e.public}, "token": {"x"}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				freshWindow(t)
				for i := 1; i <= tc.limit; i++ {
					res := e.post(tc.path, tc.form)
					if res.Status == http.StatusTooManyRequests {
						t.Fatalf("request %d of %d was limited", i, tc.limit)
					}
					if res.Header.Get("RateLimit-Limit") != strconv.Itoa(tc.limit) ||
						res.Header.Get("RateLimit-Remaining") != strconv.Itoa(tc.limit-i) ||
						res.Header.Get("RateLimit-Policy") != strconv.Itoa(tc.limit)+";w=900" {
						t.Fatalf("request %d: RateLimit headers %v", i, res.Header)
					}
				}
				wantLimited(t, e.post(tc.path, tc.form), tc.limit)
			})
		}
		t.Run("OtherEndpointsUnaffected", func(t *testing.T) {
			if res := e.app.Do("GET", "/oauth/.well-known/oauth-authorization-server", "", nil); res.Status != http.StatusOK {
				t.Fatalf("metadata after the limits: %d", res.Status)
			}
		})
	})
}

// node starts one more API node over d with the given limit store and trusted proxies.
func node(t *testing.T, d *db.DB, limits ratelimit.Store, proxies ...string) string {
	t.Helper()
	var pp []netip.Prefix
	for _, p := range proxies {
		pp = append(pp, netip.MustParsePrefix(p))
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	t.Cleanup(srv.Close)
	srv.Config.Handler = server.New(server.Config{BaseURL: srv.URL, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RateLimits: limits, TrustedProxies: pp},
		server.Deps{DB: d, Service: herdbook.New(d.Client), Issuer: oauth.NewIssuer(d.Client, nil)})
	return srv.URL
}

func postTo(t *testing.T, base, path string, form url.Values, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// TestRateLimitClientIP: the client address is the socket's peer unless the peer is a
// configured trusted proxy, in which case X-Forwarded-For names the client.
func TestRateLimitClientIP(t *testing.T) {
	t.Parallel()
	d := herdbooktest.MustDB(t, "sqlite")
	form := url.Values{"client_id": {"nobody"}}
	t.Run("ForwardedForIgnoredWithoutTrustedProxies", func(t *testing.T) {
		base := node(t, d, nil)
		freshWindow(t)
		for i := 0; i < oauth.LimitDevice; i++ {
			postTo(t, base, "/oauth/device", form, "X-Forwarded-For", "198.51.100."+strconv.Itoa(i))
		}
		wantLimited(t, postTo(t, base, "/oauth/device", form, "X-Forwarded-For", "198.51.100.250"), oauth.LimitDevice)
	})
	t.Run("ForwardedForFromTrustedProxy", func(t *testing.T) {
		base := node(t, d, nil, "127.0.0.0/8", "::1/128")
		freshWindow(t)
		for i := 0; i < oauth.LimitDevice; i++ {
			postTo(t, base, "/oauth/device", form, "X-Forwarded-For", "198.51.100.7")
		}
		wantLimited(t, postTo(t, base, "/oauth/device", form, "X-Forwarded-For", "198.51.100.7"), oauth.LimitDevice)
		// Another client behind the same proxy has its own budget.
		if res := postTo(t, base, "/oauth/device", form, "X-Forwarded-For", "198.51.100.8"); res.Status == http.StatusTooManyRequests {
			t.Fatal("a second client behind the proxy shares the first one's budget")
		}
		// A client cannot pick its own key by prepending to the header.
		if res := postTo(t, base, "/oauth/device", form, "X-Forwarded-For", "203.0.113.1, 198.51.100.7"); res.Status != http.StatusTooManyRequests {
			t.Fatalf("spoofed X-Forwarded-For escaped the limit: %d", res.Status)
		}
	})
}

// TestRateLimitSharedBudget: API nodes that share a Redis store share one budget per
// client. It runs on the Redis of HERDBOOK_TEST_REDIS_URL when set, else on miniredis.
func TestRateLimitSharedBudget(t *testing.T) {
	t.Parallel()
	addr := os.Getenv("HERDBOOK_TEST_REDIS_URL")
	var client *redis.Client
	if addr != "" {
		opts, err := redis.ParseURL(addr)
		if err != nil {
			t.Fatal(err)
		}
		client = redis.NewClient(opts)
	} else {
		mr := miniredis.RunT(t)
		client = redis.NewClient(&redis.Options{Addr: mr.Addr()})
	}
	t.Cleanup(func() { client.Close() })
	// A prefix of its own, so that runs and parallel tests never share counters.
	store := ratelimit.NewRedisStore(client, "herdbook-test:"+uuid.NewString()+":", nil)
	d := herdbooktest.MustDB(t, "sqlite")
	a, b := node(t, d, store), node(t, d, store)
	form := url.Values{"client_id": {"nobody"}}
	freshWindow(t)
	for i := 0; i < oauth.LimitDevice; i++ {
		base := a
		if i%2 == 1 {
			base = b
		}
		if res := postTo(t, base, "/oauth/device", form); res.Status == http.StatusTooManyRequests {
			t.Fatalf("request %d limited early", i)
		}
	}
	wantLimited(t, postTo(t, a, "/oauth/device", form), oauth.LimitDevice)
	wantLimited(t, postTo(t, b, "/oauth/device", form), oauth.LimitDevice)
}
