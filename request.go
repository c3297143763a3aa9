package herdbook

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
)

// A request learns its viewer's memberships once. The first farm check of a request loads
// every active membership of the viewer in an active farm, together with those farms, in one
// statement; every later check of the same request (each GraphQL resolver, each service call
// a REST handler makes) is answered from that. The state lives in the request's context and
// dies with it: nothing is shared between requests, so a revoked token, a removed member or a
// deleted farm takes effect on the very next request. Within a request, a write to a
// membership or a farm forgets what was loaded (the hooks below), so a mutation followed by a
// read in the same GraphQL document sees its own write.

type requestKey struct{}

// requestState is one request's knowledge of its viewer.
type requestState struct {
	mu      sync.Mutex
	loaded  bool
	userID  uuid.UUID
	members map[uuid.UUID]*ent.FarmMember // farm id -> the viewer's active membership
	farms   map[uuid.UUID]*ent.Farm       // the farms of those memberships
	// farmMembers and farmFarms are the memberships loaded farm by farm, before (or
	// without) all of them: the viewer's membership of each farm asked about (nil when
	// none), and those farms.
	farmMembers map[uuid.UUID]*ent.FarmMember
	farmFarms   map[uuid.UUID]*ent.Farm

	batches sync.Map // batch key -> *batch (batch.go)
	// pageFarms are the farms a farm connection returned in this request: the parents one
	// batched load of their records serves (batch.go).
	pageFarms []uuid.UUID
	// pageGroups are the groups a group connection returned, with their farms (groupcount.go).
	pageGroups map[uuid.UUID]uuid.UUID
	// pageAnimals are the animals an animal connection returned, with their farms
	// (membership.go).
	pageAnimals map[uuid.UUID]uuid.UUID
}

// WithRequestScope returns a context that caches, for the length of one request, what the
// service learns about the viewer (its memberships and their farms). Call it once per
// request; a context without it checks memberships with a statement each time.
func WithRequestScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestKey{}, &requestState{})
}

// RequestScoped is the HTTP middleware that gives every request its own scope
// (WithRequestScope).
func RequestScoped(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(WithRequestScope(r.Context())))
	})
}

func requestFrom(ctx context.Context) *requestState {
	st, _ := ctx.Value(requestKey{}).(*requestState)
	return st
}

// onceInRequest answers read's value once in the request under key (concurrent resolvers
// wait for the one read), and calls read each time outside a request's scope. The request
// forgets it at its first write (forget). The value is shared: callers must not change it.
func onceInRequest[T any](ctx context.Context, key string, read func() (T, error)) (T, error) {
	st := requestFrom(ctx)
	if st == nil {
		return read()
	}
	b, _ := st.batches.LoadOrStore(key, &readOnce[T]{})
	o := b.(*readOnce[T])
	o.once.Do(func() { o.v, o.err = read() })
	return o.v, o.err
}

// readOnce is a value read once in a request (onceInRequest).
type readOnce[T any] struct {
	once sync.Once
	v    T
	err  error
}

// forget drops what the request loaded, after a write that may change it.
func (st *requestState) forget() {
	st.mu.Lock()
	st.loaded, st.members, st.farms, st.farmMembers, st.farmFarms = false, nil, nil, nil, nil
	st.mu.Unlock()
	st.batches.Range(func(k, _ any) bool { st.batches.Delete(k); return true })
}

// memberships returns the viewer's active memberships in active farms, keyed by farm, and
// those farms, loading them with one statement on the request's first call.
func (s *Service) memberships(ctx context.Context, st *requestState, v *Viewer) (map[uuid.UUID]*ent.FarmMember, map[uuid.UUID]*ent.Farm, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.loaded && st.userID == v.UserID {
		return st.members, st.farms, nil
	}
	members, byID, err := s.loadMemberships(ctx, v, uuid.Nil)
	if err != nil {
		return nil, nil, err
	}
	st.loaded, st.userID, st.members, st.farms = true, v.UserID, members, byID
	return members, byID, nil
}

// farmMembership returns the viewer's active membership of the active farm farmID, or nil,
// loading it alone (one statement that names the farm) on the request's first question
// about that farm. A request about one farm (every REST path under /farm/{id}, a GraphQL
// document of one farm) so asks only that farm's shard on a Citus cluster (docs/scaling.md);
// a request that listed the viewer's farms loads them all at once instead (memberships).
func (s *Service) farmMembership(ctx context.Context, st *requestState, v *Viewer, farmID uuid.UUID) (*ent.FarmMember, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.userID != v.UserID {
		st.loaded, st.members, st.farms, st.farmMembers, st.farmFarms = false, nil, nil, nil, nil
		st.userID = v.UserID
	}
	if st.loaded {
		return st.members[farmID], nil
	}
	if m, ok := st.farmMembers[farmID]; ok {
		return m, nil
	}
	members, byID, err := s.loadMemberships(ctx, v, farmID)
	if err != nil {
		return nil, err
	}
	if st.farmMembers == nil {
		st.farmMembers, st.farmFarms = map[uuid.UUID]*ent.FarmMember{}, map[uuid.UUID]*ent.Farm{}
	}
	st.farmMembers[farmID] = members[farmID]
	if f := byID[farmID]; f != nil {
		st.farmFarms[farmID] = f
	}
	return members[farmID], nil
}

