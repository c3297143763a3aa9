package herdbook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/db/citus"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/seed"
)

var cattle = evidence.Settings{
	Version: 1, Species: "CATTLE", GestationDays: &evidence.Range{Min: 279, Max: 292}, MinimumSireAgeDays: ptr(365),
	BirthWindows: []evidence.Window{{Label: "Spring", StartDate: "2025-03-01", EndDate: "2025-05-31"}},
}

// seededFarm seeds one farm with a plausible history and returns an owner context.
func seededFarm(tb testing.TB, d *db.DB, animals, records int) (*herdbooktest.App, context.Context, uuid.UUID) {
	tb.Helper()
	app := herdbooktest.NewApp(tb, d)
	owner := app.MustUser()
	res, err := seed.Run(context.Background(), d.Client, seed.Options{
		Owner: owner.ID, Farms: 1, AnimalsPerFarm: animals, GroupsPerFarm: 20, RecordsPerFarm: records, ItemsPerRecord: 2, Seed: 7,
	})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := app.Ctx(owner)
	if _, err := app.Service.PutBirthSettings(ctx, res.FarmIDs[0], cattle); err != nil {
		tb.Fatal(err)
	}
	return app, ctx, res.FarmIDs[0]
}

// TestEvidenceLoaderMatchesFullHistory proves that loading only the facts that can matter
// (a few bounded statements) gives exactly the review of the farm's whole history.
func TestEvidenceLoaderMatchesFullHistory(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app, ctx, farmID := seededFarm(t, d, 400, 1200)
		history := func() []evidence.Fact {
			items, err := d.Client.RecordItem.Query().
				Where(recorditem.FarmID(farmID), recorditem.FactKindNotNil()).All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var all []evidence.Fact
			for _, it := range items {
				f, errs := evidence.ParseFact(it.Metadata.Field("birth_history"))
				if len(errs) > 0 {
					t.Fatalf("seeded an invalid fact: %v", errs)
				}
				f.RecordID, f.RecordItemID = it.RecordID.String(), it.ID.String()
				all = append(all, f)
			}
			return all
		}
		all := history()
		// Dams with a membership history make the review find candidates; a few without
		// cover the other paths.
		var animals []uuid.UUID
		seen := map[string]bool{}
		for _, f := range all {
			if f.Kind == evidence.KindMembership && !seen[f.AnimalID] && len(animals) < 50 {
				seen[f.AnimalID] = true
				animals = append(animals, uuid.MustParse(f.AnimalID))
			}
		}
		others, err := d.Client.Animal.Query().Where(animal.FarmID(farmID)).Order(ent.Asc(animal.FieldTag)).Limit(10).IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		animals = append(animals, others...)
		// What the seeded history lacks: exposures that name the dam herself (for dams with
		// and without memberships), and births on a reviewed date whose offspring have a DNA
		// result about their sire.
		var sires []string
		for _, f := range all {
			if f.Kind == evidence.KindProfile && f.Sex == "male" && len(sires) < 6 {
				sires = append(sires, f.AnimalID)
			}
		}
		kids, err := d.Client.Animal.Query().Where(animal.FarmID(farmID)).Order(ent.Desc(animal.FieldTag)).Limit(5).IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		record := func(f evidence.Fact) {
			if _, err := app.Service.RecordFact(ctx, farmID, f); err != nil {
				t.Fatalf("%+v: %v", f, err)
			}
		}
		for i, kid := range kids {
			dam := animals[i].String()
			record(evidence.Fact{Kind: evidence.KindExposure, SireID: sires[i], DamID: dam, StartDate: "2024-05-20", EndDate: "2024-07-10"})
			record(evidence.Fact{Kind: evidence.KindBirth, DamID: dam, Date: "2025-03-15", OffspringIDs: []string{kid.String()}})
			record(evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: kid.String(), ParentID: sires[i],
				Relation: evidence.RelationSire, Result: evidence.ResultQualified, Date: "2025-04-20"})
		}
		record(evidence.Fact{Kind: evidence.KindExposure, SireID: sires[5], DamID: others[0].String(), StartDate: "2024-05-01"})
		all = history()
		candidates, byDNA := 0, 0
		for _, dam := range animals {
			for _, born := range []string{"2023-09-01", "2024-05-01", "2024-11-20", "2025-03-15", "2025-09-01", "2026-02-10"} {
				got, err := app.Service.BirthEvidence(ctx, farmID, dam.String(), born)
				if err != nil {
					t.Fatal(err)
				}
				st := cattle
				want := evidence.Review(evidence.Input{Settings: &st, DamID: dam.String(), BirthDate: born, Facts: all})
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				if string(g) != string(w) {
					t.Fatalf("dam %s born %s differ:\nloader unresolved: %q\nall-facts unresolved: %q\nloader sire: %+v\nall-facts sire: %+v",
						dam, born, got.Unresolved, want.Unresolved, got.Sire, want.Sire)
				}
				candidates += len(got.Sire.Candidates)
				if strings.HasPrefix(got.Sire.Provenance, "Presumed from DNA") {
					byDNA++
				}
			}
		}
		if candidates == 0 || byDNA == 0 {
			t.Fatalf("%d candidates, %d sires presumed by DNA: the test proves nothing", candidates, byDNA)
		}
		t.Logf("%d reviews compared, %d candidates in all, %d sires presumed by DNA", len(animals)*6, candidates, byDNA)
	})
}

