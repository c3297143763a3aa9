package graph

import (
	"context"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/graph/model"
)

// The functions below only translate between the service's pedigree values and the graph's
// models.

// pedigree answers Animal.pedigree; a depth of 0 is out of range, not the default.
func (r *Resolver) pedigree(ctx context.Context, a *ent.Animal, depth *int) (*model.AnimalPedigree, error) {
	d := 0
	if depth != nil {
		if d = *depth; d == 0 {
			d = -1
		}
	}
	p, err := r.svc.PedigreeOf(ctx, a, d)
	if err != nil {
		return nil, err
	}
	out := &model.AnimalPedigree{AnimalID: p.AnimalID, Inbreeding: p.Inbreeding, UncertainAncestors: ids(p.UncertainAncestors),
		Ancestors: make([]*model.PedigreeAncestor, 0, len(p.Ancestors))}
	for _, x := range p.Ancestors {
		id, err := uuid.Parse(x.ID)
		if err != nil {
			continue
		}
		out.Ancestors = append(out.Ancestors, &model.PedigreeAncestor{AnimalID: id, Generation: x.Generation, Relation: x.Relation, Probability: x.Probability})
	}
	return out, nil
}

// kinship answers Query.kinship.
func (r *Resolver) kinship(ctx context.Context, a, b uuid.UUID) (*model.Kinship, error) {
	x, y, k, err := r.svc.KinshipOf(ctx, a, b)
	if err != nil {
		return nil, err
	}
	return &model.Kinship{A: x, B: y, Coancestry: k}, nil
}
