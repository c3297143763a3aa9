package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix is the key prefix used by [NewRedisStoreFromURL].
const DefaultRedisPrefix = "herdbook:ratelimit:"

// defaultRedisTimeout bounds one Incr round trip. The limiter fails open when
// Redis is unavailable, and it must do so quickly: without a bound, every API
// request would wait for go-redis's dial and read timeouts and retries
// (seconds) during an outage.
const defaultRedisTimeout = 250 * time.Millisecond

// maxExpiryGrace caps how long a Redis counter outlives its window.
const maxExpiryGrace = time.Minute

// incrScript counts a hit and sets the counter's absolute expiry in a single
// round trip. Running both commands in one script makes them atomic: a
// counter can never be left without an expiry. Setting the expiry on every
// hit, not only the first, is idempotent and also repairs a key that somehow
// lost its TTL.
var incrScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return n
`)

// RedisStore is a [Store] that keeps counters in Redis, so that every API node
// pointed at the same Redis shares one budget per key.
//
// Each counter's Redis key is the prefix, the limiter key, the window length
// in milliseconds and the start of the window in Unix milliseconds, for
// example "herdbook:ratelimit:api:ip:192.0.2.1:900000:1700000100000". Because windows are aligned to the Unix
// epoch, nodes agree on window boundaries (given clocks synchronised by NTP)
// and a counter never carries over into the next window, whatever its TTL.
// Counters expire shortly after their window ends (a grace of one window,
// at most a minute, absorbs clock skew between the nodes and Redis).
//
// Each Incr is one EVALSHA round trip; only the first call after Redis loses
// its script cache falls back to EVAL. The script touches a single key, so
// it works with Redis Cluster too.
type RedisStore struct {
	// Timeout bounds each Incr call, on top of any deadline in the
	// caller's context, so that the limiter can fail open quickly when
	// Redis is unreachable. Zero or negative means no extra bound. The
	// constructors set it to 250ms. For the bound to interrupt network
	// reads, the client must have Options.ContextTimeoutEnabled set, as
	// the client built by NewRedisStoreFromURL does.
	Timeout time.Duration

	client redis.UniversalClient
	prefix string
	clock  func() time.Time
	owned  bool
}

// NewRedisStore returns a RedisStore that uses client and prepends prefix
// (for example "herdbook:ratelimit:") to every key. A nil clock means
// time.Now. The caller keeps ownership of client; [RedisStore.Close] does not
// close it.
func NewRedisStore(client redis.UniversalClient, prefix string, clock func() time.Time) *RedisStore {
	if clock == nil {
		clock = time.Now
	}
	return &RedisStore{
		Timeout: defaultRedisTimeout,
		client:  client,
		prefix:  prefix,
		clock:   clock,
	}
}

// NewRedisStoreFromURL returns a RedisStore with its own client for the
// Redis server named by url, in the form accepted by redis.ParseURL (for
// example "redis://user:pass@host:6379/0" or
// "rediss://host:6380/0?dial_timeout=1s"), using [DefaultRedisPrefix] and the
// system clock. It reports only malformed URLs: the client connects lazily,
// so an unreachable server shows up as errors from Incr. Call
// [RedisStore.Close] to release the client.
func NewRedisStoreFromURL(url string) (*RedisStore, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: parse redis url: %w", err)
	}
	// Let the per-call Timeout interrupt dials and reads, so that the
	// limiter fails open within that bound when Redis is down.
	opts.ContextTimeoutEnabled = true
	s := NewRedisStore(redis.NewClient(opts), DefaultRedisPrefix, nil)
	s.owned = true
	return s, nil
}

// Incr counts one hit for key in the current window of the given length and
// implements [Store]. The window must be at least a millisecond, the
// resolution of Redis expiry times.
func (s *RedisStore) Incr(ctx context.Context, key string, window time.Duration) (int64, time.Time, error) {
	if window < time.Millisecond {
		return 0, time.Time{}, errors.New("ratelimit: redis window must be at least 1ms")
	}
	redisKey, _, end := s.key(key, window)
	expireAt := end.Add(min(window, maxExpiryGrace)).UnixMilli()

	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	n, err := incrScript.Run(ctx, s.client, []string{redisKey}, expireAt).Int64()
	if err != nil {
		// The key is left out of the message: it holds client IPs.
		return 0, time.Time{}, fmt.Errorf("ratelimit: redis incr: %w", err)
	}
	return n, end, nil
}

// Count returns the hits counted for key in the current window without
// counting one, and implements [Store]: one GET, bounded by Timeout like Incr.
func (s *RedisStore) Count(ctx context.Context, key string, window time.Duration) (int64, time.Time, error) {
	if window < time.Millisecond {
		return 0, time.Time{}, errors.New("ratelimit: redis window must be at least 1ms")
	}
	redisKey, _, end := s.key(key, window)
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	n, err := s.client.Get(ctx, redisKey).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, end, nil
	}
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("ratelimit: redis get: %w", err)
	}
	return n, end, nil
}

// key is the Redis key of key's counter in the window of the given length
// that contains the current time, with that window's bounds.
func (s *RedisStore) key(key string, window time.Duration) (redisKey string, start, end time.Time) {
	start, end = windowBounds(s.clock(), window)
	redisKey = s.prefix + key + ":" + strconv.FormatInt(window.Milliseconds(), 10) +
		":" + strconv.FormatInt(start.UnixMilli(), 10)
	return redisKey, start, end
}

// Close closes the Redis client if the store created it, as
// [NewRedisStoreFromURL] does; a client passed to [NewRedisStore] is left
// open for its owner to close.
func (s *RedisStore) Close() error {
	if !s.owned {
		return nil
	}
	return s.client.Close()
}
