package herdbook

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
	"github.com/herdbook/herdbook/ent/schema"
	"github.com/herdbook/herdbook/evidence"
)

// Species lists the species a farm may keep.
var Species = schema.Species

// FarmInput creates a farm.
type FarmInput struct {
	Name         string
	Species      string
	SpeciesOther *string
}

// FarmPatch changes a farm; nil fields stay as they are.
type FarmPatch struct {
	Name                *string
	Species             *string
	SpeciesOther        Optional[string]
	AllowPrivateThreads *bool
}

// changes reports whether applying p to f would change anything.
func (p FarmPatch) changes(f *ent.Farm) bool {
	return (p.Name != nil && strings.TrimSpace(*p.Name) != f.Name) ||
		(p.Species != nil && *p.Species != string(f.Species)) ||
		(p.SpeciesOther.Set && !equalPtr(p.SpeciesOther.Value, f.SpeciesOther)) ||
		(p.AllowPrivateThreads != nil && *p.AllowPrivateThreads != f.AllowPrivateThreads)
}

// equalPtr tells whether two optional values are both absent or both the same.
func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func validateName(fe *fieldErrors, field, name string, min, max int) {
	if !fe.line(field, name) {
		return
	}
	n := utf8.RuneCountInString(strings.TrimSpace(name))
	switch {
	case n < min:
		fe.add(field, "must be at least %d characters", min)
	case utf8.RuneCountInString(name) > max:
		fe.add(field, "must be at most %d characters", max)
	}
}

func validateSpecies(fe *fieldErrors, s string) {
	if !slices.Contains(Species, s) {
		fe.add("species", "must be one of %s", strings.Join(Species, ", "))
	}
}

func validateSpeciesOther(fe *fieldErrors, s *string) {
	if s != nil && !fe.line("species_other", *s) {
		return
	}
	if s != nil && utf8.RuneCountInString(*s) > 100 {
		fe.add("species_other", "must be at most 100 characters")
	}
}

// Validate checks a FarmInput.
func (in FarmInput) Validate() error {
	var fe fieldErrors
	validateName(&fe, "name", in.Name, 2, 200)
	validateSpecies(&fe, in.Species)
	validateSpeciesOther(&fe, in.SpeciesOther)
	return fe.err()
}

// Validate checks a FarmPatch.
func (p FarmPatch) Validate() error {
	var fe fieldErrors
	if p.Name != nil {
		validateName(&fe, "name", *p.Name, 2, 200)
	}
	if p.Species != nil {
		validateSpecies(&fe, *p.Species)
	}
	validateSpeciesOther(&fe, p.SpeciesOther.Value)
	return fe.err()
}

// WelcomeThreadTitle is the title of the thread every new farm opens with.
const WelcomeThreadTitle = "Welcome"

// CreateFarm creates a farm owned by the viewer and opens its welcome thread. It returns the
// farm with its members and the thread's id.
func (s *Service) CreateFarm(ctx context.Context, in FarmInput) (*ent.Farm, uuid.UUID, error) {
	v, err := authenticate(ctx, ScopeWriteFarms)
	if err != nil {
		return nil, uuid.Nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, uuid.Nil, err
	}
	var (
		f  *ent.Farm
		th *ent.Thread
	)
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		var err error
		f, err = c.Farm.Create().
			SetName(strings.TrimSpace(in.Name)).
			SetSpecies(farm.Species(in.Species)).
			SetNillableSpeciesOther(in.SpeciesOther).
			Save(ctx)
		if err != nil {
			return err
		}
		if err := c.FarmMember.Create().SetFarmID(f.ID).SetUserID(v.UserID).SetRole(RoleOwner).Exec(ctx); err != nil {
			return err
		}
		th, err = c.Thread.Create().SetFarmID(f.ID).SetTitle(WelcomeThreadTitle).SetCreatedBy(v.UserID).Save(ctx)
		return err
	})
	if err != nil {
		return nil, uuid.Nil, err
	}
	f, err = s.farmWithMembers(ctx, f.ID)
	return f, th.ID, err
}

// farmQuery loads farms with their active members and the members' users.
func (s *Service) farmQuery(ctx context.Context) *ent.FarmQuery {
	return s.Client(ctx).Farm.Query().
		WithMembers(func(q *ent.FarmMemberQuery) {
			q.WithUser().Order(ent.Asc(farmmember.FieldCreatedAt), ent.Asc(farmmember.FieldID))
		})
}

func (s *Service) farmWithMembers(ctx context.Context, id uuid.UUID) (*ent.Farm, error) {
	f, err := s.farmQuery(ctx).Where(farm.ID(id)).Only(ctx)
	return f, notFound(err, "farm", id)
}

// visibleFarms restricts a farm query to active farms of which the viewer is an active member.
func visibleFarms(v *Viewer) func(*ent.FarmQuery) {
	return func(q *ent.FarmQuery) {
		q.Where(farm.HasMembersWith(farmmember.UserID(v.UserID), farmmember.IsActive(true)))
	}
}

// Farms lists the farms the viewer belongs to, oldest first, with their members. It costs
// four queries whatever the page size.
func (s *Service) Farms(ctx context.Context, p Page) ([]*ent.Farm, int, error) {
	v, err := authenticate(ctx, ScopeReadFarms)
	if err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	q := s.farmQuery(ctx)
	visibleFarms(v)(q)
	total, err := q.Clone().Count(ctx)
	// A page past the end is empty without asking: on a cluster the farm list is a statement
	// on every shard, each asked for offset+limit rows, which overflows for a huge skip.
	if err != nil || limit == 0 || offset >= total {
		return []*ent.Farm{}, total, err
	}
	farms, err := q.Order(ent.Asc(farm.FieldCreatedAt), ent.Asc(farm.FieldID)).Offset(offset).Limit(limit).All(ctx)
	return farms, total, err
}

