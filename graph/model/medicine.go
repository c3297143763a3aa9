package model

import "github.com/herdbook/herdbook/ent"

// Medicine is a medicine of a farm's list in the graph. entgql skips the ent type, so this
// wrapper makes it a Node.
type Medicine struct{ *ent.Medicine }

// IsNode marks Medicine as a Node.
func (Medicine) IsNode() {}
