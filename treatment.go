package herdbook

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/medicine"
	"github.com/herdbook/herdbook/ent/medicineversion"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/withdrawal"
)

// EWITHDRAWAL is the code of a write refused because it would send an animal off the farm,
// for sale or for slaughter before a medicine's meat withdrawal has ended (409 WithdrawalError).
const EWITHDRAWAL = "withdrawal"

// WithdrawalConflict is one reason a write was refused: an animal that a leaving fact names
// and a treatment whose meat withdrawal has not ended on that fact's date.
type WithdrawalConflict struct {
	Field           string    // the leaving fact, as record_items[i].metadata.birth_history
	Kind            string    // the leaving fact's kind (movement_out, sale, death)
	Date            string    // the leaving fact's date
	AnimalID        uuid.UUID // the animal under withdrawal
	AnimalTag       string
	MedicineID      uuid.UUID
	MedicineName    string
	TreatmentRecord uuid.UUID // the record of the treatment fact
	TreatedOn       string    // the treatment's date as written
	MeatClearOn     string    // the first day the animal may go for slaughter
}

// maxPeriodDays bounds how far back a treatment can still withhold: the longest period a
// treatment may carry, meat in days or milk in hours, plus a day for date-times.
// A course's first administration (the fact's date) may lie up to evidence.MaxCourseDays
// before its last, from which the withdrawal runs.
var maxPeriodDays = max(evidence.MaxWithdrawalMeatDays, evidence.MaxWithdrawalMilkHours/24) + 1 + evidence.MaxCourseDays

// leaving reports whether a fact sends an animal off the farm, for sale or for slaughter: a
// movement_out, a sale, or a death with slaughter: true. The guard refuses them while the
// animal's meat withdrawal runs. A death that is not a slaughter is not refused: the animal
// is dead either way, and its carcass does not enter the food chain.
func leaving(f *evidence.Fact) bool {
	switch f.Kind {
	case evidence.KindMovementOut, evidence.KindSale:
		return true
	case evidence.KindDeath:
		return f.Slaughter
	}
	return false
}

// slaughter reports whether a fact is a slaughter for food (a death with slaughter: true),
// which the guard refuses during a meat withdrawal whatever the acknowledgement.
func slaughter(f *evidence.Fact) bool { return f.Kind == evidence.KindDeath && f.Slaughter }

type acknowledgeKey struct{}

// WithAcknowledgeField names, for the writes made with ctx, how the caller's transport spells
// the acknowledgement of a meat withdrawal (GraphQL's acknowledgeWithdrawal: true), so that a
// refusal tells the caller what it can actually send. REST's spelling is the default.
func WithAcknowledgeField(ctx context.Context, field string) context.Context {
	return context.WithValue(ctx, acknowledgeKey{}, field)
}

// acknowledgeField is how the caller's transport spells the acknowledgement.
func acknowledgeField(ctx context.Context) string {
	if f, ok := ctx.Value(acknowledgeKey{}).(string); ok {
		return f
	}
	return `"acknowledge_withdrawal": true`
}

// boardKinds are the facts the withdrawal board reads: treatments, the memberships,
// births and departures that decide their reach and end, and the arrivals and departures
// that put an animal on the farm on the day asked.
var boardKinds = slices.Concat([]string{string(evidence.KindTreatment), string(evidence.KindMembership),
	string(evidence.KindMembershipEnd)}, departureKinds, statusKinds, entryKinds)

// departureKinds are the facts that end an animal's open group memberships, as in the
// register's profiles.
var departureKinds = []string{string(evidence.KindMovementOut), string(evidence.KindSale), string(evidence.KindDeath)}

// factField names the i-th fact of a write in errors: record_items[i].metadata.birth_history
// for a record, facts[i].birth_history for a bulk write.
type factField func(i int) string

// recordItemFact names the fact of a record's i-th item.
func recordItemFact(i int) string { return fmt.Sprintf("record_items[%d].metadata.%s", i, FactKey) }

// bulkFact names the i-th fact of a bulk write (WriteAnimalFacts).
func bulkFact(i int) string { return fmt.Sprintf("facts[%d].%s", i, FactKey) }

