package ratelimit_test

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/herdbook/herdbook/internal/ratelimit"
)

// BenchmarkStores measures one Incr per operation, serially on one key and
// in parallel on 1,000 keys, against each store.
func BenchmarkStores(b *testing.B) {
	benchStores := []struct {
		name string
		new  func(b *testing.B) ratelimit.Store
	}{
		{"memory", func(*testing.B) ratelimit.Store { return ratelimit.NewMemoryStore(nil) }},
		{"miniredis", func(b *testing.B) ratelimit.Store {
			m := miniredis.RunT(b)
			c := redis.NewClient(&redis.Options{Addr: m.Addr()})
			b.Cleanup(func() { c.Close() })
			return ratelimit.NewRedisStore(c, "bench:", nil)
		}},
		{"redis", func(b *testing.B) ratelimit.Store {
			return newRealRedis(b).newStore(b, &fakeClock{now: time.Now()})
		}},
	}
	for _, st := range benchStores {
		b.Run(st.name+"/serial", func(b *testing.B) {
			store := st.new(b)
			for b.Loop() {
				if _, _, err := store.Incr(b.Context(), "api:ip:192.0.2.1", window); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(st.name+"/parallel", func(b *testing.B) {
			store := st.new(b)
			keys := make([]string, 1000)
			for i := range keys {
				keys[i] = "api:ip:10.0." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256)
			}
			var next atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(1))
				for pb.Next() {
					if _, _, err := store.Incr(b.Context(), keys[i%len(keys)], window); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
		})
	}
}
