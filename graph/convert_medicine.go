package graph

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/graph/model"
)

// The medicine list pages by offset: its cursor is the position of an element, opaque to
// clients ("offset:N", base64).
func medicineCursor(n int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(n)))
}

// medicinePage turns first/after into the service's skip/take; a cursor that is not one of
// ours is an input error naming after.
func medicinePage(after *string, first *int) (herdbook.Page, error) {
	p := herdbook.Page{Take: first}
	if after != nil {
		b, err := base64.RawURLEncoding.DecodeString(*after)
		n, err2 := strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
		if err != nil || err2 != nil || !strings.HasPrefix(string(b), "offset:") || n < 0 {
			return p, herdbook.Invalid(herdbook.FieldError{Field: "after", Message: "must be a cursor of this list"})
		}
		p.Skip = n + 1
	}
	return p, nil
}

func medicineConnection(skip int, ms []*ent.Medicine, total int, err error) (*model.MedicineConnection, error) {
	if err != nil {
		return nil, err
	}
	cursors, info := offsetPage(skip, ms, total)
	conn := &model.MedicineConnection{TotalCount: total, Edges: make([]*model.MedicineEdge, len(ms)), PageInfo: info}
	for i, m := range ms {
		conn.Edges[i] = &model.MedicineEdge{Node: &model.Medicine{Medicine: m}, Cursor: cursors[i]}
	}
	return conn, nil
}

func (r *Resolver) medicines(ctx context.Context, farmID uuid.UUID, after *string, first *int) (*model.MedicineConnection, error) {
	p, err := medicinePage(after, first)
	if err != nil {
		return nil, err
	}
	ms, total, err := r.svc.Medicines(ctx, farmID, p)
	return medicineConnection(p.Skip, ms, total, err)
}

func withdrawalList(ws []herdbook.AnimalWithdrawal, total int, err error) (*model.WithdrawalList, error) {
	if err != nil {
		return nil, err
	}
	out := &model.WithdrawalList{TotalCount: total, Nodes: make([]*herdbook.AnimalWithdrawal, len(ws))}
	for i := range ws {
		out.Nodes[i] = &ws[i]
	}
	return out, nil
}

func treatmentConflictList(cs []herdbook.ReachConflict, total int, err error) (*model.TreatmentConflictList, error) {
	if err != nil {
		return nil, err
	}
	out := &model.TreatmentConflictList{TotalCount: total, Nodes: make([]*herdbook.ReachConflict, len(cs))}
	for i := range cs {
		out.Nodes[i] = &cs[i]
	}
	return out, nil
}

