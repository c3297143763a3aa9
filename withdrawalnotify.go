package herdbook

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/medicine"
	"github.com/herdbook/herdbook/ent/medicineversion"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/scheduledevent"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db/citus"
	"github.com/herdbook/herdbook/withdrawal"
)

// ending is one withdrawal of one treatment that ends within the scheduler's range.
type ending struct {
	farmID  uuid.UUID
	item    *ent.RecordItem
	fact    evidence.Fact
	kind    string // "meat" or "milk"
	dueOn   string
	dueAt   time.Time
	clearOn string
}

// scheduleWithdrawalEnds creates a withdrawal_ending event for every treatment whose meat
// clear date, or whose milk clear moment, lies between the look-back and now, and that has
// none yet: subject = the treatment's record item id with ":meat" or ":milk", payload = the
// animals the treatment reached (the members of a treated group on its date). A period of 0
// ends on the day of treatment and is not announced.
//
// Finding the clear dates costs a constant number of statements over every farm (the
// treatments that may still be withheld, their farms, medicines and versions, the events
// already made); only farms with an event still to make pay for the membership history.
func (s *Service) scheduleWithdrawalEnds(ctx context.Context) (int, error) {
	today, from := s.today()
	now := s.nowUTC()
	lo := from.Format(time.DateOnly)
	// Who an ending concerns is decided as of today: an animal that has left by the time the
	// news would go out hears of nothing.
	asOf := today.Format(time.DateOnly)
	c := s.Client(ctx)
	items, err := c.RecordItem.Query().Where(
		recorditem.FactKind(string(evidence.KindTreatment)),
		recorditem.FactDateGTE(from.AddDate(0, 0, -maxPeriodDays).Format(time.DateOnly)),
		recorditem.FactDateLT(today.AddDate(0, 0, 1).Format(time.DateOnly)),
		citus.ParentOnFarm(record.Table, recorditem.RecordColumn, record.IsActive(true)),
	).Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata,
		recorditem.FieldFactKind, recorditem.FieldFactSubject, recorditem.FieldFactGroup, recorditem.FieldFactDate).
		WithRecord(func(q *ent.RecordQuery) { q.Select(record.FieldID, record.FieldFarmID) }).All(ctx)
	if err != nil || len(items) == 0 {
		return 0, err
	}
	type parsed struct {
		farmID uuid.UUID
		item   *ent.RecordItem
		fact   evidence.Fact
	}
	var (
		facts            []parsed
		farmIDs, medIDs  []uuid.UUID
		farmsWithEndings []uuid.UUID
	)
	for _, it := range items {
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 || it.Edges.Record == nil {
			continue
		}
		mid, err := uuid.Parse(f.MedicineID)
		if err != nil {
			continue
		}
		f.RecordID, f.RecordItemID = it.RecordID.String(), it.ID.String()
		facts = append(facts, parsed{it.Edges.Record.FarmID, it, f})
		farmIDs = append(farmIDs, it.Edges.Record.FarmID)
		medIDs = append(medIDs, mid)
	}
	if len(facts) == 0 {
		return 0, nil
	}
	farmIDs, medIDs = dedupe(farmIDs), dedupe(medIDs)
	farms, err := c.Farm.Query().Where(farm.IDIn(farmIDs...)).Select(farm.FieldID, farm.FieldName, farm.FieldSpecies).All(ctx)
	if err != nil {
		return 0, err
	}
	meds, err := c.Medicine.Query().Where(medicine.IDIn(medIDs...)).
		Select(medicine.FieldID, medicine.FieldFarmID, medicine.FieldName).All(IncludeInactive(ctx))
	if err != nil {
		return 0, err
	}
	versions, err := c.MedicineVersion.Query().Where(medicineversion.MedicineIDIn(medIDs...)).All(ctx)
	if err != nil {
		return 0, err
	}
	books := map[uuid.UUID]*medicineBook{}
	names := map[uuid.UUID]string{}
	for _, f := range farms {
		names[f.ID] = f.Name
		books[f.ID] = &medicineBook{species: string(f.Species), names: map[uuid.UUID]string{},
			substances: map[uuid.UUID]string{}, versions: map[uuid.UUID]map[int]*ent.MedicineVersion{}}
	}
	for _, m := range meds {
		if b := books[m.FarmID]; b != nil {
			b.names[m.ID] = m.Name
		}
	}
	for _, v := range versions {
		if b := books[v.FarmID]; b != nil {
			if b.versions[v.MedicineID] == nil {
				b.versions[v.MedicineID] = map[int]*ent.MedicineVersion{}
			}
			b.versions[v.MedicineID][v.Version] = v
		}
	}
	var endings []ending
	for _, p := range facts {
		b := books[p.farmID]
		if b == nil { // an inactive farm hears nothing
			continue
		}
		t, ok := b.treatment(p.fact)
		if !ok {
			continue
		}
		hit := withdrawal.HitOf(t)
		if t.MeatDays > 0 {
			on := hit.MeatClearOn
			clear, _ := withdrawal.DayStart(on, t.Zone)
			if on >= lo && !clear.After(now) {
				endings = append(endings, ending{p.farmID, p.item, p.fact, "meat", on, clear, on})
			}
		}
		// A dry-cow product's milk clears after each cow's calving, which this pass does not
		// read: it is not announced (the withdrawal list shows it).
		if t.MilkHours > 0 && !t.MilkFromCalving {
			clear := hit.MilkClearAt
			if on := clear.Format(time.DateOnly); on >= lo && !clear.After(now) {
				endings = append(endings, ending{p.farmID, p.item, p.fact, "milk", on, clear, clear.Format(time.RFC3339)})
			}
		}
	}
	if len(endings) == 0 {
		return 0, nil
	}
	for _, e := range endings {
		farmsWithEndings = append(farmsWithEndings, e.farmID)
	}
	seen, err := s.existingEvents(ctx, scheduledevent.KindWithdrawalEnding, farmsWithEndings, from)
	if err != nil {
		return 0, err
	}
	byFarm := map[uuid.UUID][]ending{}
	var order []uuid.UUID
	for _, e := range endings {
		if seen[eventKey{e.farmID, e.item.ID.String() + ":" + e.kind, e.dueOn}] {
			continue
		}
		if byFarm[e.farmID] == nil {
			order = append(order, e.farmID)
		}
		byFarm[e.farmID] = append(byFarm[e.farmID], e)
	}
	var creates []*ent.ScheduledEventCreate
	for _, farmID := range order {
		es := byFarm[farmID]
		its := make([]*ent.RecordItem, 0, len(es))
		for _, e := range es {
			its = append(its, e.item)
		}
		wf, err := s.withdrawalsOf(ctx, farmID, its)
		if err != nil {
			return 0, err
		}
		treatments := map[string]withdrawal.Treatment{}
		for _, t := range wf.history.Treatments {
			treatments[t.RecordItemID] = t
		}
		reach := wf.history.Reacher()
		reached := map[string][]uuid.UUID{}
		var all []uuid.UUID
		for id, t := range treatments {
			for _, r := range reach(t) {
				a := uuid.MustParse(r.AnimalID)
				reached[id] = append(reached[id], a)
				all = append(all, a)
			}
		}
		tags, err := s.animalTags(ctx, farmID, all)
		if err != nil {
			return 0, err
		}
		audience, err := s.withdrawalAudience(ctx, farmID, all)
		if err != nil {
			return 0, err
		}
		for _, e := range es {
			var ts []string
			for _, a := range reached[e.item.ID.String()] {
				if audience(e.kind, asOf, a) {
					ts = append(ts, tags[a])
				}
			}
			if len(ts) == 0 { // nobody the ending concerns: no members that day, or none left to tell of
				continue
			}
			slices.Sort(ts)
			creates = append(creates, c.ScheduledEvent.Create().SetFarmID(farmID).SetKind(scheduledevent.KindWithdrawalEnding).
				SetSubject(e.item.ID.String()+":"+e.kind).SetDueOn(e.dueOn).SetDueAt(e.dueAt).
				SetPayload(schematype.EventPayload{FarmName: names[farmID], AnimalTags: ts, Withdrawal: e.kind,
					MedicineName: wf.book.names[uuid.MustParse(e.fact.MedicineID)], TreatedOn: e.fact.Date, ClearOn: e.clearOn}))
		}
	}
	return len(creates), s.insertEvents(ctx, creates)
}

