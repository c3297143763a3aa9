package herdbook

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/withdrawal"
)

// The edges of the withdrawal guard (docs/medicines.md, "Departures and later facts"): a death
// whose cause reads as a slaughter must say so, a fact written late may not turn a recorded
// departure into one inside a meat withdrawal without the writer's acknowledgement, and the
// withdrawal board leaves off animals that had left the farm by the day asked.

// slaughterWords are the words of a death's cause that read as a slaughter for meat, in
// English and French (a farm may write its causes in either).
var slaughterWords = regexp.MustCompile(`(?i)\b(slaughter(ed|ing|house)?|abattoir|butcher(ed|y)?|killed for (meat|food|the freezer)|home[- ]kill(ed)?|abattu(e|s|es)?|abattage|tu[ée]e? pour (la )?(viande|boucherie)|boucherie)\b`)

// slaughterCause returns the word of cause that reads as a slaughter, "" when none does.
func slaughterCause(cause string) string {
	return slaughterWords.FindString(cause)
}

// checkSlaughterCauses refuses a death whose cause reads as a slaughter while its slaughter
// flag is unset: the meat withdrawal guard holds a slaughter for food to the withdrawal, and a
// slaughter recorded as a plain death would pass it. The safe reading is the farmer's
// explicit one: set slaughter: true, or word the cause without it.
func checkSlaughterCauses(facts []*evidence.Fact, field factField) error {
	var fe fieldErrors
	for i, f := range facts {
		if f == nil || f.Kind != evidence.KindDeath || f.Slaughter {
			continue
		}
		if w := slaughterCause(f.Cause); w != "" {
			fe.add(field(i)+".slaughter", "the cause %q reads as a slaughter (%q): set slaughter to true to record a slaughter, which the meat withdrawal guard holds to the withdrawal, or word the cause without it if the animal was not slaughtered", f.Cause, w)
		}
	}
	return fe.err()
}

// departedBy returns, of animals, those whose last arrival or departure on or before day is
// a departure (a sale, a movement off the farm or a death): they are no longer on the farm
// that day. One statement.
func (s *Service) departedBy(ctx context.Context, farmID uuid.UUID, animals []uuid.UUID, day string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(animals) == 0 {
		return out, nil
	}
	kinds := append([]string{string(evidence.KindPurchase), string(evidence.KindMovementIn)}, departureKinds...)
	items, err := s.factItems(ctx, farmID, recorditem.FactSubjectIn(dedupe(animals)...), recorditem.FactKindIn(kinds...),
		recorditem.FactDateLTE(day))
	if err != nil {
		return nil, err
	}
	// In date order, then item order (items have time-ordered ids): the last one stands.
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if *a.FactDate != *b.FactDate {
			return *a.FactDate < *b.FactDate
		}
		return a.ID.String() < b.ID.String()
	})
	for _, it := range items {
		if it.FactSubject == nil || it.FactKind == nil {
			continue
		}
		k := *it.FactKind
		out[it.FactSubject.String()] = k != string(evidence.KindPurchase) && k != string(evidence.KindMovementIn)
	}
	return out, nil
}

// onFarm drops from held the animals that had left the farm by day: the withdrawal board and
// the dashboard list the animals whose meat or milk the farm must still hold back.
func (s *Service) onFarm(ctx context.Context, farmID uuid.UUID, held []*withdrawal.Status, day string) ([]*withdrawal.Status, error) {
	ids := make([]uuid.UUID, len(held))
	for i, st := range held {
		ids[i] = uuid.MustParse(st.AnimalID)
	}
	gone, err := s.departedBy(ctx, farmID, ids, day)
	if err != nil {
		return nil, err
	}
	out := held[:0:0]
	for _, st := range held {
		if !gone[st.AnimalID] {
			out = append(out, st)
		}
	}
	return out, nil
}

