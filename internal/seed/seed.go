// Package seed fills a database with synthetic, deterministic farms for demos and
// benchmarks: animals with profile facts, groups with membership and exposure facts, and
// records with items. It writes through ent in batches (facts get their indexed columns from
// herdbook.WithFactColumns, as on the API's write path); it is an administrative tool, not a
// path for user input.
package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/schema/schematype"
)

// Options sizes the data.
type Options struct {
	Owner          uuid.UUID // becomes OWNER of every farm
	Farms          int
	AnimalsPerFarm int
	GroupsPerFarm  int
	RecordsPerFarm int
	ItemsPerRecord int
	// WeightsPerAnimal adds that many dated weighings to every animal's history (zero, the
	// default, leaves the seeded history as it always was): benchmarks grow the facts per
	// animal with it while the farm's items stay RecordsPerFarm × ItemsPerRecord.
	WeightsPerAnimal int
	Seed             uint64 // same seed, same data
	// Progress, when set, is told after every batch how many rows are written of how many
	// the options make (Rows).
	Progress func(done, total int)
}

// Rows returns how many rows the options make: farms, owner memberships, animals, groups,
// records and items (items only where there are animals).
func (o Options) Rows() int {
	perFarm := 1 + o.AnimalsPerFarm + o.GroupsPerFarm + o.RecordsPerFarm
	if o.Owner != uuid.Nil {
		perFarm++
	}
	if o.AnimalsPerFarm > 0 {
		perFarm += o.RecordsPerFarm * o.ItemsPerRecord
	}
	return o.Farms * perFarm
}

// Result counts what was written.
type Result struct {
	FarmIDs []uuid.UUID
	Animals int
	Groups  int
	Records int
	Items   int
}

const batch = 500

var (
	breeds  = []string{"Angus", "Hereford", "Charolais", "Limousin", "Simmental", "Highland"}
	recKind = []record.Type{record.TypeHEALTH, record.TypeFEED, record.TypeMOVEMENT, record.TypeGENETIC, record.TypeOTHER}
)

// Run writes the data described by o, in one transaction: the change numbers and webhook
// events of what it writes commit with it (package ent/schema/track), and a failed seed
// leaves nothing half-written behind.
func Run(ctx context.Context, c *ent.Client, o Options) (Result, error) {
	tx, err := c.Tx(ctx)
	if err != nil {
		return Result{}, err
	}
	res, err := run(ent.NewTxContext(ctx, tx), tx.Client(), o)
	if err != nil {
		_ = tx.Rollback()
		return Result{}, err
	}
	return res, tx.Commit()
}

