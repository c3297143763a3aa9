package herdbook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
)

// FactKey is the metadata key under which a record item carries a birth_history fact.
const FactKey = "birth_history"

// storedFact returns the birth_history fact in a stored item's metadata, as parseFact does,
// from the metadata's text: only the fact's own member is decoded.
func storedFact(md schematype.Metadata) (evidence.Fact, bool, []evidence.FieldError) {
	raw := md.Field(FactKey)
	if raw == nil {
		return evidence.Fact{}, false, nil
	}
	f, errs := evidence.ParseFact(raw)
	return f, true, errs
}

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
		index int
	}
	var animals, groups []ref
	for i, f := range facts {
		if f == nil {
			continue
		}
		p := fmt.Sprintf("record_items[%d].metadata.%s", i, FactKey)
		for _, id := range f.ReferencedAnimals() {
			animals = append(animals, ref{p, uuid.MustParse(id), i})
		}
		for _, id := range f.ReferencedGroups() {
			groups = append(groups, ref{p, uuid.MustParse(id), i})
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
	// Ids that are no animal of the farm may be its outside animals where a fact takes a
	// sire or a donor (one more statement, only then).
	outside := map[string]bool{}
	var unknown []uuid.UUID
	for i, f := range facts {
		if f == nil {
			continue
		}
		for _, id := range outsideRoles(f) {
			if u := uuid.MustParse(id); !known[u] {
				unknown = append(unknown, u)
				outside[fmt.Sprintf("%d/%s", i, u)] = true
			}
		}
	}
	if len(unknown) > 0 {
		found, err := s.outsideAnimals(ctx, farmID, unknown)
		if err != nil {
			return err
		}
		for key := range outside {
			u := uuid.MustParse(key[strings.IndexByte(key, '/')+1:])
			outside[key] = found[u] != nil
		}
		// An outside animal has no facts of its own: its recorded sex is what the history
		// check would read from a profile (a sire is male, a donor female).
		for i, f := range facts {
			if f == nil {
				continue
			}
			p := fmt.Sprintf("record_items[%d].metadata.%s", i, FactKey)
			want := func(field, id, sex, role string) {
				if u, err := uuid.Parse(id); err == nil && found[u] != nil && found[u].Sex != sex {
					fe.add(p+"."+field, "outside animal %s (%s) is recorded as %s and cannot be the %s", u, found[u].Name, found[u].Sex, role)
				}
			}
			want("sire_id", f.SireID, evidence.SexMale, "sire")
			if f.Kind == evidence.KindEmbryoTransfer {
				want("dam_id", f.DamID, evidence.SexFemale, "donor")
			}
			want("genetic_dam_id", f.GeneticDamID, evidence.SexFemale, "genetic dam")
			if f.Kind == evidence.KindPedigree {
				want("dam_id", f.DamID, evidence.SexFemale, "dam")
			}
			if f.Kind == evidence.KindDNAParentage && f.Result == evidence.ResultQualified {
				sex := evidence.SexMale
				if f.Relation == evidence.RelationDam {
					sex = evidence.SexFemale
				}
				want("parent_id", f.ParentID, sex, f.Relation)
			}
		}
	}
	for _, r := range animals {
		if !known[r.id] && !outside[fmt.Sprintf("%d/%s", r.index, r.id)] {
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

// factLinkBatch keeps each bulk insert of fact links far below the statement parameter
// limits of both databases (four parameters a row).
const factLinkBatch = 1000

// createFactLinks writes one fact_animals row for every animal each item's fact names, so
// that an animal's facts load by an indexed lookup whatever its role in them; the items are
// farmID's.
func createFactLinks(ctx context.Context, c *ent.Client, farmID uuid.UUID, itemIDs []uuid.UUID, facts []*evidence.Fact) error {
	var links []*ent.FactAnimalCreate
	for i, f := range facts {
		if f == nil {
			continue
		}
		for _, a := range f.ReferencedAnimals() {
			links = append(links, c.FactAnimal.Create().SetRecordItemID(itemIDs[i]).SetFarmID(farmID).SetAnimalID(uuid.MustParse(a)))
		}
	}
	for len(links) > 0 {
		n := min(len(links), factLinkBatch)
		if err := c.FactAnimal.CreateBulk(links[:n]...).Exec(ctx); err != nil {
			return err
		}
		links = links[n:]
	}
	return nil
}

// FactLinks returns the fact_animals rows for an item of farmID being created with metadata;
// the seed data uses it to write what the API's write path writes.
func FactLinks(c *ent.Client, farmID, itemID uuid.UUID, metadata map[string]any) []*ent.FactAnimalCreate {
	f, ok, errs := parseFact(metadata)
	if !ok || len(errs) > 0 {
		return nil
	}
	var links []*ent.FactAnimalCreate
	for _, a := range f.ReferencedAnimals() {
		links = append(links, c.FactAnimal.Create().SetRecordItemID(itemID).SetFarmID(farmID).SetAnimalID(uuid.MustParse(a)))
	}
	return links
}

// identifierSpan is one identifier fact: which animal a value named, and when.
type identifierSpan struct {
	field, scheme, value, animal, start, end string // end "" is open
}

func (a identifierSpan) overlaps(b identifierSpan) bool {
	aEnd, bEnd := a.end, b.end
	if aEnd == "" {
		aEnd = "9999-12-31"
	}
	if bEnd == "" {
		bEnd = "9999-12-31"
	}
	return a.start <= bEnd && b.start <= aEnd
}

// checkIdentifiers enforces that one identifier value (per scheme) names at most one animal
// of a farm over any interval: each identifier fact being written is compared with the
// farm's stored identifier facts of the same value and with the others of the write. One
// query. The error names the value field of the offending item.
func (s *Service) checkIdentifiers(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact) error {
	return s.checkIdentifiersAt(ctx, farmID, facts, func(i int) string {
		return fmt.Sprintf("record_items[%d].metadata.%s.value", i, FactKey)
	})
}

// checkIdentifiersAt is checkIdentifiers with the field name of fact i given by field.
func (s *Service) checkIdentifiersAt(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact, field func(i int) string) error {
	if err := s.checkIdentifierValues(ctx, farmID, facts, field); err != nil {
		return err
	}
	var news []identifierSpan
	var values []string
	for i, f := range facts {
		if f == nil || f.Kind != evidence.KindIdentifier {
			continue
		}
		news = append(news, identifierSpan{
			field:  field(i),
			scheme: f.Scheme, value: f.Value, animal: f.AnimalID, start: f.StartDate, end: f.EndDate,
		})
		values = append(values, f.Value)
	}
	if len(news) == 0 {
		return nil
	}
	stored, err := s.identifierFacts(ctx, farmID, values)
	if err != nil {
		return err
	}
	type clash struct{ n, o identifierSpan }
	var clashes []clash
	for i, n := range news {
		others := append(append([]identifierSpan{}, stored...), news[:i]...)
		for _, o := range others {
			if o.scheme == n.scheme && o.value == n.value && o.animal != n.animal && o.overlaps(n) {
				clashes = append(clashes, clash{n, o})
				break
			}
		}
	}
	if len(clashes) == 0 {
		return nil
	}
	// Refused: name the other animal by its tag, as the farmer knows it (one more statement).
	var ids []uuid.UUID
	for _, c := range clashes {
		if u, err := uuid.Parse(c.o.animal); err == nil {
			ids = append(ids, u)
		}
	}
	tags := map[string]string{}
	found, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(dedupe(ids)...)).
		Select(animal.FieldID, animal.FieldTag).All(IncludeInactive(ctx))
	if err != nil {
		return err
	}
	for _, a := range found {
		tags[a.ID.String()] = a.Tag
	}
	var fe fieldErrors
	for _, c := range clashes {
		other := "animal " + c.o.animal
		if tag := tags[strings.ToLower(c.o.animal)]; tag != "" {
			other = fmt.Sprintf("animal %s (%s)", tag, c.o.animal)
		}
		fe.add(c.n.field, "%s %s already names %s from %s%s; an identifier names at most one animal at a time",
			c.n.scheme, c.n.value, other, c.o.start, untilText(c.o.end))
	}
	return fe.err()
}

func untilText(end string) string {
	if end == "" {
		return ""
	}
	return " to " + end
}

// identifierFacts loads the farm's active identifier facts with one of values, in one query.
func (s *Service) identifierFacts(ctx context.Context, farmID uuid.UUID, values []string) ([]identifierSpan, error) {
	items, err := s.Client(ctx).RecordItem.Query().
		Where(recorditem.FactKind(string(evidence.KindIdentifier)), recorditem.FactValueIn(values...),
			itemsOfFarm(farmID, record.IsActive(true))).
		Select(recorditem.FieldID, recorditem.FieldMetadata).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]identifierSpan, 0, len(items))
	for _, it := range items {
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 {
			continue
		}
		out = append(out, identifierSpan{scheme: f.Scheme, value: f.Value, animal: f.AnimalID, start: f.StartDate, end: f.EndDate})
	}
	return out, nil
}
