package herdbook_test

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/seed"
)

// scaleSeedVersion names the data the scale benchmark caches: change it when the seed or
// the grid changes what a cell holds, so that no cached farm of the old kind is reused.
const scaleSeedVersion = "scale-v1"

// scaleCell is one farm of the grid: animals, and weighings added to each animal's seeded
// history (about 3.3 facts an animal: a profile, two memberships per female, a purchase for
// one in five, a bull's exposures), for about 3, 10 and 20 facts an animal. Every farm has
// 10 records of 2 items per animal, the harness's farm L at 10,000 animals (seed 7).
type scaleCell struct{ animals, weights int }

func (c scaleCell) records() int { return 10 * c.animals }

func (c scaleCell) name() string {
	return fmt.Sprintf("animals=%d/facts=%d", c.animals, map[int]int{0: 3, 7: 10, 17: 20}[c.weights])
}

var scaleGrid = []scaleCell{{1_000, 0}, {1_000, 7}, {1_000, 17}, {10_000, 0}, {10_000, 7}, {10_000, 17}}

// BenchmarkFarmScale is the "animals × facts" grid of issue 22: for each farm of scaleGrid,
// on SQLite and on PostgreSQL, through the whole HTTP stack, the REST register page of 50
// and of 500 animals with their profiles (at pages spread over the register), animals.csv
// of the whole farm and the GraphQL herd page of 50 with profiles, parents and identifiers.
// It reports the median (p50-ms) and the statements of each (stmts/op). The farms are
// seeded once and cached between runs (SQLite files under $TMPDIR/herdbook-scale,
// PostgreSQL schemas scale_* in the test database), keyed by scaleSeedVersion and the cell;
// migrations added since are applied to the copy. docs/performance.md has the table.
//
//	go test -run '^$' -bench FarmScale -benchtime 20x -timeout 60m .
//	go test -run '^$' -bench 'FarmScale/sqlite/animals=10000/facts=3' -benchtime 20x .
func BenchmarkFarmScale(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			for _, cell := range scaleGrid {
				b.Run(cell.name(), func(b *testing.B) { benchScaleCell(b, dia, cell) })
			}
		})
	}
}

// scaleHerdQuery is the GraphQL herd page the web app's register shows.
const scaleHerdQuery = `query($f: ID!, $n: Int) { farm(id: $f) { animals(first: $n) { totalCount edges { node {
  id tag dam { tag } sire { tag } identifiers { scheme value }
  profile { asOf sex birthDate breed status statusDate weightKg groupIDs dam { tag } sire { tag } } } } } } }`

