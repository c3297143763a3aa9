package herdbook

import (
	"context"
	"fmt"
	"slices"

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
	// A screen that patches several answers kept at the same position (the dashboard's) reads
	// the animals once.
	t, err := onceInRequest(ctx, fmt.Sprintf("touched-since %s %d", farmID, seq), func() (touchedAnimals, error) {
		ids, ok, err := s.readTouchedSince(ctx, farmID, seq)
		return touchedAnimals{slices.Clip(ids), ok}, err // shared: an append copies
	})
	return t.ids, t.ok, err
}

// touchedAnimals are the animals touchedSince answers.
type touchedAnimals struct {
	ids []uuid.UUID
	ok  bool
}

func (s *Service) readTouchedSince(ctx context.Context, farmID uuid.UUID, seq int64) (ids []uuid.UUID, ok bool, err error) {
	all := schema.IncludeInactive(ctx)
	c := s.Client(all)
	var links []struct {
		AnimalID uuid.UUID `json:"animal_id"`
	}
	err = c.FactAnimal.Query().
		Where(func(sel *sql.Selector) {
			sel.Where(sql.And(sql.In(sel.C(factanimal.FieldRecordItemID), itemsSince(farmID, seq)), sql.EQ(sel.C(factanimal.FieldFarmID), farmID)))
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

// keptPatched is keptUpdated (below) for an answer made of each animal's own part, read from
// the facts of kinds: on a miss it takes the newest answer of the same name kept at an
// earlier position. A write of other kinds alone that changed no animal leaves it as it was
// (unchangedFor, two statements, as keptUnless); otherwise patch makes it current for the
// animals touched since its position (touchedSince), or derive makes it whole when none is
// kept or too many animals changed. patch must not change the answer nor the animals it is
// given (they are shared) and must answer for touched exactly what derive would; it is given
// the kept answer's position too, for what else it must read of the writes since.
func keptPatched[T any](ctx context.Context, s *Service, c *derivedCache, farmID uuid.UUID, name string, kinds []string,
	derive func() (T, error), patch func(old T, touched []uuid.UUID, since int64) (T, error)) (out T, whole bool, err error) {
	return keptUpdated(ctx, s, c, farmID, name, derive, func(old T, at int64) (T, bool, error) {
		if same, err := s.unchangedFor(ctx, farmID, at, kinds); err != nil || same {
			return old, err == nil, err
		}
		touched, ok, err := s.touchedSince(ctx, farmID, at)
		if err != nil || !ok {
			var zero T
			return zero, false, err
		}
		out, err := patch(old, touched, at)
		return out, err == nil, err
	})
}

// keptUpdated answers name at the farm's current change position (derived.go): the answer
// kept there, else the newest one kept at an earlier position brought up to date by update
// (which answers false when it cannot, and must not change the kept answer it is given), else
// derive's. The answer is kept at the current position; whole tells that derive made it.
func keptUpdated[T any](ctx context.Context, s *Service, c *derivedCache, farmID uuid.UUID, name string,
	derive func() (T, error), update func(old T, at int64) (T, bool, error)) (out T, whole bool, err error) {
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
	// Resolvers of one request that ask for the same answer (the dashboard's four status
	// counts) wait for one of them to make it.
	type made struct {
		out   T
		whole bool
	}
	m, err := onceInRequest(ctx, fmt.Sprintf("kept %p %s %d %s", c, farmID, seq, name), func() (made, error) {
		if v, at, ok := c.newest(farmID, name); ok && at < seq {
			out, ok, err := update(v.(T), at)
			if err != nil {
				return made{out, false}, err
			}
			if ok {
				c.keep(key, out)
				return made{out, false}, nil
			}
		}
		out, err := derive()
		if err != nil {
			return made{out, true}, err
		}
		c.keep(key, out)
		return made{out, true}, nil
	})
	return m.out, m.whole, err
}

// keptUnless is keptUpdated for an answer read from the farm's facts of kinds
// alone, with what its name holds: a write since the newest answer kept that wrote, voided or
// deleted no item of those kinds and changed no animal (a weighing for the due list, a
// treatment for the pedigree) leaves that answer exact, and it is kept at the new position
// for a statement or two (changedSince) instead of being derived whole.
func keptUnless[T any](ctx context.Context, s *Service, farmID uuid.UUID, name string, kinds []string, derive func() (T, error)) (T, bool, error) {
	return keptUpdated(ctx, s, s.derived, farmID, name, derive, func(old T, at int64) (T, bool, error) {
		same, err := s.unchangedFor(ctx, farmID, at, kinds)
		return old, same && err == nil, err
	})
}

// unchangedFor tells that the writes after position seq wrote, voided or deleted no fact of
// kinds and changed no animal (changedSince).
func (s *Service) unchangedFor(ctx context.Context, farmID uuid.UUID, seq int64, kinds []string) (bool, error) {
	ch, err := s.changedSince(ctx, farmID, seq)
	if err != nil {
		return false, err
	}
	return !ch.animals && !slices.ContainsFunc(kinds, func(k string) bool { return ch.kinds[k] }), nil
}

// changes are what the writes after a change position did: the fact kinds of the items of
// the records they numbered (voided and deleted ones too), and whether they numbered an
// animal (created, changed or deleted).
type changes struct {
	kinds   map[string]bool
	animals bool
}

// changedSince answers the changes of the farm after position seq, once a request: one
// statement, two when no animal changed.
func (s *Service) changedSince(ctx context.Context, farmID uuid.UUID, seq int64) (changes, error) {
	return onceInRequest(ctx, fmt.Sprintf("changed-since %s %d", farmID, seq), func() (changes, error) {
		all := schema.IncludeInactive(ctx)
		c := s.Client(all)
		animals, err := c.Animal.Query().Where(animal.FarmID(farmID), animal.ChangeSeqGT(seq)).Exist(all)
		if err != nil || animals {
			return changes{animals: true}, err
		}
		kinds, err := c.RecordItem.Query().
			Where(recorditem.FarmID(farmID), func(sel *sql.Selector) { sel.Where(sql.In(sel.C(recorditem.FieldRecordID), recordsSince(farmID, seq))) },
				recorditem.FactKindNotNil()).
			Unique(true).Select(recorditem.FieldFactKind).Strings(all)
		if err != nil {
			return changes{}, err
		}
		ch := changes{kinds: make(map[string]bool, len(kinds))}
		for _, k := range kinds {
			ch.kinds[k] = true
		}
		return ch, nil
	})
}

// idSet is ids as a set of their strings: the animals a patch makes again, as facts name them.
func idSet(ids []uuid.UUID) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id.String()] = true
	}
	return out
}

// uuidsOf are the ids of a set (idSet) that parse.
func uuidsOf(set map[string]bool) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(set))
	for id := range set {
		if u, err := uuid.Parse(id); err == nil {
			out = append(out, u)
		}
	}
	return out
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
		Where(recorditem.FarmID(farmID), func(sel *sql.Selector) { sel.Where(sql.In(sel.C(recorditem.FieldRecordID), recordsSince(farmID, seq))) }).
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
		Where(sql.And(sql.In(items.C(recorditem.FieldRecordID), recordsSince(farmID, seq)), sql.EQ(items.C(recorditem.FieldFarmID), farmID)))
}
