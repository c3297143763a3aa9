package graph

import (
	"context"
	"github.com/herdbook/herdbook/internal/httpapi"
	"github.com/herdbook/herdbook/internal/tracing"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/graph/model"
)

// references holds the animals one operation has loaded by id, so that a reference many
// objects of a page share, or that a list's resolver loaded for the whole page at once, is
// not loaded again for each object.
type references struct {
	mu       sync.Mutex
	animals  map[uuid.UUID]*ent.Animal
	previews map[uuid.UUID]*ent.BirthPreview
	// profiles are the animals' profiles by (animal, day); day "" is today.
	profiles map[profileKey]*model.AnimalProfile
	// days are the default profile days of the animals a register list loaded (its asOf).
	days map[uuid.UUID]string
}

type profileKey struct {
	animal uuid.UUID
	day    string
}

func newReferences() *references {
	return &references{animals: map[uuid.UUID]*ent.Animal{}, previews: map[uuid.UUID]*ent.BirthPreview{},
		profiles: map[profileKey]*model.AnimalProfile{}, days: map[uuid.UUID]string{}}
}

type referencesKey struct{}

// withReferences gives each operation its own cache; it lives as long as the operation.
func withReferences(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	noteOperation(ctx)
	return next(context.WithValue(ctx, referencesKey{}, newReferences()))
}

// noteOperation tells the metrics which operation the request ran: its name, or its type
// ("query", "mutation") when it has none.
func noteOperation(ctx context.Context) {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil {
		return
	}
	name := oc.OperationName
	if name == "" && oc.Operation != nil {
		name = oc.Operation.Name
	}
	if name == "" && oc.Operation != nil {
		name = "anonymous " + string(oc.Operation.Operation)
	}
	if len(name) > 64 {
		name = name[:64]
	}
	httpapi.NoteOperation(ctx, name)
}

func referencesFrom(ctx context.Context) *references {
	if r, ok := ctx.Value(referencesKey{}).(*references); ok {
		return r
	}
	return newReferences()
}

// animal returns the farm's animal with the id: from the operation's cache when a page
// loaded it already, else loaded now (through the service, which authorizes the farm).
func (r *Resolver) animal(ctx context.Context, farmID, id uuid.UUID) (*ent.Animal, error) {
	refs := referencesFrom(ctx)
	refs.mu.Lock()
	a, ok := refs.animals[id]
	refs.mu.Unlock()
	if ok && a.FarmID == farmID {
		return a, nil
	}
	if err := r.loadAnimals(ctx, farmID, []uuid.UUID{id}); err != nil {
		return nil, err
	}
	refs.mu.Lock()
	a, ok = refs.animals[id]
	refs.mu.Unlock()
	if !ok || a.FarmID != farmID {
		return nil, herdbook.Errorf(herdbook.ENOTFOUND, "animal %s not found", id)
	}
	return a, nil
}

// loadAnimals loads the farm's animals with the ids into the operation's cache, in one query.
func (r *Resolver) loadAnimals(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) error {
	as, err := r.svc.AnimalsByID(ctx, farmID, ids)
	if err != nil {
		return err
	}
	refs := referencesFrom(ctx)
	refs.mu.Lock()
	defer refs.mu.Unlock()
	for id, a := range as {
		refs.animals[id] = a
	}
	return nil
}

// withTaskDams loads, when the operation asks for them, the dams and the previews of the
// births of a page of tasks, all in one query each, before each task's birth resolves them.
func (r *Resolver) withTaskDams(ctx context.Context, farmID uuid.UUID) func(*ent.FollowUpTaskConnection, error) (*ent.FollowUpTaskConnection, error) {
	return func(conn *ent.FollowUpTaskConnection, err error) (*ent.FollowUpTaskConnection, error) {
		if err != nil {
			return conn, err
		}
		if selected(ctx, "edges", "node", "birthEvent", "preview") {
			var ids []uuid.UUID
			for _, e := range conn.Edges {
				if ev := e.Node.Edges.BirthEvent; ev != nil {
					ids = append(ids, ev.PreviewID)
				}
			}
			// A viewer who may not read previews gets the error at each preview field, as
			// before, not on the whole page.
			ps, _ := r.svc.BirthPreviewsByID(ctx, farmID, ids)
			refs := referencesFrom(ctx)
			refs.mu.Lock()
			for id, p := range ps {
				refs.previews[id] = p
			}
			refs.mu.Unlock()
		}
		if !selected(ctx, "edges", "node", "birthEvent", "dam") {
			return conn, nil
		}
		var dams []uuid.UUID
		for _, e := range conn.Edges {
			if ev := e.Node.Edges.BirthEvent; ev != nil {
				dams = append(dams, ev.DamID)
			}
		}
		if err := r.loadAnimals(ctx, farmID, dams); err != nil {
			return nil, err
		}
		return conn, nil
	}
}

// preview returns the farm's preview with the id: from the operation's cache when a page
// loaded it already, else loaded now (through the service, which authorizes the farm).
func (r *Resolver) preview(ctx context.Context, farmID, id uuid.UUID) (*ent.BirthPreview, error) {
	refs := referencesFrom(ctx)
	refs.mu.Lock()
	p, ok := refs.previews[id]
	refs.mu.Unlock()
	if ok && p.FarmID == farmID {
		return p, nil
	}
	return r.svc.BirthPreview(ctx, farmID, id)
}

// traceResolver spans the fields that run a resolver (not the ones read from a struct),
// named Type.field, with the error when one fails.
func traceResolver(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !fc.IsResolver {
		return next(ctx)
	}
	ctx, span := tracing.Start(ctx, fc.Object+"."+fc.Field.Name)
	defer span.End()
	v, err := next(ctx)
	if err != nil {
		span.RecordError(err)
	}
	return v, err
}
