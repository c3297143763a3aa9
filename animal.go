package herdbook

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/evidence"
)

// AnimalInput creates or changes an animal. Biological facts (sex, birth date, breed, dam,
// sire, EID) are not columns: they are written as dated birth_history facts so that they keep
// their dates and the history stays evidence. Nil means "not given".
type AnimalInput struct {
	Tag  string
	Name *string
	// Sex (male or female), BirthDate (YYYY-MM-DD) and Breed become a profile fact dated
	// the birth date when one is given (the stored one on update), else today.
	Sex       *string
	BirthDate *string
	Breed     *string
	// DamID and SireID become a birth fact on the birth date naming the animal as offspring
	// when the dam is an animal of the farm (she then needs the birth date). Otherwise (a
	// bought-in animal whose dam is an outside animal or not known) they become a pedigree
	// fact, its papers' parents, dated the birth date, else today: either parent may then be
	// an outside animal, and either may be given alone.
	DamID  *uuid.UUID
	SireID *uuid.UUID
	// damOnFarm says DamID names an animal of the farm (checkParents finds out).
	damOnFarm bool
	// geneticDamID is the birth fact's genetic dam (an embryo-transfer calf's donor): the
	// animals import sets it from its genetic_dam column.
	geneticDamID *uuid.UUID
	// EID (any reader form) becomes an identifier fact from the birth date, else today.
	EID *string
}

// Validate checks an AnimalInput.
func (in AnimalInput) Validate() error {
	var fe fieldErrors
	validateName(&fe, "tag", in.Tag, 1, 100)
	if _, err := normalizeTag(in.Tag); err != nil {
		fe.add("tag", "%s", err.Error())
	}
	if in.Name != nil {
		validateName(&fe, "name", *in.Name, 1, 200)
	}
	in.validateRegister(&fe)
	return fe.err()
}

// CreateAnimal adds an animal to a farm and records its biological fields as dated facts,
// in one transaction; the viewer must be at least an EDITOR.
func (s *Service) CreateAnimal(ctx context.Context, farmID uuid.UUID, in AnimalInput) (*ent.Animal, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var a *ent.Animal
	err := s.inTx(ctx, func(ctx context.Context) (err error) {
		id := uuid.New()
		if err := s.checkParents(ctx, farmID, id, &in); err != nil {
			return err
		}
		a, err = s.Client(ctx).Animal.Create().SetID(id).SetFarmID(farmID).SetTag(tagValue(in.Tag)).
			SetNillableName(in.Name).Save(ctx)
		if err != nil {
			return err
		}
		facts := s.registerFacts(id, in)
		return registerField(eidField(s.writeFacts(ctx, farmID, facts, false)), facts)
	})
	return a, err
}

// UpdateAnimal changes an animal's tag and name; biological fields that are given are
// recorded as new dated facts (the earlier facts stay as history).
func (s *Service) UpdateAnimal(ctx context.Context, id uuid.UUID, in AnimalInput) (*ent.Animal, error) {
	a, err := s.animalFor(ctx, id, RoleEditor, ScopeWriteAnimals)
	if err != nil {
		return nil, err
	}
	return s.updateAnimal(ctx, a, in)
}

// UpdateFarmAnimal is UpdateAnimal for a path that names the animal's farm: every statement
// names the farm too (on a cluster, its shard).
func (s *Service) UpdateFarmAnimal(ctx context.Context, farmID, id uuid.UUID, in AnimalInput) (*ent.Animal, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	a, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.ID(id)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "animal", id)
	}
	return s.updateAnimal(ctx, a, in)
}

func (s *Service) updateAnimal(ctx context.Context, a *ent.Animal, in AnimalInput) (*ent.Animal, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	err := s.inTx(ctx, func(ctx context.Context) (err error) {
		if err := s.checkParents(ctx, a.FarmID, a.ID, &in); err != nil {
			return err
		}
		facts, err := s.changingFacts(ctx, a.FarmID, a.ID, s.registerFacts(a.ID, in))
		if err != nil {
			return err
		}
		if len(facts) == 0 && tagValue(in.Tag) == a.Tag && equalPtr(in.Name, a.Name) {
			// A write that changes nothing changes nothing (issue 22.8): no fact, no
			// updated_at, no place in the change feed, no animal.updated webhook.
			return nil
		}
		a, err = updateAnimalOf(ctx, s.Client(ctx), a.FarmID, a.ID, func(u *ent.AnimalMutation) {
			u.SetTag(tagValue(in.Tag))
			if in.Name != nil {
				u.SetName(*in.Name)
			} else {
				u.ClearName()
			}
		})
		if err != nil {
			return err
		}
		return registerField(eidField(s.writeFacts(ctx, a.FarmID, facts, false)), facts)
	})
	return a, err
}

