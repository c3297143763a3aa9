package herdbook

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/file"
	"github.com/herdbook/herdbook/ent/medicine"
	"github.com/herdbook/herdbook/ent/medicinepurchase"
	"github.com/herdbook/herdbook/evidence"
)

// MedicinePurchaseInput is a new acquisition record (GB VMR 2013 reg. 17; EU 2019/6
// Art. 108(2)). Pointers are required fields a transport may leave out; the service names
// them when they are.
type MedicinePurchaseInput struct {
	MedicineID        *uuid.UUID
	Batch             *string
	ExpiryDate        *string // YYYY-MM-DD, optional
	Quantity          *float64
	QuantityUnit      *string
	SupplierName      *string
	SupplierAddress   *string
	PurchasedOn       *string // YYYY-MM-DD
	DocumentReference *string
	FileID            *uuid.UUID
}

// MedicinePurchase is an acquisition record with the name of its medicine.
type MedicinePurchase struct {
	*ent.MedicinePurchase
	MedicineName string
}

// Validate checks the shape of a purchase: what needs the farm's rows (the medicine, the
// file) is checked by CreateMedicinePurchase.
func (in MedicinePurchaseInput) Validate() error {
	var fe fieldErrors
	if in.MedicineID == nil {
		fe.add("medicine_id", "is required")
	}
	required := func(field string, v *string, max int) {
		if v == nil {
			fe.add(field, "is required")
			return
		}
		validateName(&fe, field, *v, 1, max)
	}
	required("batch", in.Batch, 200)
	required("quantity_unit", in.QuantityUnit, 200)
	required("supplier_name", in.SupplierName, 200)
	if in.SupplierAddress == nil {
		fe.add("supplier_address", "is required")
	} else if fe.prose("supplier_address", *in.SupplierAddress) {
		if n := len([]rune(strings.TrimSpace(*in.SupplierAddress))); n < 1 || len([]rune(*in.SupplierAddress)) > 1000 {
			fe.add("supplier_address", "must be 1 to 1000 characters")
		}
	}
	switch {
	case in.Quantity == nil:
		fe.add("quantity", "is required")
	case !(*in.Quantity > 0 && *in.Quantity <= evidence.MaxQuantity):
		fe.add("quantity", "must be more than 0 and at most %g", float64(evidence.MaxQuantity))
	}
	date := func(field string, v *string) {
		if v != nil {
			if t, err := time.Parse(time.DateOnly, *v); err != nil || t.Format(time.DateOnly) != *v {
				fe.add(field, "must be a calendar date in the form YYYY-MM-DD")
			}
		}
	}
	if in.PurchasedOn == nil {
		fe.add("purchased_on", "is required")
	}
	date("purchased_on", in.PurchasedOn)
	date("expiry_date", in.ExpiryDate)
	if in.DocumentReference != nil {
		validateName(&fe, "document_reference", *in.DocumentReference, 1, 200)
	}
	if in.DocumentReference == nil && in.FileID == nil {
		fe.add("document_reference", "is required unless file_id is given: a purchase needs its proof of acquisition (EU 2019/6 Art. 108(2)), a document reference or an uploaded file")
	}
	return fe.err()
}

func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}

