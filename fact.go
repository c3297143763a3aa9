package herdbook

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/evidence"
)

// FactKey is the metadata key under which a record item carries a birth_history fact.
const FactKey = "birth_history"

// parseFact returns the birth_history fact in an item's metadata, if there is one, checked
// against the fact vocabulary of the evidence engine.
func parseFact(metadata map[string]any) (evidence.Fact, bool, []evidence.FieldError) {
	raw, ok := metadata[FactKey]
	if !ok {
		return evidence.Fact{}, false, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return evidence.Fact{}, true, []evidence.FieldError{{Field: FactKey, Message: "must be a JSON object"}}
	}
	f, errs := evidence.ParseFact(b)
	return f, true, errs
}

// validateFact checks the birth_history fact a record item's metadata may carry; field names
// are prefixed with the item's path (record_items[2].metadata.birth_history.start_date).
func validateFact(fe *fieldErrors, field string, metadata map[string]any) {
	_, _, errs := parseFact(metadata)
	for _, e := range errs {
		fe.add(field+"."+e.Field, "%s", e.Message)
	}
}

// parseFacts returns each item's fact (nil for an item without one), once per write: the
// reference check, the canonical form and the index columns all work from it. Items were
// validated before, so a fact that does not parse is left out.
func parseFacts(items []RecordItemInput) []*evidence.Fact {
	facts := make([]*evidence.Fact, len(items))
	for i, it := range items {
		if f, ok, errs := parseFact(it.Metadata); ok && len(errs) == 0 {
			facts[i] = &f
		}
	}
	return facts
}

// normalizeFacts stores each fact in its canonical form (lower-cased ids, no empty fields), so
// that reads and queries see one spelling.
func normalizeFacts(items []RecordItemInput, facts []*evidence.Fact) {
	for i, f := range facts {
		if f == nil {
			continue
		}
		b, _ := json.Marshal(f)
		var canon map[string]any
		_ = json.Unmarshal(b, &canon)
		md := make(map[string]any, len(items[i].Metadata))
		for k, v := range items[i].Metadata {
			md[k] = v
		}
		md[FactKey] = canon
		items[i].Metadata = md
	}
}

// checkFactReferences makes sure every animal and group a fact names belongs to the farm
// (inactive ones too: history may speak of animals that have left). Two queries in all.
func (s *Service) checkFactReferences(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact) error {
	type ref struct {
		field string
		id    uuid.UUID
	}
	var animals, groups []ref
	for i, f := range facts {
		if f == nil {
			continue
		}
		p := fmt.Sprintf("record_items[%d].metadata.%s", i, FactKey)
		for _, id := range f.ReferencedAnimals() {
			animals = append(animals, ref{p, uuid.MustParse(id)})
		}
		for _, id := range f.ReferencedGroups() {
			groups = append(groups, ref{p, uuid.MustParse(id)})
		}
	}
	if len(animals)+len(groups) == 0 {
		return nil
	}
	c := s.Client(ctx)
	all := IncludeInactive(ctx)
	ids := func(rs []ref) []uuid.UUID {
		out := make([]uuid.UUID, len(rs))
		for i, r := range rs {
			out[i] = r.id
		}
		return dedupe(out)
	}
	known := map[uuid.UUID]bool{}
	if len(animals) > 0 {
		found, err := c.Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(ids(animals)...)).IDs(all)
		if err != nil {
			return err
		}
		for _, id := range found {
			known[id] = true
		}
	}
	if len(groups) > 0 {
		found, err := c.Group.Query().Where(group.FarmID(farmID), group.IDIn(ids(groups)...)).IDs(all)
		if err != nil {
			return err
		}
		for _, id := range found {
			known[id] = true
		}
	}
	var fe fieldErrors
	for _, r := range animals {
		if !known[r.id] {
			fe.add(r.field, "animal %s is not an animal of this farm", r.id)
		}
	}
	for _, r := range groups {
		if !known[r.id] {
			fe.add(r.field, "group %s is not a group of this farm", r.id)
		}
	}
	return fe.err()
}
