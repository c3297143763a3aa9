package db

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/herdbook/herdbook/internal/db/citus"
)

// SQLiteDevURL is the atlas URL of a scratch SQLite file, for Diff.
func SQLiteDevURL(path string) string {
	return "sqlite://" + path + "?_pragma=foreign_keys(1)"
}

// ScratchPostgres makes a fresh schema in the PostgreSQL database at base and returns a URL
// bound to it (through search_path) and a cleanup that drops it. Tests use one per test so
// that they can run in parallel on one server; the migration generator uses one as its
// scratch database.
func ScratchPostgres(ctx context.Context, base string) (string, func(), error) {
	admin, err := Open(ctx, base)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := "scratch_" + hex.EncodeToString(b)
	if _, err := admin.SQL.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		admin.Close()
		return "", nil, err
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + name, func() {
		dropScratch(admin, name)
		admin.Close()
	}, nil
}

// dropScratch drops a scratch schema. On a Citus cluster it first takes the migrations' lock:
// dropping distributed tables while another schema is being laid out deadlocks on Citus's
// metadata, and PostgreSQL then fails one of the two.
func dropScratch(admin *DB, name string) {
	ctx := context.Background()
	conn, err := admin.SQL.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if onCitus, err := citus.Present(ctx, conn); err == nil && onCitus {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err == nil {
			defer conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", migrationLockID) //nolint:errcheck
		}
	}
	_, _ = conn.ExecContext(ctx, "DROP SCHEMA "+name+" CASCADE")
}