// loadMemberships loads the viewer's active memberships in active farms with those farms, in
// one statement: all of them, or only farmID's when it is not uuid.Nil.
func (s *Service) loadMemberships(ctx context.Context, v *Viewer, farmID uuid.UUID) (map[uuid.UUID]*ent.FarmMember, map[uuid.UUID]*ent.Farm, error) {
	const roleCol, memberCol = "viewer_member_role", "viewer_member_id"
	// One statement: the farms joined with the viewer's memberships, whose role and id come
	// back as extra columns of each farm row. ent applies predicates after it has chosen the
	// columns, so this predicate can add the join and the two columns.
	q := s.Client(ctx).Farm.Query().
		Where(farm.IsActive(true), func(q *sql.Selector) {
			m := sql.Table(farmmember.Table).As("viewer_member")
			where := sql.And(sql.EQ(m.C(farmmember.FieldUserID), v.UserID), sql.EQ(m.C(farmmember.FieldIsActive), true))
			if farmID != uuid.Nil {
				// Both tables name the farm, so that a cluster routes the join to its shard.
				where = sql.And(where, sql.EQ(m.C(farmmember.FieldFarmID), farmID))
			}
			q.Join(m).On(q.C(farm.FieldID), m.C(farmmember.FieldFarmID)).
				Where(where).
				AppendSelectAs(m.C(farmmember.FieldRole), roleCol).
				AppendSelectAs(m.C(farmmember.FieldID), memberCol)
		})
	if farmID != uuid.Nil {
		q.Where(farm.ID(farmID))
	}
	farms, err := q.All(ctx)
	if err != nil {
		return nil, nil, err
	}
	members := make(map[uuid.UUID]*ent.FarmMember, len(farms))
	byID := make(map[uuid.UUID]*ent.Farm, len(farms))
	for _, f := range farms {
		m := &ent.FarmMember{FarmID: f.ID, UserID: v.UserID, IsActive: true}
		if err := scanValue(f, roleCol, func(b []byte) error { m.Role = farmmember.Role(b); return nil }); err != nil {
			return nil, nil, err
		}
		if err := scanValue(f, memberCol, func(b []byte) error { return m.ID.UnmarshalText(b) }); err != nil {
			return nil, nil, err
		}
		members[f.ID], byID[f.ID] = m, f
	}
	return members, byID, nil
}

// selectedValues is an entity read with extra selected columns (AppendSelectAs in a
// predicate), whose values it returns by name.
type selectedValues interface {
	Value(name string) (ent.Value, error)
}

// scanValue hands the text of an extra selected column of f to set.
func scanValue(f selectedValues, col string, set func([]byte) error) error {
	val, err := f.Value(col)
	if err != nil {
		return err
	}
	switch x := val.(type) {
	case []byte:
		return set(x)
	case string:
		return set([]byte(x))
	case nil:
		return nil
	default:
		if u, ok := x.(interface{ String() string }); ok {
			return set([]byte(u.String()))
		}
		return nil
	}
}

// boolValue reads an extra selected column that holds a truth value: PostgreSQL's driver
// returns a bool, SQLite's an integer.
func boolValue(f selectedValues, col string) (bool, error) {
	val, err := f.Value(col)
	if err != nil {
		return false, err
	}
	switch x := val.(type) {
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	}
	return false, fmt.Errorf("column %s holds %T, not a truth value", col, val)
}

// viewerMember returns the viewer's active membership of an active farm, from the request's
// memberships when ctx has a request scope, or nil when there is none.
func (s *Service) viewerMember(ctx context.Context, v *Viewer, farmID uuid.UUID) (*ent.FarmMember, error) {
	if st := requestFrom(ctx); st != nil {
		st.mu.Lock()
		listed := len(st.pageFarms) > 0
		st.mu.Unlock()
		if !listed {
			return s.farmMembership(ctx, st, v, farmID)
		}
		members, _, err := s.memberships(ctx, st, v)
		if err != nil {
			return nil, err
		}
		return members[farmID], nil
	}
	m, err := s.Client(ctx).FarmMember.Query().
		Where(
			farmmember.FarmID(farmID),
			farmmember.UserID(v.UserID),
			farmmember.IsActive(true),
			farmmember.HasFarmWith(farm.IsActive(true)),
		).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return m, err
}

// viewerFarm returns a farm of the viewer loaded with the request's memberships, or nil when
// the request has none loaded.
func viewerFarm(ctx context.Context, farmID uuid.UUID) *ent.Farm {
	st := requestFrom(ctx)
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.loaded {
		return st.farmFarms[farmID]
	}
	return st.farms[farmID]
}

// forgetOnWrite is an ent hook: a write to a farm or a membership makes the request load
// memberships again.
func forgetOnWrite(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if st := requestFrom(ctx); st != nil {
			defer st.forget()
		}
		return next.Mutate(ctx, m)
	})
}
