package herdbook

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/withdrawal"
)

// MedicineBookHeader names the columns of the medicine book, one row per treated animal (a
// group treatment gives one row per animal that was a member that day, or one row without an
// animal when none was).
var MedicineBookHeader = []string{"date", "animal_id", "animal_tag", "group_id", "group_name",
	"medicine_id", "medicine_name", "medicine_version", "active_substance", "batch", "dose", "unit", "route",
	"administered_by", "withdrawal_meat_days", "withdrawal_milk_hours", "meat_clear_on", "milk_clear_at", "record_id",
	// The rest of the keeper's record (EU 2019/6 Art. 108(2); GB VMR 2013 regs 17 to 19).
	"animal_eid", "animal_official_tag", "last_administration", "treatment_days",
	"quantity_per_animal", "quantity_total", "quantity_unit", "prescribing_vet", "prescribing_practice", "reason",
	// The purchase of the batch given (docs/medicines.md#the-book): the supplier and the proof.
	"supplier_name", "supplier_address", "proof_of_acquisition", "purchase_id",
	// What gave the periods: the cascade and the rule behind each (docs/medicines.md).
	"off_label", "meat_rule", "milk_rule"}

// medicineBookChunk is how many treatments the book loads at a time: memory stays bounded
// however long the book, and each chunk costs a constant number of queries.
const medicineBookChunk = 500

// MedicineBook writes the farm's treatments dated from from to to (YYYY-MM-DD, both
// included; either may be empty for no bound), oldest first, to emit one row at a time, as
// an inspector reads them: date, the animals (a group's members that day), the medicine and
// its version, batch, dose, route, who gave it, the periods that applied and the clear
// dates. It checks access and the dates before the first row.
func (s *Service) MedicineBook(ctx context.Context, farmID uuid.UUID, from, to string, emit func(row []string) error) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return err
	}
	return s.writeMedicineBook(ctx, farmID, from, to, emit)
}

// AdminMedicineBook is MedicineBook for the operator's command line (herdbook export
// medicine-book), which has no viewer: whoever can run the binary against the database can
// read it anyway.
func (s *Service) AdminMedicineBook(ctx context.Context, farmID uuid.UUID, from, to string, emit func(row []string) error) error {
	if _, err := s.Client(ctx).Farm.Get(ctx, farmID); err != nil {
		return notFound(err, "farm", farmID)
	}
	return s.writeMedicineBook(ctx, farmID, from, to, emit)
}

func (s *Service) writeMedicineBook(ctx context.Context, farmID uuid.UUID, from, to string, emit func(row []string) error) error {
	from, to, err := s.bookWindow(ctx, farmID, from, to)
	if err != nil {
		return err
	}
	return s.administrations(ctx, farmID, from, to, emit)
}

// administrations writes the administration section of the book for a checked window.
func (s *Service) administrations(ctx context.Context, farmID uuid.UUID, from, to string, emit func(row []string) error) error {
	if err := emit(MedicineBookHeader); err != nil {
		return err
	}
	lastDate, lastID := "", uuid.Nil
	for {
		q := s.Client(ctx).RecordItem.Query().
			Where(recorditem.FactKind(string(evidence.KindTreatment)), itemsOfFarm(farmID, liveRecord(ctx)))
		if from != "" {
			q.Where(recorditem.FactDateGTE(from))
		}
		if to != "" {
			q.Where(recorditem.FactDateLTE(to))
		}
		if lastDate != "" {
			q.Where(recorditem.Or(recorditem.FactDateGT(lastDate),
				recorditem.And(recorditem.FactDate(lastDate), recorditem.IDGT(lastID))))
		}
		items, err := q.Order(ent.Asc(recorditem.FieldFactDate), ent.Asc(recorditem.FieldID)).Limit(medicineBookChunk).
			Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata,
				recorditem.FieldFactKind, recorditem.FieldFactSubject, recorditem.FieldFactGroup, recorditem.FieldFactDate).
			All(ctx)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return nil
		}
		if err := s.bookChunk(ctx, farmID, items, emit); err != nil {
			return err
		}
		last := items[len(items)-1]
		lastDate, lastID = *last.FactDate, last.ID
		if len(items) < medicineBookChunk {
			return nil
		}
	}
}

