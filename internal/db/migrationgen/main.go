// Command migrationgen writes a new versioned migration for each dialect from the difference
// between the ent schema and the migrations already in ent/migrate/migrations.
//
//	go run ./db/migrationgen add_farm_notes
//
// SQLite uses a scratch file; PostgreSQL uses a scratch schema in the database named by
// -dev-url (default HERDBOOK_DEV_DATABASE_URL or the local test server), dropped afterwards.
//
//	go run ./internal/db/migrationgen -rehash
//
// rewrites each dialect's atlas.sum from the files present: after a merge brings migrations
// from two branches, git cannot merge the sums, and nothing else needs to change (check with
// TestMigrationsMatchSchema that the merged migrations still add up to the schema).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"ariga.io/atlas/sql/migrate"

	"github.com/herdbook/herdbook/internal/db"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "migrationgen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("migrationgen", flag.ContinueOnError)
	devURL := fs.String("dev-url", envOr("HERDBOOK_DEV_DATABASE_URL", "postgres://127.0.0.1:5432/test?sslmode=disable"), "PostgreSQL database in which a scratch schema is made")
	root := fs.String("dir", "ent/migrate/migrations", "migrations root (one sub-directory per dialect)")
	rehash := fs.Bool("rehash", false, "only rewrite each dialect's atlas.sum from the migration files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rehash {
		for _, dia := range []string{"sqlite", "postgres"} {
			if err := writeSum(filepath.Join(*root, dia)); err != nil {
				return err
			}
		}
		return nil
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: migrationgen [-dev-url URL] NAME")
	}
	name := fs.Arg(0)

	tmp, err := os.MkdirTemp("", "herdbook-migrationgen")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	sqliteDev := db.SQLiteDevURL(filepath.Join(tmp, "dev.db"))
	if err := write(ctx, sqliteDev, "sqlite3", filepath.Join(*root, "sqlite"), name); err != nil {
		return err
	}
	pgDev, cleanup, err := db.ScratchPostgres(ctx, *devURL)
	if err != nil {
		return err
	}
	defer cleanup()
	return write(ctx, pgDev, "postgres", filepath.Join(*root, "postgres"), name)
}

func write(ctx context.Context, devURL, dia, path, name string) error {
	dir, err := migrate.NewLocalDir(path)
	if err != nil {
		return err
	}
	wrote, err := db.Diff(ctx, devURL, dia, dir, name)
	if err != nil {
		return err
	}
	if wrote {
		fmt.Printf("%s: wrote a new migration %q\n", path, name)
	} else {
		fmt.Printf("%s: already matches the schema\n", path)
	}
	return nil
}

func writeSum(path string) error {
	dir, err := migrate.NewLocalDir(path)
	if err != nil {
		return err
	}
	sum, err := dir.Checksum()
	if err != nil {
		return err
	}
	if err := migrate.WriteSumFile(dir, sum); err != nil {
		return err
	}
	fmt.Printf("%s: atlas.sum rewritten (%d files)\n", path, len(sum))
	return nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
