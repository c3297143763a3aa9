package db_test

import (
	"context"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestOptimizeGathersStatistics: after Optimize, SQLite's planner has statistics
// (sqlite_stat1) for the tables it has indexes on; PostgreSQL is left to autovacuum.
func TestOptimizeGathersStatistics(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		if err := d.Optimize(ctx); err != nil {
			t.Fatal(err)
		}
		if d.Dialect != "sqlite3" {
			return
		}
		var n int
		if err := d.SQL.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_stat1").Scan(&n); err != nil || n == 0 {
			t.Fatalf("sqlite_stat1 after optimize: %d rows, %v", n, err)
		}
	})
}
