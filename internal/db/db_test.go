package db_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ariga.io/atlas/sql/migrate"
	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/factanimal"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/filerecord"
	"github.com/herdbook/herdbook/ent/migrate/migrations"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/db/citus"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestMigrationsMatchSchema replays each dialect's migrations on a scratch database and fails
// when the ent schema has changes that no migration carries: run
// `go run ./internal/db/migrationgen NAME` after changing ent/schema.
func TestMigrationsMatchSchema(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			entDialect, sub := "sqlite3", "sqlite"
			devURL := db.SQLiteDevURL(filepath.Join(t.TempDir(), "dev.db"))
			if dia == "postgres" {
				entDialect, sub = "postgres", "postgres"
				devURL = herdbooktest.ScratchURL(t, dia)
			}
			dir := &migrate.MemDir{}
			files, err := fs.ReadDir(migrations.FS, sub)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				b, err := fs.ReadFile(migrations.FS, sub+"/"+f.Name())
				if err != nil {
					t.Fatal(err)
				}
				if err := dir.WriteFile(f.Name(), b); err != nil {
					t.Fatal(err)
				}
			}
			wrote, err := db.Diff(context.Background(), devURL, entDialect, dir, "drift")
			if err != nil {
				t.Fatal(err)
			}
			if wrote {
				all, _ := dir.Files()
				last := all[len(all)-1]
				t.Fatalf("the ent schema has changes no %s migration carries; run `go run ./internal/db/migrationgen NAME`:\n%s", sub, last.Bytes())
			}
		})
	}
}

// TestDiffDetectsDrift guards the guard: with no migrations at all, Diff must write one.
func TestDiffDetectsDrift(t *testing.T) {
	t.Parallel()
	dir := &migrate.MemDir{}
	wrote, err := db.Diff(context.Background(), db.SQLiteDevURL(filepath.Join(t.TempDir(), "dev.db")), "sqlite3", dir, "all")
	if err != nil || !wrote {
		t.Fatalf("wrote %v, err %v; want a migration for the whole schema", wrote, err)
	}
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			url := herdbooktest.ScratchURL(t, dia)
			d, err := db.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var seen []string
			n, err := d.Migrate(ctx, func(v, desc string) { seen = append(seen, v+" "+desc) })
			// On a Citus cluster the layout after the migrations is told too (internal/db/citus).
			seen = slices.DeleteFunc(seen, func(s string) bool { return strings.HasPrefix(s, "citus ") })
			if err != nil || n == 0 || len(seen) != n {
				t.Fatalf("first run: %d applied, %v, %v", n, seen, err)
			}
			if n, err := d.Migrate(ctx, nil); err != nil || n != 0 {
				t.Fatalf("second run applied %d (%v); want an idempotent no-op", n, err)
			}
			if _, err := d.Client.User.Query().Count(ctx); err != nil {
				t.Fatalf("schema not usable after migrating: %v", err)
			}
		})
	}
}

// TestMigrationsKeepData applies the migrations one at a time with a row in every table
// that exists so far, so that a migration which rebuilds a table (SQLite does that to
// change one) is proven to keep rows and foreign keys.
func TestMigrationsKeepData(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d, err := db.Open(ctx, herdbooktest.ScratchURL(t, dia))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			dir, err := db.Dir(d.Dialect)
			if err != nil {
				t.Fatal(err)
			}
			files, err := dir.Files()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.MigrateTo(ctx, files[0].Version(), nil); err != nil {
				t.Fatal(err)
			}
			// The first migration made users, clients and tokens: keep one of each.
			for _, q := range []struct{ sql string }{
				{"INSERT INTO users (id, created_at, updated_at, is_active, phone_number_local) VALUES ('11111111-1111-4111-8111-111111111111', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '+1000')"},
				{"INSERT INTO oauth_clients (id, created_at, updated_at, is_active, client_id, name, scopes, public, observer) VALUES ('22222222-2222-4222-8222-222222222222', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'c', 'c', '[]', false, false)"},
				{"INSERT INTO access_tokens (id, created_at, updated_at, token_hash, scopes, expires_at, user_id, client_id) VALUES ('33333333-3333-4333-8333-333333333333', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 'h', '[]', CURRENT_TIMESTAMP, '11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222')"},
			} {
				if _, err := d.SQL.ExecContext(ctx, q.sql); err != nil {
					t.Fatalf("%s: %v", q.sql, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := d.SQL.QueryRowContext(ctx, "SELECT COUNT(*) FROM access_tokens WHERE token_hash = 'h'").Scan(&n); err != nil || n != 1 {
				t.Fatalf("the token row did not survive the later migrations: %d, %v", n, err)
			}
			if dia == "sqlite" {
				var fk int
				if err := d.SQL.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
					t.Fatalf("foreign keys are %d after migrating (%v); want them back on", fk, err)
				}
			}
		})
	}
}

