package db

import (
	"context"
	"database/sql"
	"fmt"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect/sql/schema"
	"github.com/jackc/pgx/v5/stdlib"

	entmigrate "github.com/herdbook/herdbook/ent/migrate"
)

func init() {
	// Atlas, which computes the differences, opens a postgres:// URL with the database/sql
	// driver named "postgres": the same pgx driver the server uses answers to that name.
	sql.Register("postgres", stdlib.GetDefaultDriver())
}

// Diff replays dir on devURL, an empty scratch database of the same dialect, compares the
// result with the ent schema and, when they differ, writes a migration named name into dir.
// It reports whether it wrote one. The generator and the schema-drift test both use it.
// A PostgreSQL devURL should carry search_path, so that statements are not schema-qualified.
func Diff(ctx context.Context, devURL, dia string, dir migrate.Dir, name string) (bool, error) {
	before, err := dir.Files()
	if err != nil {
		return false, err
	}
	err = entmigrate.NamedDiff(ctx, devURL, name,
		schema.WithDir(dir),
		schema.WithFormatter(migrate.DefaultFormatter),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dia),
		schema.WithDropColumn(true),
		schema.WithDropIndex(true),
	)
	if err != nil {
		return false, fmt.Errorf("diff %s migrations: %w", dia, err)
	}
	after, err := dir.Files()
	if err != nil {
		return false, err
	}
	return len(after) != len(before), nil
}
