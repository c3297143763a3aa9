package herdbook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/factanimal"
	"github.com/herdbook/herdbook/ent/outsideanimal"
	"github.com/herdbook/herdbook/evidence"
)

// OutsideAnimalInput is an outside animal as written: POST and PUT take it whole (a PUT
// replaces every field; a field left out is cleared). Name and sex are required.
type OutsideAnimalInput struct {
	Name               *string
	Sex                *string
	Breed              *string
	Registry           *string
	RegistrationNumber *string
	Batch              *string
	BirthDate          *string
}

// Validate checks an outside animal's fields.
func (in OutsideAnimalInput) Validate() error {
	var fe fieldErrors
	if in.Name == nil {
		fe.add("name", "is required")
	} else {
		validateName(&fe, "name", *in.Name, 1, 200)
	}
	switch {
	case in.Sex == nil:
		fe.add("sex", "is required")
	case *in.Sex != evidence.SexMale && *in.Sex != evidence.SexFemale:
		fe.add("sex", "must be male or female")
	}
	optional := func(field string, v *string, max int) {
		if v != nil {
			validateName(&fe, field, *v, 1, max)
		}
	}
	optional("breed", in.Breed, evidence.MaxBreed)
	optional("registry", in.Registry, 200)
	optional("registration_number", in.RegistrationNumber, 64)
	optional("batch", in.Batch, 200)
	if in.BirthDate != nil {
		if t, err := time.Parse(time.DateOnly, *in.BirthDate); err != nil || t.Format(time.DateOnly) != *in.BirthDate {
			fe.add("birth_date", "must be a calendar date in the form YYYY-MM-DD")
		}
	}
	return fe.err()
}

// OutsideAnimals lists the farm's outside animals by name.
func (s *Service) OutsideAnimals(ctx context.Context, farmID uuid.UUID, p Page) ([]*ent.OutsideAnimal, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	q := s.Client(ctx).OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID))
	total, err := q.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []*ent.OutsideAnimal{}, total, err
	}
	out, err := q.Order(ent.Asc(outsideanimal.FieldName), ent.Asc(outsideanimal.FieldID)).Offset(offset).Limit(limit).All(ctx)
	return out, total, err
}

// OutsideAnimalByID returns one outside animal of a farm.
func (s *Service) OutsideAnimalByID(ctx context.Context, farmID, id uuid.UUID) (*ent.OutsideAnimal, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	a, err := s.Client(ctx).OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID), outsideanimal.ID(id)).Only(ctx)
	return a, notFound(err, "outside animal", id)
}

// CreateOutsideAnimal records an outside animal (EDITOR, write:animals).
func (s *Service) CreateOutsideAnimal(ctx context.Context, farmID uuid.UUID, in OutsideAnimalInput) (*ent.OutsideAnimal, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals)
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := checkTextIn(in); err != nil {
		return nil, err
	}
	return s.Client(ctx).OutsideAnimal.Create().SetFarmID(farmID).SetName(*in.Name).SetSex(*in.Sex).
		SetNillableBreed(in.Breed).SetNillableRegistry(in.Registry).SetNillableRegistrationNumber(in.RegistrationNumber).
		SetNillableBatch(in.Batch).SetNillableBirthDate(in.BirthDate).SetCreatedBy(v.UserID).Save(ctx)
}

// UpdateOutsideAnimal replaces an outside animal's fields (EDITOR, write:animals). A change of
// sex is refused while facts name it (409): they were checked against the sex it had.
func (s *Service) UpdateOutsideAnimal(ctx context.Context, farmID, id uuid.UUID, in OutsideAnimalInput) (*ent.OutsideAnimal, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := checkTextIn(in); err != nil {
		return nil, err
	}
	var out *ent.OutsideAnimal
	err := s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		a, err := c.OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID), outsideanimal.ID(id)).Only(ctx)
		if err != nil {
			return notFound(err, "outside animal", id)
		}
		if a.Sex != *in.Sex {
			named, err := c.FactAnimal.Query().Where(factanimal.AnimalID(id), factanimal.FarmID(farmID)).Exist(ctx)
			if err != nil {
				return err
			}
			if named {
				return Errorf(ECONFLICT, "outside animal %s is named by recorded facts as a %s; its sex cannot change while they stand", id, a.Sex)
			}
		}
		// One update by id and farm, then a read by both: ent's UpdateOne(...).Save reads the
		// changed row back by its id alone, which a Citus cluster asks every shard for
		// (docs/scaling.md).
		up := c.OutsideAnimal.Update().Where(outsideanimal.ID(a.ID), outsideanimal.FarmID(farmID)).
			SetName(*in.Name).SetSex(*in.Sex).
			SetNillableBreed(in.Breed).SetNillableRegistry(in.Registry).SetNillableRegistrationNumber(in.RegistrationNumber).
			SetNillableBatch(in.Batch).SetNillableBirthDate(in.BirthDate)
		if in.Breed == nil {
			up.ClearBreed()
		}
		if in.Registry == nil {
			up.ClearRegistry()
		}
		if in.RegistrationNumber == nil {
			up.ClearRegistrationNumber()
		}
		if in.Batch == nil {
			up.ClearBatch()
		}
		if in.BirthDate == nil {
			up.ClearBirthDate()
		}
		if err := up.Exec(ctx); err != nil {
			return err
		}
		out, err = c.OutsideAnimal.Query().Where(outsideanimal.ID(a.ID), outsideanimal.FarmID(farmID)).Only(ctx)
		return err
	})
	return out, err
}