// TestMigrateConcurrently starts several nodes against one fresh database at once: each
// migration must be applied exactly once.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		if dia != "postgres" {
			continue // one SQLite file has one process; the advisory lock is PostgreSQL's
		}
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			url := herdbooktest.ScratchURL(t, dia)
			var g errgroup.Group
			applied := make([]int, 4)
			for i := range applied {
				g.Go(func() error {
					d, err := db.Open(ctx, url)
					if err != nil {
						return err
					}
					defer d.Close()
					applied[i], err = d.Migrate(ctx, nil)
					return err
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, n := range applied {
				total += n
			}
			dir, _ := db.Dir("postgres")
			files, _ := dir.Files()
			if total != len(files) {
				t.Fatalf("applied %v in all, want each of %d migrations once", applied, len(files))
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct{ name, url string }{
		{"ErrUnknownScheme", "mysql://localhost/x"},
		{"ErrSQLiteNoPath", "sqlite://"},
		{"ErrPostgresUnreachable", "postgres://user:secret@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Open(ctx, tc.url)
			if err == nil {
				t.Fatal("want an error")
			}
			if s := err.Error(); strings.Contains(s, "secret") {
				t.Fatalf("the error leaks the password: %s", s)
			}
		})
	}
}

// TestRegisterMigrationLinksStoredFacts: the migration that adds fact_animals links the facts
// already stored to every animal they name (subject, dam, birth sire and offspring).
func TestRegisterMigrationLinksStoredFacts(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d := migratedBefore(t, dia, "_animal_register.sql")
			const (
				dam, sire, calf1, calf2 = "d0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000002", "e0000000-0000-4000-8000-000000000003", "e0000000-0000-4000-8000-000000000004"
				birthItem, profileItem  = "a1000000-0000-4000-8000-000000000001", "a2000000-0000-4000-8000-000000000002"
			)
			birth := `{"birth_history":{"kind":"birth","dam_id":"` + dam + `","date":"2026-03-20","sire_id":"` + sire + `","offspring_ids":["` + calf1 + `","` + calf2 + `"]}}`
			profile := `{"birth_history":{"kind":"profile","animal_id":"` + dam + `","sex":"female"}}`
			for _, q := range []string{
				"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('f0000000-0000-4000-8000-000000000001', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'F', 'CATTLE')",
				"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('c0000000-0000-4000-8000-000000000001', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'GENETIC', 'r', CURRENT_TIMESTAMP, 'f0000000-0000-4000-8000-000000000001')",
				"INSERT INTO record_items (id, created_at, updated_at, is_active, metadata, fact_kind, fact_subject, fact_dam, fact_date, record_id) VALUES ('" + birthItem + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '" + birth + "', 'birth', '" + dam + "', '" + dam + "', '2026-03-20', 'c0000000-0000-4000-8000-000000000001')",
				"INSERT INTO record_items (id, created_at, updated_at, is_active, metadata, fact_kind, fact_subject, record_id) VALUES ('" + profileItem + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '" + profile + "', 'profile', '" + dam + "', 'c0000000-0000-4000-8000-000000000001')",
				"INSERT INTO record_items (id, created_at, updated_at, is_active, metadata, record_id) VALUES ('a3000000-0000-4000-8000-000000000003', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '{\"note\":\"x\"}', 'c0000000-0000-4000-8000-000000000001')",
			} {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			rows, err := d.SQL.QueryContext(ctx, "SELECT record_item_id, animal_id FROM fact_animals ORDER BY record_item_id, animal_id")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []string
			for rows.Next() {
				var item, animal string
				if err := rows.Scan(&item, &animal); err != nil {
					t.Fatal(err)
				}
				got = append(got, item[:2]+":"+animal)
			}
			want := []string{"a1:" + sire, "a1:" + dam, "a1:" + calf1, "a1:" + calf2, "a2:" + dam}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("links %v, want %v", got, want)
			}
		})
	}
}

// TestRecordCountBackfill migrates a database that has records from before the farms'
// record counts (ChangeCounter.records): the migration counts each farm's active records,
// on the farm's counter row or on a new one, so the lists' totals are exact at once.
func TestRecordCountBackfill(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d := migratedBefore(t, dia, "_join_indexes_record_count.sql")
			// Farm a has a counter row (change numbers taken) and 3 records, one deleted;
			// farm b has 2 records and no counter row; farm c has none.
			stmts := []string{
				"INSERT INTO change_counters (id, seq) VALUES ('a0000000-0000-4000-8000-000000000000', 7)",
			}
			for _, f := range []string{"a", "b", "c"} {
				stmts = append(stmts, fmt.Sprintf("INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('%s0000000-0000-4000-8000-000000000000', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '%s', 'CATTLE')", f, f))
			}
			for i, r := range []struct {
				farm   string
				active bool
			}{{"a", true}, {"a", true}, {"a", false}, {"b", true}, {"b", true}} {
				stmts = append(stmts, fmt.Sprintf("INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('00000000-0000-4000-8000-00000000000%d', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, %t, 'FEED', 'r', CURRENT_TIMESTAMP, '%s0000000-0000-4000-8000-000000000000')", i, r.active, r.farm))
			}
			for _, q := range stmts {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			for _, c := range d.Client.ChangeCounter.Query().AllX(ctx) {
				t.Logf("counter %s: seq %d records %d", c.ID, c.Seq, c.Records)
			}
			for f, want := range map[string][2]int64{"a": {7, 2}, "b": {0, 2}} {
				c, err := d.Client.ChangeCounter.Get(ctx, uuid.MustParse(f+"0000000-0000-4000-8000-000000000000"))
				if err != nil || c.Seq != want[0] || c.Records != want[1] {
					t.Fatalf("farm %s: counter %+v (%v), want seq %d and %d records", f, c, err, want[0], want[1])
				}
			}
			if n := d.Client.ChangeCounter.Query().CountX(ctx); n != 2 {
				t.Fatalf("%d counter rows, want 2 (none for a farm without records)", n)
			}
		})
	}
}

