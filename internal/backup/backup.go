// Package backup writes consistent snapshots of a Herdbook installation (its database and
// its local file store) while the server runs, and restores them into an empty data
// directory or database (docs/operations.md).
//
// A backup is a directory:
//
//	manifest.json    what it holds: format, dialect, schema revision, time, files with SHA-256
//	herdbook.db      SQLite: a consistent copy made with VACUUM INTO
//	herdbook.pgdump  PostgreSQL: pg_dump's custom format (one snapshot transaction)
//	blobs/…          the local file store's files, when it is local
//
// The database is copied first and the blobs after it, so every file row of the snapshot
// finds its bytes: a blob is on disk before the row that names it commits, and deleted
// files' bytes are kept for the retention period.
package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"entgo.io/ent/dialect"

	"github.com/herdbook/herdbook/internal/db"
)

// Format is the version of the backup layout this package writes and reads.
const Format = 1

// Names of the parts of a backup directory.
const (
	ManifestName = "manifest.json"
	SQLiteName   = "herdbook.db"
	PGDumpName   = "herdbook.pgdump"
	BlobsDir     = "blobs"
)

// Manifest describes a backup.
type Manifest struct {
	Format    int       `json:"format"`
	Dialect   string    `json:"dialect"`
	CreatedAt time.Time `json:"created_at"`
	// Revision is the newest migration the database had applied.
	Revision string `json:"revision"`
	// Schema is the PostgreSQL schema dumped ("" for the default search path).
	Schema    string `json:"schema,omitempty"`
	Blobs     int    `json:"blobs"`
	BlobBytes int64  `json:"blob_bytes"`
	// Files maps each file of the backup (slash-separated, relative) to its SHA-256.
	Files map[string]string `json:"files"`
}

// Options say where the installation's parts are.
type Options struct {
	// DatabaseURL is the database to copy or restore into (postgres://… or sqlite://PATH).
	DatabaseURL string
	// BlobDir is the local file store's directory; "" when files live elsewhere (S3), which
	// the backup then leaves to that service's own tools.
	BlobDir string
	// Progress, when set, is told about each step.
	Progress func(step string)
}

func (o Options) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

// Create writes a backup of the installation into dir, which must not exist or be empty.
func Create(ctx context.Context, d *db.DB, dir string, o Options) (Manifest, error) {
	if err := emptyDir(dir); err != nil {
		return Manifest{}, err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return Manifest{}, err
	}
	m := Manifest{Format: Format, Dialect: d.Dialect, CreatedAt: time.Now().UTC(), Files: map[string]string{}}
	rev, err := revision(ctx, d)
	if err != nil {
		return Manifest{}, err
	}
	m.Revision = rev
	switch d.Dialect {
	case dialect.SQLite:
		o.progress("copying the SQLite database with VACUUM INTO")
		// VACUUM INTO reads the database in one read transaction: a consistent copy while
		// the server goes on writing (WAL mode lets both proceed).
		if _, err := d.SQL.ExecContext(ctx, "VACUUM INTO ?", filepath.Join(dir, SQLiteName)); err != nil {
			return Manifest{}, fmt.Errorf("backup: VACUUM INTO: %w", err)
		}
	case dialect.Postgres:
		conn, schema, err := libpqURL(o.DatabaseURL)
		if err != nil {
			return Manifest{}, err
		}
		m.Schema = schema
		args := []string{"--format=custom", "--no-owner", "--no-privileges", "--file=" + filepath.Join(dir, PGDumpName)}
		if schema != "" {
			args = append(args, "--schema="+schema)
		}
		o.progress("dumping the PostgreSQL database with pg_dump (one snapshot)")
		if err := runTool(ctx, "pg_dump", append(args, "--dbname="+conn)...); err != nil {
			return Manifest{}, err
		}
	default:
		return Manifest{}, fmt.Errorf("backup: unsupported dialect %q", d.Dialect)
	}
	if o.BlobDir != "" {
		o.progress("copying files from %s", o.BlobDir)
		n, size, err := copyTree(o.BlobDir, filepath.Join(dir, BlobsDir), func(name string) bool {
			return !strings.HasPrefix(filepath.Base(name), ".upload-") // uploads in flight
		})
		if err != nil {
			return Manifest{}, fmt.Errorf("backup: files: %w", err)
		}
		m.Blobs, m.BlobBytes = n, size
	}
	if m.Files, err = hashTree(dir); err != nil {
		return Manifest{}, err
	}
	return m, writeManifest(dir, m)
}

