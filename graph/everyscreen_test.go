package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// appScreen is one read operation the web app sends, with the variables a farmer's visit
// gives it on the screens farm (newScreensFarm).
type appScreen struct {
	file, op string
	vars     func(s *screensFarm, ids screenIDs) map[string]any
}

// screenIDs are the farm's things the screens are opened on.
type screenIDs struct {
	calf, record string
}

// appScreens lists every query of web/app/src/graphql (TestEveryScreenListed holds the list
// to the files), with the variables the app sends when a farmer opens the screen: the
// register first page and its filters, the cow's animal page and crush card, the breeding
// screen with her mating advice and birth review, a year of every herd report, and so on.
func appScreens() []appScreen {
	farm := func(s *screensFarm) map[string]any { return map[string]any{"farmID": s.Farm.String()} }
	with := func(m map[string]any, kv ...any) map[string]any {
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cow := func(s *screensFarm) string { return s.cow.String() }
	year := func(s *screensFarm) (string, string) {
		now := time.Now().UTC()
		return now.AddDate(-1, 0, 0).Format(time.DateOnly), now.Format(time.DateOnly)
	}
	// report is the reports screen on one tab: a year to today.
	report := func(name string) func(*screensFarm, screenIDs) map[string]any {
		return func(s *screensFarm, _ screenIDs) map[string]any {
			from, to := year(s)
			return with(farm(s), "from", from, "to", to, "exposureFrom", from, "exposureTo", to,
				"calving", name == "calving", "spread", name == "spread", "scans", name == "scans", "weaning", name == "weaning", "gain", name == "gain")
		}
	}
	return []appScreen{
		{"register.graphql", "Register", func(s *screensFarm, _ screenIDs) map[string]any {
			return with(farm(s), "first", 50, "asOf", s.today)
		}},
		{"register.graphql", "Register#female", func(s *screensFarm, _ screenIDs) map[string]any {
			return with(farm(s), "first", 50, "asOf", s.today, "sex", "FEMALE")
		}},
		{"register.graphql", "Register#group", func(s *screensFarm, _ screenIDs) map[string]any {
			return with(farm(s), "first", 50, "asOf", s.today, "groupID", s.Group.String())
		}},
		{"register.graphql", "Register#onFarm", func(s *screensFarm, _ screenIDs) map[string]any {
			return with(farm(s), "first", 50, "asOf", s.today, "status", "ON_FARM")
		}},
		{"register.graphql", "Register#search", func(s *screensFarm, _ screenIDs) map[string]any {
			return with(farm(s), "first", 50, "asOf", s.today, "search", "R-0001")
		}},
		{"register.graphql", "RegisterNodes", func(s *screensFarm, _ screenIDs) map[string]any {
			return map[string]any{"ids": []string{cow(s)}, "asOf": s.today}
		}},
		{"register.graphql", "Groups", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"farms.graphql", "Farms", func(*screensFarm, screenIDs) map[string]any { return map[string]any{} }},
		{"farms.graphql", "Dashboard", func(s *screensFarm, _ screenIDs) map[string]any { return with(farm(s), "asOf", s.today) }},
		{"animal.graphql", "Animal", func(s *screensFarm, _ screenIDs) map[string]any { return map[string]any{"id": cow(s), "asOf": s.today} }},
		{"animal.graphql", "AnimalWithdrawalOf", func(s *screensFarm, _ screenIDs) map[string]any {
			return map[string]any{"id": cow(s), "asOf": s.today}
		}},
		{"animal.graphql", "AnimalWithdrawal", func(s *screensFarm, _ screenIDs) map[string]any { return with(farm(s), "asOf", s.today) }},
		{"birth.graphql", "BirthReview", func(s *screensFarm, _ screenIDs) map[string]any {
			return with(farm(s), "damID", cow(s), "birthDate", time.Now().UTC().AddDate(0, 0, -30).Format(time.DateOnly))
		}},
		{"book.graphql", "MyRole", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"book.graphql", "RecordItemTexts", func(_ *screensFarm, ids screenIDs) map[string]any { return map[string]any{"id": ids.record} }},
		{"book.graphql", "Notifications", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"book.graphql", "NotificationsMore", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"breeding.graphql", "Breeding", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"breeding.graphql", "DueMore", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"breeding.graphql", "Names", func(s *screensFarm, _ screenIDs) map[string]any {
			return map[string]any{"ids": []string{cow(s), s.Group.String()}}
		}},
		{"breeding.graphql", "MatingAdvice", func(s *screensFarm, _ screenIDs) map[string]any { return with(farm(s), "damID", cow(s)) }},
		{"breeding.graphql", "Pedigree", func(_ *screensFarm, ids screenIDs) map[string]any { return map[string]any{"id": ids.calf} }},
		{"crush.graphql", "CrushAnimal", func(s *screensFarm, _ screenIDs) map[string]any { return map[string]any{"id": cow(s), "asOf": s.today} }},
		{"crush.graphql", "CrushDue", func(s *screensFarm, _ screenIDs) map[string]any { return with(farm(s), "asOf", s.today) }},
		{"farm.graphql", "FarmSettings", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"farm.graphql", "Members", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"farm.graphql", "Audit", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"forms.graphql", "CalvingForm", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"onboard.graphql", "AnimalForm", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"onboard.graphql", "MedicineForm", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"onboard.graphql", "BirthSettingsForm", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"registry.graphql", "Registry", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
		{"registry.graphql", "AnimalClocks", func(s *screensFarm, _ screenIDs) map[string]any { return with(farm(s), "animalID", cow(s)) }},
		{"registry.graphql", "Reconcile", func(s *screensFarm, _ screenIDs) map[string]any { return with(farm(s), "asOf", s.today) }},
		// The app asks for one report at a time, the one its tab shows.
		{"reports.graphql", "Reports#calving", report("calving")},
		{"reports.graphql", "Reports#spread", report("spread")},
		{"reports.graphql", "Reports#scans", report("scans")},
		{"reports.graphql", "Reports#weaning", report("weaning")},
		{"reports.graphql", "Reports#gain", report("gain")},
		{"reports.graphql", "ReportNames", func(s *screensFarm, _ screenIDs) map[string]any {
			return map[string]any{"ids": []string{cow(s), s.Group.String()}}
		}},
		{"reports.graphql", "CalfWeaning", func(_ *screensFarm, ids screenIDs) map[string]any { return map[string]any{"id": ids.calf} }},
		{"tasks.graphql", "TaskBoard", func(s *screensFarm, _ screenIDs) map[string]any { return with(farm(s), "status", "TODO") }},
		{"tasks.graphql", "Medicines", func(s *screensFarm, _ screenIDs) map[string]any { return farm(s) }},
	}
}

// operation is the name of the app's operation a screen sends (Register#female is Register).
func (a appScreen) operation() string { op, _, _ := strings.Cut(a.op, "#"); return op }

// idsOf finds the screens farm's calf and latest record.
func idsOf(tb testing.TB, app *herdbooktest.App, s *screensFarm) screenIDs {
	tb.Helper()
	ctx := context.Background()
	calf, err := app.DB.Client.Animal.Query().Where(animal.FarmID(s.Farm), animal.Tag("CALF-1")).OnlyID(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	rec, err := app.DB.Client.Record.Query().Where(record.FarmID(s.Farm)).Order(ent.Desc(record.FieldCreatedAt)).FirstID(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return screenIDs{calf: calf.String(), record: rec.String()}
}

// TestEveryScreenListed: appScreens names every query of the web app's documents, so that
// a screen added to the app is measured too.
func TestEveryScreenListed(t *testing.T) {
	listed := map[string]bool{}
	for _, a := range appScreens() {
		listed[a.file+" "+a.operation()] = true
	}
	files, err := filepath.Glob(filepath.Join("..", "web", "app", "src", "graphql", "*.graphql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the app's documents: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, gerr := parser.ParseQuery(&ast.Source{Name: f, Input: string(src)})
		if gerr != nil {
			t.Fatal(gerr)
		}
		for _, o := range doc.Operations {
			if o.Operation == ast.Query && !listed[filepath.Base(f)+" "+o.Name] {
				t.Errorf("%s's query %s is not in appScreens: add it with the variables the app sends", filepath.Base(f), o.Name)
			}
		}
	}
}

// BenchmarkEveryScreen sends every read operation of the web app (appScreens) through the
// whole HTTP stack, on farms of 1,000 and 10,000 animals (herdbooktest.MustBigHerd with
// newScreensFarm's medicine, treated group, weighed, calved and treated cow), on SQLite and
// PostgreSQL: p50-ms, cpu-ms/op (the server process) and stmts/op, each screen both as seen
// again (kept answers) and right after a write (a weighing of another animal each time, as
// at the crush; the write itself is not measured). The register page of 50 is each table's
// yardstick (issue 32.1, 32.2).
//
//	go test -run '^$' -bench EveryScreen -benchtime 5x ./graph/
func BenchmarkEveryScreen(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			for _, n := range []int{1000, 10000} {
				s := newScreensFarm(b, app, n)
				ids := idsOf(b, app, s)
				for _, a := range appScreens() {
					s.ops[a.operation()] = appOperation(b, a.file, a.operation())
				}
				for _, afterWrite := range []bool{false, true} {
					for _, a := range appScreens() {
						name := fmt.Sprintf("animals=%d/%s", n, a.op)
						if afterWrite {
							name += "/afterWrite"
						}
						sc := screen{name: a.op, op: a.operation(), vars: func(s *screensFarm) map[string]any { return a.vars(s, ids) }}
						b.Run(name, func(b *testing.B) {
							s.measure(b, app, sc, 1)
							var p50 []time.Duration
							var stmts int64
							var cpu time.Duration
							b.ResetTimer()
							for i := 0; i < b.N; i++ {
								if afterWrite {
									b.StopTimer()
									s.weigh(b, app, i)
									b.StartTimer()
								}
								cpu0 := cpuTime()
								d, q := s.measure(b, app, sc, 1)
								cpu += cpuTime() - cpu0
								p50, stmts = append(p50, d), stmts+q
							}
							b.StopTimer()
							slices.Sort(p50)
							b.ReportMetric(float64(p50[len(p50)/2].Microseconds())/1000, "p50-ms")
							b.ReportMetric(float64(stmts)/float64(b.N), "stmts/op")
							b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
						})
					}
				}
			}
		})
	}
}

// weigh records a weighing of the farm's i-th animal (the write that precedes each screen
// measured after a write): it moves the farm's change counter and names one animal.
func (s *screensFarm) weigh(tb testing.TB, app *herdbooktest.App, i int) {
	tb.Helper()
	a, err := app.DB.Client.Animal.Query().Where(animal.FarmID(s.Farm), animal.Tag(s.Tag(1+i%s.Animals))).OnlyID(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if err := app.Service.WriteAnimalFacts(app.Ctx(s.owner), s.Farm, []evidence.Fact{{Kind: evidence.KindWeight,
		AnimalID: a.String(), Date: s.today, KG: json.Number(fmt.Sprint(400 + i%50))}}); err != nil {
		tb.Fatal(err)
	}
}
