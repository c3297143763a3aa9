package graph

import (
	"context"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/graph/model"
)

// outsideAnimalConnection is Farm.outsideAnimals: the farm's outside animals by name, paged
// by first and after as Farm.medicines.
func (r *Resolver) outsideAnimalConnection(ctx context.Context, farmID uuid.UUID, after *string, first *int) (*model.OutsideAnimalConnection, error) {
	p, err := medicinePage(after, first)
	if err != nil {
		return nil, err
	}
	as, total, err := r.svc.OutsideAnimals(ctx, farmID, p)
	if err != nil {
		return nil, err
	}
	cursors, info := offsetPage(p.Skip, as, total)
	out := &model.OutsideAnimalConnection{TotalCount: total, PageInfo: info, Edges: make([]*model.OutsideAnimalEdge, len(as))}
	for i, a := range as {
		out.Edges[i] = &model.OutsideAnimalEdge{Node: model.Outside(a), Cursor: cursors[i]}
	}
	return out, nil
}

// dueConnection is Farm.due: the due list paged by first and after.
func (r *Resolver) dueConnection(ctx context.Context, farmID uuid.UUID, asOf *string, after *string, first *int) (*model.DueEntryConnection, error) {
	p, err := medicinePage(after, first)
	if err != nil {
		return nil, err
	}
	day := ""
	if asOf != nil {
		day = *asOf
	}
	es, total, err := r.svc.Due(ctx, farmID, day, p)
	if err != nil {
		return nil, err
	}
	cursors, info := offsetPage(p.Skip, es, total)
	out := &model.DueEntryConnection{TotalCount: total, PageInfo: info, Edges: make([]*model.DueEntryEdge, len(es))}
	for i := range es {
		out.Edges[i] = &model.DueEntryEdge{Node: dueEntry(es[i]), Cursor: cursors[i]}
	}
	return out, nil
}

// dueEntry writes a due entry for the graph: empty strings are nulls.
func dueEntry(e evidence.DueEntry) *model.DueEntry {
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	id := func(s string) *uuid.UUID {
		u, err := uuid.Parse(s)
		if err != nil {
			return nil
		}
		return &u
	}
	out := &model.DueEntry{AnimalID: uuid.MustParse(e.AnimalID), CheckRecordID: uuid.MustParse(e.CheckRecordID), CheckDate: e.CheckDate,
		Method: e.Method, Basis: e.Basis, ServiceKind: str(string(e.ServiceKind)), ServiceDate: str(e.ServiceDate),
		ServiceRecordID: id(e.ServiceRecordID), SireID: id(e.SireID), ExpectedDate: str(e.ExpectedDate),
		ExpectedFrom: str(e.ExpectedFrom), ExpectedTo: str(e.ExpectedTo), GestationBreed: str(e.GestationBreed),
		ServiceFrom: str(e.ServiceFrom), ServiceTo: str(e.ServiceTo), SireIDs: make([]uuid.UUID, 0, len(e.SireIDs)),
		ServiceRecordIDs: make([]uuid.UUID, 0, len(e.ServiceRecordIDs))}
	for _, s := range e.SireIDs {
		if u := id(s); u != nil {
			out.SireIDs = append(out.SireIDs, *u)
		}
	}
	for _, s := range e.ServiceRecordIDs {
		if u := id(s); u != nil {
			out.ServiceRecordIDs = append(out.ServiceRecordIDs, *u)
		}
	}
	if e.GestationDays != nil {
		out.GestationDays = &model.GestationDays{Min: e.GestationDays.Min, Max: e.GestationDays.Max}
	}
	return out
}

func outsideCreateIn(in model.OutsideAnimalCreateInput) herdbook.OutsideAnimalInput {
	return herdbook.OutsideAnimalInput{Name: &in.Name, Sex: &in.Sex, Breed: in.Breed, Registry: in.Registry,
		RegistrationNumber: in.RegistrationNumber, Batch: in.Batch, BirthDate: in.BirthDate}
}

func outsideUpdateIn(in model.OutsideAnimalUpdateInput) herdbook.OutsideAnimalInput {
	return herdbook.OutsideAnimalInput{Name: &in.Name, Sex: &in.Sex, Breed: in.Breed, Registry: in.Registry,
		RegistrationNumber: in.RegistrationNumber, Batch: in.Batch, BirthDate: in.BirthDate}
}

// outsideNode is node(id:) for outside animals, tried after the medicines; notFound is the
// error to answer when no outside animal has the id either.
func (r *Resolver) outsideNode(ctx context.Context, id uuid.UUID, notFound error) (ent.Noder, error) {
	a, err := r.svc.OutsideAnimalNode(ctx, id)
	if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
		return r.webhookNode(ctx, id, notFound)
	}
	if err != nil {
		return nil, err
	}
	return model.Outside(a), nil
}
