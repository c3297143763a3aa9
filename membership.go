package herdbook

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/withdrawal"
)

// Group membership has one truth: dated membership facts (and membership_end facts, which
// close them). A group's members on a day are the animals those facts place in it that day;
// its current members are its members today. Every write of members (groupAnimalsSet,
// groupCreate with animals, POST /groups with animal_ids, the CSV import) records facts, and
// every read (the group's animals and their count, an animal's groups, the register, the
// withdrawal of a group treatment) derives membership from them.

// todayOnFarm is the farm's current date: today in the farm's time zone (the farm settings'
// time_zone), or today's UTC date while the zone is unset. Membership writes start on it when
// no date is given, and current membership is membership on it. The settings are read once
// per request and farm.
func (s *Service) todayOnFarm(ctx context.Context, farmID uuid.UUID) string {
	now := s.nowUTC()
	fs, err := onceInRequest(ctx, "farm-settings "+farmID.String(), func() (FarmSettings, error) { return s.settings(ctx, farmID) })
	if err != nil {
		return now.Format(time.DateOnly)
	}
	day, _ := fs.DefaultDay(now)
	return day
}

// membershipDay reads the optional start date of a membership write: a calendar date, or
// the farm's today when it is empty.
func (s *Service) membershipDay(ctx context.Context, fe *fieldErrors, farmID uuid.UUID, field, day string) string {
	if day == "" {
		return s.todayOnFarm(ctx, farmID)
	}
	if _, err := withdrawal.ParseDay(day); err != nil {
		fe.add(field, "must be a calendar date in the form YYYY-MM-DD")
	}
	return day
}

// groupKinds are evidence.GroupKinds as animalFactsOf takes them.
var groupKinds = func() []string {
	out := make([]string, len(evidence.GroupKinds))
	for i, k := range evidence.GroupKinds {
		out[i] = string(k)
	}
	return out
}()

// groupMembersOn returns the animals that membership facts place in each of groups on day,
// active animals only, sorted by id: three statements whatever the number of groups and
// animals (the groups' membership facts, the candidates' facts, the active animals).
func (s *Service) groupMembersOn(ctx context.Context, farmID uuid.UUID, groups []uuid.UUID, day string) (map[uuid.UUID][]uuid.UUID, error) {
	out := make(map[uuid.UUID][]uuid.UUID, len(groups))
	if len(groups) == 0 {
		return out, nil
	}
	subjects, err := s.Client(ctx).RecordItem.Query().
		Where(recorditem.FactKind(string(evidence.KindMembership)), recorditem.FactGroupIn(dedupe(groups)...),
			recorditem.FactDateLTE(day), itemsOfFarm(farmID, liveRecord(ctx))).
		Select(recorditem.FieldFactSubject).Strings(ctx)
	if err != nil {
		return nil, err
	}
	var candidates []uuid.UUID
	for _, id := range subjects {
		if u, err := uuid.Parse(id); err == nil {
			candidates = append(candidates, u)
		}
	}
	if len(candidates) == 0 {
		return out, nil
	}
	return s.groupMembersAmong(ctx, farmID, groups, day, dedupe(candidates))
}

// groupMembersAmong is groupMembersOn over the candidates alone: those of them that their
// membership facts place in each of groups on day, active animals only, sorted by id (two
// statements). A kept group's members are patched with it after a write (patch.go).
func (s *Service) groupMembersAmong(ctx context.Context, farmID uuid.UUID, groups []uuid.UUID, day string, candidates []uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
	out := make(map[uuid.UUID][]uuid.UUID, len(groups))
	if len(candidates) == 0 {
		return out, nil
	}
	// Only the facts that place an animal in groups (evidence.GroupKinds): a member's
	// weights, treatments and births change none of its groups, and reading and parsing
	// them was most of a group count's cost on a farm with a long history.
	facts, err := s.animalFactsOf(ctx, farmID, candidates, groupKinds)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(candidates))
	for i, id := range candidates {
		keys[i] = id.String()
	}
	profiles := evidence.ProfilesOf(keys, day, facts)
	active, err := s.activeAmong(ctx, farmID, candidates)
	if err != nil {
		return nil, err
	}
	want := make(map[string]uuid.UUID, len(groups))
	for _, g := range groups {
		want[g.String()] = g
	}
	for _, id := range active {
		for _, g := range profiles[id.String()].GroupIDs {
			if gid, ok := want[g]; ok {
				out[gid] = append(out[gid], id)
			}
		}
	}
	for g := range out {
		slices.SortFunc(out[g], func(a, b uuid.UUID) int { return compareUUID(a, b) })
	}
	return out, nil
}

