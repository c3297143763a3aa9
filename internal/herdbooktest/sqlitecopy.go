package herdbooktest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
)

// A test's SQLite database is a copy of one migrated once per test process: its 32
// migrations take 0.17 s, and a test process opens hundreds of databases, where writing the
// migrated file's bytes takes a millisecond. The copy is the same file a test would get by
// migrating its own: Migrate's record of the migrations included.
var sqliteTemplate struct {
	once  sync.Once
	bytes []byte
	err   error
}

// migratedSQLite answers the URL of a new SQLite database in the test's temporary directory,
// with every migration applied.
func migratedSQLite(tb testing.TB) string {
	tb.Helper()
	t := &sqliteTemplate
	t.once.Do(func() { t.bytes, t.err = migrateTemplate() })
	if t.err != nil {
		tb.Fatalf("migrate the SQLite template: %v", t.err)
	}
	path := filepath.Join(tb.TempDir(), "test.db")
	if err := os.WriteFile(path, t.bytes, 0o600); err != nil {
		tb.Fatal(err)
	}
	return "sqlite://" + path
}

// migrateTemplate migrates a database in a directory of its own, closes it (SQLite then folds
// its write-ahead log into the file and removes the log) and answers the file's bytes.
func migrateTemplate() ([]byte, error) {
	dir, err := os.MkdirTemp("", "herdbook-sqlite-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "template.db")
	ctx := context.Background()
	d, err := db.Open(ctx, "sqlite://"+path)
	if err != nil {
		return nil, err
	}
	if _, err := d.Migrate(ctx, nil); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.Close(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		return nil, fmt.Errorf("%s-wal is left after the database closed", path)
	}
	return os.ReadFile(path)
}
