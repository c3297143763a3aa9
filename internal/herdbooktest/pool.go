package herdbooktest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/db"
)

// A test's PostgreSQL schema is costly to make: on plain PostgreSQL its 32 migrations take
// 0.33 s and its drop 0.07 s; on a Citus cluster its migrations, then the layout that
// distributes each of its tables (docs/scaling.md), then a drop take seconds, each under the
// migrations' lock, so one at a time across every test process (the suite on the coordinator
// took 17 minutes of CI that way). A test process keeps the schemas its tests used and hands
// each, emptied (db.Scratch.Empty: 0.02 s on plain PostgreSQL, 0.06 s on the cluster), to its
// next test: a process lays out only as many schemas as it runs tests at once.
//
// A schema goes back to the pool only when its shape (db.Scratch.Fingerprint) is still that
// of a freshly laid-out one: a test that altered its schema gets it dropped instead.
//
// The pooled schemas are named pooled_<process>_<n>, and the process holds an advisory lock
// on its own number for as long as it runs: schemas whose process holds no such lock are
// what an ended process left, and the first test of the next process drops them.
var scratchPool schemaPool

type schemaPool struct {
	once    sync.Once
	err     error
	holder  *sql.Conn // holds the process's advisory lock
	process uint32

	mu    sync.Mutex
	free  []*db.Scratch
	shape string // the fingerprint of a freshly laid-out schema
}

// poolLockClass is the first key of the pooled schemas' advisory locks (the second is the
// process's number).
const poolLockClass = 7_426_181

// pooling gets the pool ready the first time it is asked, and reports whether there is a
// PostgreSQL database to pool (EnvPostgres).
func pooling(tb testing.TB) bool {
	tb.Helper()
	base := os.Getenv(EnvPostgres)
	if base == "" {
		return false // ScratchURL skips the test
	}
	p := &scratchPool
	p.once.Do(func() { p.err = p.start(base) })
	if p.err != nil {
		tb.Fatalf("PostgreSQL at %s: %v", EnvPostgres, p.err)
	}
	return true
}

func (p *schemaPool) start(base string) error {
	ctx := context.Background()
	admin, err := db.Open(ctx, base)
	if err != nil {
		return err
	}
	// The connection and its lock last as long as the process.
	if p.holder, err = admin.SQL.Conn(ctx); err != nil {
		return err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	p.process = binary.BigEndian.Uint32(b[:]) &^ (1 << 31)
	if _, err := p.holder.ExecContext(ctx, "SELECT pg_advisory_lock($1, $2)", poolLockClass, int32(p.process)); err != nil {
		return fmt.Errorf("lock the scratch pool: %w", err)
	}
	_, err = dropOrphans(ctx, base, p.holder)
	return err
}

// dropOrphans drops the pooled schemas of processes that hold no advisory lock any more
// (they ended) and returns how many. The schemas are listed before the locks are read: a
// process takes its lock before it makes a schema, so one made after the list is not in it,
// and one in the list is kept when its process still runs.
func dropOrphans(ctx context.Context, base string, q *sql.Conn) (int, error) {
	return db.DropSchemas(ctx, base, `pooled\_%`, func(names []string) ([]string, error) {
		live := map[uint32]bool{}
		rows, err := q.QueryContext(ctx, `SELECT objid::bigint FROM pg_locks
			WHERE locktype = 'advisory' AND classid = $1 AND objsubid = 2 AND granted`, poolLockClass)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var n int64
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, err
			}
			live[uint32(n)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		var orphans []string
		for _, name := range names {
			if n, ok := poolProcess(name); !ok || !live[n] {
				orphans = append(orphans, name)
			}
		}
		return orphans, nil
	})
}

// poolProcess is the number of the process that made a pooled schema.
func poolProcess(name string) (uint32, bool) {
	f := strings.Split(name, "_")
	if len(f) != 3 || f[0] != "pooled" {
		return 0, false
	}
	n, err := strconv.ParseUint(f[1], 16, 32)
	return uint32(n), err == nil
}

// pooledDB is MustDB on PostgreSQL: a free pooled schema, or a new one migrated (and on a
// Citus cluster laid out), returned to the pool after the test.
func pooledDB(tb testing.TB) *db.DB {
	tb.Helper()
	ctx := context.Background()
	p := &scratchPool
	p.mu.Lock()
	var s *db.Scratch
	if n := len(p.free); n > 0 {
		s, p.free = p.free[n-1], p.free[:n-1]
	}
	p.mu.Unlock()
	fresh := s == nil
	if fresh {
		var err error
		if s, err = db.NewScratch(ctx, os.Getenv(EnvPostgres), fmt.Sprintf("pooled_%08x_", p.process)); err != nil {
			tb.Fatalf("PostgreSQL at %s is unreachable: %v", EnvPostgres, err)
		}
	}
	d, err := db.Open(ctx, s.URL)
	if err != nil {
		s.Drop()
		tb.Fatal(err)
	}
	d.SetPoolWait(time.Minute) // as MustDB's
	if fresh {
		if _, err := d.Migrate(ctx, nil); err != nil {
			d.Close()
			s.Drop()
			tb.Fatal(err)
		}
		shape, err := s.Fingerprint(ctx)
		if err != nil {
			d.Close()
			s.Drop()
			tb.Fatal(err)
		}
		p.mu.Lock()
		if p.shape == "" {
			p.shape = shape
		}
		p.mu.Unlock()
	}
	tb.Cleanup(func() {
		d.Close()
		p.give(s)
	})
	return d
}

// give takes a schema back after its test: emptied when its shape is a fresh one's, dropped
// otherwise.
func (p *schemaPool) give(s *db.Scratch) {
	ctx := context.Background()
	shape, err := s.Fingerprint(ctx)
	p.mu.Lock()
	same := err == nil && shape == p.shape
	p.mu.Unlock()
	if !same || s.Empty(ctx) != nil {
		s.Drop()
		return
	}
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
}
