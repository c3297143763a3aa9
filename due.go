package herdbook

import (
	"context"
	"strconv"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
)

// dueKinds are the facts the due list reads: pregnancy checks, services and births.
var dueKinds = []string{string(evidence.KindPregnancyCheck), string(evidence.KindInsemination),
	string(evidence.KindHandMating), string(evidence.KindEmbryoTransfer), string(evidence.KindBirth)}

// Due lists the farm's females whose newest pregnancy check is positive and who have not
// given birth since, ordered by expected calving date (evidence.Due): from the service that
// fits the check (its date + the gestation of the sire's breed, else the farm's), else from
// the foetal age. It costs a constant number of statements whatever the number of rows: the
// settings, the facts, the sires' profiles and (only when a sire has none) the outside
// animals among them.
func (s *Service) Due(ctx context.Context, farmID uuid.UUID, p Page) ([]evidence.DueEntry, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords, ScopeReadAnimals); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	all, err := s.dueList(ctx, farmID)
	if err != nil {
		return nil, 0, err
	}
	total := len(all)
	return all[min(offset, total):min(offset+limit, total)], total, nil
}

// DueCSV is the due list as due.csv, every row.
func (s *Service) DueCSV(ctx context.Context, farmID uuid.UUID) (*Table, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords, ScopeReadAnimals); err != nil {
		return nil, err
	}
	all, err := s.dueList(ctx, farmID)
	if err != nil {
		return nil, err
	}
	header := []string{"animal_id", "expected_date", "expected_from", "expected_to", "basis", "check_date", "method",
		"check_record_id", "service_kind", "service_date", "sire_id", "service_record_id", "gestation_min_days", "gestation_max_days", "gestation_breed"}
	return &Table{Header: header, Rows: func(fn func([]string) error) error {
		for _, e := range all {
			gmin, gmax := "", ""
			if e.GestationDays != nil {
				gmin, gmax = strconv.Itoa(e.GestationDays.Min), strconv.Itoa(e.GestationDays.Max)
			}
			if err := fn([]string{e.AnimalID, e.ExpectedDate, e.ExpectedFrom, e.ExpectedTo, e.Basis, e.CheckDate, e.Method,
				e.CheckRecordID, string(e.ServiceKind), e.ServiceDate, e.SireID, e.ServiceRecordID, gmin, gmax, e.GestationBreed}); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}

func (s *Service) dueList(ctx context.Context, farmID uuid.UUID) ([]evidence.DueEntry, error) {
	st, err := s.birthSettings(ctx, farmID)
	if err != nil {
		return nil, err
	}
	items, err := s.factItems(ctx, farmID, recorditem.FactKindIn(dueKinds...))
	if err != nil {
		return nil, err
	}
	var facts []evidence.Fact
	var sires []uuid.UUID
	for _, it := range items {
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 {
			continue
		}
		f.RecordID, f.RecordItemID = it.RecordID.String(), it.ID.String()
		facts = append(facts, f)
		if evidence.IsService(f.Kind) {
			sires = append(sires, uuid.MustParse(f.SireID))
		}
	}
	if len(sires) > 0 && st.Settings != nil && len(st.Settings.GestationDaysByBreed) > 0 {
		// Only a breed's own gestation needs the sires' breeds.
		profiles, err := s.factItems(ctx, farmID, recorditem.FactKind(string(evidence.KindProfile)), recorditem.FactSubjectIn(dedupe(sires)...))
		if err != nil {
			return nil, err
		}
		profiled := map[string]bool{}
		for _, it := range profiles {
			if f, ok, errs := storedFact(it.Metadata); ok && len(errs) == 0 {
				f.RecordID, f.RecordItemID = it.RecordID.String(), it.ID.String()
				facts = append(facts, f)
				profiled[f.AnimalID] = true
			}
		}
		var bare []uuid.UUID
		for _, id := range sires {
			if !profiled[id.String()] {
				bare = append(bare, id)
			}
		}
		if len(bare) > 0 {
			outside, err := s.outsideAnimals(ctx, farmID, bare)
			if err != nil {
				return nil, err
			}
			for _, a := range outside {
				facts = append(facts, outsideProfile(a))
			}
		}
	}
	return evidence.Due(st.Settings, facts), nil
}