// checkTreatments checks the treatment facts of a write against the farm's medicine list:
// the medicine must be on the list, the version (stamped with the current one when left out)
// must exist, and an override may not be shorter than the label's period for the farm's
// species. Two queries at most, none without treatments.
func (s *Service) checkTreatments(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact, field factField) error {
	var ids []uuid.UUID
	for _, f := range facts {
		if f != nil && f.Kind == evidence.KindTreatment {
			ids = append(ids, uuid.MustParse(f.MedicineID))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	c := s.Client(ctx)
	species, err := s.farmSpecies(ctx, farmID)
	if err != nil {
		return err
	}
	meds, err := c.Medicine.Query().Where(medicine.FarmID(farmID), medicine.IDIn(dedupe(ids)...)).All(ctx)
	if err != nil {
		return err
	}
	byID := map[uuid.UUID]*ent.Medicine{}
	for _, m := range meds {
		byID[m.ID] = m
	}
	versions, err := c.MedicineVersion.Query().Where(medicineversion.FarmID(farmID), medicineversion.MedicineIDIn(dedupe(ids)...)).All(ctx)
	if err != nil {
		return err
	}
	type key struct {
		id uuid.UUID
		v  int
	}
	byVersion := map[key]*ent.MedicineVersion{}
	for _, v := range versions {
		byVersion[key{v.MedicineID, v.Version}] = v
	}
	set, err := s.withdrawalSettingsOf(ctx, farmID)
	if err != nil {
		return err
	}
	book := &medicineBook{species: species, names: map[uuid.UUID]string{}, versions: map[uuid.UUID]map[int]*ent.MedicineVersion{}}
	for _, m := range meds {
		book.names[m.ID] = m.Name
	}
	for _, v := range versions {
		if book.versions[v.MedicineID] == nil {
			book.versions[v.MedicineID] = map[int]*ent.MedicineVersion{}
		}
		book.versions[v.MedicineID][v.Version] = v
	}
	var fe fieldErrors
	for i, f := range facts {
		if f == nil || f.Kind != evidence.KindTreatment {
			continue
		}
		p := field(i) + "."
		m := byID[uuid.MustParse(f.MedicineID)]
		if m == nil {
			fe.add(p+"medicine_id", "medicine %s is not on this farm's medicine list", f.MedicineID)
			continue
		}
		if f.MedicineVersion == 0 {
			f.MedicineVersion = m.Version
		}
		v := byVersion[key{m.ID, f.MedicineVersion}]
		if v == nil {
			fe.add(p+"medicine_version", "medicine %s has no version %d (its current version is %d)", m.Name, f.MedicineVersion, m.Version)
			continue
		}
		stampTreatment(&fe, p, f, set)
		checkPeriods(&fe, p, book, *f)
	}
	return fe.err()
}

func (s *Service) farmSpecies(ctx context.Context, farmID uuid.UUID) (string, error) {
	f, err := s.Client(ctx).Farm.Get(ctx, farmID)
	if err != nil {
		return "", notFound(err, "farm", farmID)
	}
	return string(f.Species), nil
}

// medicineBook is what the withdrawal computation needs to know of the medicines its
// treatments name: every version of each (deleted medicines included) and their names.
type medicineBook struct {
	species string
	names   map[uuid.UUID]string
	// substances are the medicines' active substances, where given.
	substances map[uuid.UUID]string
	versions   map[uuid.UUID]map[int]*ent.MedicineVersion
}

// periods returns a treatment's periods (withdrawalrules.go): its medicine version's label
// line for the farm's species, route and dose, or the cascade's minimum of the rule set
// stamped on it, the vet's where longer, doubled when the farm was organic.
func (b *medicineBook) periods(f evidence.Fact) (withdrawal.Periods, bool) {
	p, ok, err := b.resolvePeriods(f)
	if !ok {
		return p, false
	}
	if err != nil {
		return b.strictest(f), true
	}
	return p, true
}

// treatment turns a stored treatment fact into the withdrawal package's treatment: its local
// day in the time zone stamped on it, and its periods with the rules that gave them.
func (b *medicineBook) treatment(f evidence.Fact) (withdrawal.Treatment, bool) {
	per, ok := b.periods(f)
	if !ok {
		return withdrawal.Treatment{}, false
	}
	zone := zoneOf(f.TimeZone)
	day, at, dateOnly, err := withdrawal.ParseWhenIn(f.Date, zone)
	if err != nil {
		return withdrawal.Treatment{}, false
	}
	t := withdrawal.Treatment{RecordID: f.RecordID, RecordItemID: f.RecordItemID, MedicineID: f.MedicineID,
		MedicineVersion: f.MedicineVersion, AnimalID: f.AnimalID, GroupID: f.GroupID, Day: day, At: at,
		DateOnly: dateOnly, Zone: zone, MeatDays: per.MeatDays, MilkHours: per.MilkHours,
		MeatRule: per.MeatRule, MilkRule: per.MilkRule, OffLabel: per.OffLabel, MilkFromCalving: per.MilkFromCalving}
	courseEnd(&t, f, zone)
	return t, true
}

// withdrawalFacts are the facts a withdrawal computation loaded, with the medicines they name.
type withdrawalFacts struct {
	history withdrawal.History
	book    *medicineBook
	// facts keeps each treatment's stored fact by record item id, for the book and the answers.
	facts map[string]evidence.Fact
}

// loadWithdrawals loads the history that decides the withdrawal of animals (every animal of
// the farm when animals is nil) as of through: their treatments and those of the groups their
// membership facts name, their memberships and departures. It costs a constant number of
// queries whatever the size of the farm. Current group links are never read.
func (s *Service) loadWithdrawals(ctx context.Context, farmID uuid.UUID, animals []uuid.UUID, through string) (*withdrawalFacts, error) {
	if animals == nil {
		return s.farmWithdrawals(ctx, farmID, through)
	}
	items, err := s.withdrawalItems(ctx, farmID, animals, through)
	if err != nil {
		return nil, err
	}
	return s.buildWithdrawals(ctx, farmID, items)
}

// farmWithdrawals is the history of every treatment of the farm that can still withhold
// on through.
func (s *Service) farmWithdrawals(ctx context.Context, farmID uuid.UUID, through string) (*withdrawalFacts, error) {
	earliest := ""
	if t, err := withdrawal.ParseDay(through); err == nil {
		earliest = t.AddDate(0, 0, -maxPeriodDays).Format(time.DateOnly)
	}
	ts, err := s.factItems(ctx, farmID, recorditem.FactKind(string(evidence.KindTreatment)),
		recorditem.FactDateLTE(through), recorditem.FactDateGTE(earliest))
	if err != nil {
		return nil, err
	}
	return s.withdrawalsOf(ctx, farmID, ts)
}

// withdrawalItems loads the fact items that decide the withdrawals of animals through a day:
// their own treatments, memberships and departures, the treatments of their groups, and the
// group treatments whose stored reach names them.
func (s *Service) withdrawalItems(ctx context.Context, farmID uuid.UUID, animals []uuid.UUID, through string) ([]*ent.RecordItem, error) {
	query := func(where ...predicate.RecordItem) ([]*ent.RecordItem, error) {
		return s.factItems(ctx, farmID, where...)
	}
	earliest := ""
	if t, err := withdrawal.ParseDay(through); err == nil {
		earliest = t.AddDate(0, 0, -maxPeriodDays).Format(time.DateOnly)
	}
	treated := recorditem.And(recorditem.FactKind(string(evidence.KindTreatment)),
		recorditem.FactDateLTE(through), recorditem.FactDateGTE(earliest))
	// Memberships (and their ends) and departures decide reach; births (the animal as dam)
	// end a dry-cow product's wait for calving.
	history := append([]string{string(evidence.KindMembership), string(evidence.KindMembershipEnd), string(evidence.KindBirth)}, departureKinds...)

	var items []*ent.RecordItem
	groupsOf := func(its []*ent.RecordItem) []uuid.UUID {
		var gs []uuid.UUID
		for _, it := range its {
			if it.FactGroup != nil {
				gs = append(gs, *it.FactGroup)
			}
		}
		return dedupe(gs)
	}
	own, err := query(recorditem.FactSubjectIn(animals...), recorditem.Or(treated, recorditem.FactKindIn(history...)))
	if err != nil {
		return nil, err
	}
	items = append(items, own...)
	if gs := groupsOf(own); len(gs) > 0 {
		gt, err := query(treated, recorditem.FactGroupIn(gs...))
		if err != nil {
			return nil, err
		}
		items = append(items, gt...)
	}
	// Group treatments whose stored reach names the animals, whatever their membership
	// facts say now: a recorded treatment never loses an animal.
	rt, err := s.reachedTreatments(ctx, farmID, animals, earliest, through)
	if err != nil {
		return nil, err
	}
	return append(items, rt...), nil
}

// withdrawalsOf completes the history of treatment items: the memberships of the groups they
// treat, and the memberships and departures of those groups' members (which end open
// memberships). Two queries and those of buildWithdrawals.
func (s *Service) withdrawalsOf(ctx context.Context, farmID uuid.UUID, ts []*ent.RecordItem) (*withdrawalFacts, error) {
	items := ts
	var gs, members []uuid.UUID
	for _, it := range ts {
		if it.FactGroup != nil {
			gs = append(gs, *it.FactGroup)
		} else if it.FactSubject != nil {
			// An animal treated itself: its calvings end a dry-cow product's wait.
			members = append(members, *it.FactSubject)
		}
	}
	if len(gs) > 0 {
		ms, err := s.factItems(ctx, farmID, recorditem.FactKind(string(evidence.KindMembership)), recorditem.FactGroupIn(dedupe(gs)...))
		if err != nil {
			return nil, err
		}
		for _, it := range ms {
			if it.FactSubject != nil {
				members = append(members, *it.FactSubject)
			}
		}
	}
	if len(members) > 0 {
		hs, err := s.factItems(ctx, farmID, recorditem.FactSubjectIn(dedupe(members)...),
			recorditem.FactKindIn(append([]string{string(evidence.KindMembership), string(evidence.KindMembershipEnd), string(evidence.KindBirth)}, departureKinds...)...))
		if err != nil {
			return nil, err
		}
		items = append(items, hs...)
	}
	return s.buildWithdrawals(ctx, farmID, items)
}

// factItems loads the fact items of a farm's active records that match where, with the
// columns the withdrawal computation reads.
func (s *Service) factItems(ctx context.Context, farmID uuid.UUID, where ...predicate.RecordItem) ([]*ent.RecordItem, error) {
	return s.Client(ctx).RecordItem.Query().
		Where(recorditem.FactKindNotNil(), itemsOfFarm(farmID, liveRecord(ctx))).
		Where(where...).
		Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata,
			recorditem.FieldFactKind, recorditem.FieldFactSubject, recorditem.FieldFactGroup, recorditem.FieldFactDate).
		All(ctx)
}

// buildWithdrawals parses loaded fact items into a withdrawal history, with the medicines
// their treatments name.
func (s *Service) buildWithdrawals(ctx context.Context, farmID uuid.UUID, items []*ent.RecordItem) (*withdrawalFacts, error) {
	out := &withdrawalFacts{facts: map[string]evidence.Fact{}}
	seen := map[uuid.UUID]bool{}
	var treatments []evidence.Fact
	for _, it := range items {
		if seen[it.ID] {
			continue
		}
		seen[it.ID] = true
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 {
			continue
		}
		f.RecordID, f.RecordItemID = it.RecordID.String(), it.ID.String()
		switch f.Kind {
		case evidence.KindTreatment:
			treatments = append(treatments, f)
			out.facts[f.RecordItemID] = f
		case evidence.KindMembership:
			out.history.Memberships = append(out.history.Memberships, withdrawal.Membership{RecordID: f.RecordID,
				RecordItemID: f.RecordItemID, AnimalID: f.AnimalID, GroupID: f.GroupID, Start: f.StartDate, End: f.EndDate})
		case evidence.KindMembershipEnd:
			out.history.Leaves = append(out.history.Leaves, withdrawal.Leave{AnimalID: f.AnimalID, GroupID: f.GroupID, Day: f.Date})
		case evidence.KindBirth:
			if f.DamID != "" {
				out.history.Calvings = append(out.history.Calvings, withdrawal.Calving{DamID: strings.ToLower(f.DamID), Day: f.Date})
			}
		default:
			out.history.Departures = append(out.history.Departures, withdrawal.Departure{AnimalID: f.AnimalID, Day: f.Date})
		}
	}
	book, err := s.medicineBook(ctx, farmID, treatments)
	if err != nil {
		return nil, err
	}
	out.book = book
	var groupTreated []uuid.UUID
	for _, f := range treatments {
		if f.GroupID != "" {
			groupTreated = append(groupTreated, uuid.MustParse(f.RecordItemID))
		}
	}
	stored, err := s.storedReach(ctx, farmID, groupTreated)
	if err != nil {
		return nil, err
	}
	for _, f := range treatments {
		if t, ok := book.treatment(f); ok {
			t.Stored = stored[f.RecordItemID] // the reach recorded with it (never shrinks)
			out.history.Treatments = append(out.history.Treatments, t)
		}
	}
	return out, nil
}

// medicineBook loads the medicines and versions that treatments name, in two queries (plus
// one for the farm's species).
func (s *Service) medicineBook(ctx context.Context, farmID uuid.UUID, treatments []evidence.Fact) (*medicineBook, error) {
	b := &medicineBook{names: map[uuid.UUID]string{}, substances: map[uuid.UUID]string{}, versions: map[uuid.UUID]map[int]*ent.MedicineVersion{}}
	var ids []uuid.UUID
	for _, f := range treatments {
		if id, err := uuid.Parse(f.MedicineID); err == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return b, nil
	}
	ids = dedupe(ids)
	var err error
	if b.species, err = s.farmSpecies(ctx, farmID); err != nil {
		return nil, err
	}
	c := s.Client(ctx)
	meds, err := c.Medicine.Query().Where(medicine.FarmID(farmID), medicine.IDIn(ids...)).
		Select(medicine.FieldID, medicine.FieldName, medicine.FieldActiveSubstance).All(IncludeInactive(ctx))
	if err != nil {
		return nil, err
	}
	for _, m := range meds {
		b.names[m.ID] = m.Name
		if m.ActiveSubstance != nil {
			b.substances[m.ID] = *m.ActiveSubstance
		}
	}
	vs, err := c.MedicineVersion.Query().Where(medicineversion.FarmID(farmID), medicineversion.MedicineIDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if b.versions[v.MedicineID] == nil {
			b.versions[v.MedicineID] = map[int]*ent.MedicineVersion{}
		}
		b.versions[v.MedicineID][v.Version] = v
	}
	return b, nil
}

// guardWithdrawals refuses a write whose leaving facts (a sale, a movement_out, a slaughter)
// name an animal whose meat withdrawal has not ended on the fact's date. The writer's
// acknowledgement lets a sale or a movement through, never a slaughter for food. Every write
// path that can carry a departure reaches it: record create and update (REST and GraphQL, the
// GraphQL fact and register mutations through RecordFactWith), bulk fact writes, and the
// CSV import's status column (guardImport, without an acknowledgement). It runs after the write's items are stored, in its transaction, so that treatments in the same
// write count and a refusal rolls everything back.
func (s *Service) guardWithdrawals(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact, field factField, acknowledged bool) error {
	if err := checkSlaughterCauses(facts, field); err != nil {
		return err
	}
	if err := s.guardLeaving(ctx, farmID, facts, field, acknowledged); err != nil {
		return err
	}
	return s.guardRecordedDepartures(ctx, farmID, facts, field, acknowledged)
}

// guardLeaving is the guard of the write's own leaving facts (guardWithdrawals).
func (s *Service) guardLeaving(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact, field factField, acknowledged bool) error {
	type leave struct {
		field  string
		kind   string
		animal string
		day    string
	}
	var leaves []leave
	var animals []uuid.UUID
	through := ""
	for i, f := range facts {
		if f == nil || !leaving(f) || f.AnimalID == "" {
			continue
		}
		// An acknowledgement lets a live sale or a movement off the farm through (the
		// keeper passes the withdrawal on with the animal), never a slaughter for food.
		if acknowledged && !slaughter(f) {
			continue
		}
		leaves = append(leaves, leave{field(i), string(f.Kind), f.AnimalID, f.Date})
		animals = append(animals, uuid.MustParse(f.AnimalID))
		through = max(through, f.Date)
	}
	if len(leaves) == 0 {
		return nil
	}
	wf, err := s.loadWithdrawals(ctx, farmID, dedupe(animals), through)
	if err != nil {
		return err
	}
	var conflicts []WithdrawalConflict
	for _, l := range leaves {
		for _, hit := range wf.history.Blocking(l.animal, l.day) {
			mid := uuid.MustParse(hit.Treatment.MedicineID)
			conflicts = append(conflicts, WithdrawalConflict{Field: l.field, Kind: l.kind, Date: l.day,
				AnimalID: uuid.MustParse(l.animal), MedicineID: mid, MedicineName: wf.book.names[mid],
				TreatmentRecord: uuid.MustParse(hit.Treatment.RecordID), TreatedOn: wf.facts[hit.Treatment.RecordItemID].Date,
				MeatClearOn: hit.MeatClearOn})
		}
	}
	if len(conflicts) == 0 {
		return nil
	}
	tags, err := s.animalTags(ctx, farmID, animals)
	if err != nil {
		return err
	}
	e := &Error{Code: EWITHDRAWAL, Message: fmt.Sprintf("the animal is still under a medicine's meat withdrawal; send %s to record a sale or a movement off the farm anyway", acknowledgeField(ctx))}
	for _, c := range conflicts {
		if c.Kind == string(evidence.KindDeath) {
			e.Message = "an animal under a medicine's meat withdrawal may not be slaughtered for food: its meat would carry residues, and no acknowledgement allows it"
			break
		}
	}
	for i := range conflicts {
		c := &conflicts[i]
		c.AnimalTag = tags[c.AnimalID]
		hint := fmt.Sprintf("send %s to record the %s anyway", acknowledgeField(ctx), strings.ReplaceAll(c.Kind, "_", " "))
		if c.Kind == string(evidence.KindDeath) {
			hint = "it may not be slaughtered for food before then, whatever the acknowledgement"
		}
		e.Fields = append(e.Fields, FieldError{Field: c.Field, Message: fmt.Sprintf(
			"animal %s (%s) is under meat withdrawal on %s: %s (medicine %s) given %s, record %s, clears for slaughter on %s; %s",
			c.AnimalID, c.AnimalTag, c.Date, c.MedicineName, c.MedicineID, c.TreatedOn, c.TreatmentRecord, c.MeatClearOn, hint)})
	}
	e.Withdrawals = conflicts
	return e
}

// animalTags returns the tags of a farm's animals, deleted ones included, in one query.
func (s *Service) animalTags(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	out := map[uuid.UUID]string{}
	if len(ids) == 0 {
		return out, nil
	}
	as, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(dedupe(ids)...)).
		Select(animal.FieldID, animal.FieldTag).All(IncludeInactive(ctx))
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		out[a.ID] = a.Tag
	}
	return out, nil
}

