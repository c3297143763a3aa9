package db

import (
	"context"
	"log/slog"
	"time"

	"entgo.io/ent/dialect"
)

// OptimizeInterval is how often a long-running server asks SQLite to refresh its statistics.
const OptimizeInterval = time.Hour

// Optimize asks SQLite to gather the statistics its query planner lacks (PRAGMA optimize runs
// ANALYZE on the tables whose indexes it used since the last run, and only where the
// statistics are missing or stale). Without statistics SQLite picks indexes by rule of thumb,
// and a large farm's register and exports then scan the wrong index. PostgreSQL keeps its
// own statistics (autovacuum); Optimize does nothing there.
func (d *DB) Optimize(ctx context.Context) error {
	if d.Dialect != dialect.SQLite {
		return nil
	}
	// Both pragmas on one connection: analysis_limit is a connection's setting, and the
	// pool would otherwise run optimize on another connection, unbounded.
	conn, err := d.SQL.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// 0x10002: also analyze tables never analyzed before, as SQLite advises on a
	// connection's open; the limit bounds the work on a large database.
	if _, err := conn.ExecContext(ctx, "PRAGMA analysis_limit=1000"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "PRAGMA optimize=0x10002")
	return err
}

// RunOptimize runs Optimize now and then every interval until ctx ends.
func (d *DB) RunOptimize(ctx context.Context, every time.Duration, logger *slog.Logger) {
	if d.Dialect != dialect.SQLite {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		start := time.Now()
		if err := d.Optimize(ctx); err != nil && ctx.Err() == nil {
			logger.Warn("PRAGMA optimize failed", "error", err)
		} else if ctx.Err() == nil {
			logger.Debug("PRAGMA optimize", "took", time.Since(start))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
