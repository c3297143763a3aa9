package herdbook

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/medicinepurchase"
	"github.com/herdbook/herdbook/withdrawal"
)

// BookYears is how far back the book reaches when its window's start is left out: medicine
// records are kept five years (EU 2019/6 Art. 108(3); GB VMR 2013 regs 17(3), 18(2), 19).
const BookYears = 5

// bookWindow checks a book's window (YYYY-MM-DD, both included) and fills in its start: five
// years before its end, or before the farm's today (UTC's until it sets a time zone) when
// the end is left out too. An open end
// stays open, so that nothing dated later is left out.
func (s *Service) bookWindow(ctx context.Context, farmID uuid.UUID, from, to string) (string, string, error) {
	var fe fieldErrors
	for _, d := range []struct{ field, v string }{{"from", from}, {"to", to}} {
		if d.v != "" {
			if _, err := withdrawal.ParseDay(d.v); err != nil {
				fe.add(d.field, "%s", err.Error())
			}
		}
	}
	if len(fe) == 0 && from != "" && to != "" && to < from {
		fe.add("to", "must not be before from")
	}
	if err := fe.err(); err != nil {
		return "", "", err
	}
	if from == "" {
		if to == "" {
			today, _, err := s.farmToday(ctx, farmID)
			if err != nil {
				return "", "", err
			}
			end, _ := withdrawal.ParseDay(today)
			from = end.AddDate(-BookYears, 0, 0).Format(time.DateOnly)
		} else {
			end, _ := withdrawal.ParseDay(to)
			from = end.AddDate(-BookYears, 0, 0).Format(time.DateOnly)
		}
	}
	return from, to, nil
}

// MedicineAcquisitionHeader names the columns of the book's acquisition section, one row per
// purchase (GB VMR 2013 reg. 17; EU 2019/6 Art. 108(2)).
var MedicineAcquisitionHeader = []string{"purchased_on", "medicine_id", "medicine_name", "batch", "expiry_date",
	"quantity", "quantity_unit", "supplier_name", "supplier_address", "document_reference", "file_id",
	"recorded_by", "recorded_at", "purchase_id"}

// BookInfo describes the book being written: the farm and the window it covers.
type BookInfo struct {
	FarmID   uuid.UUID
	FarmName string
	From     string
	To       string // "" when open
	Printed  time.Time
}

// BookWriter receives the inspector's book: Begin once, then each section's header and rows.
type BookWriter struct {
	Begin   func(BookInfo) error
	Section func(name string, header []string) error
	Row     func(row []string) error
}

// The book's sections.
const (
	BookAcquisitions   = "acquisitions"
	BookAdministration = "administration"
)