// TestIdentifierTailBackfill migrates a database whose identifier facts predate fact_tail:
// the migration indexes the last 6 digits of each stored value (fewer when it has fewer;
// none when it has no digit), which the register's last-digits search reads.
func TestIdentifierTailBackfill(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d := migratedBefore(t, dia, "_identifier_tail.sql")
			stmts := []string{
				"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('f0000000-0000-4000-8000-000000000001', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'F', 'CATTLE')",
				"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('c0000000-0000-4000-8000-000000000001', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'GENETIC', 'r', CURRENT_TIMESTAMP, 'f0000000-0000-4000-8000-000000000001')",
			}
			for i, c := range []struct{ kind, value string }{
				{"identifier", "826000301234003"}, {"identifier", "UK 123456 100001"}, {"identifier", "Y12"},
				{"identifier", "Daisy"}, {"profile", ""},
			} {
				value := "NULL"
				if c.value != "" {
					value = "'" + c.value + "'"
				}
				stmts = append(stmts, fmt.Sprintf("INSERT INTO record_items (id, created_at, updated_at, is_active, fact_kind, fact_value, record_id) VALUES ('a%d000000-0000-4000-8000-000000000000', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '%s', %s, 'c0000000-0000-4000-8000-000000000001')", i, c.kind, value))
			}
			for _, q := range stmts {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			rows, err := d.SQL.QueryContext(ctx, "SELECT fact_tail FROM record_items ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []string
			for rows.Next() {
				var tail *string
				if err := rows.Scan(&tail); err != nil {
					t.Fatal(err)
				}
				if tail == nil {
					got = append(got, "NULL")
				} else {
					got = append(got, *tail)
				}
			}
			if want := "234003 100001 12 NULL NULL"; strings.Join(got, " ") != want {
				t.Fatalf("tails %v, want %s", got, want)
			}
		})
	}
}

// TestGroupLinksBecomeMembershipFacts migrates a database whose groups have member links
// (group_animals): each link of an active animal to an active group of its farm becomes a
// dated membership fact from the migration's day, with its record, index columns and
// fact_animals link; a link already covered by a membership fact, and links of deleted
// animals, add nothing; the link table is gone afterwards.
func TestGroupLinksBecomeMembershipFacts(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d := migratedBefore(t, dia, "_group_membership_facts_treatment_reach.sql")
			const (
				farm                 = "f0000000-0000-4000-8000-000000000001"
				herd                 = "90000000-0000-4000-8000-000000000001"
				cow, calf, gone, old = "a0000000-0000-4000-8000-000000000001", "a0000000-0000-4000-8000-000000000002", "a0000000-0000-4000-8000-000000000003", "a0000000-0000-4000-8000-000000000004"
			)
			stmts := []string{
				"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('" + farm + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'F', 'CATTLE')",
				"INSERT INTO groups (id, created_at, updated_at, is_active, name, farm_id) VALUES ('" + herd + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'Herd', '" + farm + "')",
			}
			for _, a := range []struct {
				id     string
				active bool
			}{{cow, true}, {calf, true}, {gone, false}, {old, true}} {
				stmts = append(stmts,
					fmt.Sprintf("INSERT INTO animals (id, created_at, updated_at, is_active, tag, farm_id) VALUES ('%s', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, %t, 'T', '%s')", a.id, a.active, farm),
					fmt.Sprintf("INSERT INTO group_animals (group_id, animal_id) VALUES ('%s', '%s')", herd, a.id))
			}
			// old is in the herd by a fact already.
			stmts = append(stmts,
				"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('c0000000-0000-4000-8000-000000000001', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'GENETIC', 'r', CURRENT_TIMESTAMP, '"+farm+"')",
				"INSERT INTO record_items (id, created_at, updated_at, is_active, metadata, fact_kind, fact_subject, fact_group, fact_date, record_id) VALUES ('b0000000-0000-4000-8000-000000000001', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '{\"birth_history\":{\"kind\":\"membership\",\"animal_id\":\""+old+"\",\"group_id\":\""+herd+"\",\"start_date\":\"2020-01-01\"}}', 'membership', '"+old+"', '"+herd+"', '2020-01-01', 'c0000000-0000-4000-8000-000000000001')")
			for _, q := range stmts {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			items := d.Client.RecordItem.Query().Where(recorditem.FactKind("membership")).WithRecord().AllX(ctx)
			var got []string
			for _, it := range items {
				f, errs := evidence.ParseFact(it.Metadata.Field("birth_history"))
				if len(errs) > 0 {
					t.Fatalf("item %s: %v", it.ID, errs)
				}
				if it.FactSubject == nil || it.FactSubject.String() != f.AnimalID || it.FactGroup == nil || it.FactGroup.String() != herd || *it.FactDate != f.StartDate {
					t.Fatalf("item %s: index columns do not match the fact %+v", it.ID, f)
				}
				if f.AnimalID == old {
					continue
				}
				if f.StartDate != time.Now().UTC().Format(time.DateOnly) || it.Edges.Record.Name != "Register: membership" || it.Edges.Record.FarmID.String() != farm {
					t.Fatalf("moved fact %+v in record %+v", f, it.Edges.Record)
				}
				if n := d.Client.FactAnimal.Query().Where(factanimal.RecordItemID(it.ID), factanimal.AnimalID(uuid.MustParse(f.AnimalID))).CountX(ctx); n != 1 {
					t.Fatalf("fact %s has %d fact_animals links", it.ID, n)
				}
				got = append(got, f.AnimalID)
			}
			slices.Sort(got)
			if want := []string{cow, calf}; !slices.Equal(got, want) {
				t.Fatalf("moved links of %v, want %v", got, want)
			}
			if c, err := d.Client.ChangeCounter.Get(ctx, uuid.MustParse(farm)); err != nil || c.Records != 3 {
				t.Fatalf("farm counter %+v (%v), want 3 records", c, err)
			}
			if _, err := d.SQL.ExecContext(ctx, "SELECT 1 FROM group_animals"); err == nil {
				t.Fatal("group_animals still exists")
			}
		})
	}
}