func run(ctx context.Context, c *ent.Client, o Options) (Result, error) {
	var res Result
	total, done := o.Rows(), 0
	wrote := func(n int) {
		done += n
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	day := func(n int) string { return base.AddDate(0, 0, n).Format("2006-01-02") }
	for fi := 0; fi < o.Farms; fi++ {
		f, err := c.Farm.Create().SetName(fmt.Sprintf("Seed farm %d", fi+1)).SetSpecies(farm.SpeciesCATTLE).Save(ctx)
		if err != nil {
			return res, err
		}
		res.FarmIDs = append(res.FarmIDs, f.ID)
		wrote(1)
		if o.Owner != uuid.Nil {
			if err := c.FarmMember.Create().SetFarmID(f.ID).SetUserID(o.Owner).SetRole(farmmember.RoleOWNER).Exec(ctx); err != nil {
				return res, err
			}
			wrote(1)
		}
		animals := make([]uuid.UUID, o.AnimalsPerFarm)
		for start := 0; start < len(animals); start += batch {
			end := min(start+batch, len(animals))
			b := make([]*ent.AnimalCreate, 0, end-start)
			for i := start; i < end; i++ {
				animals[i] = uuid.New()
				b = append(b, c.Animal.Create().SetID(animals[i]).SetFarmID(f.ID).SetTag(fmt.Sprintf("F%d-%05d", fi+1, i+1)))
			}
			if err := c.Animal.CreateBulk(b...).Exec(ctx); err != nil {
				return res, err
			}
			res.Animals += end - start
			wrote(end - start)
		}
		groups := make([]uuid.UUID, o.GroupsPerFarm)
		gb := make([]*ent.GroupCreate, len(groups))
		for i := range groups {
			groups[i] = uuid.New()
			gb[i] = c.Group.Create().SetID(groups[i]).SetFarmID(f.ID).SetName(fmt.Sprintf("Pasture %d", i+1))
		}
		if len(gb) > 0 {
			if err := c.Group.CreateBulk(gb...).Exec(ctx); err != nil {
				return res, err
			}
			res.Groups += len(gb)
			wrote(len(gb))
		}

		facts := herdFacts(rng, animals, groups, day, o.WeightsPerAnimal)
		fact := func(i int) map[string]any {
			if i < len(facts) {
				return facts[i]
			}
			return nil
		}
		farmItems := res.Items
		for start := 0; start < o.RecordsPerFarm; start += batch {
			end := min(start+batch, o.RecordsPerFarm)
			rb := make([]*ent.RecordCreate, 0, end-start)
			ids := make([]uuid.UUID, 0, end-start)
			var links herdbook.RecordLinks
			for i := start; i < end; i++ {
				id := uuid.New()
				ids = append(ids, id)
				r := c.Record.Create().SetID(id).SetFarmID(f.ID).SetName(fmt.Sprintf("Record %d", i+1)).
					SetType(recKind[i%len(recKind)]).SetAppliedAt(base.Add(time.Duration(i) * time.Hour))
				var ra, rg []uuid.UUID
				if len(animals) > 0 {
					ra = append(ra, animals[rng.IntN(len(animals))])
				}
				if len(groups) > 0 && i%3 == 0 {
					rg = append(rg, groups[rng.IntN(len(groups))])
				}
				links.Add(c, f.ID, id, ra, rg)
				rb = append(rb, r)
			}
			if err := c.Record.CreateBulk(rb...).Exec(ctx); err != nil {
				return res, err
			}
			if err := links.Save(ctx, c); err != nil {
				return res, err
			}
			res.Records += len(rb)
			wrote(len(rb))
			if o.ItemsPerRecord > 0 && len(animals) > 0 {
				var ib []*ent.RecordItemCreate
				var links []*ent.FactAnimalCreate
				flush := func() error {
					if len(ib) == 0 {
						return nil
					}
					if err := c.RecordItem.CreateBulk(ib...).Exec(ctx); err != nil {
						return err
					}
					if len(links) > 0 {
						if err := c.FactAnimal.CreateBulk(links...).Exec(ctx); err != nil {
							return err
						}
						links = links[:0]
					}
					res.Items += len(ib)
					wrote(len(ib))
					ib = ib[:0]
					return nil
				}
				for _, rid := range ids {
					for k := 0; k < o.ItemsPerRecord; k++ {
						itemID := uuid.New()
						it := c.RecordItem.Create().SetID(itemID).SetRecordID(rid).SetFarmID(f.ID).SetName(fmt.Sprintf("Item %d", k+1))
						if bh := fact(res.Items - farmItems + len(ib)); bh != nil {
							md := map[string]any{"birth_history": bh}
							text, err := schematype.MetadataOf(md)
							if err != nil {
								return res, err
							}
							it = herdbook.WithFactColumns(it.SetMetadata(text), md)
							links = append(links, herdbook.FactLinks(c, f.ID, itemID, md)...)
						} else {
							it.SetMetadata(schematype.Metadata(`{"note":"routine"}`))
						}
						ib = append(ib, it)
						if len(ib) == batch {
							if err := flush(); err != nil {
								return res, err
							}
						}
					}
				}
				if err := flush(); err != nil {
					return res, err
				}
			}
		}
	}
	return res, nil
}

// herdFacts is a plausible history: a profile for every animal (one in twenty male), two
// dated group memberships per female, three group exposures and often a castration per
// male, and a purchase for one animal in five. Facts come first in the farm's items; the
// rest of the items are routine notes. weights adds that many weighings per animal, a month
// apart from its birth on.
func herdFacts(rng *rand.Rand, animals, groups []uuid.UUID, day func(int) string, weights int) []map[string]any {
	var out []map[string]any
	for _, a := range animals {
		male := rng.IntN(20) == 0
		sex := "female"
		if male {
			sex = "male"
		}
		born := rng.IntN(900)
		out = append(out, map[string]any{"kind": "profile", "animal_id": a.String(), "sex": sex,
			"birth_date": day(born), "breed": breeds[rng.IntN(len(breeds))]})
		for k := 0; k < weights; k++ {
			out = append(out, map[string]any{"kind": "weight", "animal_id": a.String(), "date": day(born + 30*(k+1)),
				"kg": float64(40 + 25*k + rng.IntN(10))})
		}
		if rng.IntN(5) == 0 {
			out = append(out, map[string]any{"kind": "purchase", "animal_id": a.String(), "date": day(born + 60 + rng.IntN(300))})
		}
		if len(groups) == 0 {
			continue
		}
		if male {
			if rng.IntN(3) == 0 {
				out = append(out, map[string]any{"kind": "castration", "animal_id": a.String(), "date": day(born + 30 + rng.IntN(200))})
			}
			for k := 0; k < 3; k++ {
				start := 900 + rng.IntN(1200)
				out = append(out, map[string]any{"kind": "exposure", "sire_id": a.String(), "group_id": groups[rng.IntN(len(groups))].String(),
					"start_date": day(start), "end_date": day(start + 20 + rng.IntN(60))})
			}
			continue
		}
		start := 700 + rng.IntN(400)
		for k := 0; k < 2; k++ {
			end := start + 100 + rng.IntN(400)
			out = append(out, map[string]any{"kind": "membership", "animal_id": a.String(), "group_id": groups[rng.IntN(len(groups))].String(),
				"start_date": day(start), "end_date": day(end)})
			start = end + 1
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