// withdrawalAudience decides which of the animals a treatment reached an ending withdrawal
// concerns, from their facts as of a day (the scheduler's today; two statements a farm: the
// animals' facts and the farm settings):
//
//   - meat: the animals still on the farm; one sold, moved off or dead (a slaughter
//     included) hears of nothing;
//   - milk: the females still on the farm that give milk: those recorded as having calved
//     by then, or of the farm's minimum breeding age for females when it is set (no default:
//     unset, only calved animals count). Bull calves, steers and animals of unknown sex are
//     never told their milk may go into the tank.
func (s *Service) withdrawalAudience(ctx context.Context, farmID uuid.UUID, animals []uuid.UUID) (func(kind, day string, animal uuid.UUID) bool, error) {
	animals = dedupe(animals)
	facts, err := s.animalFacts(ctx, farmID, animals)
	if err != nil {
		return nil, err
	}
	set, err := s.settings(ctx, farmID)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(animals))
	for i, a := range animals {
		keys[i] = a.String()
	}
	calvings := map[string][]string{}
	for _, f := range facts {
		if f.Kind == evidence.KindBirth && f.DamID != "" {
			calvings[strings.ToLower(f.DamID)] = append(calvings[strings.ToLower(f.DamID)], f.Date)
		}
	}
	profiles := map[string]map[string]evidence.Profile{}
	return func(kind, day string, animal uuid.UUID) bool {
		ps := profiles[day]
		if ps == nil {
			ps = evidence.ProfilesOf(keys, day, facts)
			profiles[day] = ps
		}
		p := ps[animal.String()]
		if p.Status != evidence.StatusOnFarm {
			return false
		}
		if kind == "meat" {
			return true
		}
		if p.Sex == nil || *p.Sex != evidence.SexFemale {
			return false
		}
		for _, d := range calvings[animal.String()] {
			if d <= day {
				return true
			}
		}
		minAge := set.MinimumBreedingAgeDays.Female
		if minAge == nil || p.BirthDate == nil {
			return false
		}
		born, err1 := withdrawal.ParseDay(*p.BirthDate)
		on, err2 := withdrawal.ParseDay(day)
		return err1 == nil && err2 == nil && int(on.Sub(born).Hours()/24) >= *minAge
	}, nil
}
