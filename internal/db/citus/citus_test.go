package citus_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"ariga.io/atlas/sql/migrate"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/db/citus"
)

// EnvCitus names the coordinator of a test cluster (scripts/citus.sh), e.g.
// postgres://127.0.0.1:9700/test?sslmode=disable; the tests of the layout skip without it.
const EnvCitus = "HERDBOOK_TEST_CITUS_URL"

// TestLayout migrates a scratch schema of the cluster's coordinator, writes two farms' rows as
// a database migrated before the layout holds them, then migrates again, as `herdbook migrate`
// does on a cluster: every farm table ends distributed and colocated with farms, the reference
// tables are reference tables, sign-in's tables stay on the coordinator, every row is kept and
// still loads, a link between two farms' rows is refused, a second migrate changes nothing,
// and a migration written later applies to the distributed schema.
func TestLayout(t *testing.T) {
	base := os.Getenv(EnvCitus)
	if base == "" {
		t.Skipf("%s is not set", EnvCitus)
	}
	ctx := context.Background()
	url, cleanup, err := db.ScratchPostgres(ctx, base)
	if err != nil {
		t.Fatalf("coordinator at %s: %v", EnvCitus, err)
	}
	t.Cleanup(cleanup)
	d, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	exec := func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := d.SQL.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}

	// Every migration, without the layout (MigrateTo a version stops before it).
	dir, err := db.Dir(d.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	files, err := dir.Files()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.MigrateTo(ctx, files[len(files)-1].Version(), nil); err != nil {
		t.Fatal(err)
	}
	if k := kinds(t, d); len(k) != 0 {
		t.Fatalf("tables laid out before the layout: %v", k)
	}
	const ts = "now(), now()"
	id := func(prefix, f string) string { return prefix + "0000000-0000-4000-8000-00000000000" + f }
	exec("INSERT INTO users (id, created_at, updated_at, phone_number_local) VALUES ('" + id("e", "1") + "', " + ts + ", '0600000001')")
	for _, f := range []string{"1", "2"} {
		exec("INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('"+id("f", f)+"', "+ts+", true, 'F"+f+"', 'CATTLE')",
			"INSERT INTO farm_members (id, created_at, updated_at, role, farm_id, user_id) VALUES ('"+id("9", f)+"', "+ts+", 'OWNER', '"+id("f", f)+"', '"+id("e", "1")+"')",
			"INSERT INTO animals (id, created_at, updated_at, is_active, tag, farm_id) VALUES ('"+id("a", f)+"', "+ts+", true, 'T"+f+"', '"+id("f", f)+"')",
			"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('"+id("c", f)+"', "+ts+", true, 'HEALTH', 'r"+f+"', now(), '"+id("f", f)+"')",
			"INSERT INTO record_items (id, created_at, updated_at, is_active, record_id, farm_id) VALUES ('"+id("b", f)+"', "+ts+", true, '"+id("c", f)+"', '"+id("f", f)+"')",
			"INSERT INTO record_animals (record_id, animal_id, farm_id) VALUES ('"+id("c", f)+"', '"+id("a", f)+"', '"+id("f", f)+"')",
			"INSERT INTO files (id, created_at, updated_at, is_active, name, mime_type, size, storage_key, farm_id) VALUES ('"+id("d", f)+"', "+ts+", true, 'p.jpg', 'image/jpeg', 1, 'k"+f+"', '"+id("f", f)+"')",
			// As the shared benchmark harness attaches files: the farm from plain PostgreSQL's trigger.
			"INSERT INTO file_records (file_id, record_id) VALUES ('"+id("d", f)+"', '"+id("c", f)+"')")
	}
	tables := append(slices.Clone(citus.FarmTables), citus.ReferenceTables...)
	before := counts(t, d, tables)

	var told []string
	n, err := d.Migrate(ctx, func(v, desc string) { told = append(told, v+" "+desc) })
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("citus distributed layout of %d tables", len(citus.FarmTables)+len(citus.ReferenceTables))
	if n != 0 || !slices.Equal(told, []string{want}) {
		t.Fatalf("migrate applied %d and told %q, want 0 and %q", n, told, want)
	}

	t.Run("Kinds", func(t *testing.T) {
		k := kinds(t, d)
		for _, tb := range citus.FarmTables {
			if k[tb] != "distributed "+citus.DistributionColumn(tb)+" colocated" {
				t.Errorf("%s: %q, want distributed by %s and colocated with farms", tb, k[tb], citus.DistributionColumn(tb))
			}
		}
		for _, tb := range citus.ReferenceTables {
			if k[tb] != "reference" {
				t.Errorf("%s: %q, want a reference table", tb, k[tb])
			}
		}
		for _, tb := range []string{"access_tokens", "refresh_tokens", "oauth_clients", "api_keys", "browser_sessions"} {
			if k[tb] != "local" {
				t.Errorf("%s: %q, want a Citus local table on the coordinator", tb, k[tb])
			}
		}
		for _, tb := range []string{"herdbook_schema_revisions", "idempotent_requests"} {
			if k[tb] != "" {
				t.Errorf("%s: %q, want a table Citus does not know", tb, k[tb])
			}
		}
		if len(k) != len(citus.FarmTables)+len(citus.ReferenceTables)+8 {
			t.Errorf("%d tables known to Citus, want %d", len(k), len(citus.FarmTables)+len(citus.ReferenceTables)+8)
		}
	})

	t.Run("RowsKept", func(t *testing.T) {
		if after := counts(t, d, tables); !mapsEqual(before, after) {
			t.Errorf("rows per table before the layout %v, after %v", before, after)
		}
		// A record with its items, animals and files, every join naming the farm: one shard's.
		var tag, file string
		var items int
		err := d.SQL.QueryRowContext(ctx, `SELECT a.tag, f.storage_key, (SELECT count(*) FROM record_items i WHERE i.farm_id = r.farm_id AND i.record_id = r.id)
			FROM records r JOIN record_animals ra ON ra.farm_id = r.farm_id AND ra.record_id = r.id
			JOIN animals a ON a.farm_id = ra.farm_id AND a.id = ra.animal_id
			JOIN file_records fr ON fr.farm_id = r.farm_id AND fr.record_id = r.id
			JOIN files f ON f.farm_id = fr.farm_id AND f.id = fr.file_id
			WHERE r.farm_id = $1 AND r.id = $2`, id("f", "2"), id("c", "2")).Scan(&tag, &file, &items)
		if err != nil || tag != "T2" || file != "k2" || items != 1 {
			t.Errorf("record r2 joins animal %q, file %q, %d items, %v", tag, file, items, err)
		}
		// ent finds a record by id alone, on every shard, which the cluster answers.
		if r, err := d.Client.Record.Get(ctx, uuid.MustParse(id("c", "1"))); err != nil || r.Name != "r1" {
			t.Errorf("record r1 by id: %v, %v", r, err)
		}
	})

	t.Run("CrossFarmLinksRefused", func(t *testing.T) {
		for _, q := range []string{
			// Farm 1's record with farm 2's animal, file or item.
			"INSERT INTO record_animals (record_id, animal_id, farm_id) VALUES ('" + id("c", "1") + "', '" + id("a", "2") + "', '" + id("f", "1") + "')",
			"INSERT INTO file_records (file_id, record_id, farm_id) VALUES ('" + id("d", "2") + "', '" + id("c", "1") + "', '" + id("f", "1") + "')",
			"INSERT INTO fact_animals (id, animal_id, record_item_id, farm_id) VALUES (gen_random_uuid(), '" + id("a", "1") + "', '" + id("b", "2") + "', '" + id("f", "1") + "')",
		} {
			_, err := d.SQL.ExecContext(ctx, q)
			if err == nil || !strings.Contains(err.Error(), "foreign key") {
				t.Errorf("%s: %v, want a foreign key violation", q, err)
			}
		}
		// Without its farm a link has no shard: plain PostgreSQL's trigger is gone.
		if _, err := d.SQL.ExecContext(ctx, "INSERT INTO file_records (file_id, record_id) VALUES ('"+id("d", "1")+"', '"+id("c", "2")+"')"); err == nil {
			t.Error("a file link without its farm was accepted")
		}
	})

	t.Run("SecondMigrateChangesNothing", func(t *testing.T) {
		snap := snapshot(t, d)
		var told []string
		n, err := d.Migrate(ctx, func(v, desc string) { told = append(told, v+" "+desc) })
		if err != nil || n != 0 || len(told) != 0 {
			t.Fatalf("second migrate: %d applied, told %q, %v", n, told, err)
		}
		if again := snapshot(t, d); again != snap {
			t.Errorf("schema changed by a second migrate:\n%s\nthen\n%s", snap, again)
		}
	})

	t.Run("LaterMigration", func(t *testing.T) {
		// A migration as a later release brings one: a column and an index on a distributed
		// table and a backfill joining colocated tables on their farm (docs/scaling.md).
		later := &migrate.MemDir{}
		for _, f := range files {
			if err := later.WriteFile(f.Name(), f.Bytes()); err != nil {
				t.Fatal(err)
			}
		}
		if err := later.WriteFile("99991231000000_later.sql", []byte(`ALTER TABLE "animals" ADD COLUMN "later_note" character varying NULL;
CREATE INDEX "animal_farm_id_later_note" ON "animals" ("farm_id", "later_note");
UPDATE "animals" AS "a" SET "later_note" = "f"."name" FROM "farms" AS "f" WHERE "f"."id" = "a"."farm_id";
`)); err != nil {
			t.Fatal(err)
		}
		sum, err := later.Checksum()
		if err != nil {
			t.Fatal(err)
		}
		if err := migrate.WriteSumFile(later, sum); err != nil {
			t.Fatal(err)
		}
		var told []string
		n, err := d.MigrateDir(ctx, later, func(v, desc string) { told = append(told, v+" "+desc) })
		if err != nil || n != 1 || !slices.Equal(told, []string{"99991231000000 later"}) {
			t.Fatalf("later migration: %d applied, told %q, %v", n, told, err)
		}
		var note string
		if err := d.SQL.QueryRowContext(ctx, "SELECT later_note FROM animals WHERE farm_id = $1 AND id = $2", id("f", "2"), id("a", "2")).Scan(&note); err != nil || note != "F2" {
			t.Errorf("animal 2's later_note %q, %v, want F2", note, err)
		}
		if k := kinds(t, d); k["animals"] != "distributed farm_id colocated" {
			t.Errorf("animals after the later migration: %q", k["animals"])
		}
	})
}