func compareUUID(a, b uuid.UUID) int {
	for i := range a {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return 0
}

// animalGroupsOn returns the active groups that membership facts place each animal in on
// day: two statements (the animals' facts, their groups).
func (s *Service) animalGroupsOn(ctx context.Context, farmID uuid.UUID, animals []uuid.UUID, day string) (map[uuid.UUID][]*ent.Group, error) {
	out := make(map[uuid.UUID][]*ent.Group, len(animals))
	if len(animals) == 0 {
		return out, nil
	}
	profiles, err := s.profiles(ctx, farmID, dedupe(animals), day)
	if err != nil {
		return nil, err
	}
	var ids []uuid.UUID
	for _, p := range profiles {
		for _, g := range p.GroupIDs {
			if u, err := uuid.Parse(g); err == nil {
				ids = append(ids, u)
			}
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	gs, err := s.Client(ctx).Group.Query().Where(group.FarmID(farmID), group.IDIn(dedupe(ids)...)).
		Order(ent.Asc(group.FieldName), ent.Asc(group.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for id, p := range profiles {
		for _, g := range gs {
			if slices.Contains(p.GroupIDs, g.ID.String()) {
				out[id] = append(out[id], g)
			}
		}
	}
	return out, nil
}

// membershipFacts are the facts that make members exactly the group's members from day on:
// a membership from day for each animal that is not a member that day, a membership_end on
// day for each member that is not in members.
func membershipFacts(groupID uuid.UUID, current, members []uuid.UUID, day string) []evidence.Fact {
	var facts []evidence.Fact
	for _, a := range members {
		if !slices.Contains(current, a) {
			facts = append(facts, evidence.Fact{Kind: evidence.KindMembership, AnimalID: a.String(), GroupID: groupID.String(), StartDate: day})
		}
	}
	for _, a := range current {
		if !slices.Contains(members, a) {
			facts = append(facts, evidence.Fact{Kind: evidence.KindMembershipEnd, AnimalID: a.String(), GroupID: groupID.String(), Date: day})
		}
	}
	return facts
}

// setMembers records, in the caller's transaction, the facts that make animals the group's
// members from day on (membershipFacts).
func (s *Service) setMembers(ctx context.Context, g *ent.Group, animals []uuid.UUID, day string) error {
	current, err := s.groupMembersOn(ctx, g.FarmID, []uuid.UUID{g.ID}, day)
	if err != nil {
		return err
	}
	facts := membershipFacts(g.ID, current[g.ID], animals, day)
	if err := s.writeFacts(ctx, g.FarmID, facts, false); err != nil {
		return err
	}
	// A membership dated back may place an animal already sold in a treated group.
	ptrs := factPointers(facts)
	return s.guardRecordedDepartures(ctx, g.FarmID, ptrs, func(i int) string { return "start_date" }, false)
}

// Page animals: an animal page asks each of its animals for its groups. The first animal's
// resolver loads the groups of every animal of the request's animal pages of its farm, and
// the others take theirs from that batch.

type animalGroups struct {
	once    sync.Once
	animals []uuid.UUID // the animals the batch loaded
	groups  map[uuid.UUID][]*ent.Group
	err     error
}

// notePageAnimals records the animals an animal connection returned, with their farms.
func notePageAnimals(ctx context.Context, c *ent.AnimalConnection) {
	st := requestFrom(ctx)
	if st == nil || c == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.pageAnimals == nil {
		st.pageAnimals = map[uuid.UUID]uuid.UUID{}
	}
	for _, e := range c.Edges {
		if e.Node != nil {
			st.pageAnimals[e.Node.ID] = e.Node.FarmID
		}
	}
}

// AnimalGroups returns the active groups an animal of a readable farm is in today, by its
// membership facts, by name. Animals of the request's animal pages are answered from one
// batch (two statements for the page).
func (s *Service) AnimalGroups(ctx context.Context, a *ent.Animal) ([]*ent.Group, error) {
	if _, _, err := s.authorizeFarm(ctx, a.FarmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	day := s.todayOnFarm(ctx, a.FarmID)
	if st := requestFrom(ctx); st != nil {
		st.mu.Lock()
		noted := st.pageAnimals[a.ID] == a.FarmID
		var animals []uuid.UUID
		if noted {
			for id, f := range st.pageAnimals {
				if f == a.FarmID {
					animals = append(animals, id)
				}
			}
		}
		st.mu.Unlock()
		if noted {
			b, _ := st.batches.LoadOrStore("animal-groups "+a.FarmID.String()+" "+day, &animalGroups{})
			ag := b.(*animalGroups)
			ag.once.Do(func() {
				ag.animals = animals
				ag.groups, ag.err = s.animalGroupsOn(ctx, a.FarmID, animals, day)
			})
			if ag.err != nil {
				return nil, ag.err
			}
			if slices.Contains(ag.animals, a.ID) {
				return noGroups(ag.groups[a.ID]), nil
			}
		}
	}
	gs, err := s.animalGroupsOn(ctx, a.FarmID, []uuid.UUID{a.ID}, day)
	if err != nil {
		return nil, err
	}
	return noGroups(gs[a.ID]), nil
}

func noGroups(gs []*ent.Group) []*ent.Group {
	if gs == nil {
		return []*ent.Group{}
	}
	return gs
}

// GroupAnimals returns a readable group's animals today, by its membership facts, oldest
// first: the unbounded list the deprecated Group.animals field shows.
func (s *Service) GroupAnimals(ctx context.Context, g *ent.Group) ([]*ent.Animal, error) {
	if _, _, err := s.authorizeFarm(ctx, g.FarmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	members, err := s.groupMembersOn(ctx, g.FarmID, []uuid.UUID{g.ID}, s.todayOnFarm(ctx, g.FarmID))
	if err != nil || len(members[g.ID]) == 0 {
		return []*ent.Animal{}, err
	}
	return s.Client(ctx).Animal.Query().Where(animal.FarmID(g.FarmID), animal.IDIn(members[g.ID]...)).
		Order(ent.Asc(animal.FieldCreatedAt), ent.Asc(animal.FieldID)).All(ctx)
}
