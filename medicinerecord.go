package herdbook

import (
	"context"
	"strconv"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
)

// identifiersByAnimal holds the identifier facts of some animals, for the book's official
// identity columns.
type identifiersByAnimal map[uuid.UUID][]evidence.Fact

// on returns the animal's EID and official visual tag valid on day ("" for each it had
// none): of several, the one that started latest.
func (ids identifiersByAnimal) on(animal uuid.UUID, day string) (eid, visual string) {
	var eidFrom, visualFrom string
	for _, f := range ids[animal] {
		if f.StartDate > day || (f.EndDate != "" && f.EndDate < day) {
			continue
		}
		switch f.Scheme {
		case evidence.SchemeEID:
			if eid == "" || f.StartDate >= eidFrom {
				eid, eidFrom = f.Value, f.StartDate
			}
		case evidence.SchemeVisual:
			if visual == "" || f.StartDate >= visualFrom {
				visual, visualFrom = f.Value, f.StartDate
			}
		}
	}
	return eid, visual
}

// officialIdentifiers loads the identifier facts of animals in one statement (none without
// animals), so that the book names each treated animal by its official identity (EU 2019/6
// Art. 108(2): the identification of the animals treated).
func (s *Service) officialIdentifiers(ctx context.Context, farmID uuid.UUID, animals []uuid.UUID) (identifiersByAnimal, error) {
	out := identifiersByAnimal{}
	if len(animals) == 0 {
		return out, nil
	}
	items, err := s.factItems(ctx, farmID, recorditem.FactKind(string(evidence.KindIdentifier)), recorditem.FactSubjectIn(dedupe(animals)...))
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 || it.FactSubject == nil {
			continue
		}
		out[*it.FactSubject] = append(out[*it.FactSubject], f)
	}
	return out, nil
}

// treatmentRecordCells are the book's cells for the rest of a treatment's record: the
// animal's official identity, the course, the quantities, the prescribing vet and the reason.
func treatmentRecordCells(f evidence.Fact, eid, visual string) []string {
	days := ""
	if f.Date != "" {
		days = strconv.Itoa(evidence.CourseDays(f.Date, f.LastAdministration) + 1)
	}
	return []string{eid, visual, f.LastAdministration, days, number(f.QuantityPerAnimal), number(f.QuantityTotal),
		f.QuantityUnit, f.PrescribingVet, f.PrescribingPractice, f.Reason}
}
