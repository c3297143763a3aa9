package herdbooktest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
)

// TestScratchPool: on PostgreSQL (plain, or a Citus coordinator) a test's schema goes,
// emptied, to the next test of the process, unless the test changed its shape; then it is
// dropped.
func TestScratchPool(t *testing.T) {
	if os.Getenv(EnvPostgres) == "" {
		t.Skipf("%s is not set", EnvPostgres)
	}
	ctx := context.Background()
	schemaOf := func(t *testing.T, d *db.DB) string {
		var s string
		if err := d.SQL.QueryRowContext(ctx, "SELECT current_schema()").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	count := func(t *testing.T, d *db.DB, table string) int {
		var n int
		if err := d.SQL.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var used string
	t.Run("fill", func(t *testing.T) {
		d := MustDB(t, "postgres")
		used = schemaOf(t, d)
		a := NewApp(t, d)
		u := a.MustUser()
		a.MustAnimal(u, a.MustFarm(u, "Pool Farm").ID, "UK123456100001")
	})
	t.Run("reused empty", func(t *testing.T) {
		d := MustDB(t, "postgres")
		if got := schemaOf(t, d); got != used {
			t.Fatalf("schema %s, want the pooled %s", got, used)
		}
		for _, table := range []string{"users", "farms", "animals", "audit_entries", "oauth_clients"} {
			if n := count(t, d, table); n != 0 {
				t.Errorf("%s has %d rows after the pool emptied it", table, n)
			}
		}
		if n := count(t, d, "herdbook_schema_revisions"); n == 0 {
			t.Error("the migrations' record was emptied too")
		}
		// It works as a fresh one does.
		a := NewApp(t, d)
		u := a.MustUser()
		a.MustFarm(u, "Second Farm")
		// This test changes its schema's shape: it must not reach the next test.
		if _, err := d.SQL.ExecContext(ctx, "ALTER TABLE farms ADD COLUMN pool_probe int"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("altered dropped", func(t *testing.T) {
		d := MustDB(t, "postgres")
		if got := schemaOf(t, d); got == used {
			t.Fatalf("the altered schema %s was handed on", used)
		}
		var n int
		if err := d.SQL.QueryRowContext(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", used).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("the altered schema %s is still there", used)
		}
	})
}

func TestPoolProcess(t *testing.T) {
	for name, want := range map[string]bool{"pooled_0000beef_1a2b3c4d": true, "pooled_x_1": false, "scratch_0011": false, "pooled_1_2_3": false} {
		n, ok := poolProcess(name)
		if ok != want || (ok && n != 0xbeef) {
			t.Errorf("poolProcess(%q) = %x, %v", name, n, ok)
		}
	}
}

// TestDropOrphans: the pooled schemas of a process that ended (no advisory lock on its
// number) are dropped; those of a running process (its lock held) are kept. On any
// PostgreSQL: the pool's bookkeeping is advisory locks and schemas.
func TestDropOrphans(t *testing.T) {
	base := os.Getenv(EnvPostgres)
	if base == "" {
		t.Skipf("%s is not set", EnvPostgres)
	}
	ctx := context.Background()
	admin, err := db.Open(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	running, err := admin.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer running.Close()
	// Two process numbers no test process draws at the same time (theirs have bit 31 clear
	// and are random; these are fixed and set apart by the test's own run).
	live, ended := uint32(0x7ffffff1), uint32(0x7ffffff2)
	if _, err := running.ExecContext(ctx, "SELECT pg_advisory_lock($1, $2)", poolLockClass, int32(live)); err != nil {
		t.Fatal(err)
	}
	defer running.ExecContext(ctx, "SELECT pg_advisory_unlock($1, $2)", poolLockClass, int32(live)) //nolint:errcheck
	names := map[string]bool{fmt.Sprintf("pooled_%08x_aa", live): true, fmt.Sprintf("pooled_%08x_bb", ended): false}
	for name := range names {
		if _, err := admin.SQL.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+name); err != nil {
			t.Fatal(err)
		}
		defer admin.SQL.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+name) //nolint:errcheck
	}
	if _, err := dropOrphans(ctx, base, running); err != nil {
		t.Fatal(err)
	}
	for name, kept := range names {
		var n int
		if err := admin.SQL.QueryRowContext(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if (n == 1) != kept {
			t.Errorf("schema %s: there %v, want %v", name, n == 1, kept)
		}
	}
}