// reviewStatement is the review's facts statement (the one with common table expressions)
// and its arguments, as sent for a dam of a seeded farm of 100 animals on d.
func reviewStatement(t *testing.T, d *db.DB) (context.Context, string, []any) {
	t.Helper()
	app, ctx, farmID := seededFarm(t, d, 100, 300)
	dam, err := d.Client.Animal.Query().Where(animal.FarmID(farmID)).FirstID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var query string
	var args []any
	stop := d.Observe(func(q string, a []any) {
		if strings.Contains(q, "WITH") {
			query, args = q, a
		}
	})
	_, err = app.Service.BirthEvidence(ctx, farmID, dam.String(), "2025-03-15")
	stop()
	if err != nil {
		t.Fatal(err)
	}
	if query == "" {
		t.Fatal("the review sent no statement with common table expressions")
	}
	return ctx, query, args
}

// TestReviewPlanOnSQLite holds SQLite to the plan the review's facts statement is written
// for (reviewFacts). SQLite keeps no statistics, so its plan does not depend on the data:
// a plan that looks the exposures or the sires' facts up by their kind reads every
// exposure or profile of the farm, as a whole scan of the items does.
func TestReviewPlanOnSQLite(t *testing.T) {
	t.Parallel()
	d := herdbooktest.MustDB(t, "sqlite")
	ctx, query, args := reviewStatement(t, d)
	rows, err := d.SQL.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	for _, line := range plan {
		if strings.Contains(line, "INDEX recorditem_fact_kind_fact_date ") || strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN review_") {
			t.Errorf("SQLite reads facts by kind or whole: %q in\n%s", line, strings.Join(plan, "\n"))
		}
	}
}

// TestReviewPlanOnPostgres holds PostgreSQL's generic plan of the review's facts statement
// to the indexes written for it: a group's memberships and exposures read from
// recorditem_group_review, and the members' sex from the partial index of the facts that say
// male, recorditem_male_fact. pgx prepares the statement once a connection and PostgreSQL
// soon plans it once for any arguments; a generic plan can take a partial index only if
// the statement writes its condition as a literal (reviewFacts), which this test guards.
func TestReviewPlanOnPostgres(t *testing.T) {
	t.Parallel()
	d := herdbooktest.MustDB(t, "postgres")
	ctx, query, args := reviewStatement(t, d)
	conn, err := d.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The plan asked of is one PostgreSQL server's: a Citus coordinator plans a farm's
	// statement for its shard, and a generic plan of a distributed table is not one it makes.
	if onCitus, err := citus.Present(ctx, conn); err != nil || onCitus {
		t.Skip("the generic plan of one PostgreSQL server; this database is a Citus coordinator")
	}
	// A test farm is small enough for a sequential scan to look cheaper: the question is
	// which indexes the generic plan can use, not whether it prefers them on 300 records.
	// VACUUM marks the pages visible, as autovacuum does, so that reading an index alone is
	// an option.
	for _, q := range []string{"VACUUM ANALYZE record_items", "VACUUM ANALYZE records",
		"SET plan_cache_mode = force_generic_plan", "SET enable_seqscan = off",
		"SET enable_bitmapscan = off", "PREPARE review_plan AS " + query} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	lits := make([]string, len(args))
	for i, a := range args {
		lits[i] = fmt.Sprintf("'%v'", a) // ids, kinds and dates: no quote to escape
	}
	rows, err := conn.QueryContext(ctx, "EXPLAIN (COSTS OFF) EXECUTE review_plan("+strings.Join(lits, ", ")+")")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(plan, "\n")
	for _, want := range []string{"Index Only Scan using recorditem_group_review on record_items mate",
		"Index Only Scan using recorditem_group_review on record_items exposure",
		"Index Only Scan using recorditem_male_fact on record_items mate_profile"} {
		if !strings.Contains(all, want) {
			t.Errorf("the generic plan does not read %q:\n%s", want, all)
		}
	}
}

// BenchmarkBirthEvidence reviews one dam on a farm of 10,000 animals and 200,000 record
// items (100,000 records of two items; about 40,000 of them facts). Seeding takes under a
// minute per dialect and happens once, in the parent benchmark.
func BenchmarkBirthEvidence(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		start := time.Now()
		d := herdbooktest.MustDB(b, dia)
		app, ctx, farm := seededFarm(b, d, 10_000, 100_000)
		dams, err := d.Client.Animal.Query().Where(animal.FarmID(farm)).Limit(200).IDs(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if dia == "postgres" {
			// A production database has the statistics autovacuum keeps; a freshly bulk-loaded
			// one has none until it runs, and plans as if the tables were empty.
			if _, err := d.SQL.Exec("ANALYZE"); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("%s: seeded 10,000 animals and 200,000 items in %s", dia, time.Since(start).Round(time.Second))
		b.Run(dia, func(b *testing.B) {
			queries := app.DB.Queries()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := app.Service.BirthEvidence(ctx, farm, dams[i%len(dams)].String(), "2025-03-15"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(app.DB.Queries()-queries)/float64(b.N), "queries/op")
		})
	}
}
