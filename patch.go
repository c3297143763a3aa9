package herdbook

import (
	"context"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/factanimal"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema"
	"github.com/herdbook/herdbook/ent/treatmentreach"
	"github.com/herdbook/herdbook/evidence"
)

// Kept answers that a write patches. Some answers the farm's screens need are each animal's
// own part gathered over the farm: the animals of a sex on a day (each one's profile facts),
// a group's members (each one's membership facts), the animals of each status (each one's
// arrivals and departures). Kept by the farm's change counter alone (derived.go), every write
// threw them away and the next screen derived them whole again: a quarter of a second on
// 10,000 animals for a register filtered by sex right after a weighing. A write changes the
// parts of the animals it names only, and the change feed (feed.go) says which those are: the
// records it wrote or changed carry the counter's new numbers, and the fact links of their
// items (fact_animals) name every animal each fact names, in any role; animals created,
// changed or deleted carry the numbers too. So an answer kept at an earlier position is
// patched: the parts of those animals are derived again, from their facts as they are now, and
// the others kept. Items are never changed after their record is written (corrections add,
// void or amend records), so a record's number covers its items and their links.
// TestPatchedAnswersMatchDerived holds every patched answer to the one derived whole after
// random writes, voids and deletions, on both databases.

// touchedCap bounds the animals a patch derives again: past it (an import, an archive, a
// group's move of thousands) the answer is derived whole, which then costs no more.
const touchedCap = 2000

// touchedSince answers the farm's animals whose facts or rows changed after change position
// seq: those the facts of every record numbered later name (active or not: a void or a
// deletion changes them too), and the animals numbered later. ok is false when more than
// touchedCap changed, and the caller derives its answer whole. Two statements.
func (s *Service) touchedSince(ctx context.Context, farmID uuid.UUID, seq int64) (ids []uuid.UUID, ok bool, err error) {
	all := schema.IncludeInactive(ctx)
	c := s.Client(all)
	var links []struct {
		AnimalID uuid.UUID `json:"animal_id"`
	}
	err = c.FactAnimal.Query().
		Where(func(sel *sql.Selector) {
			sel.Where(sql.In(sel.C(factanimal.FieldRecordItemID), itemsSince(farmID, seq)))
		}).
		Limit(touchedCap+1).
		Select(factanimal.FieldAnimalID).Scan(all, &links)
	if err != nil || len(links) > touchedCap {
		return nil, false, err
	}
	for _, l := range links {
		ids = append(ids, l.AnimalID)
	}
	changed, err := c.Animal.Query().Where(animal.FarmID(farmID), animal.ChangeSeqGT(seq)).
		Limit(touchedCap + 1).IDs(all)
	if err != nil || len(changed) > touchedCap {
		return nil, false, err
	}
	ids = dedupe(append(ids, changed...))
	return ids, len(ids) <= touchedCap, nil
}

// keptPatched is keptIn (derived.go) for an answer made of each animal's own part: on a miss
// it takes the newest answer of the same name kept at an earlier position and patch makes it
// current for the animals touched since its position (touchedSince), or derive makes it whole
// when none is kept or too many animals changed. patch must not change the answer it is given
// (it is shared) and must answer for touched exactly what derive would; it is given the kept
// answer's position too, for what else it must read of the writes since. Without patch, every
// miss is derived whole (keptIn).
func keptPatched[T any](ctx context.Context, s *Service, c *derivedCache, farmID uuid.UUID, name string,
	derive func() (T, error), patch func(old T, touched []uuid.UUID, since int64) (T, error)) (out T, whole bool, err error) {
	if deriveAfresh(ctx) {
		out, err = derive()
		return out, true, err
	}
	seq, err := s.farmPosition(ctx, farmID)
	if err != nil {
		return out, false, err
	}
	key := derivedKey{farm: farmID, seq: seq, name: name}
	c.mu.Lock()
	v, ok := c.vals[key]
	c.mu.Unlock()
	if ok {
		return v.(T), false, nil
	}
	wholeNow := func() (T, error) {
		whole = true
		return derive()
	}
	if out, err = patchNewest(ctx, s, c, farmID, seq, name, wholeNow, patch); err != nil {
		return out, whole, err
	}
	c.keep(key, out)
	return out, whole, nil
}

// patchNewest patches the newest kept answer of name to position seq, or derives it whole.
func patchNewest[T any](ctx context.Context, s *Service, c *derivedCache, farmID uuid.UUID, seq int64, name string,
	derive func() (T, error), patch func(old T, touched []uuid.UUID, since int64) (T, error)) (T, error) {
	v, at, ok := c.newest(farmID, name)
	if !ok || at > seq || patch == nil {
		return derive()
	}
	touched, ok, err := s.touchedSince(ctx, farmID, at)
	if err != nil || !ok {
		if err != nil {
			var zero T
			return zero, err
		}
		return derive()
	}
	return patch(v.(T), touched, at)
}