// guardRecordedDepartures refuses a write whose facts (a membership, a treatment, written
// late and dated back) would turn a departure already recorded (a sale, a movement off the
// farm, a slaughter) into one inside a meat withdrawal that the departure did not meet when
// it was recorded. With the writer's acknowledgement the write goes through and its record
// keeps the acknowledgement: the facts stay true, and the medicine book must hold them (VMR
// 2013 reg. 17–19, EU 2019/6 Art. 108), but never silently. facts carry their record items
// (written in this transaction). A constant number of statements.
func (s *Service) guardRecordedDepartures(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact, field factField, acknowledged bool) error {
	if acknowledged {
		return nil
	}
	cause := map[string]int{} // animal → the first written fact that may reach it
	newItems := map[string]bool{}
	var groupTreatments []uuid.UUID
	add := func(animal string, i int) {
		if _, ok := cause[animal]; !ok && animal != "" {
			cause[animal] = i
		}
	}
	for i, f := range facts {
		if f == nil {
			continue
		}
		if f.RecordItemID != "" {
			newItems[f.RecordItemID] = true
		}
		switch {
		case f.Kind == evidence.KindMembership:
			add(strings.ToLower(f.AnimalID), i)
		case f.Kind == evidence.KindTreatment && f.AnimalID != "":
			add(strings.ToLower(f.AnimalID), i)
		case f.Kind == evidence.KindTreatment && f.GroupID != "" && f.RecordItemID != "":
			groupTreatments = append(groupTreatments, uuid.MustParse(f.RecordItemID))
		}
	}
	if len(groupTreatments) > 0 {
		reach, err := s.storedReach(ctx, farmID, groupTreatments)
		if err != nil {
			return err
		}
		for i, f := range facts {
			if f != nil && f.Kind == evidence.KindTreatment && f.GroupID != "" {
				for _, a := range reach[f.RecordItemID] {
					add(a, i)
				}
			}
		}
	}
	if len(cause) == 0 {
		return nil
	}
	animals := make([]uuid.UUID, 0, len(cause))
	for a := range cause {
		if u, err := uuid.Parse(a); err == nil {
			animals = append(animals, u)
		}
	}
	deps, err := s.kindItems(ctx, farmID, departureKinds, recorditem.FactSubjectIn(animals...))
	if err != nil {
		return err
	}
	type departure struct {
		item   *ent.RecordItem
		fact   evidence.Fact
		animal string
	}
	var leaves []departure
	through := ""
	for _, it := range deps {
		if newItems[it.ID.String()] {
			continue // a departure of this write: guardWithdrawals holds it
		}
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 || !leaving(&f) {
			continue
		}
		leaves = append(leaves, departure{it, f, strings.ToLower(f.AnimalID)})
		through = max(through, f.Date)
	}
	if len(leaves) == 0 {
		return nil
	}
	items, err := s.withdrawalItems(ctx, farmID, animals, through)
	if err != nil {
		return err
	}
	after, err := s.buildWithdrawals(ctx, farmID, items)
	if err != nil {
		return err
	}
	var old []*ent.RecordItem
	for _, it := range items {
		if !newItems[it.ID.String()] {
			old = append(old, it)
		}
	}
	before, err := s.buildWithdrawals(ctx, farmID, old)
	if err != nil {
		return err
	}
	type conflict struct {
		WithdrawalConflict
		departureRecord uuid.UUID
		index           int
	}
	var conflicts []conflict
	for _, d := range leaves {
		known := map[string]bool{}
		for _, h := range before.history.Blocking(d.animal, d.fact.Date) {
			known[h.Treatment.RecordItemID+"/"+h.MeatClearOn] = true
		}
		for _, h := range after.history.Blocking(d.animal, d.fact.Date) {
			if known[h.Treatment.RecordItemID+"/"+h.MeatClearOn] {
				continue
			}
			mid := uuid.MustParse(h.Treatment.MedicineID)
			conflicts = append(conflicts, conflict{WithdrawalConflict: WithdrawalConflict{Field: field(cause[d.animal]),
				Kind: string(d.fact.Kind), Date: d.fact.Date, AnimalID: uuid.MustParse(d.animal), MedicineID: mid,
				MedicineName: after.book.names[mid], TreatmentRecord: uuid.MustParse(h.Treatment.RecordID),
				TreatedOn: after.facts[h.Treatment.RecordItemID].Date, MeatClearOn: h.MeatClearOn},
				departureRecord: d.item.RecordID, index: cause[d.animal]})
		}
	}
	if len(conflicts) == 0 {
		return nil
	}
	tags, err := s.animalTags(ctx, farmID, animals)
	if err != nil {
		return err
	}
	e := &Error{Code: EWITHDRAWAL, Message: fmt.Sprintf("this would put a departure already recorded inside a medicine's meat withdrawal; check the dates, or send %s to record it anyway (the record keeps the acknowledgement)", acknowledgeField(ctx))}
	for _, c := range conflicts {
		c.AnimalTag = tags[c.AnimalID]
		what := strings.ReplaceAll(c.Kind, "_", " ")
		if c.Kind == string(evidence.KindDeath) {
			what = "slaughter"
		}
		e.Fields = append(e.Fields, FieldError{Field: c.Field, Message: fmt.Sprintf(
			"the %s of animal %s (%s) on %s, record %s, would fall inside the meat withdrawal of %s (medicine %s) given %s, record %s, which clears for slaughter on %s; check the dates, or send %s to record this anyway",
			what, c.AnimalID, c.AnimalTag, c.Date, c.departureRecord, c.MedicineName, c.MedicineID, c.TreatedOn, c.TreatmentRecord, c.MeatClearOn, acknowledgeField(ctx))})
		e.Withdrawals = append(e.Withdrawals, c.WithdrawalConflict)
	}
	return e
}