// DeleteOutsideAnimal deletes an outside animal that no fact names (EDITOR, write:animals).
// One that facts name is refused with a 409: the facts are legal records and would name
// nothing; void them first (docs/audit.md).
func (s *Service) DeleteOutsideAnimal(ctx context.Context, farmID, id uuid.UUID) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		a, err := c.OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID), outsideanimal.ID(id)).Only(ctx)
		if err != nil {
			return notFound(err, "outside animal", id)
		}
		named, err := c.FactAnimal.Query().Where(factanimal.AnimalID(id), factanimal.FarmID(farmID)).Exist(IncludeInactive(ctx))
		if err != nil {
			return err
		}
		if named {
			return Errorf(ECONFLICT, "outside animal %s is named by recorded facts; it cannot be deleted while they stand", id)
		}
		// By id and farm: ent's DeleteOne names the id alone (docs/scaling.md).
		n, err := c.OutsideAnimal.Delete().Where(outsideanimal.ID(a.ID), outsideanimal.FarmID(farmID)).Exec(ctx)
		if err == nil && n == 0 {
			return notFound(&ent.NotFoundError{}, "outside animal", id)
		}
		return err
	})
}

// outsideAnimals loads the farm's outside animals among ids, in one statement.
func (s *Service) outsideAnimals(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]*ent.OutsideAnimal, error) {
	out := map[uuid.UUID]*ent.OutsideAnimal{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.Client(ctx).OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID), outsideanimal.IDIn(dedupe(ids)...)).All(ctx)
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, err
}

// withOutsideProfiles appends to facts the profile (outsideProfile) of each outside animal
// among the sires of the facts sireOf keeps: a sire no profile fact records may be an outside
// animal (an AI sire, a donor's mate), whose recorded sex and breed stand in for a profile in
// a review. One statement, only when such a sire is named.
func (s *Service) withOutsideProfiles(ctx context.Context, farmID uuid.UUID, facts []evidence.Fact, sireOf func(evidence.Fact) bool) ([]evidence.Fact, error) {
	profiled := map[string]bool{}
	for _, f := range facts {
		if f.Kind == evidence.KindProfile {
			profiled[strings.ToLower(f.AnimalID)] = true
		}
	}
	var bare []uuid.UUID
	for _, f := range facts {
		if sireOf(f) && !profiled[strings.ToLower(f.SireID)] {
			if u, err := uuid.Parse(f.SireID); err == nil {
				bare = append(bare, u)
			}
		}
	}
	if len(bare) == 0 {
		return facts, nil
	}
	outside, err := s.outsideAnimals(ctx, farmID, bare)
	if err != nil {
		return nil, err
	}
	for _, a := range outside {
		facts = append(facts, outsideProfile(a))
	}
	return facts, nil
}

// profilesKey names profile facts by what a kept answer derived from them depends on (each
// animal's id, sex, breed and birth date), for the names of kept answers (derived.go) that read
// outside animals' profiles, which no change counter follows. The same profiles make the same
// name in any order (withOutsideProfiles adds them in a map's order).
func profilesKey(facts []evidence.Fact) string {
	sorted := slices.Clone(facts)
	slices.SortFunc(sorted, func(a, b evidence.Fact) int { return strings.Compare(a.AnimalID, b.AnimalID) })
	var b strings.Builder
	for _, f := range sorted {
		fmt.Fprintf(&b, " %s/%s/%s/%s", f.AnimalID, f.Sex, f.Breed, f.BirthDate)
	}
	return b.String()
}

// outsideProfile is the profile fact an outside animal stands for in a review or a history
// check: its sex, breed and birth date as the farm recorded them.
func outsideProfile(a *ent.OutsideAnimal) evidence.Fact {
	f := evidence.Fact{Kind: evidence.KindProfile, AnimalID: a.ID.String(), Sex: a.Sex,
		RecordID: a.ID.String(), RecordItemID: a.ID.String()}
	if a.Breed != nil {
		f.Breed = *a.Breed
	}
	if a.BirthDate != nil {
		f.BirthDate = *a.BirthDate
	}
	return f
}

// outsideRoles says which fields of a fact may name an outside animal: a sire anywhere, an
// embryo transfer's donor, a birth's genetic dam (that donor), a pedigree's dam and a DNA result's parent. The
// animal the fact is about, a birth's or a service's dam, a recipient and offspring stand on the farm.
func outsideRoles(f *evidence.Fact) []string {
	ids := []string{f.SireID, f.ParentID, f.GeneticDamID}
	if f.Kind == evidence.KindEmbryoTransfer || f.Kind == evidence.KindPedigree {
		ids = append(ids, f.DamID)
	}
	return sortedIDs(ids)
}

func sortedIDs(ids []string) []string {
	var out []string
	for _, id := range ids {
		if id != "" {
			out = append(out, id)
		}
	}
	return out
}

// OutsideAnimalNode returns an outside animal by id alone, for the graph's node(id:), when
// the viewer is a member of its farm with read:animals (as OutsideAnimalByID). An id the
// viewer may not read is not found, as for every node.
func (s *Service) OutsideAnimalNode(ctx context.Context, id uuid.UUID) (*ent.OutsideAnimal, error) {
	if _, err := authenticate(ctx); err != nil {
		return nil, err
	}
	a, err := s.Client(ctx).OutsideAnimal.Query().Where(outsideanimal.ID(id)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "node", id)
	}
	if _, _, err := s.authorizeFarm(ctx, a.FarmID, RoleReader, ScopeReadAnimals); err != nil {
		if code := ErrorCode(err); code == EUNAVAILABLE || code == EINTERNAL {
			return nil, err
		}
		return nil, Errorf(ENOTFOUND, "node %s not found", id)
	}
	return a, nil
}