// AnimalWithdrawal is an animal's withdrawal status as of a date.
type AnimalWithdrawal struct {
	AnimalID    uuid.UUID
	AnimalTag   string
	MeatClearOn string     // the first day it may go for slaughter
	MilkClearAt *time.Time // when its milk may go into the tank again; nil until it calves
	// MilkUntilCalving is set while a dry-cow product withholds the milk until calving.
	MilkUntilCalving bool
	Treatments       []WithdrawalTreatment
}

// WithdrawalTreatment is one treatment behind an animal's withdrawal.
type WithdrawalTreatment struct {
	RecordID            uuid.UUID
	RecordItemID        uuid.UUID
	MedicineID          uuid.UUID
	MedicineName        string
	MedicineVersion     int
	GroupID             *uuid.UUID // set when the treatment was of a group the animal was in
	Date                string     // as written: a date or a date-time
	WithdrawalMeatDays  int
	WithdrawalMilkHours int
	// MeatRule and MilkRule say what gave each period: "label", "vet", or the statutory
	// minimum of the farm's rule set with its article (and organic doubling).
	MeatRule    string
	MilkRule    string
	OffLabel    bool
	MeatClearOn string
	// MilkClearAt is nil for a dry-cow product while the animal has not calved
	// (MilkUntilCalving).
	MilkClearAt      *time.Time
	MilkUntilCalving bool
}

