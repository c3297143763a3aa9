package herdbook

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/treatmentreach"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/withdrawal"
)

// A group treatment's reach is fixed when it is recorded: the animals that the group's dated
// membership facts place in the group on the treatment's date are stored with it
// (treatment_reaches). A later correction of membership may add animals (their withdrawal
// starts) but never takes one out: withdrawals, the sale guard and the medicine book work over
// the union of the stored reach and the reach the facts give now. A stored animal the facts no
// longer place in the group is a visible conflict on the treatment until an EDITOR amends or
// voids the treatment record with a reason (an amended treatment is a new item, whose reach is
// stored anew; a voided one no longer counts). A medicine record never shrinks silently:
// VMR 2013 reg. 17–19 (GB) and EU 2019/6 Art. 108 require the animals treated to be recorded.

// reachBatch bounds one bulk insert of reach rows (five parameters a row).
const reachBatch = 1000

// storeReach stores, for every group treatment among facts (written in this transaction and
// carrying their record item ids), the animals its group's membership facts place in the group
// on its date. A constant number of statements whatever the number of treatments.
func (s *Service) storeReach(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact) error {
	var ts []*evidence.Fact
	var groups []uuid.UUID
	for _, f := range facts {
		if f != nil && f.Kind == evidence.KindTreatment && f.GroupID != "" && f.RecordItemID != "" {
			ts = append(ts, f)
			groups = append(groups, uuid.MustParse(f.GroupID))
		}
	}
	if len(ts) == 0 {
		return nil
	}
	h, err := s.groupHistory(ctx, farmID, groups)
	if err != nil {
		return err
	}
	c := s.Client(ctx)
	var rows []*ent.TreatmentReachCreate
	for _, t := range ts {
		day, _, _, err := withdrawal.ParseWhen(t.Date)
		if err != nil {
			continue
		}
		for a, m := range h.MembersOn(t.GroupID, day) {
			r := c.TreatmentReach.Create().SetFarmID(farmID).SetRecordItemID(uuid.MustParse(t.RecordItemID)).SetAnimalID(uuid.MustParse(a))
			if id, err := uuid.Parse(m.RecordItemID); err == nil {
				r.SetMembershipItemID(id)
			}
			rows = append(rows, r)
		}
	}
	for len(rows) > 0 {
		n := min(len(rows), reachBatch)
		if err := c.TreatmentReach.CreateBulk(rows[:n]...).Exec(ctx); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// groupHistory loads the membership history that decides who was in groups on any day:
// every membership, membership_end and departure of the animals the groups' membership facts
// name. One statement: the animals are a subquery of the groups' memberships, of every record
// (a voided membership names an animal whose history then comes too, and whose live facts
// alone place it in the groups, so that MembersOn answers the same).
func (s *Service) groupHistory(ctx context.Context, farmID uuid.UUID, groups []uuid.UUID) (withdrawal.History, error) {
	var h withdrawal.History
	groups = dedupe(groups)
	members := func(sel *sql.Selector) {
		t := sql.Table(recorditem.Table).As("member_of")
		gs := make([]any, len(groups))
		for i, g := range groups {
			gs[i] = g
		}
		sel.Where(sql.In(sel.C(recorditem.FieldFactSubject), sql.Select(t.C(recorditem.FieldFactSubject)).From(t).
			Where(sql.And(sql.EQ(t.C(recorditem.FieldFarmID), farmID), sql.In(t.C(recorditem.FieldFactGroup), gs...),
				sql.EQ(t.C(recorditem.FieldFactKind), string(evidence.KindMembership))))))
	}
	hs, err := s.kindItems(ctx, farmID, append([]string{string(evidence.KindMembership), string(evidence.KindMembershipEnd)}, departureKinds...), members)
	if err != nil {
		return h, err
	}
	for _, it := range hs {
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 {
			continue
		}
		addHistory(&h, f, it)
	}
	return h, nil
}

// kindItems is factItems for facts of the given kinds, with the same columns. The kinds
// stand in for factItems' "is a fact" condition: given both, PostgreSQL searches an
// animal's facts by subject alone in recorditem_fact_subject_fact_kind and filters the kinds
// on the heap, a fetch for every fact of the animal (a weighing a month adds up), where the
// kinds alone make them part of the index search.
func (s *Service) kindItems(ctx context.Context, farmID uuid.UUID, kinds []string, where ...predicate.RecordItem) ([]*ent.RecordItem, error) {
	return s.Client(ctx).RecordItem.Query().
		Where(recorditem.FactKindIn(kinds...), itemsOfFarm(farmID, liveRecord(ctx))).
		Where(where...).
		Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata,
			recorditem.FieldFactKind, recorditem.FieldFactSubject, recorditem.FieldFactGroup, recorditem.FieldFactDate).
		All(ctx)
}

// addHistory adds a membership, membership_end or departure fact to a history.
func addHistory(h *withdrawal.History, f evidence.Fact, it *ent.RecordItem) {
	switch f.Kind {
	case evidence.KindMembership:
		h.Memberships = append(h.Memberships, withdrawal.Membership{RecordID: it.RecordID.String(),
			RecordItemID: it.ID.String(), AnimalID: f.AnimalID, GroupID: f.GroupID, Start: f.StartDate, End: f.EndDate})
	case evidence.KindMembershipEnd:
		h.Leaves = append(h.Leaves, withdrawal.Leave{AnimalID: f.AnimalID, GroupID: f.GroupID, Day: f.Date})
	case evidence.KindMovementOut, evidence.KindSale, evidence.KindDeath:
		h.Departures = append(h.Departures, withdrawal.Departure{AnimalID: f.AnimalID, Day: f.Date})
	}
}

// storedReach returns the stored reach of treatment items, by item id. One statement.
func (s *Service) storedReach(ctx context.Context, farmID uuid.UUID, items []uuid.UUID) (map[string][]string, error) {
	out := map[string][]string{}
	if len(items) == 0 {
		return out, nil
	}
	rows, err := s.Client(ctx).TreatmentReach.Query().
		Where(treatmentreach.FarmID(farmID), treatmentreach.RecordItemIDIn(dedupe(items)...)).
		Select(treatmentreach.FieldRecordItemID, treatmentreach.FieldAnimalID).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		k := r.RecordItemID.String()
		out[k] = append(out[k], r.AnimalID.String())
	}
	return out, nil
}

