package herdbook

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
)

// A herd list asks each group of a page for its animals' count (animalsConnection(first: 0)
// { totalCount }). Asked group by group, that is statements per group; instead the first
// group's resolver counts the animals of every group of the request's group pages at once
// (from their membership facts, in three statements), and the others take their count from it.

type groupCounts struct {
	once   sync.Once
	counts map[uuid.UUID]int
	err    error
}

// notePageGroups records the groups a group connection returned, with their farms.
func notePageGroups(ctx context.Context, groups []*ent.Group) {
	st := requestFrom(ctx)
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.pageGroups == nil {
		st.pageGroups = map[uuid.UUID]uuid.UUID{}
	}
	for _, g := range groups {
		st.pageGroups[g.ID] = g.FarmID
	}
}

// batchedGroupAnimalCount answers a count-only page (first: 0 or last: 0) of a group's
// animals from the request's batch. ok is false when the group did not come from a group page
// of this request.
func (s *Service) batchedGroupAnimalCount(ctx context.Context, groupID uuid.UUID, w Window) (*ent.AnimalConnection, bool, error) {
	st := requestFrom(ctx)
	if st == nil {
		return nil, false, nil
	}
	st.mu.Lock()
	farmID, ok := st.pageGroups[groupID]
	var groups []uuid.UUID
	for id, f := range st.pageGroups {
		if f == farmID {
			groups = append(groups, id)
		}
	}
	st.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, true, err
	}
	b, _ := st.batches.LoadOrStore("group-animal-counts "+farmID.String(), &groupCounts{})
	gc := b.(*groupCounts)
	gc.once.Do(func() { gc.counts, gc.err = s.countGroupAnimals(ctx, farmID, groups) })
	if gc.err != nil {
		return nil, true, gc.err
	}
	if _, loaded := gc.counts[groupID]; !loaded && !containsID(groups, groupID) {
		return nil, false, nil
	}
	n := gc.counts[groupID]
	c := &ent.AnimalConnection{Edges: []*ent.AnimalEdge{}, TotalCount: n}
	c.PageInfo.HasNextPage = w.First != nil && n > 0
	c.PageInfo.HasPreviousPage = w.Last != nil && n > 0
	return c, true, nil
}

func containsID(ids []uuid.UUID, id uuid.UUID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// countGroupAnimals counts each group's current active animals of the farm (those its
// membership facts place in it today), in the three statements of groupMembersOn. Deriving
// the counts reads every member's facts (hundreds of milliseconds on a farm of 10,000 animals),
// so the members are kept by the farm's change counter (derived.go) and a dashboard seen again
// while the farm is unchanged costs one statement for them, or none when the request read the
// counter; after a write, the members kept before it are patched for the animals it touched.
func (s *Service) countGroupAnimals(ctx context.Context, farmID uuid.UUID, groups []uuid.UUID) (map[uuid.UUID]int, error) {
	groups = slices.Clone(groups)
	slices.SortFunc(groups, compareUUID)
	groups = slices.Compact(groups)
	day := s.todayOnFarm(ctx, farmID)
	var name strings.Builder
	name.WriteString("group-members " + day)
	for _, g := range groups {
		name.WriteString(" " + g.String())
	}
	// The members are kept, not their counts, so that a write patches them (patch.go).
	members, _, err := keptPatched(ctx, s, s.derived, farmID, name.String(), groupKinds, func() (map[uuid.UUID][]uuid.UUID, error) {
		return s.groupMembersOn(ctx, farmID, groups, day)
	}, func(old map[uuid.UUID][]uuid.UUID, touched []uuid.UUID, _ int64) (map[uuid.UUID][]uuid.UUID, error) {
		if len(touched) == 0 {
			return old, nil
		}
		in, err := s.groupMembersAmong(ctx, farmID, groups, day, touched)
		if err != nil {
			return nil, err
		}
		out := make(map[uuid.UUID][]uuid.UUID, len(groups))
		for _, g := range groups {
			out[g] = patchSet(old[g], touched, in[g])
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	counts := make(map[uuid.UUID]int, len(groups))
	for _, id := range groups {
		counts[id] = len(members[id])
	}
	return counts, nil
}
