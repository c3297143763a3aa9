package ratelimit_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/herdbook/herdbook/internal/ratelimit"
)

// TestRedisStoreTwoNodes checks that limiters on two API nodes, each with its
// own client and RedisStore, share one budget per key.
func TestRedisStoreTwoNodes(t *testing.T) {
	const limit = 5
	cases := []struct {
		name  string
		nodes []int // which node serves each request
		want  []bool
	}{
		{"alternating nodes", []int{0, 1, 0, 1, 0, 1, 0}, []bool{true, true, true, true, true, false, false}},
		{"one node exhausts the other's budget", []int{0, 0, 0, 0, 0, 1}, []bool{true, true, true, true, true, false}},
	}
	for _, srv := range redisServers {
		t.Run(srv.name, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					clock := newFakeClock(time.Minute)
					server := srv.start(t, clock)
					nodes := []*ratelimit.Limiter{
						ratelimit.New(server.newStore(t, clock), "api", limit, window),
						ratelimit.New(server.newStore(t, clock), "api", limit, window),
					}
					for i, n := range tc.nodes {
						d, err := nodes[n].Allow(t.Context(), "ip:192.0.2.1")
						if err != nil {
							t.Fatal(err)
						}
						if d.Allowed != tc.want[i] {
							t.Errorf("request %d on node %d: Allowed = %v, want %v", i, n, d.Allowed, tc.want[i])
						}
					}
				})
			}
		})
	}
}