// InspectorBook writes the farm's medicine book for an inspector: the acquisition section
// (purchases dated in the window) and the administration section (treatments dated in it, as
// MedicineBook writes them). The window defaults to the five years medicine records are kept.
// sections names the sections to write, in the order given. Access and the window are
// checked before anything is written.
func (s *Service) InspectorBook(ctx context.Context, farmID uuid.UUID, from, to string, sections []string, w BookWriter) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return err
	}
	from, to, err := s.bookWindow(ctx, farmID, from, to)
	if err != nil {
		return err
	}
	for _, sec := range sections {
		if sec != BookAcquisitions && sec != BookAdministration {
			return Invalid(FieldError{Field: "section", Message: "must be " + BookAdministration + " or " + BookAcquisitions})
		}
	}
	f, err := s.Client(ctx).Farm.Get(ctx, farmID)
	if err != nil {
		return notFound(err, "farm", farmID)
	}
	if w.Begin != nil {
		if err := w.Begin(BookInfo{FarmID: farmID, FarmName: f.Name, From: from, To: to, Printed: s.nowUTC()}); err != nil {
			return err
		}
	}
	for _, sec := range sections {
		// The header comes as the section's first row; Section announces it.
		first := true
		emit := func(row []string) error {
			if first {
				first = false
				return w.Section(sec, row)
			}
			return w.Row(row)
		}
		switch sec {
		case BookAcquisitions:
			err = s.acquisitions(ctx, farmID, from, to, emit)
		default:
			err = s.administrations(ctx, farmID, from, to, emit)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// acquisitions writes the acquisition section for a checked window, oldest purchase first,
// medicineBookChunk purchases a statement (plus one for their medicines' names).
func (s *Service) acquisitions(ctx context.Context, farmID uuid.UUID, from, to string, emit func([]string) error) error {
	if err := emit(MedicineAcquisitionHeader); err != nil {
		return err
	}
	lastDate, lastID := "", uuid.Nil
	for {
		q := s.Client(ctx).MedicinePurchase.Query().Where(medicinepurchase.FarmID(farmID), knownPurchase(ctx), medicinepurchase.PurchasedOnGTE(from))
		if to != "" {
			q.Where(medicinepurchase.PurchasedOnLTE(to))
		}
		if lastDate != "" {
			q.Where(medicinepurchase.Or(medicinepurchase.PurchasedOnGT(lastDate),
				medicinepurchase.And(medicinepurchase.PurchasedOn(lastDate), medicinepurchase.IDGT(lastID))))
		}
		ps, err := q.Order(medicinepurchase.ByPurchasedOn(), medicinepurchase.ByID()).Limit(medicineBookChunk).All(ctx)
		if err != nil {
			return err
		}
		if len(ps) == 0 {
			return nil
		}
		named, err := s.withMedicineNames(ctx, farmID, ps)
		if err != nil {
			return err
		}
		for _, p := range named {
			expiry, doc, fileID, by := "", "", "", ""
			if p.ExpiryDate != nil {
				expiry = *p.ExpiryDate
			}
			if p.DocumentReference != nil {
				doc = *p.DocumentReference
			}
			if p.FileID != nil {
				fileID = p.FileID.String()
			}
			if p.CreatedBy != nil {
				by = p.CreatedBy.String()
			}
			if err := emit([]string{p.PurchasedOn, p.MedicineID.String(), p.MedicineName, p.Batch, expiry,
				trimFloat(p.Quantity), p.QuantityUnit, p.SupplierName, p.SupplierAddress, doc, fileID,
				by, p.CreatedAt.UTC().Format(time.RFC3339), p.ID.String()}); err != nil {
				return err
			}
		}
		last := ps[len(ps)-1]
		lastDate, lastID = last.PurchasedOn, last.ID
		if len(ps) < medicineBookChunk {
			return nil
		}
	}
}

// supplies are the purchases of the batches a chunk of the book names.
type supplies map[stockKey][]*ent.MedicinePurchase

// bookSupplies loads the purchases of the medicines a chunk's treatments name, in one
// statement (none without treatments).
func (s *Service) bookSupplies(ctx context.Context, farmID uuid.UUID, ts []withdrawal.Treatment) (supplies, error) {
	out := supplies{}
	var meds []uuid.UUID
	for _, t := range ts {
		if id, err := uuid.Parse(t.MedicineID); err == nil {
			meds = append(meds, id)
		}
	}
	if len(meds) == 0 {
		return out, nil
	}
	ps, err := s.Client(ctx).MedicinePurchase.Query().Where(medicinepurchase.FarmID(farmID), knownPurchase(ctx), medicinepurchase.MedicineIDIn(dedupe(meds)...)).
		Order(medicinepurchase.ByPurchasedOn(), medicinepurchase.ByID()).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		k := newStockKey(p.MedicineID, p.Batch, "")
		out[k] = append(out[k], p)
	}
	return out, nil
}

// cells are the book's supplier cells for a treatment of medicine m from batch on day: the
// latest purchase of that batch dated on or before day, or the batch's first purchase when
// all came later (a purchase recorded late); empty when the batch has none.
func (sp supplies) cells(m uuid.UUID, batch, day string) []string {
	ps := sp[newStockKey(m, batch, "")]
	if batch == "" || len(ps) == 0 {
		return []string{"", "", "", ""}
	}
	p := ps[0]
	for _, q := range ps {
		if q.PurchasedOn <= day {
			p = q
		}
	}
	proof := ""
	switch {
	case p.DocumentReference != nil:
		proof = *p.DocumentReference
	case p.FileID != nil:
		proof = "file " + p.FileID.String()
	}
	return []string{p.SupplierName, p.SupplierAddress, proof, p.ID.String()}
}

// farmToday is the farm's local date when it has set its time zone, today in UTC otherwise,
// and whether the zone was set. For defaults and plausibility bounds only (the book's
// window, the stock's day, a purchase date's latest day), never to read a bare date.
func (s *Service) farmToday(ctx context.Context, farmID uuid.UUID) (string, bool, error) {
	fs, err := s.settings(ctx, farmID)
	if err != nil {
		return "", false, err
	}
	day, zoned := fs.DefaultDay(s.nowUTC())
	return day, zoned, nil
}
