package rest_test

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/seed"
)

// bigTable is the size from which a sequential scan fails TestStatementsUseIndexes: below
// it PostgreSQL may rightly prefer reading a small table whole.
const bigTable = 10_000

// TestStatementsUseIndexes seeds a farm whose records, items, links and files tables are
// over bigTable rows on PostgreSQL, sends every REST read (lists, single reads, the
// evidence review, the settings and the change feed) through the real handlers, captures
// the statements they issue, and EXPLAINs each with its arguments and with sequential
// scans disabled: the planner then uses an index wherever one can serve, so a sequential
// scan left in a plan is a join or filter that no index serves, and fails on a big table.
// (With them enabled, a table of this size is small enough that PostgreSQL may read it
// whole even where an index exists; on a farm of 100,000 records it would not.)
func TestStatementsUseIndexes(t *testing.T) {
	if os.Getenv(herdbooktest.EnvPostgres) == "" {
		t.Skipf("EXPLAIN runs on PostgreSQL: set %s", herdbooktest.EnvPostgres)
	}
	t.Parallel()
	ctx := context.Background()
	d := herdbooktest.MustDB(t, "postgres")
	if d.Citus {
		// The plans asked of are one server's: a coordinator keeps no statistics of the
		// rows its workers hold, and plans a farm's statement for its shard.
		t.Skip("the plans of one PostgreSQL server; this database is a Citus coordinator")
	}
	app := herdbooktest.NewApp(t, d)
	owner := app.MustUser()
	res, err := seed.Run(ctx, d.Client, seed.Options{
		Owner: owner.ID, Farms: 1, AnimalsPerFarm: 1500, GroupsPerFarm: 20, RecordsPerFarm: 10_500, ItemsPerRecord: 2, Seed: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	farm := res.FarmIDs[0]
	// A file on every record (metadata only), as the benchmark harness attaches them.
	if _, err := d.SQL.ExecContext(ctx, `
		WITH ins AS (INSERT INTO files (id, created_at, updated_at, is_active, name, mime_type, size, storage_key, farm_id)
			SELECT gen_random_uuid(), now(), now(), true, 'photo.jpg', 'image/jpeg', 1000, 'explain/' || id, farm_id
			FROM records RETURNING id, storage_key, farm_id)
		INSERT INTO file_records (file_id, record_id, farm_id) SELECT id, substr(storage_key, 9)::uuid, farm_id FROM ins`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	base := "/v1/farm/" + farm.String()
	if res := app.Do("PUT", base+"/birth-history/settings", owner.Token, cattleSettings); res.Status != 200 {
		t.Fatalf("settings: %d %s", res.Status, res.Body)
	}
	rec, err := d.Client.Record.Query().Where(record.FarmID(farm)).Order(record.ByCreatedAt()).Offset(5000).First(ctx)
	if err != nil {
		t.Fatal(err)
	}
	file, err := rec.QueryFiles().First(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dams, err := d.Client.Animal.Query().Where(animal.FarmID(farm)).Limit(20).IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cursor := app.Do("GET", base+"/records?take=1", owner.Token, nil).JSON(t)["next_cursor"].(string)
	app.Do("POST", base+"/records", owner.Token, fmt.Sprintf(`{"animal_ids":[%q],"name":"After","type":"FEED","applied_at":"2026-01-01T00:00:00Z"}`, dams[0]))

	paths := []string{
		"/v1/farm",
		base,
		base + "/records?take=50",
		base + "/records?take=10",
		base + "/records?skip=10000&take=50",
		base + "/records?updated_since=" + url.QueryEscape(cursor),
		base + "/records/" + rec.ID.String(),
		base + "/notifications",
		base + "/farm-tasks",
		base + "/birth-history/settings",
		base + "/birth-history/protocol",
		base + "/webhooks",
		base + "/animals?take=1&q=4003", // the last-digits search (identifier.go)
		// The register of a past date: the animals that arrive after it (not_yet), and their
		// histories.
		base + "/animals?take=50&as_of=2024-01-01",
		"/v1/file?farm_id=" + farm.String(),
		"/v1/file/" + file.ID.String(),
		base + "/medicine-purchases",
		base + "/medicine-stock",
		base + "/medicine-book.csv?section=acquisitions",
		base + "/medicine-book.html",
		base + "/audit?take=50",
		base + "/audit?take=50&record_id=" + rec.ID.String(),
		base + "/audit?take=50&animal_id=" + dams[0].String(),
		base + "/audit?take=50&user_id=" + owner.ID.String(),
		base + "/animals?take=50&known_at=" + url.QueryEscape(time.Now().UTC().Format(time.RFC3339)),
	}
	for _, dam := range dams {
		paths = append(paths, base+"/birth-history/evidence?dam_id="+dam.String()+"&birth_date=2025-03-15")
	}
	// The review's other statement shapes, which the seeded history does not make: a dam
	// whose own exposure names her sire (with her group exposures, and alone for a dam
	// without memberships, which also looks for an exposure it cannot tie to her), and a
	// birth whose offspring have a DNA result.
	// The sire is an animal of its own: the seeded animals are female, and a female cannot be
	// the sire of an exposure (docs/history-rules.md).
	bull, loner, calf := app.MustAnimal(owner, farm, "BULL").ID.String(), app.MustAnimal(owner, farm, "LONER").ID.String(), app.MustAnimal(owner, farm, "CALF").ID.String()
	for _, f := range []string{
		`{"kind":"exposure","sire_id":"` + bull + `","dam_id":"` + dams[0].String() + `","start_date":"2024-05-01","end_date":"2024-07-31"}`,
		`{"kind":"exposure","sire_id":"` + bull + `","dam_id":"` + loner + `","start_date":"2024-05-01","end_date":"2024-07-31"}`,
		`{"kind":"birth","dam_id":"` + dams[0].String() + `","date":"2025-03-15","offspring_ids":["` + calf + `"]}`,
		`{"kind":"dna_parentage","offspring_id":"` + calf + `","parent_id":"` + bull + `","relation":"sire","result":"qualified","date":"2025-04-01"}`,
	} {
		body := `{"animal_ids":["` + dams[0].String() + `"],"name":"Fact","type":"GENETIC","applied_at":"2025-01-01T00:00:00Z","record_items":[{"metadata":{"birth_history":` + f + `}}]}`
		if res := app.Do("POST", base+"/records", owner.Token, body); res.Status != 201 {
			t.Fatalf("fact %s: %d %s", f, res.Status, res.Body)
		}
	}
	paths = append(paths, base+"/birth-history/evidence?dam_id="+loner+"&birth_date=2025-03-15",
		// The pedigree reads the farm's parentage facts (docs/pedigree.md).
		base+"/animals/"+calf+"/pedigree", base+"/kinship?a="+calf+"&b="+bull)

	type statement struct {
		query string
		args  []any
		path  string
	}
	var (
		mu   sync.Mutex
		seen = map[string]statement{}
		path string
	)
	stop := d.Observe(func(query string, args []any) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := seen[query]; !ok {
			seen[query] = statement{query, args, path}
		}
	})
	for _, p := range paths {
		mu.Lock()
		path = p
		mu.Unlock()
		if res := app.Do("GET", p, owner.Token, nil); res.Status != 200 {
			t.Fatalf("GET %s: %d %s", p, res.Status, res.Body)
		}
	}
	stop()

	rows := map[string]float64{}
	r, err := d.SQL.QueryContext(ctx, `SELECT relname, reltuples FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var name string
		var n float64
		if err := r.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		rows[name] = n
	}
	r.Close()
	for _, big := range []string{"records", "record_items", "file_records", "files", "record_animals"} {
		if rows[big] < bigTable {
			t.Fatalf("the seeded %s has %.0f rows, not over %d: the test proves nothing", big, rows[big], bigTable)
		}
	}

	conn, err := d.SQL.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	// EXPLAIN EXECUTE below shows the generic plan a prepared statement may get from its
	// sixth run on; EXPLAIN with arguments plans for their values.
	if _, err := conn.ExecContext(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	explained := 0
	for _, st := range seen {
		if !strings.HasPrefix(strings.TrimSpace(strings.ToUpper(st.query)), "SELECT") {
			continue
		}
		var plan string
		if err := conn.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+st.query, st.args...).Scan(&plan); err != nil {
			t.Fatalf("EXPLAIN %s: %v", st.query, err)
		}
		explained++
		for _, scan := range seqScans(t, plan) {
			if rows[scan] > bigTable {
				t.Errorf("GET %s reads the whole %s (%.0f rows):\n%s\n%s", st.path, scan, rows[scan], st.query, plan)
			}
		}
		// The server prepares each statement once per connection, and PostgreSQL may then
		// run it with a generic plan, made without the arguments' values: that one must be
		// driven by indexes too.
		if len(st.args) == 0 {
			continue
		}
		if _, err := conn.ExecContext(ctx, "PREPARE explained AS "+st.query); err != nil {
			t.Fatalf("PREPARE %s: %v", st.query, err)
		}
		params := make([]string, len(st.args))
		for i, a := range st.args {
			params[i] = literal(t, a)
		}
		err := conn.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) EXECUTE explained("+strings.Join(params, ", ")+")").Scan(&plan)
		if _, err := conn.ExecContext(ctx, "DEALLOCATE explained"); err != nil {
			t.Fatal(err)
		}
		if err != nil {
			t.Fatalf("EXPLAIN EXECUTE %s: %v", st.query, err)
		}
		for _, scan := range seqScans(t, plan) {
			if rows[scan] > bigTable {
				t.Errorf("GET %s reads the whole %s (%.0f rows) with a generic plan:\n%s\n%s", st.path, scan, rows[scan], st.query, plan)
			}
		}
	}
	t.Logf("%d statements explained from %d requests; table rows: records %.0f, record_items %.0f, file_records %.0f",
		explained, len(paths), rows["records"], rows["record_items"], rows["file_records"])
}

// literal spells an argument as an SQL literal, which EXECUTE converts to the type of its
// parameter (EXPLAIN EXECUTE takes no parameters of its own).
func literal(t *testing.T, v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		v = x.Format(time.RFC3339Nano)
	case driver.Valuer:
		var err error
		if v, err = x.Value(); err != nil {
			t.Fatal(err)
		}
	}
	return "'" + strings.ReplaceAll(fmt.Sprint(v), "'", "''") + "'"
}

// seqScans lists the tables a JSON plan reads whole: with a sequential scan, or with an
// index scan that has no index condition (what the planner falls back to with sequential
// scans disabled when the table has an index but none that serves the filter).
func seqScans(t *testing.T, plan string) []string {
	var doc []map[string]any
	if err := json.Unmarshal([]byte(plan), &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		switch n["Node Type"] {
		case "Index Scan", "Index Only Scan":
			if _, ok := n["Index Cond"]; ok {
				break
			}
			fallthrough
		case "Seq Scan":
			rel, _ := n["Relation Name"].(string)
			out = append(out, rel)
		}
		kids, _ := n["Plans"].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok {
				walk(m)
			}
		}
	}
	for _, p := range doc {
		if m, ok := p["Plan"].(map[string]any); ok {
			walk(m)
		}
	}
	return out
}