// TestMedicineLabelMigrationKeepsPeriods migrates medicines from before labels could say
// "not authorised" (a null period): a stored 0 stays 0, which is authorised with a zero
// period, in the medicine, its versions and its species lines, and no product becomes a
// dry-cow product.
func TestMedicineLabelMigrationKeepsPeriods(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d := migratedBefore(t, dia, "_medicine_label_lines.sql")
			const (
				farm = "f0000000-0000-4000-8000-000000000001"
				med  = "a0000000-0000-4000-8000-000000000001"
				ver  = "a1000000-0000-4000-8000-000000000001"
			)
			lines := `[{"species":"SHEEP","withdrawal_meat_days":0,"withdrawal_milk_hours":0}]`
			for _, q := range []string{
				"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('" + farm + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'F', 'CATTLE')",
				"INSERT INTO medicines (id, created_at, updated_at, is_active, farm_id, name, version, withdrawal_meat_days, withdrawal_milk_hours, species_withdrawals) VALUES ('" + med + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '" + farm + "', 'Zero', 1, 0, 0, '" + lines + "')",
				"INSERT INTO medicine_versions (id, created_at, updated_at, medicine_id, farm_id, version, withdrawal_meat_days, withdrawal_milk_hours, species_withdrawals) VALUES ('" + ver + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, '" + med + "', '" + farm + "', 1, 0, 0, '" + lines + "')",
			} {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			zero := func(what string, p *int) {
				if p == nil || *p != 0 {
					t.Errorf("%s = %v after the migration, want 0 (authorised, zero period)", what, p)
				}
			}
			m := d.Client.Medicine.GetX(ctx, uuid.MustParse(med))
			zero("medicine meat", m.WithdrawalMeatDays)
			zero("medicine milk", m.WithdrawalMilkHours)
			if m.DryCow || len(m.SpeciesWithdrawals) != 1 {
				t.Fatalf("medicine = %+v", m)
			}
			zero("sheep meat", m.SpeciesWithdrawals[0].WithdrawalMeatDays)
			zero("sheep milk", m.SpeciesWithdrawals[0].WithdrawalMilkHours)
			v := d.Client.MedicineVersion.GetX(ctx, uuid.MustParse(ver))
			zero("version meat", v.WithdrawalMeatDays)
			zero("version milk", v.WithdrawalMilkHours)
			if v.DryCow {
				t.Error("a stored version became a dry-cow product")
			}
		})
	}
}

// TestRegistryOutboxMigrationKeepsSubmissions applies the registry outbox's migration over a
// holding with a submission recorded by hand: the submission keeps every value and has no
// batch (it was not sent by an outbox), and the holding has no credentials, so nothing is
// sent for it until its keeper saves them.
func TestRegistryOutboxMigrationKeepsSubmissions(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d := migratedBefore(t, dia, "_registry_outbox.sql")
			const (
				farm = "f0000000-0000-4000-8000-000000000002"
				hold = "b0000000-0000-4000-8000-000000000002"
				sub  = "c0000000-0000-4000-8000-000000000002"
			)
			for _, q := range []string{
				"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('" + farm + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'F', 'CATTLE')",
				"INSERT INTO holdings (id, created_at, updated_at, scheme, identifier, keeper_name, country, rule_set, herd_type, time_zone) VALUES ('" + hold + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 'uk.cph', '34/123/1234', 'K', 'GB', 'gb_cts', 'beef', 'Europe/London')",
				"INSERT INTO notice_submissions (id, created_at, updated_at, holding_id, farm_id, notice_key, kind, idempotency_key, state, channel, registry_reference, attempts) VALUES ('" + sub + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, '" + hold + "', '" + farm + "', 'move_on:x:y', 'move_on', 'k-1', 'accepted', 'manual', 'CTS-1', 0)",
			} {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			s := d.Client.NoticeSubmission.GetX(ctx, uuid.MustParse(sub))
			if s.BatchID != nil || s.State != "accepted" || s.Channel != "manual" || s.RegistryReference == nil || *s.RegistryReference != "CTS-1" || s.NoticeKey != "move_on:x:y" {
				t.Fatalf("submission after the migration: %+v", s)
			}
			if n := d.Client.RegistryCredential.Query().CountX(ctx); n != 0 {
				t.Fatalf("%d credentials", n)
			}
		})
	}
}

