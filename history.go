package herdbook

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/birthevent"
	"github.com/herdbook/herdbook/evidence"
)

// historyIDBatch bounds the animal ids of one statement that loads the histories a write is
// checked against, far below the parameter limits of both databases.
const historyIDBatch = 5000

// checkHistory holds the facts of a write to the dated histories of the animals they name
// (evidence.CheckHistory; docs/history-rules.md): nothing before an animal's birth or after
// its death or final departure, parents of the right sex, old enough, a dam alive and on the
// farm, births of one dam far enough apart. Every write of facts calls it, whatever the
// transport, before the facts are stored. A violation is EINVALID naming field(i) + the
// fact's field, and the conflicting record.
//
// It costs one statement for the stored facts of the animals named (per 5,000 animals), one
// for the farm's limits when the write holds a birth or a profile, and one for the animals'
// tags only when something is refused.
func (s *Service) checkHistory(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact, field factField) error {
	vs, err := s.historyViolations(ctx, farmID, facts, nil)
	if err != nil {
		return err
	}
	var fe fieldErrors
	for _, v := range vs {
		fe.add(strings.TrimPrefix(field(v.Index)+"."+v.Field, "."), "%s", v.Message)
	}
	return fe.err()
}

// historyViolations is checkHistory's work: the violations, each with the index of its fact
// in facts. names gives the tags of animals the database does not hold yet (an import's).
func (s *Service) historyViolations(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact, names map[string]string) ([]evidence.Violation, error) {
	return s.historyViolationsOf(ctx, farmID, facts, names, nil)
}

