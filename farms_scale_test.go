package herdbook_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/db/citus"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/seed"
)

// EnvFarmsTargets names the databases BenchmarkFarms1000 and BenchmarkFarmsIsolation run on,
// as name=URL pairs separated by commas (a plain PostgreSQL database, Citus coordinators of
// one and of two workers). Unset, both skip: CI never seeds a thousand farms.
const EnvFarmsTargets = "HERDBOOK_BENCH_FARMS_URLS"

// farmsSeedVersion names the data the thousand-farm benchmarks cache in each target's
// schema farms_<version>: change it when the seed or the sizes below change what a farm
// holds, so that no cached platform of the old kind is reused.
const farmsSeedVersion = "farms1000-v1"

// The platform: one farm of 10,000 animals and 999 of 60. Sixty is a family suckler herd
// (a few dozen cows, their calves and a bull), the kind of farm most of a herd book's
// farmers keep, and small enough that 999 of them seed in minutes. Every farm gets the
// seed's history for each animal (a profile, two group memberships a female, a purchase for
// one in five, a bull's exposures; about 3.3 facts an animal) in 2 records of 2 items an
// animal, so the big farm is 167 small farms' worth of the same history, and a request's
// statements are the same on both.
const (
	farmsSmall        = 999
	farmsSmallAnimals = 60
	farmsSmallGroups  = 4
	farmsBigAnimals   = 10_000
	farmsBigGroups    = 20
	farmsRecordsPer   = 2 // records an animal, of 2 items each
	farmsChunk        = 50
)

// farmsTarget is one database of EnvFarmsTargets.
type farmsTarget struct{ name, url string }

func farmsTargets(b *testing.B) []farmsTarget {
	raw := os.Getenv(EnvFarmsTargets)
	if raw == "" {
		b.Skipf("%s is not set (name=url,… of the databases to seed 1,000 farms on)", EnvFarmsTargets)
	}
	var out []farmsTarget
	for _, p := range strings.Split(raw, ",") {
		name, u, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			b.Fatalf("%s: %q is not name=url", EnvFarmsTargets, p)
		}
		out = append(out, farmsTarget{name, u})
	}
	return out
}

// farmsEnv is a running Herdbook over a target's seeded platform.
type farmsEnv struct {
	app    *herdbooktest.App
	token  string
	schema string
	big    uuid.UUID
	small  []uuid.UUID
	dams   map[uuid.UUID][]string // each farm's females, for the evidence review
	cpu    *serverCPU
	citus  bool
}

func farmsLog(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "farms: "+format+"\n", args...)
}

// openFarms seeds the target's platform when it is not cached (printing its progress), then
// opens it behind a running App with a token of the farms' owner.
func openFarms(b *testing.B, t farmsTarget) *farmsEnv {
	b.Helper()
	ctx := context.Background()
	schema := "farms_" + strings.ReplaceAll(farmsSeedVersion, "-", "_")
	admin, err := db.Open(ctx, t.url)
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.SQL.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema); err != nil {
		b.Fatal(err)
	}
	sep := "?"
	if strings.Contains(t.url, "?") {
		sep = "&"
	}
	u := t.url + sep + "search_path=" + url.QueryEscape(schema)
	start := time.Now()
	d := openMigrated(b, u)
	b.Cleanup(func() { d.Close() })
	d.SetPoolWait(time.Minute)
	owner := seedFarms(b, t.name, d, schema)
	farmsLog("%s: platform ready in %s (migrate and any seeding)", t.name, time.Since(start).Round(time.Second))
	if err := d.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	forgetEarlierApps(b, d)
	env := &farmsEnv{schema: schema, dams: map[uuid.UUID][]string{}}
	env.app = herdbooktest.NewApp(b, d)
	env.token = env.app.MustToken(owner)
	rows, err := d.SQL.QueryContext(ctx, "SELECT big, farm_ids FROM farms_seed ORDER BY chunk")
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var big bool
		var ids string
		if err := rows.Scan(&big, &ids); err != nil {
			b.Fatal(err)
		}
		for _, id := range strings.Split(ids, ",") {
			if big {
				env.big = uuid.MustParse(id)
			} else {
				env.small = append(env.small, uuid.MustParse(id))
			}
		}
	}
	if err := rows.Close(); err != nil {
		b.Fatal(err)
	}
	// The females of every farm: the dams the review is asked about.
	rows, err = d.SQL.QueryContext(ctx, `SELECT farm_id, fact_subject FROM record_items
		WHERE fact_kind = 'profile' AND metadata -> 'birth_history' ->> 'sex' = 'female' ORDER BY farm_id, fact_subject`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var farm uuid.UUID
		var dam string
		if err := rows.Scan(&farm, &dam); err != nil {
			b.Fatal(err)
		}
		if len(env.dams[farm]) < 200 {
			env.dams[farm] = append(env.dams[farm], dam)
		}
	}
	if err := rows.Close(); err != nil {
		b.Fatal(err)
	}
	env.citus, err = citus.Present(ctx, d.SQL)
	if err != nil {
		b.Fatal(err)
	}
	env.cpu = newServerCPU(b, d, t.url, env.citus)
	return env
}

