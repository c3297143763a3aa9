package db

import (
	"context"
	"fmt"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect/sql/schema"

	entmigrate "github.com/herdbook/herdbook/ent/migrate"
)

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