func orZero[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func speciesWithdrawalsIn(in []*model.SpeciesWithdrawalInput) []herdbook.SpeciesWithdrawal {
	if in == nil {
		return nil
	}
	out := make([]herdbook.SpeciesWithdrawal, len(in))
	for i, sw := range in {
		out[i] = herdbook.SpeciesWithdrawal{Species: string(sw.Species), Route: orZero(sw.Route),
			WithdrawalMeatDays: sw.WithdrawalMeatDays, WithdrawalMilkHours: sw.WithdrawalMilkHours}
		if d := sw.Dose; d != nil {
			out[i].Dose = &herdbook.DoseBand{Unit: d.Unit, Min: d.Min, Max: d.Max}
		}
	}
	return out
}

// optionalOf tells a left-out input field from a null one.
func optionalOf[T any](o graphql.Omittable[*T]) herdbook.Optional[T] {
	v, ok := o.ValueOK()
	if !ok {
		return herdbook.Optional[T]{}
	}
	return herdbook.Optional[T]{Set: true, Value: v}
}

func medicineCreateIn(in model.MedicineCreateInput) herdbook.MedicineInput {
	return herdbook.MedicineInput{Name: in.Name, ActiveSubstance: in.ActiveSubstance,
		WithdrawalMeatDays: optionalOf(in.WithdrawalMeatDays), WithdrawalMilkHours: optionalOf(in.WithdrawalMilkHours),
		SpeciesWithdrawals: speciesWithdrawalsIn(in.SpeciesWithdrawals), DryCow: orZero(in.DryCow)}
}

func medicineUpdateIn(in model.MedicineUpdateInput) herdbook.MedicinePatch {
	p := herdbook.MedicinePatch{Name: in.Name, WithdrawalMeatDays: optionalOf(in.WithdrawalMeatDays),
		WithdrawalMilkHours: optionalOf(in.WithdrawalMilkHours), DryCow: in.DryCow}
	if v, ok := in.ActiveSubstance.ValueOK(); ok {
		p.ActiveSubstance = herdbook.Optional[string]{Set: true, Value: v}
	}
	if in.SpeciesWithdrawals != nil {
		sw := speciesWithdrawalsIn(in.SpeciesWithdrawals)
		p.SpeciesWithdrawals = &sw
	}
	return p
}

func medicineOut(m *ent.Medicine, err error) (*model.Medicine, error) {
	if err != nil {
		return nil, err
	}
	return &model.Medicine{Medicine: m}, nil
}

// treatmentFact is the engine's fact of a TreatmentFact input.
// Its day is given once: day (a Date), at (a Time) or the deprecated date (a String).
func treatmentFact(t *model.TreatmentFact) (evidence.Fact, error) {
	var date string
	given := 0
	if t.Date != nil {
		date, given = *t.Date, given+1
	}
	if t.Day != nil {
		date, given = *t.Day, given+1
	}
	if t.At != nil {
		date, given = t.At.UTC().Format(time.RFC3339Nano), given+1
	}
	switch given {
	case 0:
		return evidence.Fact{}, herdbook.Invalid(herdbook.FieldError{Field: "treatment.day", Message: "is required: give day (a Date) or at (a Time)"})
	case 1:
	default:
		return evidence.Fact{}, herdbook.Invalid(herdbook.FieldError{Field: "treatment.day", Message: "give only one of day, at and the deprecated date"})
	}
	f := evidence.Fact{Kind: evidence.KindTreatment, MedicineID: t.MedicineID.String(), MedicineVersion: orZero(t.MedicineVersion),
		Date: date, Dose: t.Dose, Unit: orZero(t.Unit), Route: orZero(t.Route), Batch: orZero(t.Batch),
		AdministeredBy: orZero(t.AdministeredBy), WithdrawalMeatDays: t.WithdrawalMeatDays, WithdrawalMilkHours: t.WithdrawalMilkHours,
		QuantityPerAnimal: t.QuantityPerAnimal, QuantityTotal: t.QuantityTotal, QuantityUnit: orZero(t.QuantityUnit),
		PrescribingVet: orZero(t.PrescribingVet), PrescribingPractice: orZero(t.PrescribingPractice),
		LastAdministration: orZero(t.LastAdministration), Reason: orZero(t.Reason), OffLabel: orZero(t.OffLabel)}
	if t.AnimalID != nil {
		f.AnimalID = t.AnimalID.String()
	}
	if t.GroupID != nil {
		f.GroupID = t.GroupID.String()
	}
	return f, nil
}

// routeOf reads a label line's route, null for every route.
func routeOf(sw *schematype.SpeciesWithdrawal) *string {
	if sw.Route == "" {
		return nil
	}
	return &sw.Route
}

// speciesOf reads a label entry's species as the enum (entries are validated on write).
func speciesOf(sw *schematype.SpeciesWithdrawal) farm.Species { return farm.Species(sw.Species) }

// node is Service.Node, with the medicines that entgql does not know of: an id no ent node
// has is tried as a medicine.
func (r *Resolver) node(ctx context.Context, id uuid.UUID) (ent.Noder, error) {
	n, err := r.svc.Node(ctx, id)
	if herdbook.ErrorCode(err) != herdbook.ENOTFOUND {
		return n, err
	}
	m, merr := r.svc.MedicineNode(ctx, id)
	if herdbook.ErrorCode(merr) == herdbook.ENOTFOUND {
		return r.outsideNode(ctx, id, err)
	}
	if merr != nil {
		return nil, merr
	}
	return &model.Medicine{Medicine: m}, nil
}

// nodes is Service.Nodes with medicines (see node).
func (r *Resolver) nodes(ctx context.Context, ids []uuid.UUID) ([]ent.Noder, error) {
	if len(ids) > herdbook.MaxConnectionPage {
		return r.svc.Nodes(ctx, ids)
	}
	out := make([]ent.Noder, len(ids))
	for i, id := range ids {
		n, err := r.node(ctx, id)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}