// changingFacts keeps the register facts of an animal update that would change something
// (issue 22.8): a profile fact whose sex, breed and birth date the animal's profile on the
// fact's date already has changes no profile on that date or after, so it is left out; so
// is a birth fact the animal's facts already hold (same dam, sire and date), and an EID the
// animal already carries on the fact's start date and today. One statement.
func (s *Service) changingFacts(ctx context.Context, farmID, animalID uuid.UUID, facts []evidence.Fact) ([]evidence.Fact, error) {
	if len(facts) == 0 {
		return nil, nil
	}
	have, err := s.animalFacts(ctx, farmID, []uuid.UUID{animalID})
	if err != nil {
		return nil, err
	}
	id := animalID.String()
	today := s.nowUTC().Format(time.DateOnly)
	same := func(field *string, v string) bool { return v == "" || (field != nil && *field == v) }
	carries := func(day string, v evidence.Identifier) bool {
		return slices.Contains(evidence.ProfileOf(id, day, have).Identifiers, v)
	}
	var out []evidence.Fact
	for _, f := range facts {
		switch f.Kind {
		case evidence.KindProfile:
			p := evidence.ProfileOf(id, f.Date, have)
			if same(p.Sex, f.Sex) && same(p.Breed, f.Breed) && same(p.BirthDate, f.BirthDate) {
				continue
			}
		case evidence.KindBirth:
			if slices.ContainsFunc(have, func(h evidence.Fact) bool {
				return h.Kind == evidence.KindBirth && strings.EqualFold(h.DamID, f.DamID) &&
					strings.EqualFold(h.SireID, f.SireID) && h.Date == f.Date &&
					slices.ContainsFunc(h.OffspringIDs, func(o string) bool { return strings.EqualFold(o, id) })
			}) {
				continue
			}
		case evidence.KindPedigree:
			if slices.ContainsFunc(have, func(h evidence.Fact) bool {
				return h.Kind == evidence.KindPedigree && strings.EqualFold(h.AnimalID, id) &&
					strings.EqualFold(h.DamID, f.DamID) && strings.EqualFold(h.SireID, f.SireID)
			}) {
				continue
			}
		case evidence.KindIdentifier:
			v := evidence.Identifier{Scheme: f.Scheme, Value: f.Value}
			if carries(f.StartDate, v) && carries(today, v) {
				continue
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// DeleteAnimal soft-deletes an animal; records that name it keep their history.
func (s *Service) DeleteAnimal(ctx context.Context, id uuid.UUID) error {
	a, err := s.animalFor(ctx, id, RoleOwner, ScopeWriteAnimals)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		_, err := updateAnimalOf(ctx, s.Client(ctx), a.FarmID, a.ID, func(u *ent.AnimalMutation) { u.SetIsActive(false) })
		return err
	})
}

func (s *Service) animalFor(ctx context.Context, id uuid.UUID, min Role, scope string) (*ent.Animal, error) {
	if _, err := authenticate(ctx, scope); err != nil {
		return nil, err
	}
	// By id alone, but on the request's hinted farm first (nodeOnHintedFarm).
	a, err := nodeOnHintedFarm(ctx, func(ctx context.Context) (*ent.Animal, error) {
		a, err := s.Client(ctx).Animal.Get(ctx, id)
		return a, notFound(err, "animal", id)
	})
	if err != nil {
		return nil, err
	}
	if _, _, err := s.authorizeFarm(ctx, a.FarmID, min, scope); err != nil {
		return nil, err
	}
	return a, nil
}

// AnimalQuery returns a query over a farm's active animals, for GraphQL connections.
func (s *Service) AnimalQuery(ctx context.Context, farmID uuid.UUID) (*ent.AnimalQuery, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	return s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID)), nil
}

// GroupInput creates or changes a group.
type GroupInput struct {
	Name string
	// AnimalIDs, when given, become the group's first members: a membership fact each, from
	// StartDate (YYYY-MM-DD; the farm's today when empty).
	AnimalIDs []uuid.UUID
	StartDate string
}

// CreateGroup adds a group to a farm, with its first members recorded as dated membership
// facts; the viewer must be at least an EDITOR.
func (s *Service) CreateGroup(ctx context.Context, farmID uuid.UUID, in GroupInput) (*ent.Group, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	var fe fieldErrors
	validateName(&fe, "name", in.Name, 1, 200)
	day := s.membershipDay(ctx, &fe, farmID, "start_date", in.StartDate)
	if err := fe.err(); err != nil {
		return nil, err
	}
	var g *ent.Group
	err := s.inTx(ctx, func(ctx context.Context) (err error) {
		if g, err = s.Client(ctx).Group.Create().SetFarmID(farmID).SetName(strings.TrimSpace(in.Name)).Save(ctx); err != nil {
			return err
		}
		if len(in.AnimalIDs) == 0 {
			return nil
		}
		ids, err := s.groupAnimalIDs(ctx, farmID, in.AnimalIDs)
		if err != nil {
			return err
		}
		return s.setMembers(ctx, g, ids, day)
	})
	return g, err
}