// seedFarms makes the platform in the schema unless it is there: the big farm, then the
// small ones in transactions of farmsChunk farms, each chunk noted in farms_seed as it
// commits, so that an interrupted seeding goes on where it stopped. Every farm gets the
// birth settings the review needs and the one owner, whose id it returns.
func seedFarms(b *testing.B, target string, d *db.DB, schema string) uuid.UUID {
	b.Helper()
	ctx := context.Background()
	for _, stmt := range []string{
		"CREATE TABLE IF NOT EXISTS farms_seed (chunk int PRIMARY KEY, big boolean NOT NULL, farm_ids text NOT NULL, seconds float8 NOT NULL)",
		"CREATE TABLE IF NOT EXISTS farms_seed_owner (id uuid PRIMARY KEY)",
	} {
		if _, err := d.SQL.ExecContext(ctx, stmt); err != nil {
			b.Fatal(err)
		}
	}
	svc := herdbook.New(d.Client)
	var owner uuid.UUID
	if err := d.SQL.QueryRowContext(ctx, "SELECT id FROM farms_seed_owner").Scan(&owner); err == sql.ErrNoRows {
		name := "Farms benchmark owner"
		u, err := svc.CreateUser(ctx, herdbook.UserInput{FullName: &name, PhoneNumberLocal: "+14445550100", Password: "a long benchmark password"})
		if err != nil {
			b.Fatal(err)
		}
		owner = u.ID
		if _, err := d.SQL.ExecContext(ctx, "INSERT INTO farms_seed_owner VALUES ($1)", owner); err != nil {
			b.Fatal(err)
		}
	} else if err != nil {
		b.Fatal(err)
	}
	viewer := herdbook.WithViewer(ctx, &herdbook.Viewer{UserID: owner, Scopes: herdbook.AllScopes, Credential: herdbook.CredentialOAuth})
	done := map[int]bool{}
	rows, err := d.SQL.QueryContext(ctx, "SELECT chunk FROM farms_seed")
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var c int
		if err := rows.Scan(&c); err != nil {
			b.Fatal(err)
		}
		done[c] = true
	}
	if err := rows.Close(); err != nil {
		b.Fatal(err)
	}
	chunks := 1 + (farmsSmall+farmsChunk-1)/farmsChunk
	if len(done) == chunks {
		return owner
	}
	start := time.Now()
	farmsLog("%s: seeding %s (%d of %d chunks there)", target, schema, len(done), chunks)
	for c := 0; c < chunks; c++ {
		if done[c] {
			continue
		}
		o := seed.Options{Owner: owner, Farms: 1, AnimalsPerFarm: farmsBigAnimals, GroupsPerFarm: farmsBigGroups,
			RecordsPerFarm: farmsRecordsPer * farmsBigAnimals, ItemsPerRecord: 2, Seed: 7}
		if c > 0 {
			o = seed.Options{Owner: owner, Farms: min(farmsChunk, farmsSmall-(c-1)*farmsChunk), AnimalsPerFarm: farmsSmallAnimals,
				GroupsPerFarm: farmsSmallGroups, RecordsPerFarm: farmsRecordsPer * farmsSmallAnimals, ItemsPerRecord: 2, Seed: uint64(1000 + c)}
		}
		last := time.Now()
		o.Progress = func(done, total int) {
			if time.Since(last) > 10*time.Second || done == total {
				last = time.Now()
				farmsLog("%s: chunk %d/%d: %d of %d rows (%s so far)", target, c+1, chunks, done, total, time.Since(start).Round(time.Second))
			}
		}
		t0 := time.Now()
		res, err := seed.Run(ctx, d.Client, o)
		if err != nil {
			b.Fatalf("%s: chunk %d: %v", target, c, err)
		}
		ids := make([]string, len(res.FarmIDs))
		for i, f := range res.FarmIDs {
			if _, err := svc.PutBirthSettings(viewer, f, cattle); err != nil {
				b.Fatalf("%s: birth settings of farm %s: %v", target, f, err)
			}
			ids[i] = f.String()
		}
		if _, err := d.SQL.ExecContext(ctx, "INSERT INTO farms_seed VALUES ($1, $2, $3, $4)", c, c == 0, strings.Join(ids, ","),
			time.Since(t0).Seconds()); err != nil {
			b.Fatal(err)
		}
	}
	// A production database has the statistics autovacuum keeps: every table of the
	// schema (Citus runs ANALYZE of a distributed table on its shards).
	var tables []string
	rows, err = d.SQL.QueryContext(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = $1", schema)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			b.Fatal(err)
		}
		tables = append(tables, t)
	}
	if err := rows.Close(); err != nil {
		b.Fatal(err)
	}
	for _, t := range tables {
		if _, err := d.SQL.ExecContext(ctx, "ANALYZE "+schema+"."+t); err != nil {
			b.Fatal(err)
		}
	}
	farmsLog("%s: seeded in %s", target, time.Since(start).Round(time.Second))
	return owner
}

