package herdbook

import (
	"context"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farmmember"
)

func validateRole(fe *fieldErrors, r Role) {
	if farmmember.RoleValidator(r) != nil {
		fe.add("role", "must be one of OWNER, EDITOR, READER")
	}
}

// Members lists a farm's active members with their users.
func (s *Service) Members(ctx context.Context, farmID uuid.UUID) ([]*ent.FarmMember, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadFarms); err != nil {
		return nil, err
	}
	return s.Client(ctx).FarmMember.Query().Where(farmmember.FarmID(farmID)).
		WithUser().Order(ent.Asc(farmmember.FieldCreatedAt), ent.Asc(farmmember.FieldID)).All(ctx)
}

// AddMember makes the user with the given phone number a member of the farm, or reactivates
// and re-roles an earlier membership. Only an OWNER may do it.
func (s *Service) AddMember(ctx context.Context, farmID uuid.UUID, phone string, role Role) (*ent.FarmMember, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, ScopeWriteFarms); err != nil {
		return nil, err
	}
	var fe fieldErrors
	validateRole(&fe, role)
	if err := fe.err(); err != nil {
		return nil, err
	}
	u, err := s.UserByPhone(ctx, phone)
	if err != nil {
		return nil, err
	}
	return s.putMember(ctx, farmID, u.ID, role)
}

// AdminPutMember adds or re-roles a membership without a viewer; only the CLI calls it.
func (s *Service) AdminPutMember(ctx context.Context, farmID, userID uuid.UUID, role Role) (*ent.FarmMember, error) {
	var fe fieldErrors
	validateRole(&fe, role)
	if err := fe.err(); err != nil {
		return nil, err
	}
	if _, err := s.Client(ctx).Farm.Get(ctx, farmID); err != nil {
		return nil, notFound(err, "farm", farmID)
	}
	if _, err := s.UserByID(ctx, userID); err != nil {
		return nil, err
	}
	return s.putMember(ctx, farmID, userID, role)
}

func (s *Service) putMember(ctx context.Context, farmID, userID uuid.UUID, role Role) (*ent.FarmMember, error) {
	var m *ent.FarmMember
	err := s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		old, err := c.FarmMember.Query().Where(farmmember.FarmID(farmID), farmmember.UserID(userID)).
			Only(IncludeInactive(ctx))
		switch {
		case ent.IsNotFound(err):
			m, err = c.FarmMember.Create().SetFarmID(farmID).SetUserID(userID).SetRole(role).Save(ctx)
			return err
		case err != nil:
			return err
		}
		if err := s.keepAnOwner(ctx, old, role); err != nil {
			return err
		}
		m, err = old.Update().SetRole(role).SetIsActive(true).Save(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.Client(ctx).FarmMember.Query().Where(farmmember.ID(m.ID)).WithUser().Only(ctx)
}

// keepAnOwner refuses a change that would leave the farm without an active OWNER.
func (s *Service) keepAnOwner(ctx context.Context, m *ent.FarmMember, newRole Role) error {
	if !m.IsActive || m.Role != RoleOwner || newRole == RoleOwner {
		return nil
	}
	owners, err := s.Client(ctx).FarmMember.Query().
		Where(farmmember.FarmID(m.FarmID), farmmember.RoleEQ(RoleOwner)).Count(ctx)
	if err != nil {
		return err
	}
	if owners <= 1 {
		return Errorf(ECONFLICT, "a farm needs at least one OWNER; make another member OWNER first")
	}
	return nil
}

// SetMemberRole changes a member's role. Only an OWNER may do it.
func (s *Service) SetMemberRole(ctx context.Context, memberID uuid.UUID, role Role) (*ent.FarmMember, error) {
	m, err := s.memberForOwner(ctx, memberID)
	if err != nil {
		return nil, err
	}
	var fe fieldErrors
	validateRole(&fe, role)
	if err := fe.err(); err != nil {
		return nil, err
	}
	return s.putMember(ctx, m.FarmID, m.UserID, role)
}

// DeactivateMember ends a membership; the member loses access at once. Only an OWNER may do it.
func (s *Service) DeactivateMember(ctx context.Context, memberID uuid.UUID) error {
	m, err := s.memberForOwner(ctx, memberID)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		if err := s.keepAnOwner(ctx, m, ""); err != nil {
			return err
		}
		return s.Client(ctx).FarmMember.UpdateOne(m).SetIsActive(false).Exec(ctx)
	})
}

func (s *Service) memberForOwner(ctx context.Context, memberID uuid.UUID) (*ent.FarmMember, error) {
	if _, err := authenticate(ctx, ScopeWriteFarms); err != nil {
		return nil, err
	}
	m, err := s.Client(ctx).FarmMember.Get(ctx, memberID)
	if err != nil {
		return nil, notFound(err, "member", memberID)
	}
	if _, _, err := s.authorizeFarm(ctx, m.FarmID, RoleOwner, ScopeWriteFarms); err != nil {
		return nil, err
	}
	return m, nil
}
