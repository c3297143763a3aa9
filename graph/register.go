package graph

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/graph/model"
)

// registerFilter is Farm.animals' register arguments, as the schema names them.
type registerFilter struct {
	asOf    *string
	status  *model.AnimalStatus
	search  *string
	sex     *model.Sex
	groupID *uuid.UUID
}

// registerAnimals pages through a farm's register and, when the operation asks for the
// nodes' profiles, parents or identifiers, loads them for the whole page at once: one
// Profiles call per distinct day the operation names, and one AnimalsByID for every
// parent, whatever the page's size.
func (r *Resolver) registerAnimals(ctx context.Context, farmID uuid.UUID, w herdbook.Window, order *ent.AnimalOrder, where *ent.AnimalWhereInput, args registerFilter) (*ent.AnimalConnection, error) {
	f := herdbook.AnimalFilter{AsOf: deref(args.asOf), Q: deref(args.search)}
	// The herd list reads by tag, as a farmer's register (and its CSV) does; ent breaks ties
	// by id, so the order is total and the cursors stable.
	if order == nil {
		order = &ent.AnimalOrder{Direction: entgql.OrderDirectionAsc, Field: ent.AnimalOrderFieldTag}
	}
	if args.status != nil {
		f.Status = strings.ToLower(string(*args.status))
	}
	if args.sex != nil {
		f.Sex = strings.ToLower(string(*args.sex))
	}
	if args.groupID != nil {
		f.Group = *args.groupID
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
		GeneticDamID: parseID(p.GeneticDamID), SurrogateDamID: parseID(p.SurrogateDamID),
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

// offsetWindow turns first/after over an offset-paged service list into skip and take; the
// cursor's value is the offset of the element it names.
func offsetWindow(after *entgql.Cursor[uuid.UUID], first *int) (int, *int, error) {
	skip := 0
	if after != nil {
		s, _ := after.Value.(string)
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0, nil, herdbook.Invalid(herdbook.FieldError{Field: "after", Message: "is not a cursor of this list"})
		}
		skip = n + 1
	}
	if first != nil && (*first < 0 || *first > 500) {
		return 0, nil, herdbook.Invalid(herdbook.FieldError{Field: "first", Message: "must be between 0 and 500"})
	}
	return skip, first, nil
}

func offsetCursor(id uuid.UUID, offset int) entgql.Cursor[uuid.UUID] {
	return entgql.Cursor[uuid.UUID]{ID: id, Value: strconv.Itoa(offset)}
}

func offsetPageInfo(start, end *entgql.Cursor[uuid.UUID], skip, n, total int) entgql.PageInfo[uuid.UUID] {
	return entgql.PageInfo[uuid.UUID]{HasNextPage: skip+n < total, HasPreviousPage: skip > 0, StartCursor: start, EndCursor: end}
}

// timeline pages the animal's timeline (newest first) as a connection.
func (r *Resolver) timeline(ctx context.Context, a *ent.Animal, after *entgql.Cursor[uuid.UUID], first *int) (*ent.RecordConnection, error) {
	skip, take, err := offsetWindow(after, first)
	if err != nil {
		return nil, err
	}
	edges := recordEdges(ctx)
	recs, total, err := r.svc.AnimalTimeline(ctx, a.FarmID, a.ID, herdbook.Page{Skip: skip, Take: take}, &edges)
	if err != nil {
		return nil, err
	}
	conn := &ent.RecordConnection{TotalCount: total, Edges: make([]*ent.RecordEdge, len(recs))}
	for i, rec := range recs {
		conn.Edges[i] = &ent.RecordEdge{Node: rec, Cursor: offsetCursor(rec.ID, skip+i)}
	}
	if len(recs) > 0 {
		conn.PageInfo = offsetPageInfo(&conn.Edges[0].Cursor, &conn.Edges[len(recs)-1].Cursor, skip, len(recs), total)
	}
	return conn, nil
}

// members pages the animals membership facts place in the group on asOf; their profiles on
// that day come with them (GroupMembers loads them at once), so nodes' profiles cost nothing.
func (r *Resolver) members(ctx context.Context, g *ent.Group, asOf *string, after *entgql.Cursor[uuid.UUID], first *int) (*ent.AnimalConnection, error) {
	skip, take, err := offsetWindow(after, first)
	if err != nil {
		return nil, err
	}
	v, err := r.svc.GroupMembers(ctx, g.FarmID, g.ID, deref(asOf))
	if err != nil {
		return nil, err
	}
	end := len(v.Members)
	if take != nil && skip+*take < end {
		end = skip + *take
	}
	if skip > end {
		skip = end
	}
	page := v.Members[skip:end]
	conn := &ent.AnimalConnection{TotalCount: len(v.Members), Edges: make([]*ent.AnimalEdge, len(page))}
	refs := referencesFrom(ctx)
	refs.mu.Lock()
	for i, m := range page {
		conn.Edges[i] = &ent.AnimalEdge{Node: m.Animal, Cursor: offsetCursor(m.Animal.ID, skip+i)}
		refs.animals[m.Animal.ID] = m.Animal
		refs.days[m.Animal.ID] = deref(asOf)
		refs.profiles[profileKey{m.Animal.ID, deref(asOf)}] = profileOut(g.FarmID, m.Profile)
	}
	refs.mu.Unlock()
	if len(page) > 0 {
		conn.PageInfo = offsetPageInfo(&conn.Edges[0].Cursor, &conn.Edges[len(page)-1].Cursor, skip, len(page), len(v.Members))
	}
	return conn, nil
}

// registerFact records a fact through the service and answers the record with the animal
// whose profile changed.
func (r *Resolver) registerFact(ctx context.Context, farmID, animalID uuid.UUID, f evidence.Fact, opt ...herdbook.FactOptions) (*ent.Record, *ent.Animal, error) {
	var o herdbook.FactOptions
	if len(opt) > 0 {
		o = opt[0]
	}
	rec, err := r.svc.RecordFactWith(ctx, farmID, f, o)
	if err != nil {
		return nil, nil, err
	}
	a, err := r.animal(ctx, farmID, animalID)
	return rec, a, err
}

func (r *Resolver) identifierAdd(ctx context.Context, in model.IdentifierAddInput) (*model.IdentifierAddPayload, error) {
	rec, a, err := r.registerFact(ctx, in.FarmID, in.AnimalID, evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: in.AnimalID.String(),
		Scheme: strings.ToLower(string(in.Scheme)), Value: in.Value, StartDate: in.StartDate, EndDate: deref(in.EndDate)})
	if err != nil {
		return nil, err
	}
	return &model.IdentifierAddPayload{Record: rec, Animal: a}, nil
}