// Read reads and verifies a backup's manifest: every file it lists is there with its hash.
func Read(dir string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return m, fmt.Errorf("backup: %s is not a Herdbook backup: %w", dir, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("backup: %s: %w", ManifestName, err)
	}
	if m.Format != Format {
		return m, fmt.Errorf("backup: format %d, this herdbook reads format %d", m.Format, Format)
	}
	got, err := hashTree(dir)
	if err != nil {
		return m, err
	}
	for name, sum := range m.Files {
		if got[name] != sum {
			return m, fmt.Errorf("backup: %s is missing or damaged (SHA-256 differs from the manifest)", name)
		}
	}
	return m, nil
}

// Restore brings the backup in dir back into an empty database and file store.
func Restore(ctx context.Context, dir string, o Options) (Manifest, error) {
	m, err := Read(dir)
	if err != nil {
		return m, err
	}
	switch m.Dialect {
	case dialect.SQLite:
		path, ok := strings.CutPrefix(o.DatabaseURL, "sqlite://")
		if !ok {
			return m, fmt.Errorf("restore: the backup is of SQLite; the target must be sqlite://PATH, got another database")
		}
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
			return m, fmt.Errorf("restore: %s already exists; restore into an empty data directory", path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return m, err
		}
		o.progress("copying the database to %s", path)
		if err := copyFile(filepath.Join(dir, SQLiteName), path); err != nil {
			return m, err
		}
	case dialect.Postgres:
		if !strings.HasPrefix(o.DatabaseURL, "postgres://") && !strings.HasPrefix(o.DatabaseURL, "postgresql://") {
			return m, fmt.Errorf("restore: the backup is of PostgreSQL; the target must be postgres://…")
		}
		d, err := db.Open(ctx, o.DatabaseURL)
		if err != nil {
			return m, err
		}
		_, err = revision(ctx, d)
		d.Close()
		if err == nil {
			return m, fmt.Errorf("restore: the target database already holds a Herdbook schema; restore into an empty database")
		}
		conn, _, err := libpqURL(o.DatabaseURL)
		if err != nil {
			return m, err
		}
		o.progress("restoring with pg_restore")
		if err := runTool(ctx, "pg_restore", "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
			"--dbname="+conn, filepath.Join(dir, PGDumpName)); err != nil {
			return m, err
		}
	default:
		return m, fmt.Errorf("restore: unsupported dialect %q", m.Dialect)
	}
	if m.Blobs > 0 {
		if o.BlobDir == "" {
			return m, fmt.Errorf("restore: the backup holds %d files but no local file store is configured", m.Blobs)
		}
		if err := emptyDir(o.BlobDir); err != nil {
			return m, err
		}
		o.progress("copying %d files to %s", m.Blobs, o.BlobDir)
		if _, _, err := copyTree(filepath.Join(dir, BlobsDir), o.BlobDir, nil); err != nil {
			return m, err
		}
	}
	return m, nil
}

// revision is the newest migration applied; an error when the database has no Herdbook schema.
func revision(ctx context.Context, d *db.DB) (string, error) {
	var v string
	err := d.SQL.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), '') FROM herdbook_schema_revisions").Scan(&v)
	if err != nil {
		return "", fmt.Errorf("backup: the database has no Herdbook schema: %w", err)
	}
	return v, nil
}

// libpqURL turns a Herdbook PostgreSQL URL into one pg_dump understands, and returns the
// schema it names with search_path (a pgx run-time parameter that libpq does not take).
func libpqURL(raw string) (string, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("backup: bad database URL")
	}
	q := u.Query()
	schema := q.Get("search_path")
	q.Del("search_path")
	if schema != "" {
		q.Set("options", "-csearch_path="+schema)
	}
	u.RawQuery = q.Encode()
	return u.String(), schema, nil
}

func runTool(ctx context.Context, name string, args ...string) error {
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("backup: %s is not installed; install PostgreSQL's client tools (docs/operations.md)", name)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("backup: %s: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// emptyDir checks that dir does not exist or holds nothing.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is not empty", dir)
	}
	return nil
}

func copyTree(from, to string, keep func(string) bool) (n int, size int64, err error) {
	err = filepath.WalkDir(from, func(path string, e fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while we walked: a purged file
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o750)
		}
		if keep != nil && !keep(path) {
			return nil
		}
		if err := copyFile(path, filepath.Join(to, rel)); errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		fi, err := e.Info()
		if err == nil {
			size += fi.Size()
		}
		n++
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil // no file store yet
	}
	return n, size, err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o750); err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func hashTree(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if rel == ManifestName {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		out[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	return out, err
}

func writeManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestName), append(b, '\n'), 0o640)
}