// TestFarmIDBesideParentsMigration applies the migration that gives record items, fact links,
// thread messages and webhook attempts a farm_id (the key a Citus cluster keeps a farm's rows
// together by, docs/scaling.md) over rows of two farms written before it: each row gets the
// farm of the row it hangs from, none is lost, and a row written afterwards without its farm
// is refused.
func TestFarmIDBesideParentsMigration(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d := migratedBefore(t, dia, "_farm_id_beside_parents.sql")
			const ts = "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP"
			var stmts []string
			for _, f := range []string{"1", "2"} {
				farm := "f0000000-0000-4000-8000-00000000000" + f
				stmts = append(stmts,
					"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('"+farm+"', "+ts+", true, 'F"+f+"', 'CATTLE')",
					"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('c0000000-0000-4000-8000-00000000000"+f+"', "+ts+", true, 'OTHER', 'r', CURRENT_TIMESTAMP, '"+farm+"')",
					"INSERT INTO record_items (id, created_at, updated_at, is_active, name, record_id) VALUES ('d0000000-0000-4000-8000-00000000000"+f+"', "+ts+", true, 'i', 'c0000000-0000-4000-8000-00000000000"+f+"')",
					"INSERT INTO fact_animals (id, animal_id, record_item_id) VALUES ('e0000000-0000-4000-8000-00000000000"+f+"', 'a0000000-0000-4000-8000-00000000000"+f+"', 'd0000000-0000-4000-8000-00000000000"+f+"')",
					"INSERT INTO threads (id, created_at, updated_at, is_active, title, is_private, farm_id) VALUES ('10000000-0000-4000-8000-00000000000"+f+"', "+ts+", true, 't', false, '"+farm+"')",
					"INSERT INTO messages (id, created_at, updated_at, is_active, author_id, body, thread_id) VALUES ('11000000-0000-4000-8000-00000000000"+f+"', "+ts+", true, '12000000-0000-4000-8000-000000000001', 'm', '10000000-0000-4000-8000-00000000000"+f+"')",
					"INSERT INTO webhook_endpoints (id, created_at, updated_at, farm_id, url, event_types, secret, enabled) VALUES ('20000000-0000-4000-8000-00000000000"+f+"', "+ts+", '"+farm+"', 'https://example.com/h', '[]', 's', true)",
					"INSERT INTO webhook_events (id, created_at, updated_at, farm_id, type, subject_id, payload) VALUES ('21000000-0000-4000-8000-00000000000"+f+"', "+ts+", '"+farm+"', 'record.created', 'c0000000-0000-4000-8000-00000000000"+f+"', '')",
					"INSERT INTO webhook_deliveries (id, created_at, updated_at, farm_id, status, attempts, next_attempt_at, endpoint_id, event_id) VALUES ('22000000-0000-4000-8000-00000000000"+f+"', "+ts+", '"+farm+"', 'PENDING', 1, CURRENT_TIMESTAMP, '20000000-0000-4000-8000-00000000000"+f+"', '21000000-0000-4000-8000-00000000000"+f+"')",
					"INSERT INTO webhook_attempts (id, created_at, updated_at, duration_ms, delivery_id) VALUES ('23000000-0000-4000-8000-00000000000"+f+"', "+ts+", 5, '22000000-0000-4000-8000-00000000000"+f+"')",
				)
			}
			for _, q := range stmts {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			for _, table := range []string{"record_items", "fact_animals", "messages", "webhook_attempts"} {
				rows, err := d.SQL.QueryContext(ctx, "SELECT farm_id FROM "+table+" ORDER BY id")
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for rows.Next() {
					var farm string
					if err := rows.Scan(&farm); err != nil {
						t.Fatal(err)
					}
					got = append(got, farm)
				}
				rows.Close()
				if want := "f0000000-0000-4000-8000-000000000001 f0000000-0000-4000-8000-000000000002"; strings.Join(got, " ") != want {
					t.Errorf("%s farm_id %v, want %s", table, got, want)
				}
			}
			if _, err := d.SQL.ExecContext(ctx, "INSERT INTO fact_animals (id, animal_id, record_item_id) VALUES ('e0000000-0000-4000-8000-000000000009', 'a0000000-0000-4000-8000-000000000009', 'd0000000-0000-4000-8000-000000000001')"); err == nil {
				t.Error("a fact link without its farm was stored")
			}
			if n := d.Client.FactAnimal.Query().CountX(ctx); n != 2 {
				t.Errorf("%d fact links after the migration, want 2", n)
			}
		})
	}
}

