package herdbook_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/medicine"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// crushGroup and crushMedicine name what BenchmarkCrushWrites adds to farm L once: a group
// of 200 animals and a medicine with a meat and a milk withdrawal.
const (
	crushGroup    = "Crush 200"
	crushMedicine = "Crush benchmark penicillin"
	crushAnimals  = 200
)

// BenchmarkCrushWrites is issue 32.5: the writes at the crush on farm L (10,000 animals,
// 200,000 items, scale_test.go's cell), on SQLite and PostgreSQL, each through the service
// layer with the history checks and the withdrawal guard on, as the app's mutations reach
// them: a weighing (RecordFactWith, weightRecord's path), a treatment of one animal and of a
// group of 200 (RecordFact, factCreate's path; the group's treatment stores its reach), a
// calving with one calf (RecordCalving), and a 200-line weigh-scale session file
// (ImportWeighings). Each op reports its median (p50-ms) and statements (stmts/op); each
// iteration writes another animal or another weight. cpu-ms/op is this process's CPU an op
// (the server's side of it; on PostgreSQL the database's own CPU is not in it), steadier
// than the wall time on a shared machine. On PostgreSQL the writes go into a farm
// of their own (schema crush_*), which keeps them between runs; SQLite copies the cached
// farm for every run.
//
//	go test -run '^$' -bench CrushWrites -benchtime 20x -timeout 60m .
func BenchmarkCrushWrites(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app, farm, owner := scaleFarmOf(b, dia, scaleCell{10_000, 0}, "crush_")
			ctx := app.Ctx(owner)
			fx := crushFixture(b, app, ctx, farm)
			// run is unique to this run, so that repeated runs on PostgreSQL's kept farm write
			// new weights and calve other dams.
			run := int(time.Now().UnixNano()/int64(time.Millisecond)) % 100_000
			// seq numbers the ops of a run across the benchmark's rounds (b.N = 1, then 20),
			// so that no op repeats an earlier one's animal and day.
			seq := 0
			timed := func(b *testing.B, op func(i int)) {
				var ms []float64
				var stmts int64
				cpu := cpuTime()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					start := time.Now()
					seq++
					stmts += app.Queries(func() { op(seq) })
					ms = append(ms, float64(time.Since(start).Microseconds())/1000)
				}
				b.StopTimer()
				b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
				slices.Sort(ms)
				b.ReportMetric(ms[len(ms)/2], "p50-ms")
				b.ReportMetric(float64(stmts)/float64(b.N), "stmts/op")
			}
			must := func(b *testing.B, err error) {
				if err != nil {
					b.Fatal(err)
				}
			}
			animalAt := func(i int) uuid.UUID { return fx.females[(run+i)%len(fx.females)] }
			b.Run("weighing", func(b *testing.B) {
				timed(b, func(i int) {
					a := animalAt(i)
					_, err := app.Service.RecordFactWith(ctx, farm, evidence.Fact{Kind: evidence.KindWeight, AnimalID: a.String(),
						Date: "2026-05-01", KG: "412.5"}, herdbook.FactOptions{})
					must(b, err)
				})
			})
			b.Run("treatment", func(b *testing.B) {
				timed(b, func(i int) {
					a := animalAt(i + 7)
					_, err := app.Service.RecordFact(ctx, farm, evidence.Fact{Kind: evidence.KindTreatment, AnimalID: a.String(),
						MedicineID: fx.medicine.String(), Date: "2026-05-02"})
					must(b, err)
				})
			})
			b.Run("treatment200", func(b *testing.B) {
				timed(b, func(i int) {
					_, err := app.Service.RecordFact(ctx, farm, evidence.Fact{Kind: evidence.KindTreatment, GroupID: fx.group.String(),
						MedicineID: fx.medicine.String(), Date: "2026-05-03"})
					must(b, err)
				})
			})
			b.Run("calving", func(b *testing.B) {
				timed(b, func(i int) {
					dam := animalAt(i + 13)
					_, _, err := app.Service.RecordCalving(ctx, farm, herdbook.CalvingInput{DamID: dam.String(), Date: "2026-05-04",
						Calves: []herdbook.CalfInput{{Tag: fmt.Sprintf("CB-%d-%d", run, i), Sex: "female", Status: herdbook.CalfAlive}}})
					must(b, err)
				})
			})
			b.Run("import200", func(b *testing.B) {
				timed(b, func(i int) {
					var f strings.Builder
					f.WriteString("EID,VID,Weight (kg),Date,Time,Note\n")
					// A day and weights no earlier run wrote (else every line is unchanged and
					// nothing is written).
					day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (run/100)%1000+i).Format(time.DateOnly)
					for k, eid := range fx.eids {
						fmt.Fprintf(&f, "0%s,,%d.%02d,%s,08:%02d:%02d,\n", eid, 300+k, run%100, day, k/60, k%60)
					}
					res, err := app.Service.ImportWeighings(ctx, farm, strings.NewReader(f.String()), herdbook.WeighImportOptions{})
					must(b, err)
					if res.Recorded != crushAnimals {
						b.Fatalf("recorded %d, unchanged %d", res.Recorded, res.Unchanged)
					}
				})
			})
		})
	}
}