// TestRedisStoreTwoNodesConcurrent sends 200 concurrent requests through two
// nodes and checks that exactly the limit is allowed.
func TestRedisStoreTwoNodesConcurrent(t *testing.T) {
	const limit, requests = 50, 200
	for _, srv := range redisServers {
		t.Run(srv.name, func(t *testing.T) {
			clock := newFakeClock(time.Minute)
			server := srv.start(t, clock)
			nodes := []*ratelimit.Limiter{
				ratelimit.New(server.newStore(t, clock), "api", limit, window),
				ratelimit.New(server.newStore(t, clock), "api", limit, window),
			}
			allowed := make([]bool, requests)
			var g errgroup.Group
			for i := range requests {
				g.Go(func() error {
					d, err := nodes[i%2].Allow(t.Context(), "ip:192.0.2.1")
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

// TestRedisStoreKeys checks the Redis key layout and expiry.
func TestRedisStoreKeys(t *testing.T) {
	for _, srv := range redisServers {
		t.Run(srv.name, func(t *testing.T) {
			clock := newFakeClock(3 * time.Minute)
			server := srv.start(t, clock)
			store := server.newStore(t, clock)
			start := windowStart(clock.Now())
			for range 3 {
				if _, _, err := store.Incr(t.Context(), "api:ip:192.0.2.1", window); err != nil {
					t.Fatal(err)
				}
			}

			keys := server.keys(t)
			want := server.prefix + "api:ip:192.0.2.1:900000:" + strconv.FormatInt(start.UnixMilli(), 10)
			if len(keys) != 1 || keys[0] != want {
				t.Fatalf("keys = %q, want [%q]", keys, want)
			}

			// The counter expires one minute (the grace for clock skew)
			// after its window ends, at the same instant on every node.
			wantExpiry := start.Add(window + time.Minute)
			expiry, err := server.newClient(t).PExpireTime(t.Context(), want).Result()
			if err != nil {
				t.Fatal(err)
			}
			if expiry != time.Duration(wantExpiry.UnixMilli())*time.Millisecond {
				t.Errorf("PEXPIRETIME = %v, want %v", time.UnixMilli(expiry.Milliseconds()), wantExpiry)
			}
			if server.mini != nil {
				server.mini.FastForward(wantExpiry.Sub(clock.Now()))
				if keys := server.mini.Keys(); len(keys) != 0 {
					t.Errorf("keys after expiry = %q, want none", keys)
				}
			}
		})
	}
}

// TestRedisStoreScriptFlushed checks that counting survives Redis losing its
// script cache, as after a restart or failover.
func TestRedisStoreScriptFlushed(t *testing.T) {
	for _, srv := range redisServers {
		t.Run(srv.name, func(t *testing.T) {
			clock := newFakeClock(0)
			server := srv.start(t, clock)
			store := server.newStore(t, clock)
			for want := int64(1); want <= 3; want++ {
				if err := server.newClient(t).ScriptFlush(t.Context()).Err(); err != nil {
					t.Fatal(err)
				}
				n, _, err := store.Incr(t.Context(), "k", window)
				if err != nil {
					t.Fatal(err)
				}
				if n != want {
					t.Errorf("count = %d, want %d", n, want)
				}
			}
		})
	}
}

// TestNewRedisStoreFromURL checks URL parsing and that the store it builds
// works and closes its own client.
func TestNewRedisStoreFromURL(t *testing.T) {
	m := miniredis.RunT(t)
	cases := []struct {
		name    string
		url     string
		wantErr bool
	}{
		{"redis url", "redis://" + m.Addr() + "/0", false},
		{"url with options", "redis://" + m.Addr() + "/0?dial_timeout=1s&max_retries=1", false},
		{"unknown scheme", "http://" + m.Addr(), true},
		{"bad database", "redis://" + m.Addr() + "/zero", true},
		{"unknown option", "redis://" + m.Addr() + "/0?frobnicate=1", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store, err := ratelimit.NewRedisStoreFromURL(tc.url)
			if tc.wantErr {
				if err == nil {
					store.Close()
					t.Fatal("got nil error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := store.Incr(t.Context(), "from-url", window); err != nil {
				t.Fatalf("Incr: %v", err)
			}
			if err := store.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if _, _, err := store.Incr(t.Context(), "from-url", window); err == nil {
				t.Error("Incr after Close: got nil error")
			}
		})
	}
	t.Run("keys use the default prefix", func(t *testing.T) {
		for _, k := range m.Keys() {
			if !strings.HasPrefix(k, ratelimit.DefaultRedisPrefix+"from-url:") {
				t.Errorf("key %q lacks prefix %q", k, ratelimit.DefaultRedisPrefix)
			}
		}
	})
}

// TestRedisStoreCloseLeavesCallerClient checks that Close does not close a
// client the caller passed in.
func TestRedisStoreCloseLeavesCallerClient(t *testing.T) {
	m := miniredis.RunT(t)
	client := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer client.Close()
	store := ratelimit.NewRedisStore(client, "p:", nil)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if err := client.Ping(t.Context()).Err(); err != nil {
		t.Errorf("caller's client unusable after Close: %v", err)
	}
}

// unreachableRedis returns the address of a TCP port nobody listens on.
func unreachableRedis(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// blackholeRedis returns the address of a server that accepts connections
// and never answers, like a Redis that has hung.
func blackholeRedis(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var g errgroup.Group
	g.Go(func() error {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				<-ctx.Done()
				return nil
			}
			conns = append(conns, c)
		}
	})
	t.Cleanup(func() {
		cancel()
		l.Close()
		g.Wait()
	})
	return l.Addr().String()
}

// TestRedisStoreUnavailable checks that a store whose Redis is down or hung
// reports an error within its Timeout instead of blocking the request.
func TestRedisStoreUnavailable(t *testing.T) {
	cases := []struct {
		name string
		addr func(*testing.T) string
	}{
		{"connection refused", unreachableRedis},
		{"server hangs", blackholeRedis},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store, err := ratelimit.NewRedisStoreFromURL("redis://" + tc.addr(t) + "/0")
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			store.Timeout = 200 * time.Millisecond
			began := time.Now()
			_, _, err = store.Incr(t.Context(), "k", window)
			if err == nil {
				t.Fatal("Incr against an unavailable Redis: got nil error")
			}
			if took := time.Since(began); took > time.Second {
				t.Errorf("Incr took %v to fail, want about the 200ms Timeout", took)
			}
		})
	}
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