// farmsOp is one request measured.
type farmsOp struct {
	name string
	do   func(farm uuid.UUID, i int) (int, error)
	want int
}

// farmsOps are the requests BenchmarkFarms1000 measures, through the whole HTTP stack: the
// register's first page as REST gives it and as the web app asks it (GraphQL Register), the
// birth evidence review of a dam as the shared harness asks it, and a weighing as an
// integrator writes it (a record of one weight fact).
func (env *farmsEnv) ops(b *testing.B) []farmsOp {
	register := herdbooktest.AppOperation(b, ".", "register.graphql", "Register")
	today := time.Now().UTC().Format(time.DateOnly)
	// run makes the weighings of this run fall on days no earlier run wrote.
	run := int(time.Now().Unix() % 100_000)
	dam := func(farm uuid.UUID, i int) string { d := env.dams[farm]; return d[i%len(d)] }
	return []farmsOp{
		{"register/rest", func(farm uuid.UUID, _ int) (int, error) {
			return env.do("GET", "/v1/farm/"+farm.String()+"/animals?take=50", nil)
		}, http.StatusOK},
		{"register/graphql", func(farm uuid.UUID, _ int) (int, error) {
			return env.graphql(register, map[string]any{"farmID": farm.String(), "first": 50, "asOf": today})
		}, http.StatusOK},
		{"evidence/rest", func(farm uuid.UUID, i int) (int, error) {
			return env.do("GET", "/v1/farm/"+farm.String()+"/birth-history/evidence?dam_id="+dam(farm, i)+"&birth_date=2025-03-15", nil)
		}, http.StatusOK},
		{"weighing/rest", func(farm uuid.UUID, i int) (int, error) {
			a := dam(farm, i)
			day := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (run*7+i)%1000).Format(time.DateOnly)
			body, _ := json.Marshal(map[string]any{"animal_ids": []string{a}, "name": "Weighing", "type": "OTHER",
				"applied_at": day + "T00:00:00Z", "record_items": []map[string]any{{"metadata": map[string]any{"birth_history": map[string]any{
					"kind": "weight", "animal_id": a, "date": day, "kg": 300 + i%200}}}}})
			return env.do("POST", "/v1/farm/"+farm.String()+"/records", body)
		}, http.StatusCreated},
	}
}