// TestUniqueKeysCarryFarmMigration applies the migration that puts farm_id in the unique keys
// that lacked it (a Citus cluster checks a unique key on one shard, docs/scaling.md) over
// rows written before it: the rows stay, and the keys still refuse a second fact link, label
// version or webhook delivery of the same item, medicine or event.
func TestUniqueKeysCarryFarmMigration(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d := migratedBefore(t, dia, "_farm_id_in_unique_keys.sql")
			const (
				ts   = "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP"
				farm = "f0000000-0000-4000-8000-000000000001"
			)
			link := "INSERT INTO fact_animals (id, animal_id, record_item_id, farm_id) VALUES ('%s', 'a0000000-0000-4000-8000-000000000001', 'd0000000-0000-4000-8000-000000000001', '" + farm + "')"
			version := "INSERT INTO medicine_versions (id, created_at, updated_at, medicine_id, farm_id, version, withdrawal_meat_days, withdrawal_milk_hours, species_withdrawals) VALUES ('%s', " + ts + ", 'b0000000-0000-4000-8000-000000000001', '" + farm + "', 1, 0, 0, '[]')"
			delivery := "INSERT INTO webhook_deliveries (id, created_at, updated_at, farm_id, status, attempts, next_attempt_at, endpoint_id, event_id) VALUES ('%s', " + ts + ", '" + farm + "', 'PENDING', 0, CURRENT_TIMESTAMP, '20000000-0000-4000-8000-000000000001', '21000000-0000-4000-8000-000000000001')"
			for _, q := range []string{
				"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('" + farm + "', " + ts + ", true, 'F', 'CATTLE')",
				"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('c0000000-0000-4000-8000-000000000001', " + ts + ", true, 'OTHER', 'r', CURRENT_TIMESTAMP, '" + farm + "')",
				"INSERT INTO record_items (id, created_at, updated_at, is_active, name, record_id, farm_id) VALUES ('d0000000-0000-4000-8000-000000000001', " + ts + ", true, 'i', 'c0000000-0000-4000-8000-000000000001', '" + farm + "')",
				fmt.Sprintf(link, "e0000000-0000-4000-8000-000000000001"),
				"INSERT INTO medicines (id, created_at, updated_at, is_active, farm_id, name, version, withdrawal_meat_days, withdrawal_milk_hours, species_withdrawals) VALUES ('b0000000-0000-4000-8000-000000000001', " + ts + ", true, '" + farm + "', 'M', 1, 0, 0, '[]')",
				fmt.Sprintf(version, "b1000000-0000-4000-8000-000000000001"),
				"INSERT INTO webhook_endpoints (id, created_at, updated_at, farm_id, url, event_types, secret, enabled) VALUES ('20000000-0000-4000-8000-000000000001', " + ts + ", '" + farm + "', 'https://example.com/h', '[]', 's', true)",
				"INSERT INTO webhook_events (id, created_at, updated_at, farm_id, type, subject_id, payload) VALUES ('21000000-0000-4000-8000-000000000001', " + ts + ", '" + farm + "', 'record.created', 'c0000000-0000-4000-8000-000000000001', '')",
				fmt.Sprintf(delivery, "22000000-0000-4000-8000-000000000001"),
			} {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if a, v, w := d.Client.FactAnimal.Query().CountX(ctx), d.Client.MedicineVersion.Query().CountX(ctx), d.Client.WebhookDelivery.Query().CountX(ctx); a != 1 || v != 1 || w != 1 {
				t.Fatalf("after the migration: %d fact links, %d label versions, %d deliveries; want 1 of each", a, v, w)
			}
			for _, q := range []string{
				fmt.Sprintf(link, "e0000000-0000-4000-8000-000000000002"),
				fmt.Sprintf(version, "b1000000-0000-4000-8000-000000000002"),
				fmt.Sprintf(delivery, "22000000-0000-4000-8000-000000000002"),
			} {
				if _, err := d.SQL.ExecContext(ctx, q); err == nil {
					t.Errorf("a second row was stored: %s", q)
				}
			}
		})
	}
}

// TestFarmTaskAnimalFarmMigration applies the migration that makes FarmTask.animals go through
// FarmTaskAnimal, whose links name the task's farm (docs/scaling.md), over links of two farms'
// tasks written before it: each link gets its task's farm, the tasks still load their
// animals, and deleting a task still takes its links with it.
func TestFarmTaskAnimalFarmMigration(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			farm2 := uuid.MustParse("f0000000-0000-4000-8000-000000000002")
			d := migratedBefore(t, dia, "_farm_task_animal_farm.sql")
			const ts = "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP"
			for _, f := range []string{"1", "2"} {
				farm := "f0000000-0000-4000-8000-00000000000" + f
				for _, q := range []string{
					"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('" + farm + "', " + ts + ", true, 'F" + f + "', 'CATTLE')",
					"INSERT INTO animals (id, created_at, updated_at, is_active, tag, farm_id) VALUES ('a0000000-0000-4000-8000-00000000000" + f + "', " + ts + ", true, 'T" + f + "', '" + farm + "')",
					"INSERT INTO birth_events (id, created_at, updated_at, farm_id, dam_id, birth_date, preview_id, request_id, settings_version, protocol_version) VALUES ('b0000000-0000-4000-8000-00000000000" + f + "', " + ts + ", '" + farm + "', 'a0000000-0000-4000-8000-00000000000" + f + "', '2026-03-01', 'c0000000-0000-4000-8000-00000000000" + f + "', 'r" + f + "', 0, 1)",
					"INSERT INTO farm_tasks (id, created_at, updated_at, farm_id, name, status, protocol_version, step, birth_event_id) VALUES ('d0000000-0000-4000-8000-00000000000" + f + "', " + ts + ", '" + farm + "', 'Tag the calf', 'TODO', 1, 0, 'b0000000-0000-4000-8000-00000000000" + f + "')",
					"INSERT INTO farm_task_animals (farm_task_id, animal_id) VALUES ('d0000000-0000-4000-8000-00000000000" + f + "', 'a0000000-0000-4000-8000-00000000000" + f + "')",
				} {
					if _, err := d.SQL.ExecContext(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			links := d.Client.FarmTaskAnimal.Query().AllX(ctx)
			if len(links) != 2 {
				t.Fatalf("%d links after the migration, want 2", len(links))
			}
			want := map[string]string{
				"d0000000-0000-4000-8000-000000000001": "f0000000-0000-4000-8000-000000000001",
				"d0000000-0000-4000-8000-000000000002": "f0000000-0000-4000-8000-000000000002",
			}
			for _, l := range links {
				if want[l.FarmTaskID.String()] != l.FarmID.String() {
					t.Errorf("link of task %s has farm %s, want %s", l.FarmTaskID, l.FarmID, want[l.FarmTaskID.String()])
				}
			}
			task := d.Client.FarmTask.Query().Where(farmtask.ID(uuid.MustParse("d0000000-0000-4000-8000-000000000002")), farmtask.FarmID(farm2)).
				WithAnimals(func(q *ent.AnimalQuery) { q.Where(citus.LinkedOf("farm_task_animals", farm2)) }).OnlyX(ctx)
			if len(task.Edges.Animals) != 1 || task.Edges.Animals[0].Tag != "T2" {
				t.Fatalf("task's animals after the migration: %v", task.Edges.Animals)
			}
			d.Client.FarmTask.DeleteOneID(task.ID).ExecX(ctx)
			if n := d.Client.FarmTaskAnimal.Query().CountX(ctx); n != 1 {
				t.Errorf("%d links after deleting a task, want 1", n)
			}
		})
	}
}