// CreateMedicinePurchase records a purchase of a medicine on the farm's list. The medicine
// must be on the list (not deleted), the file one of the farm's, and the date no later than
// the farm's today (tomorrow in UTC until the farm sets its time zone: a farm ahead of UTC
// may already live in it).
func (s *Service) CreateMedicinePurchase(ctx context.Context, farmID uuid.UUID, in MedicinePurchaseInput) (*MedicinePurchase, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords)
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var fe fieldErrors
	latest, zoned, err := s.farmToday(ctx, farmID)
	if err != nil {
		return nil, err
	}
	if !zoned { // a farm ahead of UTC may already live in tomorrow
		latest = s.nowUTC().AddDate(0, 0, 1).Format(time.DateOnly)
	}
	if *in.PurchasedOn > latest {
		fe.add("purchased_on", "must not be after %s (the farm's today): a purchase cannot be recorded before it happens", latest)
	}
	c := s.Client(ctx)
	m, err := c.Medicine.Query().Where(medicine.FarmID(farmID), medicine.ID(*in.MedicineID)).
		Select(medicine.FieldID, medicine.FieldName).Only(ctx)
	if ent.IsNotFound(err) {
		fe.add("medicine_id", "medicine %s is not on this farm's medicine list", *in.MedicineID)
	} else if err != nil {
		return nil, err
	}
	if in.FileID != nil {
		ok, err := c.File.Query().Where(file.FarmID(farmID), file.ID(*in.FileID)).Exist(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			fe.add("file_id", "file %s is not one of this farm's files", *in.FileID)
		}
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	var p *ent.MedicinePurchase
	err = s.inTx(ctx, func(ctx context.Context) error {
		p, err = s.Client(ctx).MedicinePurchase.Create().SetFarmID(farmID).SetMedicineID(m.ID).
			SetBatch(*trimmed(in.Batch)).SetNillableExpiryDate(in.ExpiryDate).SetQuantity(*in.Quantity).
			SetQuantityUnit(*trimmed(in.QuantityUnit)).SetSupplierName(*trimmed(in.SupplierName)).
			SetSupplierAddress(*trimmed(in.SupplierAddress)).SetPurchasedOn(*in.PurchasedOn).
			SetNillableDocumentReference(trimmed(in.DocumentReference)).SetNillableFileID(in.FileID).
			SetCreatedBy(v.UserID).Save(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &MedicinePurchase{MedicinePurchase: p, MedicineName: m.Name}, nil
}

// MedicinePurchases lists a farm's purchases, oldest purchase first (then by when they were
// recorded), with their medicines' names: three statements whatever the page size.
func (s *Service) MedicinePurchases(ctx context.Context, farmID uuid.UUID, p Page) ([]*MedicinePurchase, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	q := s.Client(ctx).MedicinePurchase.Query().Where(medicinepurchase.FarmID(farmID))
	total, err := q.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []*MedicinePurchase{}, total, err
	}
	ps, err := q.Order(ent.Asc(medicinepurchase.FieldPurchasedOn), ent.Asc(medicinepurchase.FieldCreatedAt), ent.Asc(medicinepurchase.FieldID)).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := s.withMedicineNames(ctx, farmID, ps)
	return out, total, err
}

// MedicinePurchaseByID returns one purchase of a farm.
func (s *Service) MedicinePurchaseByID(ctx context.Context, farmID, id uuid.UUID) (*MedicinePurchase, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	p, err := s.Client(ctx).MedicinePurchase.Query().Where(medicinepurchase.FarmID(farmID), medicinepurchase.ID(id)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "medicine purchase", id)
	}
	out, err := s.withMedicineNames(ctx, farmID, []*ent.MedicinePurchase{p})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// withMedicineNames pairs purchases with their medicines' names (deleted medicines too), in
// one statement.
func (s *Service) withMedicineNames(ctx context.Context, farmID uuid.UUID, ps []*ent.MedicinePurchase) ([]*MedicinePurchase, error) {
	names, err := s.medicineNames(ctx, farmID, func(yield func(uuid.UUID) bool) {
		for _, p := range ps {
			if !yield(p.MedicineID) {
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]*MedicinePurchase, len(ps))
	for i, p := range ps {
		out[i] = &MedicinePurchase{MedicinePurchase: p, MedicineName: names[p.MedicineID]}
	}
	return out, nil
}

// medicineNames returns the names of a farm's medicines, deleted ones included, in one
// statement (none without ids).
func (s *Service) medicineNames(ctx context.Context, farmID uuid.UUID, ids func(func(uuid.UUID) bool)) (map[uuid.UUID]string, error) {
	var list []uuid.UUID
	for id := range ids {
		list = append(list, id)
	}
	out := map[uuid.UUID]string{}
	if len(list) == 0 {
		return out, nil
	}
	ms, err := s.Client(ctx).Medicine.Query().Where(medicine.FarmID(farmID), medicine.IDIn(dedupe(list)...)).
		Select(medicine.FieldID, medicine.FieldName).All(IncludeInactive(ctx))
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		out[m.ID] = m.Name
	}
	return out, nil
}
