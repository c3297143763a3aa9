package herdbook

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/group"
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
	// DamID and SireID become a birth fact on the birth date naming the animal as
	// offspring; both need a birth date, and a sire needs a dam.
	DamID  *uuid.UUID
	SireID *uuid.UUID
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
		if err := s.checkParents(ctx, farmID, id, in); err != nil {
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
	if err := in.Validate(); err != nil {
		return nil, err
	}
	err = s.inTx(ctx, func(ctx context.Context) (err error) {
		if err := s.checkParents(ctx, a.FarmID, a.ID, in); err != nil {
			return err
		}
		u := s.Client(ctx).Animal.UpdateOne(a).SetTag(tagValue(in.Tag))
		if in.Name != nil {
			u.SetName(*in.Name)
		} else {
			u.ClearName()
		}
		if a, err = u.Save(ctx); err != nil {
			return err
		}
		facts := s.registerFacts(a.ID, in)
		return registerField(eidField(s.writeFacts(ctx, a.FarmID, facts, false)), facts)
	})
	return a, err
}

// DeleteAnimal soft-deletes an animal; records that name it keep their history.
func (s *Service) DeleteAnimal(ctx context.Context, id uuid.UUID) error {
	a, err := s.animalFor(ctx, id, RoleOwner, ScopeWriteAnimals)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		return s.Client(ctx).Animal.UpdateOne(a).SetIsActive(false).Exec(ctx)
	})
}

func (s *Service) animalFor(ctx context.Context, id uuid.UUID, min Role, scope string) (*ent.Animal, error) {
	if _, err := authenticate(ctx, scope); err != nil {
		return nil, err
	}
	a, err := s.Client(ctx).Animal.Get(ctx, id)
	if err != nil {
		return nil, notFound(err, "animal", id)
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
}

// CreateGroup adds a group to a farm; the viewer must be at least an EDITOR.
func (s *Service) CreateGroup(ctx context.Context, farmID uuid.UUID, in GroupInput) (*ent.Group, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	var fe fieldErrors
	validateName(&fe, "name", in.Name, 1, 200)
	if err := fe.err(); err != nil {
		return nil, err
	}
	return s.Client(ctx).Group.Create().SetFarmID(farmID).SetName(strings.TrimSpace(in.Name)).Save(ctx)
}

// SetGroupAnimals replaces a group's current members with the given animals of the same
// farm. Current membership is a convenience for people; the evidence review never reads it.
func (s *Service) SetGroupAnimals(ctx context.Context, groupID uuid.UUID, animalIDs []uuid.UUID) (*ent.Group, error) {
	if _, err := authenticate(ctx, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	g, err := s.Client(ctx).Group.Get(ctx, groupID)
	if err != nil {
		return nil, notFound(err, "group", groupID)
	}
	if _, _, err := s.authorizeFarm(ctx, g.FarmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	ids, _, err := s.farmEntities(ctx, g.FarmID, animalIDs, nil)
	if err != nil {
		return nil, err
	}
	if len(ids) != len(dedupe(animalIDs)) {
		return nil, Invalid(FieldError{Field: "animal_ids", Message: "every id must name an active animal of the group's farm"})
	}
	return g.Update().ClearAnimals().AddAnimalIDs(ids...).Save(ctx)
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