// patchSet is a kept set of animals made current for touched: the touched animals leave it,
// and those of them in now (active animals the caller's facts place in it) join it. The
// kept set is not changed.
func patchSet(old []uuid.UUID, touched, in []uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(old)+len(in))
	gone := make(map[uuid.UUID]bool, len(touched))
	for _, id := range touched {
		gone[id] = true
	}
	for _, id := range old {
		if !gone[id] {
			out = append(out, id)
		}
	}
	return append(out, in...)
}

// activeAmong answers which of ids are the farm's active animals (one statement).
func (s *Service) activeAmong(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) ([]uuid.UUID, error) {
	return s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(ids...)).IDs(ctx)
}

// groupTreatedSince answers the animals that the group treatments of the records numbered
// after seq reach: the reach stored with each and the members its group's facts place in the
// group on its day (a group's treatment names no animal, so touchedSince does not find them;
// a void takes the treatment from both). One statement, four when a group treatment changed.
// ok is false when more than touchedCap group treatments changed.
func (s *Service) groupTreatedSince(ctx context.Context, farmID uuid.UUID, seq int64) (_ []uuid.UUID, ok bool, err error) {
	all := schema.IncludeInactive(ctx)
	// The items of the records numbered later, whatever their kind: a handful, where the
	// farm's group treatments are its history (the kind is not searched by its index).
	changed, err := s.Client(all).RecordItem.Query().
		Where(func(sel *sql.Selector) { sel.Where(sql.In(sel.C(recorditem.FieldRecordID), recordsSince(farmID, seq))) }).
		Limit(touchedCap+1).
		Select(recorditem.FieldID, recorditem.FieldFactKind, recorditem.FieldFactGroup, recorditem.FieldFactDate).All(all)
	if err != nil || len(changed) > touchedCap {
		return nil, false, err
	}
	var items []*ent.RecordItem
	for _, it := range changed {
		if it.FactKind != nil && *it.FactKind == string(evidence.KindTreatment) && it.FactGroup != nil {
			items = append(items, it)
		}
	}
	if len(items) == 0 {
		return nil, true, nil
	}
	ids, groups := make([]uuid.UUID, len(items)), make([]uuid.UUID, len(items))
	for i, it := range items {
		ids[i], groups[i] = it.ID, *it.FactGroup
	}
	var stored []struct {
		AnimalID uuid.UUID `json:"animal_id"`
	}
	if err := s.Client(ctx).TreatmentReach.Query().Where(treatmentreach.FarmID(farmID), treatmentreach.RecordItemIDIn(ids...)).
		Unique(true).Select(treatmentreach.FieldAnimalID).Scan(ctx, &stored); err != nil {
		return nil, false, err
	}
	out := make([]uuid.UUID, 0, len(stored))
	for _, r := range stored {
		out = append(out, r.AnimalID)
	}
	h, err := s.groupHistory(ctx, farmID, groups)
	if err != nil {
		return nil, false, err
	}
	for _, it := range items {
		if it.FactDate == nil {
			continue
		}
		for a := range h.MembersOn(it.FactGroup.String(), *it.FactDate) {
			if u, err := uuid.Parse(a); err == nil {
				out = append(out, u)
			}
		}
	}
	return dedupe(out), true, nil
}

// recordsSince selects the ids of the farm's records numbered after seq, deleted and voided
// ones too: a search of their (farm_id, change_seq) index.
func recordsSince(farmID uuid.UUID, seq int64) *sql.Selector {
	recs := sql.Table(record.Table)
	return sql.Select(recs.C(record.FieldID)).From(recs).
		Where(sql.And(sql.EQ(recs.C(record.FieldFarmID), farmID), sql.GT(recs.C(record.FieldChangeSeq), seq)))
}

// itemsSince selects the ids of the items of the farm's records numbered after seq: the
// records by their (farm_id, change_seq) index, then their items by the record's. A
// subquery that SQLite reads once, where the EXISTS of an edge predicate made it walk every
// link of every farm and probe each one's record.
func itemsSince(farmID uuid.UUID, seq int64) *sql.Selector {
	items := sql.Table(recorditem.Table)
	return sql.Select(items.C(recorditem.FieldID)).From(items).
		Where(sql.In(items.C(recorditem.FieldRecordID), recordsSince(farmID, seq)))
}
