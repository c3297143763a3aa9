package db

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
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
	s, err := NewScratch(ctx, base, "scratch_")
	if err != nil {
		return "", nil, err
	}
	return s.URL, s.Drop, nil
}

// Scratch is a schema of its own in a PostgreSQL database, for a test: URL is bound to it
// through search_path. The tests on a Citus cluster keep theirs once laid out and hand it,
// emptied, to the next test (herdbooktest.MustDB): laying a schema out there takes seconds.
type Scratch struct {
	URL, Name string
	admin     *DB
	// deletes empty the schema (Empty), worked out at its first emptying.
	deletes []string
}

// NewScratch creates a schema in the database at base, named prefix and 16 random hex digits.
func NewScratch(ctx context.Context, base, prefix string) (*Scratch, error) {
	name := prefix + randomHex(8)
	admin, err := Open(ctx, base)
	if err != nil {
		return nil, err
	}
	if _, err := admin.SQL.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		admin.Close()
		return nil, err
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return &Scratch{URL: base + sep + "search_path=" + name, Name: name, admin: admin}, nil
}

// Drop drops the schema and everything in it.
func (s *Scratch) Drop() {
	dropScratch(s.admin, s.Name)
	s.admin.Close()
}

// DropSchemas drops the schemas of the database at base named LIKE like that pick chooses
// among them (called once, after they are listed): the scratch schemas a test process left
// behind when it ended.
func DropSchemas(ctx context.Context, base, like string, pick func(names []string) ([]string, error)) (int, error) {
	admin, err := Open(ctx, base)
	if err != nil {
		return 0, err
	}
	defer admin.Close()
	names, err := queryStrings(ctx, admin.SQL, "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1", like)
	if err != nil {
		return 0, err
	}
	if names, err = pick(names); err != nil {
		return 0, err
	}
	for _, n := range names {
		dropScratch(admin, n)
	}
	return len(names), nil
}

// Empty deletes every row of the schema but its migrations' record: the schema is then as a
// fresh one laid out by Migrate. It waits at most a few seconds for a table's lock (a
// connection the test left open), and fails rather than wait longer.
//
// It deletes table by table, those that reference others first, in one transaction. A
// TRUNCATE of every table would do the same in one statement, but it gives each table and
// index of every shard a new file: on a Citus coordinator with two workers it took 0.9 s and
// 1.1 s of processor time for the 49 tables, against 0.06 s and 0.08 s for the deletes of a
// test's few rows (docs/scaling.md, "The suite on the cluster"). When a plain delete would
// not leave the schema as a fresh one (a sequence to restart, a trigger that would fire, a
// cycle of foreign keys), Empty truncates instead.
func (s *Scratch) Empty(ctx context.Context) error {
	conn, err := s.admin.SQL.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if s.deletes == nil {
		// Kept only once worked out: after a failed query the next Empty asks again rather
		// than taking an empty plan for a schema with nothing to delete.
		deletes, err := s.emptying(ctx, conn)
		if err != nil {
			return err
		}
		s.deletes = deletes
	}
	if len(s.deletes) == 0 {
		return nil
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '5s'"); err != nil {
		return err
	}
	// Citus refuses a write to a reference table after a parallel write to a distributed
	// table that references it in the same transaction: one connection per worker, in turn.
	if s.admin.Citus {
		if _, err := tx.ExecContext(ctx, "SET LOCAL citus.multi_shard_modify_mode = 'sequential'"); err != nil {
			return err
		}
	}
	for _, q := range s.deletes {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("empty schema %s: %w", s.Name, err)
		}
	}
	return tx.Commit()
}