// FarmQuery returns a query over the farms the viewer belongs to, for GraphQL connections.
func (s *Service) FarmQuery(ctx context.Context) (*ent.FarmQuery, error) {
	v, err := authenticate(ctx, ScopeReadFarms)
	if err != nil {
		return nil, err
	}
	q := s.Client(ctx).Farm.Query()
	visibleFarms(v)(q)
	return q, nil
}

// Farm returns one farm with its members; the viewer must be at least a READER.
func (s *Service) Farm(ctx context.Context, id uuid.UUID) (*ent.Farm, error) {
	if _, _, err := s.authorizeFarm(ctx, id, RoleReader, ScopeReadFarms); err != nil {
		return nil, err
	}
	return s.farmWithMembers(ctx, id)
}

// UpdateFarm changes a farm; the viewer must be at least an EDITOR.
func (s *Service) UpdateFarm(ctx context.Context, id uuid.UUID, p FarmPatch) (*ent.Farm, error) {
	if _, _, err := s.authorizeFarm(ctx, id, RoleEditor, ScopeWriteFarms); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	err := s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		before, err := c.Farm.Get(ctx, id)
		if err != nil {
			return notFound(err, "farm", id)
		}
		if !p.changes(before) {
			// A write that changes nothing changes nothing: no updated_at, no place in the
			// change feed, no farm.updated webhook.
			return nil
		}
		u := c.Farm.UpdateOneID(id)
		if p.Name != nil {
			u.SetName(strings.TrimSpace(*p.Name))
		}
		if p.Species != nil {
			u.SetSpecies(farm.Species(*p.Species))
		}
		if p.SpeciesOther.Set {
			if p.SpeciesOther.Value == nil {
				u.ClearSpeciesOther()
			} else {
				u.SetSpeciesOther(*p.SpeciesOther.Value)
			}
		}
		if p.AllowPrivateThreads != nil {
			u.SetAllowPrivateThreads(*p.AllowPrivateThreads)
		}
		if err := u.Exec(ctx); err != nil {
			return notFound(err, "farm", id)
		}
		if p.Species != nil && *p.Species != string(before.Species) {
			// Birth settings are bound to a species: the former species' settings stop
			// applying, so every preview made with them is stale.
			return s.markPreviewsStale(ctx, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.farmWithMembers(ctx, id)
}

// DeleteFarm soft-deletes a farm: it disappears from every read but its history is kept.
// Only an OWNER may do it.
func (s *Service) DeleteFarm(ctx context.Context, id uuid.UUID) error {
	if _, _, err := s.authorizeFarm(ctx, id, RoleOwner, ScopeWriteFarms); err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		return notFound(s.Client(ctx).Farm.UpdateOneID(id).SetIsActive(false).Exec(ctx), "farm", id)
	})
}

// GraphFarm returns one farm of the viewer for the graph. Without collect it costs no
// statement once the request has loaded the viewer's memberships (request.go): the farm came
// with them. With collect, it loads the farm with the edges the GraphQL selection asks for
// (its members and their users), one statement per edge, never one per member.
func (s *Service) GraphFarm(ctx context.Context, id uuid.UUID, collect bool) (*ent.Farm, error) {
	if _, _, err := s.authorizeFarm(ctx, id, RoleReader, ScopeReadFarms); err != nil {
		return nil, err
	}
	if !collect {
		if f := viewerFarm(ctx, id); f != nil {
			return f, nil
		}
	}
	q, err := s.Client(ctx).Farm.Query().Where(farm.ID(id)).CollectFields(ctx)
	if err != nil {
		return nil, err
	}
	f, err := q.Only(ctx)
	return f, notFound(err, "farm", id)
}

// FarmSummary is a farm as an operator lists it.
type FarmSummary struct {
	ID      uuid.UUID `json:"id"`
	Name    string    `json:"name"`
	Species string    `json:"species"`
	// HeadCount is the number of the farm's animals on the farm today (UTC), judged from
	// their dated facts as the register judges status ON_FARM.
	HeadCount int       `json:"head_count"`
	CreatedAt time.Time `json:"created_at"`
}

// AdminFarms lists every active farm, oldest first, with its head count: for the command
// line, which has no viewer (the operator has the database itself). Three statements a farm;
// an operator lists a handful.
func (s *Service) AdminFarms(ctx context.Context) ([]FarmSummary, error) {
	farms, err := s.Client(ctx).Farm.Query().Order(ent.Asc(farm.FieldCreatedAt), ent.Asc(farm.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	today := s.nowUTC().Format(time.DateOnly)
	out := make([]FarmSummary, len(farms))
	for i, f := range farms {
		onFarm, err := s.statusPredicate(ctx, f.ID, today, evidence.StatusOnFarm)
		if err != nil {
			return nil, err
		}
		n, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(f.ID), onFarm).Count(ctx)
		if err != nil {
			return nil, err
		}
		out[i] = FarmSummary{ID: f.ID, Name: f.Name, Species: string(f.Species), HeadCount: n, CreatedAt: f.CreatedAt}
	}
	return out, nil
}
