package herdbook

import (
	"context"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/schema/onfarm"
	"github.com/herdbook/herdbook/internal/db/citus"
)

// Statements name the farm (issue 30.3): farmOf and linkedOf, in internal/db/citus, add the
// farm to a query where a farm's request already knows it.
var (
	farmOf   = citus.FarmOf
	linkedOf = citus.LinkedOf
)

// updateRecordOf changes one record of the farm, as set says, and reads it back, both
// named by id and farm: ent's UpdateOne(…).Save reads its row back by id alone, which a
// cluster runs on every shard. The change tracking and the audit trail are told the farm
// (onfarm), so theirs stay on its shard too. The same two statements as UpdateOne's; a record
// of another farm is not found.
func updateRecordOf(ctx context.Context, c *ent.Client, farmID, id uuid.UUID, set func(*ent.RecordMutation)) (*ent.Record, error) {
	ctx = onfarm.With(ctx, farmID)
	u := c.Record.Update().Where(record.ID(id), record.FarmID(farmID))
	set(u.Mutation())
	if n, err := u.Save(ctx); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, Errorf(ENOTFOUND, "record %s not found", id)
	}
	return c.Record.Query().Where(record.ID(id), record.FarmID(farmID)).Only(IncludeInactive(ctx))
}

// updateAnimalOf is updateRecordOf for an animal.
func updateAnimalOf(ctx context.Context, c *ent.Client, farmID, id uuid.UUID, set func(*ent.AnimalMutation)) (*ent.Animal, error) {
	ctx = onfarm.With(ctx, farmID)
	u := c.Animal.Update().Where(animal.ID(id), animal.FarmID(farmID))
	set(u.Mutation())
	if n, err := u.Save(ctx); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, Errorf(ENOTFOUND, "animal %s not found", id)
	}
	return c.Animal.Query().Where(animal.ID(id), animal.FarmID(farmID)).Only(IncludeInactive(ctx))
}