// clearAt is a milk clear moment, nil while it waits for a calving.
func clearAt(t time.Time, untilCalving bool) *time.Time {
	if untilCalving || t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func (wf *withdrawalFacts) status(st *withdrawal.Status, tags map[uuid.UUID]string) AnimalWithdrawal {
	id := uuid.MustParse(st.AnimalID)
	aw := AnimalWithdrawal{AnimalID: id, AnimalTag: tags[id], MeatClearOn: st.MeatClearOn, MilkClearAt: clearAt(st.MilkClearAt, st.MilkUntilCalving),
		MilkUntilCalving: st.MilkUntilCalving,
		Treatments:       make([]WithdrawalTreatment, 0, len(st.Hits))}
	for _, h := range st.Hits {
		t := h.Treatment
		mid := uuid.MustParse(t.MedicineID)
		wt := WithdrawalTreatment{RecordID: uuid.MustParse(t.RecordID), RecordItemID: uuid.MustParse(t.RecordItemID),
			MedicineID: mid, MedicineName: wf.book.names[mid], MedicineVersion: t.MedicineVersion,
			Date: wf.facts[t.RecordItemID].Date, WithdrawalMeatDays: t.MeatDays, WithdrawalMilkHours: t.MilkHours,
			MeatRule: t.MeatRule, MilkRule: t.MilkRule, OffLabel: t.OffLabel,
			MeatClearOn: h.MeatClearOn, MilkClearAt: clearAt(h.MilkClearAt, h.MilkUntilCalving), MilkUntilCalving: h.MilkUntilCalving}
		if t.GroupID != "" {
			g := uuid.MustParse(t.GroupID)
			wt.GroupID = &g
		}
		aw.Treatments = append(aw.Treatments, wt)
	}
	return aw
}

// asOfDay reads an as_of date as the register does (Service.asOf); an empty one is today (UTC).
func (s *Service) asOfDay(asOf string) (string, error) {
	var fe fieldErrors
	day := s.asOf(&fe, asOf)
	return day, fe.err()
}

// Withdrawals lists the farm's animals still under a meat or milk withdrawal as of a date
// (today in the farm's time zone when asOf is empty, UTC until the farm sets one), by animal id, with both clear dates and the treatments behind
// them. It costs a constant number of queries whatever the size of the farm.
func (s *Service) Withdrawals(ctx context.Context, farmID uuid.UUID, asOf string, p Page) ([]AnimalWithdrawal, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	total := 0
	out, err := s.onBoard(ctx, farmID, asOf, func(held []*withdrawal.Status) []*withdrawal.Status {
		total = len(held)
		return held[min(offset, total):min(offset+limit, total)]
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// WithdrawalOf answers one animal's line of the farm's withdrawal board on asOf (today in
// the farm's time zone when empty; UTC until the farm sets one): its withdrawal when it is
// on the farm and still under one that day, nil when not. It is exact however long the board
// is, where a page of the board (Withdrawals) may not hold the animal: for one animal's page
// and the crush, not for lists (each call reads the animal's tag and medicine names).
func (s *Service) WithdrawalOf(ctx context.Context, farmID, animalID uuid.UUID, asOf string) (*AnimalWithdrawal, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	id := animalID.String()
	out, err := s.onBoard(ctx, farmID, asOf, func(held []*withdrawal.Status) []*withdrawal.Status {
		for _, st := range held {
			if st.AnimalID == id {
				return []*withdrawal.Status{st}
			}
		}
		return nil
	})
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// onBoard answers the lines of the farm's withdrawal board on asOf that pick keeps, with
// their tags and medicine names; the caller has authorized.
func (s *Service) onBoard(ctx context.Context, farmID uuid.UUID, asOf string, pick func([]*withdrawal.Status) []*withdrawal.Status) ([]AnimalWithdrawal, error) {
	if asOf == "" {
		// Today is the farm's local day; UTC only for a farm that has not set its zone yet.
		set, err := s.settings(ctx, farmID)
		if err != nil {
			return nil, err
		}
		asOf, _ = set.DefaultDay(s.nowUTC())
	}
	day, err := s.asOfDay(asOf)
	if err != nil {
		return nil, err
	}
	board, fresh, err := s.withdrawalBoard(ctx, farmID, day)
	if err != nil {
		return nil, err
	}
	wf, held := board.facts, pick(board.held)
	ids := make([]uuid.UUID, len(held))
	var meds []uuid.UUID
	for i, st := range held {
		ids[i] = uuid.MustParse(st.AnimalID)
		for _, h := range st.Hits {
			meds = append(meds, uuid.MustParse(h.Treatment.MedicineID))
		}
	}
	tags, err := s.animalTags(ctx, farmID, ids)
	if err != nil {
		return nil, err
	}
	if len(meds) > 0 && !fresh {
		// A kept board's medicine names may have changed since (a medicine's name changes
		// without a record): read the page's names as they are now.
		names, err := s.medicineNames(ctx, farmID, slices.Values(meds))
		if err != nil {
			return nil, err
		}
		book := *wf.book
		book.names = names
		fresh := *wf
		fresh.book = &book
		wf = &fresh
	}
	out := make([]AnimalWithdrawal, len(held))
	for i, st := range held {
		out[i] = wf.status(st, tags)
	}
	return out, nil
}

// withdrawalBoard is the farm's withdrawal board on a day: the animals on the farm that day
// under a withdrawal, with the facts behind them.
type withdrawalBoard struct {
	facts *withdrawalFacts
	held  []*withdrawal.Status
}

// withdrawalBoard derives the board of day from every treatment of the farm that can still
// withhold, with the memberships and departures of the animals they reached: on a farm that
// treated a group of thousands, hundreds of milliseconds. It is kept by the farm's change
// counter (derived.go), which every record and animal write moves; the medicine versions it
// reads never change once written, and the farm's species, which a farm edit may change
// without moving the counter, is part of its name. fresh reports that it was derived now,
// not kept.
func (s *Service) withdrawalBoard(ctx context.Context, farmID uuid.UUID, day string) (board withdrawalBoard, fresh bool, err error) {
	var species string
	if f := viewerFarm(ctx, farmID); f != nil {
		species = string(f.Species)
	} else {
		if species, err = s.farmSpecies(ctx, farmID); err != nil {
			return withdrawalBoard{}, false, err
		}
	}
	derive := func() (withdrawalBoard, error) {
		wf, err := s.loadWithdrawals(ctx, farmID, nil, day)
		if err != nil {
			return withdrawalBoard{}, err
		}
		// An animal that had left the farm by the day asked is off the board (and the
		// dashboard): its withdrawal went with it (a sale or movement passes it on to the keeper).
		held, err := s.onFarm(ctx, farmID, wf.history.Withheld(day), day)
		if err != nil {
			return withdrawalBoard{}, err
		}
		return boardOf(wf.book, held, wf.facts), nil
	}
	// A patched board's medicine names are read again for its page (fresh is false): the
	// kept part may name a medicine renamed since.
	return keptPatched(ctx, s, s.derived, farmID, "withdrawals "+day+" "+species, boardKinds, derive,
		func(old withdrawalBoard, touched []uuid.UUID, since int64) (withdrawalBoard, error) {
			// A group's treatment names no animal: the animals it reaches are touched too.
			reached, ok, err := s.groupTreatedSince(ctx, farmID, since)
			if err != nil {
				return withdrawalBoard{}, err
			}
			touched = dedupe(append(slices.Clone(touched), reached...))
			if !ok || len(touched) > touchedCap {
				return derive()
			}
			if len(touched) == 0 {
				return old, nil
			}
			// The touched animals' withdrawals, from their own history (as an animal's page
			// reads it), replace theirs on the kept board.
			wf, err := s.loadWithdrawals(ctx, farmID, touched, day)
			if err != nil {
				return withdrawalBoard{}, err
			}
			mine := idSet(touched)
			var theirs []*withdrawal.Status
			for _, st := range wf.history.Withheld(day) {
				if mine[strings.ToLower(st.AnimalID)] {
					theirs = append(theirs, st)
				}
			}
			if theirs, err = s.onFarm(ctx, farmID, theirs, day); err != nil {
				return withdrawalBoard{}, err
			}
			held := slices.Clone(theirs)
			for _, st := range old.held {
				if !mine[strings.ToLower(st.AnimalID)] {
					held = append(held, st)
				}
			}
			slices.SortFunc(held, func(a, b *withdrawal.Status) int { return strings.Compare(a.AnimalID, b.AnimalID) })
			facts := maps.Clone(old.facts.facts)
			maps.Copy(facts, wf.facts)
			return boardOf(old.facts.book.with(wf.book), held, facts), nil
		})
}

// boardOf is the board of the held animals: with it, the book and the facts of the
// treatments on it, not the whole history.
func boardOf(book *medicineBook, held []*withdrawal.Status, facts map[string]evidence.Fact) withdrawalBoard {
	kept := &withdrawalFacts{book: book, facts: map[string]evidence.Fact{}}
	for _, st := range held {
		for _, h := range st.Hits {
			kept.facts[h.Treatment.RecordItemID] = facts[h.Treatment.RecordItemID]
		}
	}
	return withdrawalBoard{facts: kept, held: held}
}

// with answers a book of b's medicines and other's (a patched board's: the kept board's
// medicines and those of the treatments of the animals patched). Neither is changed.
func (b *medicineBook) with(other *medicineBook) *medicineBook {
	out := *b
	out.names, out.substances, out.versions = maps.Clone(b.names), maps.Clone(b.substances), maps.Clone(b.versions)
	if out.names == nil {
		out.names = map[uuid.UUID]string{}
	}
	if out.substances == nil {
		out.substances = map[uuid.UUID]string{}
	}
	if out.versions == nil {
		out.versions = map[uuid.UUID]map[int]*ent.MedicineVersion{}
	}
	maps.Copy(out.names, other.names)
	maps.Copy(out.substances, other.substances)
	for id, vs := range other.versions {
		merged := maps.Clone(out.versions[id])
		if merged == nil {
			merged = map[int]*ent.MedicineVersion{}
		}
		maps.Copy(merged, vs)
		out.versions[id] = merged
	}
	return &out
}

// AnimalWithdrawalAsOf returns one animal's withdrawal as of a date (today when asOf is
// empty): the latest clear dates over every treatment that reached it by then, whether or not
// they have passed; nil when no treatment reached it. For the animal profile.
func (s *Service) AnimalWithdrawalAsOf(ctx context.Context, farmID, animalID uuid.UUID, asOf string) (*AnimalWithdrawal, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	return s.animalWithdrawal(ctx, farmID, animalID, asOf)
}

// animalWithdrawal is AnimalWithdrawalAsOf for callers that authorized already (the profile).
func (s *Service) animalWithdrawal(ctx context.Context, farmID, animalID uuid.UUID, asOf string) (*AnimalWithdrawal, error) {
	day, err := s.asOfDay(asOf)
	if err != nil {
		return nil, err
	}
	wf, err := s.loadWithdrawals(ctx, farmID, []uuid.UUID{animalID}, day)
	if err != nil {
		return nil, err
	}
	st := wf.history.AsOf(day)[animalID.String()]
	if st == nil {
		return nil, nil
	}
	aw := wf.status(st, nil)
	return &aw, nil
}

// ProfileWithdrawal is the withdrawal part of an animal's profile as of a date: the latest
// clear dates over the treatments that reached it by then (passed or not), and their records.
type ProfileWithdrawal struct {
	MeatClearOn string     `json:"meat_clear_on"`
	MilkClearAt *time.Time `json:"milk_clear_at"`
	// MilkUntilCalving: a dry-cow product withholds the milk until the animal calves.
	MilkUntilCalving bool        `json:"milk_until_calving"`
	Treatments       []uuid.UUID `json:"treatments"`
}

// withWithdrawal fills a profile's withdrawal as of day (nil when no treatment reached the
// animal by then). For single-animal reads, which have checked access already.
func (s *Service) withWithdrawal(ctx context.Context, farmID uuid.UUID, ap *AnimalProfile, day string) error {
	aw, err := s.animalWithdrawal(ctx, farmID, ap.Animal.ID, day)
	if err != nil || aw == nil {
		return err
	}
	pw := &ProfileWithdrawal{MeatClearOn: aw.MeatClearOn, MilkClearAt: aw.MilkClearAt, MilkUntilCalving: aw.MilkUntilCalving, Treatments: []uuid.UUID{}}
	for _, t := range aw.Treatments {
		if !slices.Contains(pw.Treatments, t.RecordID) {
			pw.Treatments = append(pw.Treatments, t.RecordID)
		}
	}
	ap.Profile.Withdrawal = pw
	return nil
}

// courseEnd sets a treatment's last administration from its fact: the withdrawal of a course
// runs from its last administration (EU 2019/6 Art. 4(34)).
func courseEnd(t *withdrawal.Treatment, f evidence.Fact, zone *time.Location) {
	if f.LastAdministration == "" {
		return
	}
	if day, at, dateOnly, err := withdrawal.ParseWhenIn(f.LastAdministration, zone); err == nil {
		t.LastDay, t.LastAt, t.LastDateOnly = day, at, dateOnly
	}
}