// do sends a request as the owner; safe from several goroutines (App.Do is not: it fails
// the benchmark from the goroutine).
func (env *farmsEnv) do(method, path string, body []byte) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, env.app.URL+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+env.token)
	res, err := env.app.Server.Client().Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode >= 300 {
		err = fmt.Errorf("%s %s: %d %.300s", method, path, res.StatusCode, out)
	}
	return res.StatusCode, err
}

func (env *farmsEnv) graphql(query string, vars map[string]any) (int, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	var rd io.Reader = bytes.NewReader(body)
	req, err := http.NewRequest("POST", env.app.URL+"/graphql", rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+env.token)
	res, err := env.app.Server.Client().Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var out struct {
		Errors []any `json:"errors"`
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Errors) > 0 || res.StatusCode != http.StatusOK {
		return res.StatusCode, fmt.Errorf("graphql: %d %.300s", res.StatusCode, raw)
	}
	return res.StatusCode, nil
}

// BenchmarkFarms1000 is issue 30's platform benchmark: a thousand farms (999 of 60 animals
// and one of 10,000) seeded once on each database of HERDBOOK_BENCH_FARMS_URLS and cached
// in its schema farms_<farmsSeedVersion>, then the register's first page (REST and the web
// app's GraphQL), the birth evidence review and a weighing, each asked of
//
//   - small: a different small farm each request, in turn through the 999 (what a platform
//     of many farms mostly serves: the farm's kept answers are seldom still in the
//     server's 256),
//   - small1: one small farm again and again (its kept answers reused; its weighings go
//     to another small farm, so that the farm read stays as seeded),
//   - big: the farm of 10,000 (again and again).
//
// Each reports ns/op, p50-ms, stmts/op (the statements the server sent), cpu-ms/op (this
// process: the server and the client) and db-cpu-ms/op (every process of the database's
// servers, the coordinator's and the workers' on Citus, from /proc: run it as a user who
// may read them, on servers nobody else uses). docs/scaling.md has the tables.
//
//	HERDBOOK_BENCH_FARMS_URLS='pg=postgres://127.0.0.1:9730/test?sslmode=disable,citus1=postgres://127.0.0.1:9710/test?sslmode=disable,citus2=postgres://127.0.0.1:9720/test?sslmode=disable' \
//	  go test -run '^$' -bench 'Farms1000' -benchtime 200x -timeout 120m .
func BenchmarkFarms1000(b *testing.B) {
	for _, t := range farmsTargets(b) {
		b.Run(t.name, func(b *testing.B) {
			env := openFarms(b, t)
			farms := []struct {
				name string
				at   func(i int, write bool) uuid.UUID
			}{
				{"small", func(i int, _ bool) uuid.UUID { return env.small[(i*7)%len(env.small)] }},
				// small1's weighings go to a farm of their own, so that the farm its reads
				// ask stays as seeded however many runs have weighed (the first farm took
				// some 700 weighings in the first runs, which tripled its register's cost).
				{"small1", func(_ int, write bool) uuid.UUID {
					if write {
						return env.small[1]
					}
					return env.small[2]
				}},
				{"big", func(int, bool) uuid.UUID { return env.big }},
			}
			// seq numbers the requests of the run across the benchmark's rounds, so that no
			// weighing repeats an earlier one's animal and day.
			seq := 0
			for _, f := range farms {
				for _, op := range env.ops(b) {
					b.Run(f.name+"/"+op.name, func(b *testing.B) {
						call := func() {
							seq++
							if status, err := op.do(f.at(seq, op.want == http.StatusCreated), seq); err != nil || status != op.want {
								b.Fatalf("%s: %d %v", op.name, status, err)
							}
						}
						call() // warm: pools, prepared statements, the page cache
						times := make([]time.Duration, 0, b.N)
						queries := env.app.DB.Queries()
						cpu0, db0 := cpuTime(), env.cpu.now()
						b.ResetTimer()
						for i := 0; i < b.N; i++ {
							t0 := time.Now()
							call()
							times = append(times, time.Since(t0))
						}
						b.StopTimer()
						slices.Sort(times)
						b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
						b.ReportMetric(float64(env.app.DB.Queries()-queries)/float64(b.N), "stmts/op")
						b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
						b.ReportMetric(float64((env.cpu.now()-db0).Microseconds())/1000/float64(b.N), "db-cpu-ms/op")
					})
				}
			}
		})
	}
}