// kinds describes each table of the scratch schema that Citus knows: "reference", "local",
// or "distributed COLUMN colocated" when it is in farms' colocation group.
func kinds(t *testing.T, d *db.DB) map[string]string {
	t.Helper()
	rows, err := d.SQL.QueryContext(context.Background(), `SELECT c.relname, CASE
		WHEN p.partmethod = 'h' THEN 'distributed ' || a.attname || CASE WHEN p.colocationid = (SELECT colocationid
			FROM pg_dist_partition WHERE logicalrelid = to_regclass('farms')) THEN ' colocated' ELSE ' elsewhere' END
		WHEN p.repmodel = 't' THEN 'reference' ELSE 'local' END
		FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
		LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = (SELECT attnum FROM pg_attribute
			WHERE attrelid = c.oid AND attname = column_to_column_name(p.logicalrelid, p.partkey))
		WHERE c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var name, kind string
		if err := rows.Scan(&name, &kind); err != nil {
			t.Fatal(err)
		}
		m[name] = kind
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// counts is the number of rows of each table.
func counts(t *testing.T, d *db.DB, tables []string) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, tb := range tables {
		var n int
		if err := d.SQL.QueryRowContext(context.Background(), `SELECT count(*) FROM "`+tb+`"`).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", tb, err)
		}
		m[tb] = n
	}
	return m
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// snapshot is the scratch schema's constraints, indexes, triggers and Citus's knowledge of
// its tables, as text to compare.
func snapshot(t *testing.T, d *db.DB) string {
	t.Helper()
	var s string
	err := d.SQL.QueryRowContext(context.Background(), `SELECT
		(SELECT string_agg(conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid), E'\n' ORDER BY 1)
			FROM pg_constraint WHERE connamespace = current_schema()::regnamespace) || E'\n' ||
		(SELECT string_agg(indexdef, E'\n' ORDER BY indexdef) FROM pg_indexes WHERE schemaname = current_schema()) || E'\n' ||
		(SELECT coalesce(string_agg(tgname, ' ' ORDER BY tgname), '') FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
			WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal) || E'\n' ||
		(SELECT string_agg(logicalrelid::regclass || ' ' || partmethod::text || ' ' || colocationid || ' ' || repmodel::text, E'\n' ORDER BY 1)
			FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid WHERE c.relnamespace = current_schema()::regnamespace)`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