// historyViolationsOf is historyViolations with the stored facts of the animals named when
// the caller has read them already (loaded non-nil: every stored fact of every animal the
// facts name, as animalFacts reads them), which spares the statement.
func (s *Service) historyViolationsOf(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact, names map[string]string, loaded []evidence.Fact) ([]evidence.Violation, error) {
	news := make([]evidence.Fact, 0, len(facts))
	index := make([]int, 0, len(facts)) // news[j] is facts[index[j]]
	var ids []uuid.UUID
	for i, f := range facts {
		if f == nil {
			continue
		}
		news, index = append(news, *f), append(index, i)
		for _, id := range f.ReferencedAnimals() {
			if u, err := uuid.Parse(id); err == nil {
				ids = append(ids, u)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	ids = dedupe(ids)
	stored := slices.Clip(loaded)
	for lo := 0; loaded == nil && lo < len(ids); lo += historyIDBatch {
		got, err := s.animalFacts(ctx, farmID, ids[lo:min(lo+historyIDBatch, len(ids))])
		if err != nil {
			return nil, err
		}
		stored = append(stored, got...)
	}
	if loaded == nil && len(ids) > historyIDBatch {
		stored = uniqueFacts(stored) // an item naming animals of two batches came twice
	}
	// The limits bear on births only: a birth's parents, or a profile that moves a parent's
	// birth date. Other writes spare the statement.
	var limits evidence.HistoryLimits
	for _, f := range news {
		if f.Kind == evidence.KindBirth || f.Kind == evidence.KindProfile || evidence.IsService(f.Kind) {
			var err error
			if limits, err = s.historyLimits(ctx, farmID); err != nil {
				return nil, err
			}
			break
		}
	}
	if limits.MinimumCalvingInterval != nil {
		events, err := s.approvedBirths(ctx, farmID, news)
		if err != nil {
			return nil, err
		}
		stored = append(stored, events...)
	}
	tags := map[string]string{}
	label := func(id string) string {
		if n, ok := tags[id]; ok {
			return n
		}
		if n, ok := names[id]; ok {
			return n
		}
		return "animal " + id
	}
	vs := evidence.CheckHistory(news, stored, limits, label)
	if len(vs) == 0 {
		return nil, nil
	}
	// Refused: name the animals by their tags, and word the violations again with them.
	animals, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(ids...)).
		Select(animal.FieldID, animal.FieldTag).All(IncludeInactive(ctx))
	if err != nil {
		return nil, err
	}
	for _, a := range animals {
		tags[a.ID.String()] = a.Tag
	}
	vs = evidence.CheckHistory(news, stored, limits, label)
	for k := range vs {
		vs[k].Index = index[vs[k].Index]
	}
	return vs, nil
}

// factPointers answers a pointer to each of facts, for the checks that take them so (and
// report by index), over the facts a bulk write is about to record.
func factPointers(facts []evidence.Fact) []*evidence.Fact {
	ptrs := make([]*evidence.Fact, len(facts))
	for i := range facts {
		ptrs[i] = &facts[i]
	}
	return ptrs
}

// uniqueFacts keeps the first of facts that share a record item.
func uniqueFacts(facts []evidence.Fact) []evidence.Fact {
	seen := make(map[string]bool, len(facts))
	out := facts[:0]
	for _, f := range facts {
		if !seen[f.RecordItemID] {
			seen[f.RecordItemID] = true
			out = append(out, f)
		}
	}
	return out
}

// historyLimits are the farm's limits for the history rules: its minimum breeding ages and
// calving interval, unset (not checked) until the farm sets them.
func (s *Service) historyLimits(ctx context.Context, farmID uuid.UUID) (evidence.HistoryLimits, error) {
	st, err := s.settings(ctx, farmID)
	return evidence.HistoryLimits{
		MinimumBreedingAgeFemale: st.MinimumBreedingAgeDays.Female,
		MinimumBreedingAgeMale:   st.MinimumBreedingAgeDays.Male,
		MinimumCalvingInterval:   st.MinimumCalvingIntervalDays,
	}, err
}

// registerField maps the error of a register write (an animal's create or update, whose
// facts registerFacts made) to the input's fields: the profile's sex and birth date, the
// birth's dam, sire and date, the EID.
func registerField(err error, facts []evidence.Fact) error {
	fields := ErrorFields(err)
	if fields == nil {
		return err
	}
	out := make([]FieldError, len(fields))
	for k, f := range fields {
		out[k] = f
		var i int
		if _, scan := fmt.Sscanf(f.Field, "facts[%d]", &i); scan != nil || i < 0 || i >= len(facts) {
			continue
		}
		name := f.Field[strings.LastIndex(f.Field, ".")+1:]
		switch facts[i].Kind {
		case evidence.KindProfile:
			if name == "sex" {
				out[k].Field = "sex"
			} else {
				out[k].Field = "birth_date"
			}
		case evidence.KindBirth, evidence.KindPedigree:
			switch name {
			case "dam_id", "sire_id":
				out[k].Field = name
			default:
				out[k].Field = "birth_date"
			}
		case evidence.KindIdentifier:
			out[k].Field = "eid"
		}
	}
	return Invalid(out...)
}

// checkImportHistory holds every fact an import would write to the history rules, with
// what the farm already records of the animals, in one check for the whole file; a breach
// is a problem of the row's column (birth_date, sex, dam, sire, eid, group).
func (s *Service) checkImportHistory(ctx context.Context, farmID uuid.UUID, plan *importPlan) error {
	var facts []*evidence.Fact
	var rows []*importRow
	names := map[string]string{}
	for _, r := range plan.rows {
		names[r.id.String()] = r.tag
		for i := range plan.changes[r].facts {
			facts, rows = append(facts, &plan.changes[r].facts[i]), append(rows, r)
		}
	}
	vs, err := s.historyViolations(ctx, farmID, facts, names)
	if err != nil || len(vs) == 0 {
		return err
	}
	var p importProblems
	for _, v := range vs {
		col := "birth_date"
		switch f := facts[v.Index]; f.Kind {
		case evidence.KindProfile:
			if v.Field == "sex" {
				col = "sex"
			}
		case evidence.KindBirth, evidence.KindPedigree:
			switch v.Field {
			case "dam_id":
				col = "dam"
			case "sire_id":
				col = "sire"
			case "genetic_dam_id":
				col = "genetic_dam"
			}
		case evidence.KindIdentifier:
			col = "eid"
		case evidence.KindMembership:
			col = "group"
		}
		p.add(rows[v.Index].row, col, "%s", v.Message)
	}
	return p.err()
}

// checkBirthHistory holds a birth about to be approved (a dam and a date) to the rules for
// a dam: female, old enough, alive and on the farm, far enough from her other births.
func (s *Service) checkBirthHistory(ctx context.Context, farmID, damID uuid.UUID, date string) error {
	birth := evidence.Fact{Kind: evidence.KindBirth, DamID: damID.String(), Date: date}
	return s.checkHistory(ctx, farmID, []*evidence.Fact{&birth}, func(int) string { return "" })
}

// approvedBirths returns the approved births (birth events) of the dams of the births in
// facts as birth facts, so that the calving interval also holds against births recorded by
// approving a preview, which writes no fact. Their RecordID names the event. One statement.
func (s *Service) approvedBirths(ctx context.Context, farmID uuid.UUID, facts []evidence.Fact) ([]evidence.Fact, error) {
	var dams []uuid.UUID
	for _, f := range facts {
		if f.Kind == evidence.KindBirth {
			if u, err := uuid.Parse(f.DamID); err == nil {
				dams = append(dams, u)
			}
		}
	}
	if len(dams) == 0 {
		return nil, nil
	}
	events, err := s.Client(ctx).BirthEvent.Query().Where(birthevent.FarmID(farmID), birthevent.DamIDIn(dedupe(dams)...)).
		Select(birthevent.FieldID, birthevent.FieldDamID, birthevent.FieldBirthDate).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]evidence.Fact, len(events))
	for i, e := range events {
		out[i] = evidence.Fact{Kind: evidence.KindBirth, DamID: e.DamID.String(), Date: e.BirthDate,
			RecordID: "approved birth " + e.ID.String(), RecordItemID: e.ID.String()}
	}
	return out, nil
}