// TestRecordLinkFarmMigration applies the migration that makes Record.animals and
// Record.groups go through RecordAnimal and RecordGroup, whose links name the record's farm
// (docs/scaling.md), over two farms' links written before it: each link gets its record's
// farm, records still load their animals and groups, and deleting a record still takes its
// links with it.
func TestRecordLinkFarmMigration(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			farm2 := uuid.MustParse("f0000000-0000-4000-8000-000000000002")
			d := migratedBefore(t, dia, "_record_link_farm.sql")
			const ts = "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP"
			for _, f := range []string{"1", "2"} {
				farm := "f0000000-0000-4000-8000-00000000000" + f
				for _, q := range []string{
					"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('" + farm + "', " + ts + ", true, 'F" + f + "', 'CATTLE')",
					"INSERT INTO animals (id, created_at, updated_at, is_active, tag, farm_id) VALUES ('a0000000-0000-4000-8000-00000000000" + f + "', " + ts + ", true, 'T" + f + "', '" + farm + "')",
					"INSERT INTO groups (id, created_at, updated_at, is_active, name, farm_id) VALUES ('b0000000-0000-4000-8000-00000000000" + f + "', " + ts + ", true, 'G" + f + "', '" + farm + "')",
					"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('c0000000-0000-4000-8000-00000000000" + f + "', " + ts + ", true, 'OTHER', 'r', CURRENT_TIMESTAMP, '" + farm + "')",
					"INSERT INTO record_animals (record_id, animal_id) VALUES ('c0000000-0000-4000-8000-00000000000" + f + "', 'a0000000-0000-4000-8000-00000000000" + f + "')",
					"INSERT INTO record_groups (record_id, group_id) VALUES ('c0000000-0000-4000-8000-00000000000" + f + "', 'b0000000-0000-4000-8000-00000000000" + f + "')",
				} {
					if _, err := d.SQL.ExecContext(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"c0000000-0000-4000-8000-000000000001": "f0000000-0000-4000-8000-000000000001",
				"c0000000-0000-4000-8000-000000000002": "f0000000-0000-4000-8000-000000000002",
			}
			animals, groups := d.Client.RecordAnimal.Query().AllX(ctx), d.Client.RecordGroup.Query().AllX(ctx)
			if len(animals) != 2 || len(groups) != 2 {
				t.Fatalf("%d animal and %d group links after the migration, want 2 of each", len(animals), len(groups))
			}
			for _, l := range animals {
				if want[l.RecordID.String()] != l.FarmID.String() {
					t.Errorf("animal link of record %s has farm %s", l.RecordID, l.FarmID)
				}
			}
			for _, l := range groups {
				if want[l.RecordID.String()] != l.FarmID.String() {
					t.Errorf("group link of record %s has farm %s", l.RecordID, l.FarmID)
				}
			}
			r := d.Client.Record.Query().Where(record.ID(uuid.MustParse("c0000000-0000-4000-8000-000000000002")), record.FarmID(farm2)).
				WithAnimals(func(q *ent.AnimalQuery) { q.Where(citus.LinkedOf("record_animals", farm2)) }).
				WithGroups(func(q *ent.GroupQuery) { q.Where(citus.LinkedOf("record_groups", farm2)) }).OnlyX(ctx)
			if len(r.Edges.Animals) != 1 || r.Edges.Animals[0].Tag != "T2" || len(r.Edges.Groups) != 1 || r.Edges.Groups[0].Name != "G2" {
				t.Fatalf("record's animals %v and groups %v after the migration", r.Edges.Animals, r.Edges.Groups)
			}
			d.Client.Record.DeleteOneID(r.ID).ExecX(ctx)
			if a, g := d.Client.RecordAnimal.Query().CountX(ctx), d.Client.RecordGroup.Query().CountX(ctx); a != 1 || g != 1 {
				t.Errorf("%d animal and %d group links after deleting a record, want 1 of each", a, g)
			}
		})
	}
}

