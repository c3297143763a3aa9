package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/graph/model"
)

// registerAnimals pages through a farm's register and, when the operation asks for the
// nodes' profiles, parents or identifiers, loads them for the whole page at once: one
// Profiles call per distinct day the operation names, and one AnimalsByID for every
// parent, whatever the page's size.
func (r *Resolver) registerAnimals(ctx context.Context, farmID uuid.UUID, w herdbook.Window, order *ent.AnimalOrder, where *ent.AnimalWhereInput, asOf *string, status *model.AnimalStatus, search *string) (*ent.AnimalConnection, error) {
	f := herdbook.AnimalFilter{AsOf: deref(asOf), Q: deref(search)}
	if status != nil {
		f.Status = strings.ToLower(string(*status))
	}
	conn, err := r.svc.RegisterAnimalConnection(ctx, farmID, w, order, where, f)
	if err != nil || len(conn.Edges) == 0 {
		return conn, err
	}
	refs := referencesFrom(ctx)
	ids := make([]uuid.UUID, len(conn.Edges))
	refs.mu.Lock()
	for i, e := range conn.Edges {
		ids[i] = e.Node.ID
		refs.days[e.Node.ID] = f.AsOf
		refs.animals[e.Node.ID] = e.Node
	}
	refs.mu.Unlock()
	days := map[string]bool{}
	profileSets := selections(ctx, "edges", "node", "profile")
	for _, field := range profileSets {
		day := f.AsOf
		if v, ok := field.ArgumentMap(graphql.GetOperationContext(ctx).Variables)["asOf"].(string); ok {
			day = v
		}
		days[day] = true
	}
	today := len(selections(ctx, "edges", "node", "dam")) > 0 || len(selections(ctx, "edges", "node", "sire")) > 0 ||
		len(selections(ctx, "edges", "node", "identifiers")) > 0
	if today {
		days[""] = true
	}
	var parents []uuid.UUID
	for day := range days {
		ps, err := r.svc.Profiles(ctx, farmID, ids, day)
		if err != nil {
			return nil, err
		}
		refs.mu.Lock()
		for id, p := range ps {
			out := profileOut(farmID, p)
			refs.profiles[profileKey{id, day}] = out
			if out.DamID != nil {
				parents = append(parents, *out.DamID)
			}
			if out.SireID != nil {
				parents = append(parents, *out.SireID)
			}
		}
		refs.mu.Unlock()
	}
	wantParents := today || selected(ctx, "edges", "node", "profile", "dam") || selected(ctx, "edges", "node", "profile", "sire")
	if wantParents && len(parents) > 0 {
		if err := r.loadAnimals(ctx, farmID, parents); err != nil {
			return nil, err
		}
	}
	return conn, nil
}

// selections are the fields at path below the current field, under every alias.
func selections(ctx context.Context, path ...string) []graphql.CollectedField {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return nil
	}
	oc := graphql.GetOperationContext(ctx)
	fields := []graphql.CollectedField{{Selections: fc.Field.Selections}}
	for _, name := range path {
		var next []graphql.CollectedField
		for _, parent := range fields {
			for _, f := range graphql.CollectFields(oc, parent.Selections, nil) {
				if f.Name == name {
					next = append(next, f)
				}
			}
		}
		fields = next
	}
	return fields
}

// profile is the animal's profile on asOf; with no asOf, on the day of the list that loaded
// the animal, else today. A page's profiles come from the operation's cache.
func (r *Resolver) profile(ctx context.Context, a *ent.Animal, asOf *string) (*model.AnimalProfile, error) {
	refs := referencesFrom(ctx)
	refs.mu.Lock()
	day := refs.days[a.ID]
	if asOf != nil {
		day = *asOf
	}
	p, ok := refs.profiles[profileKey{a.ID, day}]
	refs.mu.Unlock()
	if ok {
		return p, nil
	}
	ps, err := r.svc.Profiles(ctx, a.FarmID, []uuid.UUID{a.ID}, day)
	if err != nil {
		return nil, err
	}
	p = profileOut(a.FarmID, ps[a.ID])
	refs.mu.Lock()
	refs.profiles[profileKey{a.ID, day}] = p
	refs.mu.Unlock()
	return p, nil
}

// todayProfile is the animal's profile today, whatever list loaded it.
func (r *Resolver) todayProfile(ctx context.Context, a *ent.Animal) (*model.AnimalProfile, error) {
	today := ""
	return r.profile(ctx, a, &today)
}

// parent is the animal's dam (or sire) today.
func (r *Resolver) parent(ctx context.Context, a *ent.Animal, dam bool) (*ent.Animal, error) {
	p, err := r.todayProfile(ctx, a)
	if err != nil {
		return nil, err
	}
	if dam {
		return r.profileAnimal(ctx, p, p.DamID)
	}
	return r.profileAnimal(ctx, p, p.SireID)
}

// identifiers are the identifiers valid on the animal today.
func (r *Resolver) identifiers(ctx context.Context, a *ent.Animal) ([]*model.Identifier, error) {
	p, err := r.todayProfile(ctx, a)
	if err != nil {
		return nil, err
	}
	return p.Identifiers, nil
}

// profileAnimal resolves a profile's dam or sire; deleted animals resolve too.
func (r *Resolver) profileAnimal(ctx context.Context, p *model.AnimalProfile, id *uuid.UUID) (*ent.Animal, error) {
	if id == nil {
		return nil, nil
	}
	return r.animal(ctx, p.FarmID, *id)
}

func profileOut(farmID uuid.UUID, p herdbook.Profile) *model.AnimalProfile {
	out := &model.AnimalProfile{
		FarmID: farmID, AsOf: p.AsOf, BirthDate: p.BirthDate, Breed: p.Breed, Intact: p.Intact,
		Status: model.AnimalStatus(strings.ToUpper(p.Status)), StatusDate: p.StatusDate,
		GroupIDs: make([]uuid.UUID, 0, len(p.GroupIDs)), Identifiers: make([]*model.Identifier, len(p.Identifiers)),
		WeightKg: p.WeightKG, WeighedOn: p.WeighedOn, AdgKg: p.ADGKG,
		DamID: parseID(p.DamID), SireID: parseID(p.SireID),
	}
	if p.Sex != nil {
		s := model.Sex(strings.ToUpper(*p.Sex))
		out.Sex = &s
	}
	for _, g := range p.GroupIDs {
		if id, err := uuid.Parse(g); err == nil {
			out.GroupIDs = append(out.GroupIDs, id)
		}
	}
	for i, id := range p.Identifiers {
		out.Identifiers[i] = &model.Identifier{Scheme: model.IdentifierScheme(strings.ToUpper(id.Scheme)), Value: id.Value}
	}
	return out
}

func parseID(s *string) *uuid.UUID {
	if s == nil {
		return nil
	}
	id, err := uuid.Parse(*s)
	if err != nil {
		return nil
	}
	return &id
}
