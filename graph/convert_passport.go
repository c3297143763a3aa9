package graph

import (
	"context"

	"github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/graph/model"
)

// passport answers Animal.passport from the service's passport.
func (r *Resolver) passport(ctx context.Context, a *ent.Animal, asOf *string) (*model.Passport, error) {
	day := ""
	if asOf != nil {
		day = *asOf
	}
	p, err := r.svc.AnimalPassport(ctx, a.FarmID, a.ID, day)
	if err != nil {
		return nil, err
	}
	holding := func(h *herdbook.PassportHolding) *model.PassportHolding {
		if h == nil {
			return nil
		}
		return &model.PassportHolding{Scheme: h.Scheme, Number: h.Number}
	}
	parent := func(pp *herdbook.PassportParent) *model.PassportParent {
		if pp == nil {
			return nil
		}
		return &model.PassportParent{AnimalID: pp.AnimalID, Outside: pp.Outside, Tag: pp.Tag, Name: pp.Name, Registry: pp.Registry,
			RegistrationNumber: pp.RegistrationNumber}
	}
	out := &model.Passport{AsOf: p.AsOf, OfficialTag: p.OfficialTag, Tag: p.Tag, BirthDate: p.BirthDate, Sex: p.Sex, Breed: p.Breed,
		BreedCode: p.BreedCode, BreedScheme: p.BreedScheme, GeneticDam: parent(p.GeneticDam), SurrogateDam: parent(p.SurrogateDam),
		Sire: parent(p.Sire), Holding: holding(p.Holding), Movements: make([]*model.PassportMovement, len(p.Movements))}
	for i, m := range p.Movements {
		out.Movements[i] = &model.PassportMovement{Event: m.Event, Kind: m.Kind, Date: m.Date, From: holding(m.From), To: holding(m.To),
			Disposal: m.Disposal}
	}
	return out, nil
}
