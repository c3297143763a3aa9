package model

import "github.com/herdbook/herdbook/ent"

// OutsideAnimal is an outside sire or donor as a Node: entgql skips the ent type (its graph
// type is written by hand in graph/outside.graphqls), so the Node marker is added here, as
// for Medicine.
type OutsideAnimal struct{ *ent.OutsideAnimal }

// IsNode marks OutsideAnimal as a Node.
func (OutsideAnimal) IsNode() {}

// Outside wraps one outside animal; nil stays nil.
func Outside(a *ent.OutsideAnimal) *OutsideAnimal {
	if a == nil {
		return nil
	}
	return &OutsideAnimal{a}
}