// reachedTreatments returns the items of the group treatments whose stored reach names one of
// animals, dated within [earliest, through]: a treatment keeps reaching an animal that the
// membership facts no longer place in its group. Two statements.
func (s *Service) reachedTreatments(ctx context.Context, farmID uuid.UUID, animals []uuid.UUID, earliest, through string) ([]*ent.RecordItem, error) {
	ids, err := s.Client(ctx).TreatmentReach.Query().
		Where(treatmentreach.FarmID(farmID), treatmentreach.AnimalIDIn(animals...)).
		Select(treatmentreach.FieldRecordItemID).Strings(ctx)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	var items []uuid.UUID
	for _, id := range ids {
		if u, err := uuid.Parse(id); err == nil {
			items = append(items, u)
		}
	}
	return s.factItems(ctx, farmID, recorditem.IDIn(dedupe(items)...), recorditem.FactKind(string(evidence.KindTreatment)),
		recorditem.FactDateLTE(through), recorditem.FactDateGTE(earliest))
}

// ReachConflict is a group treatment whose stored reach names an animal that the membership
// facts no longer place in the group on the treatment's date. The treatment still reaches the
// animal (its withdrawal and the sale guard stand) until an EDITOR amends or voids the
// treatment record with a reason.
type ReachConflict struct {
	RecordID     uuid.UUID
	RecordItemID uuid.UUID
	GroupID      uuid.UUID
	Date         string // the treatment's date as written
	MedicineID   uuid.UUID
	MedicineName string
	AnimalID     uuid.UUID
	AnimalTag    string
	Message      string
}

// reachConflictMessage words a conflict for people.
func reachConflictMessage(tag string, animal uuid.UUID, day string) string {
	name := tag
	if name == "" {
		name = animal.String()
	}
	return fmt.Sprintf("%s's membership now says it was not in the group on %s; the treatment recorded it, so it still counts: amend or void the treatment with a reason to settle it", name, day)
}

// conflicts lists the conflicts among the loaded treatments, in the order of history.Treatments.
func (wf *withdrawalFacts) conflicts(tags map[uuid.UUID]string) []ReachConflict {
	drop := wf.history.Dropper()
	var out []ReachConflict
	for _, t := range wf.history.Treatments {
		for _, a := range drop(t) {
			id := uuid.MustParse(a)
			mid := uuid.MustParse(t.MedicineID)
			out = append(out, ReachConflict{RecordID: uuid.MustParse(t.RecordID), RecordItemID: uuid.MustParse(t.RecordItemID),
				GroupID: uuid.MustParse(t.GroupID), Date: wf.facts[t.RecordItemID].Date, MedicineID: mid,
				MedicineName: wf.book.names[mid], AnimalID: id, AnimalTag: tags[id], Message: reachConflictMessage(tags[id], id, t.Day)})
		}
	}
	return out
}

// ReachConflicts lists the farm's group treatments whose stored reach the membership facts
// now contradict, oldest first, one entry per treatment and animal. A constant number of
// statements whatever the size of the farm.
func (s *Service) ReachConflicts(ctx context.Context, farmID uuid.UUID, p Page) ([]ReachConflict, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	ids, err := s.Client(ctx).TreatmentReach.Query().Where(treatmentreach.FarmID(farmID)).
		Select(treatmentreach.FieldRecordItemID).Strings(ctx)
	if err != nil {
		return nil, 0, err
	}
	var items []uuid.UUID
	for _, id := range ids {
		if u, err := uuid.Parse(id); err == nil {
			items = append(items, u)
		}
	}
	if len(items) == 0 {
		return []ReachConflict{}, 0, nil
	}
	ts, err := s.factItems(ctx, farmID, recorditem.IDIn(dedupe(items)...), recorditem.FactKind(string(evidence.KindTreatment)))
	if err != nil {
		return nil, 0, err
	}
	wf, err := s.withdrawalsOf(ctx, farmID, ts)
	if err != nil {
		return nil, 0, err
	}
	sortTreatments(wf.history.Treatments)
	all := wf.conflicts(nil)
	total := len(all)
	page := all[min(offset, total):min(offset+limit, total)]
	animals := make([]uuid.UUID, len(page))
	for i, c := range page {
		animals[i] = c.AnimalID
	}
	tags, err := s.animalTags(ctx, farmID, animals)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ReachConflict, len(page))
	for i, c := range page {
		c.AnimalTag = tags[c.AnimalID]
		c.Message = reachConflictMessage(c.AnimalTag, c.AnimalID, c.Date[:10])
		out[i] = c
	}
	return out, total, nil
}