// groupAnimalIDs checks that every id names an active animal of the farm.
func (s *Service) groupAnimalIDs(ctx context.Context, farmID uuid.UUID, animalIDs []uuid.UUID) ([]uuid.UUID, error) {
	ids, _, err := s.farmEntities(ctx, farmID, animalIDs, nil)
	if err != nil {
		return nil, err
	}
	if len(ids) != len(dedupe(animalIDs)) {
		return nil, Invalid(FieldError{Field: "animal_ids", Message: "every id must name an active animal of the group's farm"})
	}
	return ids, nil
}

// SetGroupAnimals makes the given animals of the same farm the group's members from today
// (SetGroupAnimalsOn).
func (s *Service) SetGroupAnimals(ctx context.Context, groupID uuid.UUID, animalIDs []uuid.UUID) (*ent.Group, error) {
	return s.SetGroupAnimalsOn(ctx, groupID, animalIDs, "")
}

// SetGroupAnimalsOn makes the given animals of the same farm the group's members from
// startDate on (the farm's today when empty), by recording dated facts: a membership for each
// animal not yet in the group that day and a membership_end for each member left out. The
// earlier facts stay as history; membership is never kept any other way.
func (s *Service) SetGroupAnimalsOn(ctx context.Context, groupID uuid.UUID, animalIDs []uuid.UUID, startDate string) (*ent.Group, error) {
	if _, err := authenticate(ctx, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	g, err := s.Client(ctx).Group.Get(ctx, groupID)
	if err != nil {
		return nil, notFound(err, "group", groupID)
	}
	return g, s.setGroupAnimals(ctx, g, animalIDs, startDate)
}

// setGroupAnimals is SetGroupAnimalsOn for the group g, once loaded.
func (s *Service) setGroupAnimals(ctx context.Context, g *ent.Group, animalIDs []uuid.UUID, startDate string) error {
	if _, _, err := s.authorizeFarm(ctx, g.FarmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return err
	}
	var fe fieldErrors
	day := s.membershipDay(ctx, &fe, g.FarmID, "start_date", startDate)
	if err := fe.err(); err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		ids, err := s.groupAnimalIDs(ctx, g.FarmID, animalIDs)
		if err != nil {
			return err
		}
		return s.setMembers(ctx, g, ids, day)
	})
}

// SetFarmGroupAnimals is SetGroupAnimalsOn for a group named under its farm (REST): a group
// of another farm is not found. It answers the group with its members on the day the change
// took effect. The group is read by its id and farm, once (a read by id alone is a statement
// on every shard of a Citus cluster: docs/scaling.md).
func (s *Service) SetFarmGroupAnimals(ctx context.Context, farmID, groupID uuid.UUID, animalIDs []uuid.UUID, startDate string) (GroupView, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return GroupView{}, err
	}
	g, err := s.Client(ctx).Group.Query().Where(group.FarmID(farmID), group.ID(groupID)).Only(ctx)
	if err != nil {
		return GroupView{}, notFound(err, "group", groupID)
	}
	if err := s.setGroupAnimals(ctx, g, animalIDs, startDate); err != nil {
		return GroupView{}, err
	}
	if startDate == "" {
		startDate = s.todayOnFarm(ctx, farmID)
	}
	return s.GroupMembers(ctx, farmID, groupID, startDate)
}

// DeleteGroup soft-deletes a group.
func (s *Service) DeleteGroup(ctx context.Context, groupID uuid.UUID) error {
	if _, err := authenticate(ctx, ScopeWriteAnimals); err != nil {
		return err
	}
	g, err := s.Client(ctx).Group.Get(ctx, groupID)
	if err != nil {
		return notFound(err, "group", groupID)
	}
	if _, _, err := s.authorizeFarm(ctx, g.FarmID, RoleOwner, ScopeWriteAnimals); err != nil {
		return err
	}
	return g.Update().SetIsActive(false).Exec(ctx)
}

// GroupQuery returns a query over a farm's active groups, for GraphQL connections.
func (s *Service) GroupQuery(ctx context.Context, farmID uuid.UUID) (*ent.GroupQuery, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	return s.Client(ctx).Group.Query().Where(group.FarmID(farmID)), nil
}

// farmEntities keeps the ids that name active animals and groups of farmID, in two queries.
func (s *Service) farmEntities(ctx context.Context, farmID uuid.UUID, animalIDs, groupIDs []uuid.UUID) (animals, groups []uuid.UUID, err error) {
	c := s.Client(ctx)
	if len(animalIDs) > 0 {
		animals, err = c.Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(dedupe(animalIDs)...)).
			Order(ent.Asc(animal.FieldID)).IDs(ctx)
		if err != nil {
			return nil, nil, err
		}
	}
	if len(groupIDs) > 0 {
		groups, err = c.Group.Query().Where(group.FarmID(farmID), group.IDIn(dedupe(groupIDs)...)).
			Order(ent.Asc(group.FieldID)).IDs(ctx)
		if err != nil {
			return nil, nil, err
		}
	}
	return animals, groups, nil
}

func dedupe(ids []uuid.UUID) []uuid.UUID {
	seen := make(map[uuid.UUID]bool, len(ids))
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