func (r *Resolver) deathRecord(ctx context.Context, in model.DeathRecordInput) (*model.DeathRecordPayload, error) {
	rec, a, err := r.registerFact(ctx, in.FarmID, in.AnimalID, evidence.Fact{Kind: evidence.KindDeath, AnimalID: in.AnimalID.String(),
		Date: in.Date, Cause: deref(in.Cause), Slaughter: orZero(in.Slaughter)},
		herdbook.FactOptions{AcknowledgeWithdrawal: orZero(in.AcknowledgeWithdrawal)})
	if err != nil {
		return nil, err
	}
	return &model.DeathRecordPayload{Record: rec, Animal: a}, nil
}

func (r *Resolver) saleRecord(ctx context.Context, in model.SaleRecordInput) (*model.SaleRecordPayload, error) {
	rec, a, err := r.registerFact(ctx, in.FarmID, in.AnimalID, evidence.Fact{Kind: evidence.KindSale, AnimalID: in.AnimalID.String(),
		Date: in.Date, Buyer: deref(in.Buyer)}, herdbook.FactOptions{AcknowledgeWithdrawal: orZero(in.AcknowledgeWithdrawal)})
	if err != nil {
		return nil, err
	}
	return &model.SaleRecordPayload{Record: rec, Animal: a}, nil
}

func (r *Resolver) weightRecord(ctx context.Context, in model.WeightRecordInput) (*model.WeightRecordPayload, error) {
	rec, a, err := r.registerFact(ctx, in.FarmID, in.AnimalID, evidence.Fact{Kind: evidence.KindWeight, AnimalID: in.AnimalID.String(),
		Date: in.Date, KG: json.Number(strconv.FormatFloat(in.Kg, 'f', -1, 64))})
	if err != nil {
		return nil, err
	}
	return &model.WeightRecordPayload{Record: rec, Animal: a}, nil
}

func (r *Resolver) dnaParentageRecord(ctx context.Context, in model.DNAParentageRecordInput) (*model.DNAParentageRecordPayload, error) {
	rec, a, err := r.registerFact(ctx, in.FarmID, in.OffspringID, evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: in.OffspringID.String(),
		ParentID: in.ParentID.String(), Relation: strings.ToLower(string(in.Relation)), Result: strings.ToLower(string(in.Result)),
		Lab: deref(in.Lab), Date: in.Date})
	if err != nil {
		return nil, err
	}
	return &model.DNAParentageRecordPayload{Record: rec, Animal: a}, nil
}