// serverCPU sums the CPU of a database's server processes (a postmaster, its children, and
// the children it has reaped), of every node of a Citus cluster.
type serverCPU struct{ postmasters map[int]bool }

func newServerCPU(b *testing.B, d *db.DB, base string, onCitus bool) *serverCPU {
	b.Helper()
	ctx := context.Background()
	s := &serverCPU{postmasters: map[int]bool{}}
	ports := []string{""}
	if onCitus {
		ports = nil
		rows, err := d.SQL.QueryContext(ctx, "SELECT nodeport FROM pg_dist_node WHERE noderole = 'primary' AND isactive")
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			var p int
			if err := rows.Scan(&p); err != nil {
				b.Fatal(err)
			}
			ports = append(ports, strconv.Itoa(p))
		}
		if err := rows.Close(); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range ports {
		u, err := url.Parse(base)
		if err != nil {
			b.Fatal(err)
		}
		if p != "" {
			u.Host = u.Hostname() + ":" + p
		}
		conn, err := sql.Open("pgx", u.String())
		if err != nil {
			b.Fatal(err)
		}
		var pid int
		err = conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid)
		conn.Close()
		if err != nil {
			b.Fatal(err)
		}
		st, ok := procStat(pid)
		if !ok {
			farmsLog("cannot read /proc/%d/stat: the database's CPU is not measured", pid)
			continue
		}
		s.postmasters[st.ppid] = true
	}
	return s
}

type procStatus struct {
	ppid              int
	own, reapedChilds time.Duration
}

// procStat reads a process's parent and CPU (its own, and its reaped children's) from
// /proc/pid/stat, in clock ticks of 10 ms.
func procStat(pid int) (procStatus, bool) {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStatus{}, false
	}
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return procStatus{}, false
	}
	f := strings.Fields(string(raw[i+1:]))
	// After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
	if len(f) < 15 {
		return procStatus{}, false
	}
	n := func(k int) time.Duration {
		v, _ := strconv.ParseInt(f[k], 10, 64)
		return time.Duration(v) * 10 * time.Millisecond
	}
	ppid, _ := strconv.Atoi(f[1])
	return procStatus{ppid: ppid, own: n(11) + n(12), reapedChilds: n(13) + n(14)}, true
}

// now is the servers' CPU so far: the postmasters' own and reaped children's, and their
// running children's.
func (s *serverCPU) now() time.Duration {
	var total time.Duration
	for pm := range s.postmasters {
		if st, ok := procStat(pm); ok {
			total += st.own + st.reapedChilds
		}
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := procStat(pid); ok && s.postmasters[st.ppid] {
			total += st.own
		}
	}
	return total
}

// loadavg is the machine's load average over the last minute.
func loadavg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}

