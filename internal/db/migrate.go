package db

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"time"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"

	"github.com/herdbook/herdbook/ent/migrate/migrations"
	"github.com/herdbook/herdbook/internal/db/citus"
)

// revisionTable records which migration versions were applied, so that Migrate is idempotent.
const revisionTable = "herdbook_schema_revisions"

// migrationLockID is the PostgreSQL advisory lock that serialises concurrent start-ups.
const migrationLockID = 7_426_181_113

// Dir returns the embedded migration directory of an ent dialect (sqlite3 or postgres).
func Dir(dia string) (migrate.Dir, error) {
	name := dia
	if dia == dialect.SQLite {
		name = "sqlite"
	}
	sub, err := fs.Sub(migrations.FS, name)
	if err != nil {
		return nil, err
	}
	files, err := fs.ReadDir(sub, ".")
	if err != nil {
		return nil, err
	}
	mem := &migrate.MemDir{}
	for _, f := range files {
		b, err := fs.ReadFile(sub, f.Name())
		if err != nil {
			return nil, err
		}
		if err := mem.WriteFile(f.Name(), b); err != nil {
			return nil, err
		}
	}
	return mem, nil
}

// Migrate applies every pending migration in version order, each in its own transaction,
// after checking atlas.sum so that an edited migration is refused rather than half-applied.
// progress, when not nil, is told about each applied version.
func (d *DB) Migrate(ctx context.Context, progress func(version, desc string)) (applied int, err error) {
	return d.MigrateTo(ctx, "", progress)
}

// MigrateTo is Migrate up to and including version ("" for all). Up to a version, it does not
// lay the schema out on a Citus cluster: the layout needs every migration.
func (d *DB) MigrateTo(ctx context.Context, version string, progress func(version, desc string)) (applied int, err error) {
	dir, err := Dir(d.Dialect)
	if err != nil {
		return 0, err
	}
	return d.migrateDir(ctx, dir, version, progress)
}

// MigrateDir is Migrate with the migrations of dir instead of the embedded ones (whose files
// it must begin with): a test applies a migration written after the others to a schema
// already laid out on a Citus cluster, as a later release would.
func (d *DB) MigrateDir(ctx context.Context, dir migrate.Dir, progress func(version, desc string)) (applied int, err error) {
	return d.migrateDir(ctx, dir, "", progress)
}

func (d *DB) migrateDir(ctx context.Context, dir migrate.Dir, version string, progress func(version, desc string)) (applied int, err error) {
	if err := migrate.Validate(dir); err != nil {
		return 0, fmt.Errorf("migration directory %s: %w", d.Dialect, err)
	}
	files, err := dir.Files()
	if err != nil {
		return 0, err
	}
	conn, err := d.SQL.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if d.Dialect == dialect.Postgres {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err != nil {
			return 0, fmt.Errorf("take migration lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLockID) //nolint:errcheck
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+revisionTable+
		` (version VARCHAR(64) PRIMARY KEY, description VARCHAR(255) NOT NULL, applied_at TIMESTAMP NOT NULL)`); err != nil {
		return 0, fmt.Errorf("create revision table: %w", err)
	}
	versions, err := queryStrings(ctx, conn, `SELECT version FROM `+revisionTable)
	if err != nil {
		return 0, err
	}
	done := map[string]bool{}
	for _, v := range versions {
		done[v] = true
	}
	onCitus := false
	if d.Dialect == dialect.Postgres {
		if onCitus, err = citus.Present(ctx, conn); err != nil {
			return 0, err
		}
	}
	for _, f := range files {
		if version != "" && f.Version() > version {
			break
		}
		if done[f.Version()] {
			continue
		}
		if err := d.applyFile(ctx, conn, f, onCitus); err != nil {
			return applied, err
		}
		applied++
		if progress != nil {
			progress(f.Version(), f.Desc())
		}
	}
	// On a Citus cluster the schema the migrations made is then laid out, once all of them
	// are applied (the layout needs every farm table's farm_id): docs/scaling.md.
	if onCitus && version == "" {
		n, err := citus.Layout(ctx, conn)
		if err != nil {
			return applied, err
		}
		if n > 0 && progress != nil {
			progress("citus", fmt.Sprintf("distributed layout of %d tables", n))
		}
	}
	return applied, nil
}

func (d *DB) applyFile(ctx context.Context, conn *sql.Conn, f migrate.File, onCitus bool) error {
	stmts, err := f.Stmts()
	if err != nil {
		return fmt.Errorf("read migration %s: %w", f.Name(), err)
	}
	if d.Dialect == dialect.SQLite {
		// SQLite rebuilds a table to change it, and atlas wraps the rebuild in
		// "PRAGMA foreign_keys = off/on". That pragma is a no-op inside a transaction, so it is
		// applied to the connection around the transaction, and the keys are checked before
		// commit instead, as the Atlas CLI does.
		if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = off"); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = on") //nolint:errcheck
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	if onCitus {
		// A migration over distributed tables with foreign keys to reference tables runs its
		// DDL one connection a node, or Citus refuses the second statement.
		if err := citus.SequentialDDL(ctx, tx); err != nil {
			return err
		}
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("migration %s: %w", f.Name(), err)
		}
	}
	if d.Dialect == dialect.SQLite {
		if err := foreignKeyCheck(ctx, tx); err != nil {
			return fmt.Errorf("migration %s: %w", f.Name(), err)
		}
	}
	ph := "?, ?, ?"
	if d.Dialect == dialect.Postgres {
		ph = "$1, $2, $3"
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+revisionTable+` (version, description, applied_at) VALUES (`+ph+`)`,
		f.Version(), f.Desc(), time.Now().UTC()); err != nil {
		return fmt.Errorf("record migration %s: %w", f.Name(), err)
	}
	return tx.Commit()
}

// foreignKeyCheck fails when a SQLite migration left a row pointing at nothing.
func foreignKeyCheck(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		var table string
		var rowid sql.NullInt64
		var parent string
		var fkid int
		if err := rows.Scan(&table, &rowid, &parent, &fkid); err != nil {
			return err
		}
		return fmt.Errorf("foreign key check failed: a row of %s points at a missing %s row", table, parent)
	}
	return rows.Err()
}