type crushFarm struct {
	females  []uuid.UUID // the farm's females, by tag
	group    uuid.UUID   // crushGroup: crushAnimals of them, members from 2025-01-01
	medicine uuid.UUID
	eids     []string // the EIDs of the group's animals, from 2025-01-01
}

// crushFixture finds, or adds once, what the crush writes need on farm L.
func crushFixture(b *testing.B, app *herdbooktest.App, ctx context.Context, farm uuid.UUID) crushFarm {
	b.Helper()
	c := app.DB.Client
	bg := context.Background()
	var fx crushFarm
	as, err := c.Animal.Query().Where(animal.FarmID(farm)).Order(ent.Asc(animal.FieldTag)).All(bg)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]uuid.UUID, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	profiles, err := app.Service.Profiles(ctx, farm, ids, "2026-05-01")
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range as {
		if p := profiles[a.ID]; p.Sex != nil && *p.Sex == evidence.SexFemale && p.Status == evidence.StatusOnFarm && strings.HasPrefix(a.Tag, "F") {
			fx.females = append(fx.females, a.ID)
		}
	}
	if len(fx.females) < 2*crushAnimals {
		b.Fatalf("%d females on farm L", len(fx.females))
	}
	members := fx.females[:crushAnimals]
	for i := range members {
		fx.eids = append(fx.eids, fmt.Sprintf("982000004%06d", i))
	}
	// A treatment dated by a bare day needs the farm's time zone (its milk withdrawal ends
	// at the end of that local day).
	zone := "UTC"
	if _, err := app.Service.UpdateFarmSettings(ctx, farm, herdbook.FarmSettingsPatch{TimeZone: herdbook.Optional[string]{Set: true, Value: &zone}}); err != nil {
		b.Fatal(err)
	}
	if m, err := c.Medicine.Query().Where(medicine.FarmID(farm), medicine.Name(crushMedicine)).Only(bg); err == nil {
		fx.medicine = m.ID
	} else {
		meat, milk := 28, 96
		m, err := app.Service.CreateMedicine(ctx, farm, herdbook.MedicineInput{Name: crushMedicine,
			WithdrawalMeatDays: herdbook.Optional[int]{Set: true, Value: &meat}, WithdrawalMilkHours: herdbook.Optional[int]{Set: true, Value: &milk}})
		if err != nil {
			b.Fatal(err)
		}
		fx.medicine = m.ID
	}
	if g, err := c.Group.Query().Where(group.FarmID(farm), group.Name(crushGroup)).Only(bg); err == nil {
		fx.group = g.ID
		return fx
	}
	g, err := app.Service.CreateGroup(ctx, farm, herdbook.GroupInput{Name: crushGroup})
	if err != nil {
		b.Fatal(err)
	}
	fx.group = g.ID
	facts := make([]evidence.Fact, 0, 2*len(members))
	for i, id := range members {
		facts = append(facts,
			evidence.Fact{Kind: evidence.KindMembership, AnimalID: id.String(), GroupID: g.ID.String(), StartDate: "2025-01-01"},
			evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: id.String(), Scheme: evidence.SchemeEID, Value: fx.eids[i], StartDate: "2025-01-01"})
	}
	if err := app.Service.WriteAnimalFacts(ctx, farm, facts); err != nil {
		b.Fatal(err)
	}
	n, err := c.RecordItem.Query().Where(recorditem.FactKind(string(evidence.KindIdentifier)),
		recorditem.HasRecordWith(record.FarmID(farm))).Count(bg)
	if err != nil || n < crushAnimals {
		b.Fatalf("identifiers %d: %v", n, err)
	}
	return fx
}