// BenchmarkFarmsIsolation is issue 30's tenant isolation: on each Citus target of
// HERDBOOK_BENCH_FARMS_URLS with two workers or more, small farms' requests run in two
// loops (the big farm's shard neighbours, and the others), a register page, an evidence
// review and a weighing in turn, each of another farm, while
//
//   - quiet: nothing else runs,
//   - busy: the big farm is asked the same requests in a third loop,
//   - moving: the big farm, busy, is isolated to a shard of its own
//     (isolate_tenant_to_new_shard with CASCADE, every colocated table) and that shard
//     moved to another worker (citus_move_shard_placement), both with the transfer mode
//     HERDBOOK_BENCH_FARMS_TRANSFER (block_writes; auto, the online transfer by logical
//     replication, needs wal_level = logical and citus in output_plugin_libraries on the
//     workers, and stalled here),
//   - busyAfter, quietAfter: the same as busy and quiet on the new placement.
//
// quiet and busy alternate for HERDBOOK_BENCH_FARMS_ROUNDS rounds (3) of
// HERDBOOK_BENCH_FARMS_SECONDS (8) each, then moving, then busyAfter and quietAfter the same.
// It logs each phase's p50 and p99 of each loop (median over the rounds), its requests a
// second, its failures and the databases' CPU a request (of all loops), with the machine's
// load. A farm is isolated once: a later run
// finds its shard isolated and only moves it to the other worker again.
//
//	HERDBOOK_BENCH_FARMS_URLS='citus2=postgres://127.0.0.1:9720/test?sslmode=disable' \
//	  go test -run '^$' -bench 'FarmsIsolation' -benchtime 1x -timeout 60m .
func BenchmarkFarmsIsolation(b *testing.B) {
	rounds, secs := 3, 8
	if v, err := strconv.Atoi(os.Getenv("HERDBOOK_BENCH_FARMS_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	if v, err := strconv.Atoi(os.Getenv("HERDBOOK_BENCH_FARMS_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	// block_writes: the online transfer ('auto', logical replication) stalled on this
	// workload (docs/scaling.md).
	mode := "block_writes"
	if v := os.Getenv("HERDBOOK_BENCH_FARMS_TRANSFER"); v != "" {
		mode = v
	}
	for _, t := range farmsTargets(b) {
		b.Run(t.name, func(b *testing.B) {
			env := openFarms(b, t)
			if !env.citus {
				b.Skip("not a Citus coordinator")
			}
			ctx := context.Background()
			sqlDB := env.app.DB.SQL
			var workers int
			if err := sqlDB.QueryRowContext(ctx, "SELECT count(*) FROM pg_dist_node WHERE noderole = 'primary' AND isactive AND groupid <> 0").Scan(&workers); err != nil {
				b.Fatal(err)
			}
			if workers < 2 {
				b.Skipf("%d worker: isolating a farm to another worker needs two", workers)
			}
			farms := env.schema + ".farms"
			shardOf := func(id uuid.UUID) (shard int64, node int, port int, isolated bool) {
				if err := sqlDB.QueryRowContext(ctx, `SELECT s.shardid, n.nodeid, n.nodeport, s.shardminvalue = s.shardmaxvalue
					FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n USING (groupid)
					WHERE s.shardid = get_shard_id_for_distribution_column($1::regclass, $2::uuid)`, farms, id.String()).Scan(&shard, &node, &port, &isolated); err != nil {
					b.Fatal(err)
				}
				return
			}
			bigShard, bigNode, bigPort, isolated := shardOf(env.big)
			ids := make([]string, len(env.small))
			for i, f := range env.small {
				ids[i] = f.String()
			}
			var neighbours, others []uuid.UUID
			rows, err := sqlDB.QueryContext(ctx, `SELECT f, get_shard_id_for_distribution_column($1::regclass, f) = $2
				FROM unnest($3::uuid[]) f`, farms, bigShard, "{"+strings.Join(ids, ",")+"}")
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var f uuid.UUID
				var same bool
				if err := rows.Scan(&f, &same); err != nil {
					b.Fatal(err)
				}
				if same {
					neighbours = append(neighbours, f)
				} else {
					others = append(others, f)
				}
			}
			if err := rows.Close(); err != nil {
				b.Fatal(err)
			}
			farmsLog("%s: big farm %s on shard %d (node %d, port %d, isolated %v); %d small farms on its shard, %d elsewhere",
				t.name, env.big, bigShard, bigNode, bigPort, isolated, len(neighbours), len(others))
			if len(neighbours) == 0 {
				// The big farm's shard is its own already: two loops of others.
				neighbours, others = others[:len(others)/2], others[len(others)/2:]
			}

			ops := env.ops(b)
			ops = []farmsOp{ops[0], ops[2], ops[3]} // register/rest, evidence/rest, weighing/rest
			type sample struct {
				phase, loop string
				round       int
				took        time.Duration
				failed      bool
			}
			var (
				mu      sync.Mutex
				samples []sample
				errs    = map[string]int{}
				seq     int64
			)
			type phaseAt struct {
				name  string
				round int
			}
			var cur phaseAt
			next := func() int {
				mu.Lock()
				defer mu.Unlock()
				seq++
				return int(seq)
			}
			loop := func(stop <-chan struct{}, wg *sync.WaitGroup, name string, farms []uuid.UUID) {
				defer wg.Done()
				for k := 0; ; k++ {
					select {
					case <-stop:
						return
					default:
					}
					i := next()
					op := ops[k%len(ops)]
					t0 := time.Now()
					status, err := op.do(farms[(k/len(ops))%len(farms)], i)
					took := time.Since(t0)
					mu.Lock()
					samples = append(samples, sample{cur.name, name + " " + op.name, cur.round, took, err != nil || status != op.want})
					samples = append(samples, sample{cur.name, name, cur.round, took, err != nil || status != op.want})
					if err != nil {
						msg := err.Error()
						if len(msg) > 160 {
							msg = msg[:160]
						}
						errs[cur.name+": "+msg]++
					}
					mu.Unlock()
				}
			}
			type phaseRun struct {
				name  string
				round int
				start time.Time
				took  time.Duration
				load  string
				db    time.Duration
			}
			var runs []phaseRun
			run := func(name string, round int, busy bool, during func()) {
				mu.Lock()
				cur = phaseAt{name, round}
				mu.Unlock()
				stop := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(2)
				go loop(stop, &wg, "neighbours", neighbours)
				go loop(stop, &wg, "others", others)
				if busy {
					wg.Add(1)
					go loop(stop, &wg, "big", []uuid.UUID{env.big})
				}
				pr := phaseRun{name: name, round: round, start: time.Now(), load: loadavg()}
				db0 := env.cpu.now()
				if during != nil {
					during()
				}
				if rest := time.Duration(secs)*time.Second - time.Since(pr.start); rest > 0 {
					time.Sleep(rest)
				}
				close(stop)
				wg.Wait()
				pr.took, pr.db = time.Since(pr.start), env.cpu.now()-db0
				pr.load += "-" + loadavg()
				runs = append(runs, pr)
				farmsLog("%s: %s round %d: %s, load %s", t.name, name, round, pr.took.Round(time.Millisecond), pr.load)
			}
			for r := 1; r <= rounds; r++ {
				run("quiet", r, false, nil)
				run("busy", r, true, nil)
			}
			var isolateTook, moveTook time.Duration
			run("moving", 1, true, func() {
				shard := bigShard
				if !isolated {
					t0 := time.Now()
					// A stalled transfer is cancelled, and Citus cleans up after it.
					tctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
					defer cancel()
					if err := sqlDB.QueryRowContext(tctx, `SELECT isolate_tenant_to_new_shard($1::regclass, $2::uuid, cascade_option => 'CASCADE',
						shard_transfer_mode => $3::citus.shard_transfer_mode)`, farms, env.big.String(), mode).Scan(&shard); err != nil {
						b.Fatalf("isolate_tenant_to_new_shard: %v", err)
					}
					isolateTook = time.Since(t0)
					farmsLog("%s: isolated the big farm to shard %d in %s", t.name, shard, isolateTook.Round(time.Millisecond))
				}
				var to, toPort int
				if err := sqlDB.QueryRowContext(ctx, `SELECT nodeid, nodeport FROM pg_dist_node
					WHERE noderole = 'primary' AND isactive AND groupid <> 0 AND nodeid <> $1 ORDER BY nodeid LIMIT 1`, bigNode).Scan(&to, &toPort); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				tctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
				defer cancel()
				if _, err := sqlDB.ExecContext(tctx, "SELECT citus_move_shard_placement($1, $2, $3, $4::citus.shard_transfer_mode)", shard, bigNode, to, mode); err != nil {
					b.Fatalf("citus_move_shard_placement: %v", err)
				}
				moveTook = time.Since(t0)
				farmsLog("%s: moved shard %d (and its colocated shards) from port %d to %d in %s", t.name, shard, bigPort, toPort, moveTook.Round(time.Millisecond))
			})
			for r := 1; r <= rounds; r++ {
				run("busyAfter", r, true, nil)
				run("quietAfter", r, false, nil)
			}
			shard, _, port, iso := shardOf(env.big)
			farmsLog("%s: big farm now on shard %d (port %d, isolated %v); isolate %s, move %s (%s)",
				t.name, shard, port, iso, isolateTook.Round(time.Millisecond), moveTook.Round(time.Millisecond), mode)

			// The table: each phase and loop, the median over its rounds of p50 and p99,
			// requests a second and failures.
			pct := func(ts []time.Duration, q float64) time.Duration {
				slices.Sort(ts)
				return ts[min(len(ts)-1, int(q*float64(len(ts))))]
			}
			median := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			loops := []string{"neighbours", "others", "big"}
			for _, l := range []string{"neighbours", "others", "big"} {
				for _, op := range ops {
					loops = append(loops, l+" "+op.name)
				}
			}
			farmsLog("%s: phase | loop | p50 ms | p99 ms | req/s | failed | db-cpu ms/req | load", t.name)
			for _, ph := range []string{"quiet", "busy", "moving", "busyAfter", "quietAfter"} {
				for _, l := range loops {
					var p50, p99, rate, dbcpu []float64
					failed, n := 0, 0
					var loads []string
					for _, pr := range runs {
						if pr.name != ph {
							continue
						}
						var ts []time.Duration
						for _, s := range samples {
							if s.phase == ph && s.round == pr.round && s.loop == l {
								ts = append(ts, s.took)
								if s.failed {
									failed++
								}
							}
						}
						if len(ts) == 0 {
							continue
						}
						n += len(ts)
						p50, p99 = append(p50, ms(pct(ts, 0.5))), append(p99, ms(pct(ts, 0.99)))
						rate = append(rate, float64(len(ts))/pr.took.Seconds())
						// The databases' CPU of the phase a request of any loop.
						all := 0
						for _, s := range samples {
							if s.phase == ph && s.round == pr.round && !strings.Contains(s.loop, " ") {
								all++
							}
						}
						dbcpu = append(dbcpu, ms(pr.db)/float64(all))
						loads = append(loads, pr.load)
					}
					if n == 0 {
						continue
					}
					farmsLog("%s: %s | %s | %.1f | %.1f | %.0f | %d of %d | %.1f | %s", t.name, ph, l, median(p50), median(p99), median(rate),
						failed, n, median(dbcpu), strings.Join(loads, " "))
				}
			}
			for msg, n := range errs {
				farmsLog("%s: failed %d times: %s", t.name, n, msg)
			}
		})
	}
}
