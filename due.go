package herdbook

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/outsideanimal"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
)

// dueKinds are the facts the due list reads: pregnancy checks, services and births; arrivals
// and departures (who is still on the farm); memberships, their ends, exposures, castrations
// and profiles (the males that ran with a female, and the sires' breeds).
var dueKinds = []string{string(evidence.KindPregnancyCheck), string(evidence.KindInsemination),
	string(evidence.KindHandMating), string(evidence.KindEmbryoTransfer), string(evidence.KindBirth),
	string(evidence.KindPurchase), string(evidence.KindMovementIn), string(evidence.KindMovementOut),
	string(evidence.KindSale), string(evidence.KindDeath), string(evidence.KindMembership),
	string(evidence.KindMembershipEnd), string(evidence.KindExposure), string(evidence.KindCastration),
	string(evidence.KindProfile)}

// Due lists the farm's females whose newest pregnancy check (as of asOf, "" for the farm's
// today) is positive, who have not given birth since and are still on the farm, ordered by
// expected calving date (evidence.DueAsOf): from the service that fits the check (its date +
// the gestation of the sire's breed, else the farm's), else from the days a male shared her
// group or an exposure put one with her, else from the foetal age. It costs a constant
// number of statements whatever the number of rows: the settings, the facts and (only when
// a sire has no profile) the outside animals among the sires.
func (s *Service) Due(ctx context.Context, farmID uuid.UUID, asOf string, p Page) ([]evidence.DueEntry, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords, ScopeReadAnimals); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	all, err := s.dueList(ctx, farmID, asOf)
	if err != nil {
		return nil, 0, err
	}
	total := len(all)
	return all[min(offset, total):min(offset+limit, total)], total, nil
}

// DueCSV is the due list as due.csv, every row.
func (s *Service) DueCSV(ctx context.Context, farmID uuid.UUID, asOf string) (*Table, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords, ScopeReadAnimals); err != nil {
		return nil, err
	}
	all, err := s.dueList(ctx, farmID, asOf)
	if err != nil {
		return nil, err
	}
	header := []string{"animal_id", "expected_date", "expected_from", "expected_to", "basis", "check_date", "method",
		"check_record_id", "service_kind", "service_date", "sire_id", "service_record_id", "gestation_min_days", "gestation_max_days", "gestation_breed",
		"service_from", "service_to", "sire_ids"}
	return &Table{Header: header, Rows: func(fn func([]string) error) error {
		for _, e := range all {
			gmin, gmax := "", ""
			if e.GestationDays != nil {
				gmin, gmax = strconv.Itoa(e.GestationDays.Min), strconv.Itoa(e.GestationDays.Max)
			}
			if err := fn([]string{e.AnimalID, e.ExpectedDate, e.ExpectedFrom, e.ExpectedTo, e.Basis, e.CheckDate, e.Method,
				e.CheckRecordID, string(e.ServiceKind), e.ServiceDate, e.SireID, e.ServiceRecordID, gmin, gmax, e.GestationBreed,
				e.ServiceFrom, e.ServiceTo, strings.Join(e.SireIDs, " ")}); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}

func (s *Service) dueList(ctx context.Context, farmID uuid.UUID, asOf string) ([]evidence.DueEntry, error) {
	var fe fieldErrors
	if asOf != "" {
		asOf = s.asOf(&fe, asOf)
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	st, err := s.birthSettings(ctx, farmID)
	if err != nil {
		return nil, err
	}
	if asOf == "" {
		asOf = s.todayOnFarm(ctx, farmID)
	}
	// The list is kept by the farm's change counter (derived.go): the breeding screen, the
	// crush card and the calving form ask for it at every visit, and deriving it reads and
	// parses every profile, membership and service of the farm (a quarter of a second on
	// 10,000 animals). The list is kept, not the facts: it is small, they are the farm's
	// history. What the counter does not cover goes into the list's name: the day, the
	// species, the version of the birth settings (a settings change writes a new version),
	// and, when a breed has a gestation of its own, the outside animals' sexes, breeds and
	// birth dates (a breed's gestation reads the outside sires' profiles; one statement).
	name := fmt.Sprintf("due %s %s v%d", asOf, st.Species, st.Version)
	byBreed := st.Settings != nil && len(st.Settings.GestationDaysByBreed) > 0
	if byBreed {
		outside, err := s.Client(ctx).OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID)).
			Order(ent.Asc(outsideanimal.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		profiles := make([]evidence.Fact, len(outside))
		for i, a := range outside {
			profiles[i] = outsideProfile(a)
		}
		name += profilesKey(profiles)
	}
	due, _, err := keptUnless(ctx, s, farmID, name, dueKinds, func() ([]evidence.DueEntry, error) {
		items, err := s.factItems(ctx, farmID, recorditem.FactKindIn(dueKinds...))
		if err != nil {
			return nil, err
		}
		facts := factsOf(items)
		if byBreed {
			// Only a breed's own gestation needs the breeds of the sires the farm has no
			// profile of: its outside sires.
			if facts, err = s.withOutsideProfiles(ctx, farmID, facts, func(f evidence.Fact) bool { return evidence.IsService(f.Kind) }); err != nil {
				return nil, err
			}
		}
		return evidence.DueAsOf(st.Settings, facts, asOf), nil
	})
	return due, err
}