func benchScaleCell(b *testing.B, dia string, cell scaleCell) {
	start := time.Now()
	app, farm, token := scaleFarm(b, dia, cell)
	b.Logf("%s %s: farm ready in %s", dia, cell.name(), time.Since(start).Round(time.Second))
	base := "/v1/farm/" + farm.String()
	get := func(b *testing.B, path string) []byte {
		res := app.Do("GET", path, token, nil)
		if res.Status != 200 {
			b.Fatalf("GET %s: %d %.300s", path, res.Status, res.Body)
		}
		return res.Body
	}
	ops := []struct {
		name string
		run  func(b *testing.B, i int)
	}{
		{"register50", func(b *testing.B, i int) {
			get(b, fmt.Sprintf("%s/animals?take=50&skip=%d", base, (i*997)%(cell.animals-50)))
		}},
		{"register500", func(b *testing.B, i int) {
			get(b, fmt.Sprintf("%s/animals?take=500&skip=%d", base, (i*4999)%(cell.animals-500)))
		}},
		{"animalsCSV", func(b *testing.B, i int) {
			body := get(b, base+"/animals.csv")
			if n := strings.Count(string(body), "\n"); n < cell.animals/2 {
				b.Fatalf("animals.csv has %d lines for %d animals", n, cell.animals)
			}
		}},
		{"graphqlHerd50", func(b *testing.B, i int) {
			out := app.GraphQL(token, scaleHerdQuery, map[string]any{"f": farm.String(), "n": 50})
			if out["errors"] != nil {
				b.Fatal(out["errors"])
			}
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			op.run(b, 0) // warm: pools, prepared statements, the page cache
			times := make([]time.Duration, 0, b.N)
			queries := app.DB.Queries()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				op.run(b, i+1)
				times = append(times, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(app.DB.Queries()-queries)/float64(b.N), "stmts/op")
			// CPU of this process (server, client and, on SQLite, the database): on a
			// shared machine a truer measure of the work than the wall clock.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// scaleFarm returns an App over a copy of the cell's cached farm (seeding it first when it
// is not cached), the farm's id and the token of an owner of it.
func scaleFarm(b *testing.B, dia string, cell scaleCell) (*herdbooktest.App, uuid.UUID, string) {
	app, farm, owner := scaleFarmOf(b, dia, cell, "scale_")
	return app, farm, owner.Token
}

// scaleFarmOf is scaleFarm answering the owner, with the PostgreSQL schema's prefix: a
// benchmark that writes (BenchmarkCrushWrites) keeps a farm of its own there, so that the
// read benchmarks' farm stays as seeded. SQLite copies the cached farm for every run.
func scaleFarmOf(b *testing.B, dia string, cell scaleCell, prefix string) (*herdbooktest.App, uuid.UUID, herdbooktest.User) {
	b.Helper()
	ctx := context.Background()
	key := fmt.Sprintf("%s_a%d_r%d_w%d", strings.ReplaceAll(scaleSeedVersion, "-", "_"), cell.animals, cell.records(), cell.weights)
	opts := seed.Options{Farms: 1, AnimalsPerFarm: cell.animals, GroupsPerFarm: 20, RecordsPerFarm: cell.records(),
		ItemsPerRecord: 2, WeightsPerAnimal: cell.weights, Seed: 7}
	var d *db.DB
	switch dia {
	case "sqlite":
		dir := filepath.Join(os.TempDir(), "herdbook-scale")
		cached := filepath.Join(dir, key+".db")
		if _, err := os.Stat(cached); err != nil {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			tmp := cached + ".seeding"
			for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
				_ = os.Remove(f)
			}
			sd := openMigrated(b, "sqlite://"+tmp)
			if _, err := seed.Run(ctx, sd.Client, opts); err != nil {
				b.Fatal(err)
			}
			sd.Close()
			if err := os.Rename(tmp, cached); err != nil {
				b.Fatal(err)
			}
		}
		copyPath := filepath.Join(b.TempDir(), "scale.db")
		copyFile(b, cached, copyPath)
		d = openMigrated(b, "sqlite://"+copyPath)
		b.Cleanup(func() { d.Close() })
	case "postgres":
		baseURL := os.Getenv(herdbooktest.EnvPostgres)
		admin, err := db.Open(ctx, baseURL)
		if err != nil {
			b.Fatal(err)
		}
		defer admin.Close()
		schema := prefix + key
		var done bool
		_ = admin.SQL.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'scale_seeded')`, schema).Scan(&done)
		sep := "?"
		if strings.Contains(baseURL, "?") {
			sep = "&"
		}
		u := baseURL + sep + "search_path=" + url.QueryEscape(schema)
		if !done {
			if _, err := admin.SQL.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
				b.Fatal(err)
			}
			if _, err := admin.SQL.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
				b.Fatal(err)
			}
			sd := openMigrated(b, u)
			if _, err := seed.Run(ctx, sd.Client, opts); err != nil {
				b.Fatal(err)
			}
			if _, err := sd.SQL.ExecContext(ctx, "CREATE TABLE scale_seeded (at timestamptz)"); err != nil {
				b.Fatal(err)
			}
			sd.Close()
		}
		d = openMigrated(b, u)
		b.Cleanup(func() { d.Close() })
		// A production database has the statistics autovacuum keeps.
		if _, err := d.SQL.ExecContext(ctx, "ANALYZE"); err != nil {
			b.Fatal(err)
		}
		forgetEarlierApps(b, d)
	default:
		b.Skipf("unknown dialect %s", dia)
	}
	// What the server does at start-up (serve: RunOptimize).
	if err := d.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	app := herdbooktest.NewApp(b, d)
	farmID, err := d.Client.Farm.Query().FirstID(ctx)
	if err != nil {
		b.Fatal(err)
	}
	owner := app.MustUser()
	app.MustMember(farmID, owner, herdbook.RoleOwner)
	return app, farmID, owner
}

// forgetEarlierApps removes what an earlier run's herdbooktest.NewApp left in a kept
// PostgreSQL schema: NewApp registers its OAuth client again on every run, and MustUser
// numbers its users from 1.
func forgetEarlierApps(b *testing.B, d *db.DB) {
	b.Helper()
	ctx := context.Background()
	// NewApp registers its OAuth client again on every run: the previous run's tokens,
	// grants and codes of that client go first (they reference it).
	const client = "(SELECT id FROM oauth_clients WHERE client_id = 'test-client')"
	for _, table := range []string{"access_tokens", "refresh_tokens", "oauth_codes", "device_authorizations", "oauth_grants"} {
		if _, err := d.SQL.ExecContext(ctx, "DELETE FROM "+table+" WHERE client_id IN "+client); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := d.SQL.ExecContext(ctx, "DELETE FROM oauth_clients WHERE client_id = 'test-client'"); err != nil {
		b.Fatal(err)
	}
	// And the previous run's owner (MustUser numbers its users from 1 on every run).
	const owners = "(SELECT id FROM users WHERE phone_number_local LIKE '+1555%')"
	for _, table := range []string{"access_tokens", "refresh_tokens", "oauth_codes", "device_authorizations", "oauth_grants",
		"api_keys", "browser_sessions", "farm_members"} {
		if _, err := d.SQL.ExecContext(ctx, "DELETE FROM "+table+" WHERE user_id IN "+owners); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := d.SQL.ExecContext(ctx, "DELETE FROM users WHERE id IN "+owners); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the user and system CPU this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func openMigrated(b *testing.B, u string) *db.DB {
	b.Helper()
	d, err := db.Open(context.Background(), u)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := d.Migrate(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	return d
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
