package herdbook

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/medicinepurchase"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
)

// MedicineStockLine is the balance of one product's batch, in one unit, as of a date:
// what was bought (acquisition records) less what treatments recorded as given from that
// batch. Quantities in different units are not converted: each unit is a line of its own.
type MedicineStockLine struct {
	MedicineID   uuid.UUID
	MedicineName string
	// Batch as the first purchase (or treatment) spelled it; "" for treatments that named none.
	Batch        string
	Unit         string
	Purchased    float64
	Administered float64
	Balance      float64
	// Negative flags a balance below zero: more given than bought, which the book allows (a
	// purchase not yet recorded, a unit mistyped) and shows.
	Negative bool
	// ExpiryDate is the latest expiry among the batch's purchases, when given.
	ExpiryDate *string
	Purchases  int
	Treatments int
	// Unquantified counts the batch's treatments that gave no quantity: they draw nothing.
	Unquantified int
	// Warnings say in sentences what is odd about the line.
	Warnings []string
}

// stockKey groups purchases and treatments: batches match without regard to case and
// surrounding space, units too.
type stockKey struct {
	medicine uuid.UUID
	batch    string
	unit     string
}

func newStockKey(m uuid.UUID, batch, unit string) stockKey {
	return stockKey{m, strings.ToUpper(strings.TrimSpace(batch)), strings.ToLower(strings.TrimSpace(unit))}
}

// administered is the quantity a treatment drew from its batch: quantity_total when given,
// otherwise quantity_per_animal times the animals it reached (one for an animal's treatment;
// a group's members on its date), or nothing (ok false) when it gave no quantity.
func administered(f evidence.Fact, reached int) (q float64, ok bool) {
	switch {
	case f.QuantityTotal != nil:
		return *f.QuantityTotal, true
	case f.QuantityPerAnimal != nil && f.AnimalID != "":
		return *f.QuantityPerAnimal, true
	case f.QuantityPerAnimal != nil:
		return *f.QuantityPerAnimal * float64(reached), true
	}
	return 0, false
}

// MedicineStock returns the farm's stock per product and batch as of a date (the farm's today
// when asOf is empty; UTC's until it sets a time zone), by medicine name, batch and unit. Purchases dated up to that day add;
// treatments dated up to it (by their first administration) draw down the batch they name.
// A constant number of statements whatever the farm's size: the purchases, the treatments,
// the medicines' names, and, when a group treatment gives only a quantity per animal, the
// statements that find the group's members on its date.
func (s *Service) MedicineStock(ctx context.Context, farmID uuid.UUID, asOf string) (*MedicineStock, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	day, err := s.asOfDay(asOf)
	if err != nil {
		return nil, err
	}
	if asOf == "" {
		if day, _, err = s.farmToday(ctx, farmID); err != nil {
			return nil, err
		}
	}
	c := s.Client(ctx)
	purchases, err := c.MedicinePurchase.Query().
		Where(medicinepurchase.FarmID(farmID), knownPurchase(ctx), medicinepurchase.PurchasedOnLTE(day)).
		Order(medicinepurchase.ByPurchasedOn(), medicinepurchase.ByCreatedAt(), medicinepurchase.ByID()).All(ctx)
	if err != nil {
		return nil, err
	}
	items, err := s.factItems(ctx, farmID, recorditem.FactKind(string(evidence.KindTreatment)), recorditem.FactDateLTE(day))
	if err != nil {
		return nil, err
	}
	lines := map[stockKey]*MedicineStockLine{}
	line := func(k stockKey, m uuid.UUID, batch, unit string) *MedicineStockLine {
		l := lines[k]
		if l == nil {
			l = &MedicineStockLine{MedicineID: m, Batch: strings.TrimSpace(batch), Unit: strings.TrimSpace(unit)}
			lines[k] = l
		}
		return l
	}
	for _, p := range purchases {
		l := line(newStockKey(p.MedicineID, p.Batch, p.QuantityUnit), p.MedicineID, p.Batch, p.QuantityUnit)
		l.Purchased += p.Quantity
		l.Purchases++
		if p.ExpiryDate != nil && (l.ExpiryDate == nil || *p.ExpiryDate > *l.ExpiryDate) {
			l.ExpiryDate = p.ExpiryDate
		}
	}
	type treated struct {
		f  evidence.Fact
		id string
	}
	var facts []treated
	var groupItems []int // indexes into items of group treatments that give only a quantity per animal
	for i, it := range items {
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 {
			continue
		}
		facts = append(facts, treated{f, it.ID.String()})
		if f.GroupID != "" && f.QuantityTotal == nil && f.QuantityPerAnimal != nil {
			groupItems = append(groupItems, i)
		}
	}
	reachedBy := map[string]int{}
	if len(groupItems) > 0 {
		sel := make([]*ent.RecordItem, len(groupItems))
		for i, j := range groupItems {
			sel[i] = items[j]
		}
		wf, err := s.withdrawalsOf(ctx, farmID, sel)
		if err != nil {
			return nil, err
		}
		reach := wf.history.Reacher()
		for _, t := range wf.history.Treatments {
			reachedBy[t.RecordItemID] = len(reach(t))
		}
	}
	for _, t := range facts {
		m, err := uuid.Parse(t.f.MedicineID)
		if err != nil {
			continue
		}
		q, ok := administered(t.f, reachedBy[t.id])
		unit := t.f.QuantityUnit
		l := line(newStockKey(m, t.f.Batch, unit), m, t.f.Batch, unit)
		l.Treatments++
		if !ok {
			l.Unquantified++
			continue
		}
		l.Administered += q
	}
	names, err := s.medicineNames(ctx, farmID, func(yield func(uuid.UUID) bool) {
		for k := range lines {
			if !yield(k.medicine) {
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]MedicineStockLine, 0, len(lines))
	for _, l := range lines {
		l.MedicineName = names[l.MedicineID]
		l.Balance = l.Purchased - l.Administered
		l.Negative = l.Balance < 0
		l.Warnings = stockWarnings(l)
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b MedicineStockLine) int {
		return cmp.Or(strings.Compare(a.MedicineName, b.MedicineName), strings.Compare(a.MedicineID.String(), b.MedicineID.String()),
			strings.Compare(a.Batch, b.Batch), strings.Compare(a.Unit, b.Unit))
	})
	return &MedicineStock{AsOf: day, Lines: out}, nil
}

// MedicineStock is a farm's stock as of a day, line by line.
type MedicineStock struct {
	AsOf  string
	Lines []MedicineStockLine
}

func stockWarnings(l *MedicineStockLine) []string {
	w := []string{}
	if l.Negative {
		w = append(w, fmt.Sprintf("More was given than bought: the balance is %s %s. Record the missing purchase, or check the batch and unit of the treatments.",
			trimFloat(l.Balance), l.Unit))
	}
	if l.Batch == "" {
		w = append(w, "Treatments that named no batch: the stock of no batch can be drawn down for them.")
	}
	if l.Purchases == 0 && l.Batch != "" {
		w = append(w, "No purchase of this batch in this unit is recorded.")
	}
	if l.Unquantified > 0 {
		w = append(w, fmt.Sprintf("%d treatment(s) gave no quantity and draw nothing down.", l.Unquantified))
	}
	return w
}

func trimFloat(v float64) string { return number(&v) }