// emptying answers the statements that empty the schema (Empty): a DELETE a table, those
// that reference others before those they reference, or one TRUNCATE of every table when
// deletes would not do. The schema's shape does not change between tests (the pool checks its
// fingerprint), so Empty works this out once. A schema without tables answers an empty,
// non-nil list: nothing to run, and nothing to work out again.
func (s *Scratch) emptying(ctx context.Context, q citus.Queryer) ([]string, error) {
	tables, err := queryStrings(ctx, q, `SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relname <> $2 ORDER BY c.relname`, s.Name, revisionTable)
	if err != nil {
		return nil, err
	}
	if len(tables) == 0 {
		return []string{}, nil
	}
	truncate := []string{"TRUNCATE " + strings.Join(tables, ", ") + " RESTART IDENTITY CASCADE"}
	// Sequences to restart, or triggers a DELETE would fire (tgtype's bit 8): truncate.
	others, err := queryStrings(ctx, q, `SELECT 'sequence' FROM pg_sequences WHERE schemaname = $1
		UNION ALL SELECT 'trigger' FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND NOT t.tgisinternal AND t.tgtype & 8 <> 0`, s.Name)
	if err != nil {
		return nil, err
	}
	if len(others) > 0 {
		return truncate, nil
	}
	// Each foreign key between two tables of the schema, as "referencing referenced".
	keys, err := queryStrings(ctx, q, `SELECT n.nspname || '.' || a.relname || ' ' || m.nspname || '.' || b.relname
		FROM pg_constraint k JOIN pg_class a ON a.oid = k.conrelid JOIN pg_namespace n ON n.oid = a.relnamespace
		JOIN pg_class b ON b.oid = k.confrelid JOIN pg_namespace m ON m.oid = b.relnamespace
		WHERE k.contype = 'f' AND n.nspname = $1 AND k.conrelid <> k.confrelid`, s.Name)
	if err != nil {
		return nil, err
	}
	order, ok := referencingFirst(tables, keys)
	if !ok {
		return truncate, nil
	}
	deletes := make([]string, len(order))
	for i, t := range order {
		deletes[i] = "DELETE FROM " + t
	}
	return deletes, nil
}

// referencingFirst orders tables so that each comes before every table it references (keys
// are "referencing referenced" pairs); false when the keys make a cycle.
func referencingFirst(tables, keys []string) ([]string, bool) {
	referencedBy := map[string][]string{}
	for _, k := range keys {
		from, to, _ := strings.Cut(k, " ")
		referencedBy[to] = append(referencedBy[to], from)
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var order []string // a table after every table that references it
	var visit func(t string) bool
	visit = func(t string) bool {
		switch state[t] {
		case visiting:
			return false
		case done:
			return true
		}
		state[t] = visiting
		for _, r := range referencedBy[t] {
			if !visit(r) {
				return false
			}
		}
		state[t] = done
		order = append(order, t)
		return true
	}
	for _, t := range tables {
		if !visit(t) {
			return nil, false
		}
	}
	return order, true
}

// Fingerprint sums up the schema's shape: its tables' columns, constraints, indexes and
// triggers, the migrations it records and, on a Citus cluster, how each table is laid out.
// Two schemas made by the same migrations have the same fingerprint; a test that altered its
// schema changes it, and its schema is then dropped rather than handed to another test.
func (s *Scratch) Fingerprint(ctx context.Context) (string, error) {
	parts := []string{`
		SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull
			|| ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0 AND NOT a.attisdropped`, `
		SELECT 'constraint ' || c.relname || '.' || k.conname || ' ' || pg_get_constraintdef(k.oid)
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1`, `
		SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = $1`, `
		SELECT 'trigger ' || c.relname || '.' || t.tgname
		FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND NOT t.tgisinternal`, `
		SELECT 'relation ' || c.relname || ' ' || c.relkind::text
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1`, `
		SELECT 'revision ' || version FROM ` + s.Name + "." + revisionTable,
	}
	if s.admin.Citus {
		parts = append(parts, `
		SELECT 'distributed ' || c.relname || ' ' || p.partmethod::text || ' ' || p.repmodel::text || ' '
			|| coalesce(column_to_column_name(p.logicalrelid, p.partkey), '')
			|| ' ' || (SELECT count(*) FROM pg_dist_shard s WHERE s.logicalrelid = p.logicalrelid)
		FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1`)
	}
	var sum string
	q := "SELECT coalesce(md5(string_agg(replace(line, $1 || '.', ''), E'\\n' ORDER BY line)), '') FROM (" +
		strings.Join(parts, " UNION ALL ") + ") AS shape(line)"
	if err := s.admin.SQL.QueryRowContext(ctx, q, s.Name).Scan(&sum); err != nil {
		return "", fmt.Errorf("fingerprint schema %s: %w", s.Name, err)
	}
	return sum, nil
}

// queryStrings runs a query of one text column and returns its rows.
func queryStrings(ctx context.Context, q citus.Queryer, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
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
	if admin.Citus {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err == nil {
			defer conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", migrationLockID) //nolint:errcheck
		}
	}
	_, _ = conn.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+name+" CASCADE")
}