// TestFileRecordFarmMigration applies the migration that makes File.records go through
// FileRecord, whose links name the file's farm (docs/scaling.md), over two farms' links written
// before it: each link gets its file's farm, files and records still load each other, deleting
// a file or a record still takes its links with it, and on PostgreSQL a link inserted without
// its farm (as the shared benchmark harness writes them) gets the file's.
func TestFileRecordFarmMigration(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			farm2 := uuid.MustParse("f0000000-0000-4000-8000-000000000002")
			d := migratedBefore(t, dia, "_file_record_farm.sql")
			const ts = "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP"
			exec := func(qs ...string) {
				t.Helper()
				for _, q := range qs {
					if _, err := d.SQL.ExecContext(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
			}
			fileRow := func(f, n string) string {
				return "INSERT INTO files (id, created_at, updated_at, is_active, name, mime_type, size, storage_key, farm_id) VALUES ('d0000000-0000-4000-8000-0000000000" + n + "', " + ts + ", true, 'p.jpg', 'image/jpeg', 1, 'k" + n + "', 'f0000000-0000-4000-8000-00000000000" + f + "')"
			}
			for _, f := range []string{"1", "2"} {
				farm := "f0000000-0000-4000-8000-00000000000" + f
				exec("INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('"+farm+"', "+ts+", true, 'F"+f+"', 'CATTLE')",
					"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('c0000000-0000-4000-8000-00000000000"+f+"', "+ts+", true, 'OTHER', 'r', CURRENT_TIMESTAMP, '"+farm+"')",
					fileRow(f, f+"1"), fileRow(f, f+"2"),
					"INSERT INTO file_records (file_id, record_id) VALUES ('d0000000-0000-4000-8000-0000000000"+f+"1', 'c0000000-0000-4000-8000-00000000000"+f+"')",
					"INSERT INTO file_records (file_id, record_id) VALUES ('d0000000-0000-4000-8000-0000000000"+f+"2', 'c0000000-0000-4000-8000-00000000000"+f+"')")
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			links := d.Client.FileRecord.Query().AllX(ctx)
			if len(links) != 4 {
				t.Fatalf("%d file links after the migration, want 4", len(links))
			}
			for _, l := range links {
				if want := "f0000000-0000-4000-8000-00000000000" + l.FileID.String()[34:35]; l.FarmID.String() != want {
					t.Errorf("link of file %s has farm %s, want %s", l.FileID, l.FarmID, want)
				}
			}
			r := d.Client.Record.Query().Where(record.ID(uuid.MustParse("c0000000-0000-4000-8000-000000000002")), record.FarmID(farm2)).
				WithFiles(func(q *ent.FileQuery) { q.Where(citus.LinkedOf("file_records", farm2)) }).OnlyX(ctx)
			if len(r.Edges.Files) != 2 {
				t.Fatalf("record's files %v after the migration, want 2", r.Edges.Files)
			}
			if n := d.Client.FileRecord.Query().Where(filerecord.FileID(uuid.MustParse("d0000000-0000-4000-8000-000000000011")),
				filerecord.FarmID(uuid.MustParse("f0000000-0000-4000-8000-000000000001"))).CountX(ctx); n != 1 {
				t.Fatalf("file 11 lists %d records after the migration, want 1", n)
			}
			d.Client.File.DeleteOneID(uuid.MustParse("d0000000-0000-4000-8000-000000000021")).ExecX(ctx)
			d.Client.Record.DeleteOneID(uuid.MustParse("c0000000-0000-4000-8000-000000000001")).ExecX(ctx)
			if n := d.Client.FileRecord.Query().CountX(ctx); n != 1 {
				t.Errorf("%d file links after deleting a file and a record, want 1", n)
			}
			if dia != "postgres" {
				return
			}
			// A cluster refuses an insert without the distribution column before any
			// default could fill it: the harness that inserts so runs on one PostgreSQL.
			if onCitus, err := citus.Present(ctx, d.SQL); err != nil || onCitus {
				return
			}
			exec(fileRow("2", "23"), "INSERT INTO file_records (file_id, record_id) VALUES ('d0000000-0000-4000-8000-000000000023', 'c0000000-0000-4000-8000-000000000002')")
			l := d.Client.FileRecord.Query().Where(filerecord.FileID(uuid.MustParse("d0000000-0000-4000-8000-000000000023"))).OnlyX(ctx)
			if l.FarmID.String() != "f0000000-0000-4000-8000-000000000002" {
				t.Errorf("a link inserted without its farm got farm %s", l.FarmID)
			}
		})
	}
}

// migratedBefore opens a scratch database of the dialect (closed when the test ends) and
// applies the migrations up to the one before the migration whose file name ends in suffix,
// so that a test can write rows as they stood and prove the migration keeps them.
func migratedBefore(t *testing.T, dia, suffix string) *db.DB {
	t.Helper()
	ctx := context.Background()
	d, err := db.Open(ctx, herdbooktest.ScratchURL(t, dia))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	dir, err := db.Dir(d.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	files, err := dir.Files()
	if err != nil {
		t.Fatal(err)
	}
	var before string
	for i, f := range files {
		if strings.HasSuffix(f.Name(), suffix) && i > 0 {
			before = files[i-1].Version()
		}
	}
	if before == "" {
		t.Fatalf("no migration named *%s", suffix)
	}
	if _, err := d.MigrateTo(ctx, before, nil); err != nil {
		t.Fatal(err)
	}
	return d
}