// bookChunk writes the rows of one chunk of treatment items.
func (s *Service) bookChunk(ctx context.Context, farmID uuid.UUID, items []*ent.RecordItem, emit func([]string) error) error {
	wf, err := s.withdrawalsOf(ctx, farmID, items)
	if err != nil {
		return err
	}
	ts := wf.history.Treatments
	// Order of the book: date, moment, then the item id.
	sortTreatments(ts)
	reach := wf.history.Reacher()
	var animals, groups []uuid.UUID
	reached := make([][]withdrawal.Reach, len(ts))
	for i, t := range ts {
		reached[i] = reach(t)
		for _, r := range reached[i] {
			animals = append(animals, uuid.MustParse(r.AnimalID))
		}
		if t.GroupID != "" {
			groups = append(groups, uuid.MustParse(t.GroupID))
		}
	}
	tags, err := s.animalTags(ctx, farmID, animals)
	if err != nil {
		return err
	}
	official, err := s.officialIdentifiers(ctx, farmID, animals)
	if err != nil {
		return err
	}
	supply, err := s.bookSupplies(ctx, farmID, ts)
	if err != nil {
		return err
	}
	groupNames := map[uuid.UUID]string{}
	if len(groups) > 0 {
		gs, err := s.Client(ctx).Group.Query().Where(group.FarmID(farmID), group.IDIn(dedupe(groups)...)).
			Select(group.FieldID, group.FieldName).All(IncludeInactive(ctx))
		if err != nil {
			return err
		}
		for _, g := range gs {
			groupNames[g.ID] = g.Name
		}
	}
	for i, t := range ts {
		f := wf.facts[t.RecordItemID]
		hit := withdrawal.HitOf(t)
		mid := uuid.MustParse(t.MedicineID)
		// A dry-cow product's milk clears after the animal's calving: its own per animal.
		milkClear := func(animal string) string {
			h := withdrawal.HitFor(t, animal, "9999-12-31", wf.history.Calvings)
			if h.MilkUntilCalving {
				return "after calving"
			}
			return h.MilkClearAt.UTC().Format(time.RFC3339)
		}
		gid, gname := "", ""
		if t.GroupID != "" {
			gid, gname = t.GroupID, groupNames[uuid.MustParse(t.GroupID)]
		}
		dose := ""
		if f.Dose != nil {
			dose = strconv.FormatFloat(*f.Dose, 'f', -1, 64)
		}
		row := func(animal, tag string) []string {
			var eid, visual string
			if animal != "" {
				eid, visual = official.on(uuid.MustParse(animal), t.Day)
			}
			return append([]string{f.Date, animal, tag, gid, gname, t.MedicineID, wf.book.names[mid],
				strconv.Itoa(t.MedicineVersion), wf.book.substances[mid], f.Batch, dose, f.Unit, f.Route,
				f.AdministeredBy, strconv.Itoa(t.MeatDays), strconv.Itoa(t.MilkHours), hit.MeatClearOn,
				milkClear(animal), t.RecordID}, append(append(treatmentRecordCells(f, eid, visual),
				supply.cells(mid, f.Batch, t.Day)...), strconv.FormatBool(t.OffLabel), t.MeatRule, t.MilkRule)...)
		}
		if len(reached[i]) == 0 {
			if err := emit(row("", "")); err != nil {
				return err
			}
		}
		for _, r := range reached[i] {
			if err := emit(row(r.AnimalID, tags[uuid.MustParse(r.AnimalID)])); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortTreatments(ts []withdrawal.Treatment) {
	slices.SortStableFunc(ts, func(a, b withdrawal.Treatment) int {
		if c := strings.Compare(a.Day, b.Day); c != 0 {
			return c
		}
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.RecordItemID, b.RecordItemID)
	})
}
