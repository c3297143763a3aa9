package db_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestScratchEmpty fills a migrated scratch schema through the service (a herd with its
// records, facts and tasks) and empties it: every table is then empty but the migrations'
// record, and the schema takes a new farm as a fresh one does. On a Citus coordinator the
// schema is laid out distributed, and the deletes run there.
func TestScratchEmpty(t *testing.T) {
	base := os.Getenv(herdbooktest.EnvPostgres)
	if base == "" {
		t.Skipf("%s is not set", herdbooktest.EnvPostgres)
	}
	ctx := context.Background()
	s, err := db.NewScratch(ctx, base, "scratch_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Drop)
	d, err := db.Open(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rows := func() map[string]int {
		t.Helper()
		tables, err := d.SQL.QueryContext(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1", s.Name)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for tables.Next() {
			var n string
			if err := tables.Scan(&n); err != nil {
				t.Fatal(err)
			}
			names = append(names, n)
		}
		tables.Close()
		if err := tables.Err(); err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, n := range names {
			var c int
			if err := d.SQL.QueryRowContext(ctx, "SELECT count(*) FROM "+n).Scan(&c); err != nil {
				t.Fatal(err)
			}
			out[n] = c
		}
		return out
	}
	for round := range 2 {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		app.MustBigHerd(u.ID, 12)
		full := rows()
		for _, table := range []string{"users", "farms", "animals", "records", "record_items", "fact_animals", "audit_entries"} {
			if full[table] == 0 {
				t.Fatalf("round %d: %s has no rows before emptying: the test fills too little", round, table)
			}
		}
		if err := s.Empty(ctx); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		// Deletes, not a TRUNCATE that gives every table and index a new file (Empty).
		if e := s.Emptying(); len(e) < 2 || !strings.HasPrefix(e[0], "DELETE FROM ") {
			t.Errorf("round %d: Empty runs %q, want a DELETE a table", round, e)
		}
		for table, n := range rows() {
			if table == "herdbook_schema_revisions" {
				if n == 0 {
					t.Errorf("round %d: the migrations' record was emptied", round)
				}
			} else if n != 0 {
				t.Errorf("round %d: %s has %d rows after Empty", round, table, n)
			}
		}
	}
}

// TestReferencingFirst orders tables for deleting: each before the tables it references, and
// no order at all when the keys make a cycle.
func TestReferencingFirst(t *testing.T) {
	tables := []string{"animals", "farms", "fact_animals", "facts", "users"}
	keys := []string{"animals farms", "fact_animals animals", "fact_animals facts", "facts farms", "farms users"}
	order, ok := db.ReferencingFirst(tables, keys)
	if !ok || len(order) != len(tables) {
		t.Fatalf("order %v, %v", order, ok)
	}
	for _, k := range keys {
		from, to, _ := strings.Cut(k, " ")
		if slices.Index(order, from) > slices.Index(order, to) {
			t.Errorf("%v deletes %s before %s, which references it", order, to, from)
		}
	}
	if _, ok := db.ReferencingFirst(tables, append(keys, "users fact_animals")); ok {
		t.Error("a cycle of keys gave an order")
	}
}
