package ratelimit_test

import (
	"context"
	"crypto/rand"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/herdbook/herdbook/internal/ratelimit"
)

// redisURLEnv names the environment variable that points the tests at a real
// Redis, for example redis://127.0.0.1:6379/15. Tests that need it skip when
// it is unset.
const redisURLEnv = "HERDBOOK_TEST_REDIS_URL"

const window = 15 * time.Minute

func TestMain(m *testing.M) {
	// Tests of an unreachable Redis make go-redis log every failed dial.
	redis.SetLogger(quietLogger{})
	os.Exit(m.Run())
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// fakeClock is a manually advanced clock shared by a store and a limiter.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// newFakeClock returns a clock set to the start of the next real 15-minute
// window, offset by into. Starting at or after the real time keeps the
// absolute expiry times sent to a real Redis in the future, as they are in
// production; a Redis deletes a key at once if told to expire it in the past.
func newFakeClock(into time.Duration) *fakeClock {
	return &fakeClock{now: windowStart(time.Now()).Add(window + into)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// windowStart returns the start of the 15-minute window containing t.
func windowStart(t time.Time) time.Time {
	return time.Unix(0, t.UnixNano()-t.UnixNano()%int64(window))
}

// redisServer is one Redis the Redis-backed tests run against: a fresh
// miniredis, or the real server named by HERDBOOK_TEST_REDIS_URL with a
// random key prefix so that parallel runs and other data never collide.
type redisServer struct {
	// mini is nil for a real Redis.
	mini   *miniredis.Miniredis
	opts   *redis.Options
	prefix string
}

// newClient returns a new client (a new "node") connected to the server and
// closed when the test ends.
func (s redisServer) newClient(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(s.opts)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// newStore returns a RedisStore on a new client that shares the server's
// key prefix, so two stores act as two API nodes sharing one budget. Its
// timeout is generous: these tests check counting, and hundreds of goroutines
// under the race detector on a loaded machine can exceed the 250ms default;
// the timeout itself has its own test.
func (s redisServer) newStore(t testing.TB, clock *fakeClock) *ratelimit.RedisStore {
	t.Helper()
	st := ratelimit.NewRedisStore(s.newClient(t), s.prefix, clock.Now)
	st.Timeout = 10 * time.Second
	return st
}

// keys lists the keys this test created.
func (s redisServer) keys(t testing.TB) []string {
	t.Helper()
	keys, err := scanPrefix(s.newClient(t), s.prefix)
	if err != nil {
		t.Fatalf("scan keys: %v", err)
	}
	return keys
}

func scanPrefix(c *redis.Client, prefix string) ([]string, error) {
	var keys []string
	iter := c.Scan(context.Background(), 0, prefix+"*", 100).Iterator()
	for iter.Next(context.Background()) {
		keys = append(keys, iter.Val())
	}
	return keys, iter.Err()
}

// newMiniredis starts a miniredis whose clock (used to turn PEXPIREAT into a
// TTL) follows clock.
func newMiniredis(t testing.TB, clock *fakeClock) redisServer {
	t.Helper()
	m := miniredis.RunT(t)
	m.SetTime(clock.Now())
	return redisServer{mini: m, opts: &redis.Options{Addr: m.Addr()}, prefix: "test:"}
}

// newRealRedis connects to HERDBOOK_TEST_REDIS_URL and deletes the test's
// keys when it ends. It skips the test when the variable is unset; a
// configured but unreachable server fails the test instead.
func newRealRedis(t testing.TB) redisServer {
	t.Helper()
	url := os.Getenv(redisURLEnv)
	if url == "" {
		t.Skipf("%s not set; skipping tests against a real Redis", redisURLEnv)
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("parse %s: %v", redisURLEnv, err)
	}
	s := redisServer{opts: opts, prefix: "herdbook-test:" + rand.Text() + ":"}
	if err := s.newClient(t).Ping(context.Background()).Err(); err != nil {
		t.Fatalf("ping %s: %v", redisURLEnv, err)
	}
	t.Cleanup(func() {
		c := redis.NewClient(opts)
		defer c.Close()
		keys, err := scanPrefix(c, s.prefix)
		if err != nil {
			t.Errorf("scan test keys: %v", err)
		}
		for _, k := range keys {
			c.Del(context.Background(), k)
		}
	})
	return s
}

// redisServers lists the Redis servers Redis-backed tests run against, by
// subtest name. The real one skips itself when not configured.
var redisServers = []struct {
	name  string
	start func(t testing.TB, clock *fakeClock) redisServer
}{
	{"miniredis", newMiniredis},
	{"redis", func(t testing.TB, _ *fakeClock) redisServer { return newRealRedis(t) }},
}

// stores lists every Store implementation, by subtest name, each built on a
// fresh backend that follows clock.
var stores = []struct {
	name string
	new  func(t testing.TB, clock *fakeClock) ratelimit.Store
}{
	{"memory", func(_ testing.TB, clock *fakeClock) ratelimit.Store {
		return ratelimit.NewMemoryStore(clock.Now)
	}},
	{"miniredis", func(t testing.TB, clock *fakeClock) ratelimit.Store {
		return newMiniredis(t, clock).newStore(t, clock)
	}},
	{"redis", func(t testing.TB, clock *fakeClock) ratelimit.Store {
		return newRealRedis(t).newStore(t, clock)
	}},
}

// errStore is a Store that always fails.
type errStore struct{ err error }

func (s errStore) Incr(context.Context, string, time.Duration) (int64, time.Time, error) {
	return 0, time.Time{}, s.err
}

func (s errStore) Count(context.Context, string, time.Duration) (int64, time.Time, error) {
	return 0, time.Time{}, s.err
}
