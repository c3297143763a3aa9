package herdbooktest

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/schema/schematype"
)

// BigHerd is a farm the register's scale tests (browser and benchmark) share.
type BigHerd struct {
	Farm, Group uuid.UUID
	Animals     int
}

// Tag is the tag of the herd's animal number i (1-based): R-00001 and on, so that the
// register's order by tag is the order of the numbers.
func (BigHerd) Tag(i int) string { return fmt.Sprintf("R-%05d", i) }

// Male reports whether animal number i is male: every third one (the others are female).
func (BigHerd) Male(i int) bool { return i%3 == 0 }

// InGroup reports whether membership facts place animal number i in the group today: every
// fourth one, since 2024-01-01. Those with i ≡ 1 mod 4 were members only in 2023, so a
// filter that read any membership ever, not the day's, would show.
func (BigHerd) InGroup(i int) bool { return i%4 == 0 }

// Count is how many of the herd's animals keep answers true.
func (h BigHerd) Count(keep func(i int) bool) int {
	n := 0
	for i := 1; i <= h.Animals; i++ {
		if keep(i) {
			n++
		}
	}
	return n
}

// MustBigHerd writes a farm of n animals owned by owner, each with a profile fact (sex as
// Male says, born in 2020 or 2021), and the group Paddock with the membership facts InGroup
// describes. It writes straight through ent, in batches of 500 and one transaction (as
// internal/seed does), with the facts' indexed columns and animal links the API's write
// path gives them: 10,000 animals through the API would take minutes, this a few seconds.
func (a *App) MustBigHerd(owner uuid.UUID, n int) BigHerd {
	a.tb.Helper()
	h := BigHerd{Animals: n}
	ctx := context.Background()
	tx, err := a.DB.Client.Tx(ctx)
	if err != nil {
		a.tb.Fatal(err)
	}
	if err := bigHerd(ent.NewTxContext(ctx, tx), tx.Client(), owner, &h); err != nil {
		_ = tx.Rollback()
		a.tb.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		a.tb.Fatal(err)
	}
	return h
}

func bigHerd(ctx context.Context, c *ent.Client, owner uuid.UUID, h *BigHerd) error {
	f, err := c.Farm.Create().SetName("Big Farm").SetSpecies(farm.SpeciesCATTLE).Save(ctx)
	if err != nil {
		return err
	}
	h.Farm = f.ID
	if err := c.FarmMember.Create().SetFarmID(f.ID).SetUserID(owner).SetRole(farmmember.RoleOWNER).Exec(ctx); err != nil {
		return err
	}
	g, err := c.Group.Create().SetFarmID(f.ID).SetName("Paddock").Save(ctx)
	if err != nil {
		return err
	}
	h.Group = g.ID
	const batch = 500
	born := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for start := 1; start <= h.Animals; start += batch {
		end := min(start+batch-1, h.Animals)
		animals := make([]*ent.AnimalCreate, 0, end-start+1)
		var facts []map[string]any
		for i := start; i <= end; i++ {
			id := uuid.New()
			animals = append(animals, c.Animal.Create().SetID(id).SetFarmID(f.ID).SetTag(h.Tag(i)))
			sex := "female"
			if h.Male(i) {
				sex = "male"
			}
			facts = append(facts, map[string]any{"kind": "profile", "animal_id": id.String(), "sex": sex,
				"birth_date": born.AddDate(0, 0, i%700).Format(time.DateOnly), "breed": "Angus"})
			switch {
			case h.InGroup(i):
				facts = append(facts, map[string]any{"kind": "membership", "animal_id": id.String(), "group_id": g.ID.String(), "start_date": "2024-01-01"})
			case i%4 == 1:
				facts = append(facts, map[string]any{"kind": "membership", "animal_id": id.String(), "group_id": g.ID.String(),
					"start_date": "2023-01-01", "end_date": "2023-12-31"})
			}
		}
		if err := c.Animal.CreateBulk(animals...).Exec(ctx); err != nil {
			return err
		}
		// One record per 100 facts, as a bulk import files them.
		for lo := 0; lo < len(facts); lo += 100 {
			rid := uuid.New()
			if err := c.Record.Create().SetID(rid).SetFarmID(f.ID).SetName("Register import").SetType(record.TypeOTHER).
				SetAppliedAt(born).Exec(ctx); err != nil {
				return err
			}
			var items []*ent.RecordItemCreate
			var links []*ent.FactAnimalCreate
			for k, fact := range facts[lo:min(lo+100, len(facts))] {
				md := map[string]any{"birth_history": fact}
				text, err := schematype.MetadataOf(md)
				if err != nil {
					return err
				}
				itemID := uuid.New()
				items = append(items, herdbook.WithFactColumns(c.RecordItem.Create().SetID(itemID).SetRecordID(rid).SetFarmID(f.ID).
					SetName("Fact "+strconv.Itoa(lo+k+1)).SetMetadata(text), md))
				links = append(links, herdbook.FactLinks(c, f.ID, itemID, md)...)
			}
			if err := c.RecordItem.CreateBulk(items...).Exec(ctx); err != nil {
				return err
			}
			if err := c.FactAnimal.CreateBulk(links...).Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
