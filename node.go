package herdbook

import (
	"context"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/birthevent"
	"github.com/herdbook/herdbook/ent/birthpreview"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/file"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/intercept"
	"github.com/herdbook/herdbook/ent/message"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/thread"
	"github.com/herdbook/herdbook/ent/user"
	"github.com/herdbook/herdbook/internal/db/citus"
)

// nodeType finds the table of a UUID. Ids are random UUIDs shared with REST, so they do not
// encode their type; the tables are probed by primary key in a fixed order, most common
// first: a bounded number of index lookups.
func (s *Service) nodeType(ctx context.Context, id uuid.UUID) (string, error) {
	c := s.Client(ctx)
	probes := []struct {
		table string
		exist func() (bool, error)
	}{
		{record.Table, func() (bool, error) { return c.Record.Query().Where(record.ID(id)).Exist(ctx) }},
		{recorditem.Table, func() (bool, error) { return c.RecordItem.Query().Where(recorditem.ID(id)).Exist(ctx) }},
		{animal.Table, func() (bool, error) { return c.Animal.Query().Where(animal.ID(id)).Exist(ctx) }},
		{group.Table, func() (bool, error) { return c.Group.Query().Where(group.ID(id)).Exist(ctx) }},
		{farm.Table, func() (bool, error) { return c.Farm.Query().Where(farm.ID(id)).Exist(ctx) }},
		{farmmember.Table, func() (bool, error) { return c.FarmMember.Query().Where(farmmember.ID(id)).Exist(ctx) }},
		{thread.Table, func() (bool, error) { return c.Thread.Query().Where(thread.ID(id)).Exist(ctx) }},
		{message.Table, func() (bool, error) { return c.Message.Query().Where(message.ID(id)).Exist(ctx) }},
		{file.Table, func() (bool, error) { return c.File.Query().Where(file.ID(id)).Exist(ctx) }},
		{user.Table, func() (bool, error) { return c.User.Query().Where(user.ID(id)).Exist(ctx) }},
		{notification.Table, func() (bool, error) { return c.Notification.Query().Where(notification.ID(id)).Exist(ctx) }},
		{farmtask.Table, func() (bool, error) { return c.FarmTask.Query().Where(farmtask.ID(id)).Exist(ctx) }},
		{birthpreview.Table, func() (bool, error) { return c.BirthPreview.Query().Where(birthpreview.ID(id)).Exist(ctx) }},
		{birthevent.Table, func() (bool, error) { return c.BirthEvent.Query().Where(birthevent.ID(id)).Exist(ctx) }},
	}
	for _, p := range probes {
		ok, err := p.exist()
		if err != nil {
			return "", err
		}
		if ok {
			return p.table, nil
		}
	}
	return "", Errorf(ENOTFOUND, "node %s not found", id)
}

// Node returns the entity with the given id when the viewer may read it, with the same
// scope and membership rules as the entity's own queries. Authorization reads the owning
// farm afresh: the loaded node holds only the columns the GraphQL query selected.
func (s *Service) Node(ctx context.Context, id uuid.UUID) (ent.Noder, error) {
	if _, err := authenticate(ctx); err != nil {
		return nil, err
	}
	return nodeOnHintedFarm(ctx, func(ctx context.Context) (ent.Noder, error) {
		table, err := s.nodeType(ctx, id)
		if err != nil {
			return nil, err
		}
		owner, err := s.canRead(ctx, table, id)
		if err != nil {
			return nil, err
		}
		// The node and the edges its fields load are read on its farm: on a cluster, its
		// shard, and ent's loads of a many-to-many edge join its link table on the farm
		// (nodeFarmFilter), which a cluster cannot do by id alone.
		if owner != uuid.Nil {
			ctx = context.WithValue(ctx, nodeFarmKey{}, owner)
		}
		n, err := s.Client(ctx).Noder(ctx, id, ent.WithFixedNodeType(table))
		if err != nil {
			return nil, notFound(err, "node", id)
		}
		return n, nil
	})
}

// Nodes returns the entities with the given ids; each one the viewer may not read is an error.
func (s *Service) Nodes(ctx context.Context, ids []uuid.UUID) ([]ent.Noder, error) {
	if len(ids) > MaxConnectionPage {
		return nil, Invalid(FieldError{Field: "ids", Message: "must have at most 500 ids"})
	}
	out := make([]ent.Noder, len(ids))
	for i, id := range ids {
		n, err := s.Node(ctx, id)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// canRead applies the read rule of the entity in table with the given id, and returns the
// farm it belongs to when the rule read it (uuid.Nil otherwise).
func (s *Service) canRead(ctx context.Context, table string, id uuid.UUID) (uuid.UUID, error) {
	var owner uuid.UUID
	err := s.readRule(ctx, table, id, func(f uuid.UUID) { owner = f })
	return owner, err
}

func (s *Service) readRule(ctx context.Context, table string, id uuid.UUID, seen func(uuid.UUID)) error {
	c := s.Client(ctx)
	farmRead := func(farmID uuid.UUID, scope string) error {
		seen(farmID)
		_, _, err := s.authorizeFarm(ctx, farmID, RoleReader, scope)
		return err
	}
	switch table {
	case farm.Table:
		return farmRead(id, ScopeReadFarms)
	case farmmember.Table:
		m, err := c.FarmMember.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		return farmRead(m.FarmID, ScopeReadFarms)
	case animal.Table:
		a, err := c.Animal.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		return farmRead(a.FarmID, ScopeReadAnimals)
	case group.Table:
		g, err := c.Group.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		return farmRead(g.FarmID, ScopeReadAnimals)
	case record.Table:
		r, err := c.Record.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		return farmRead(r.FarmID, ScopeReadRecords)
	case file.Table:
		f, err := c.File.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		return farmRead(f.FarmID, ScopeReadRecords)
	case recorditem.Table:
		r, err := c.RecordItem.Query().Where(recorditem.ID(id)).QueryRecord().Only(ctx)
		if err != nil {
			return notFound(err, "node", id)
		}
		return farmRead(r.FarmID, ScopeReadRecords)
	case thread.Table:
		_, _, err := s.readableThread(ctx, id, ScopeReadFarms)
		return err
	case message.Table:
		m, err := c.Message.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		_, _, err = s.readableThread(ctx, m.ThreadID, ScopeReadFarms)
		return err
	case notification.Table:
		// A notification is its recipient's; the farm's OWNERs may also read it.
		n, err := c.Notification.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		v, m, err := s.authorizeFarm(ctx, n.FarmID, RoleReader, ScopeReadRecords)
		if err != nil {
			return err
		}
		if n.UserID == v.UserID || m.Role == RoleOwner {
			return nil
		}
	case farmtask.Table:
		t, err := c.FarmTask.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		return farmRead(t.FarmID, ScopeReadRecords)
	case birthpreview.Table:
		p, err := c.BirthPreview.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		return farmRead(p.FarmID, ScopeReadRecords)
	case birthevent.Table:
		ev, err := c.BirthEvent.Get(ctx, id)
		if err != nil {
			return notFound(err, "node", id)
		}
		return farmRead(ev.FarmID, ScopeReadRecords)
	case user.Table:
		if v := ViewerFrom(ctx); v != nil && v.UserID == id {
			return nil
		}
	}
	return Errorf(ENOTFOUND, "node %s not found", id)
}

type farmHintKey struct{}

// WithFarmHint tells the service which farm a request is about, when its transport knows it
// (the web app's GraphQL requests name the farm of their page). A node found by its global
// id, which names no farm, is then looked for on that farm first (on a Citus cluster, on its
// shard alone), and everywhere only when it is not there. A hint never widens or narrows what
// the viewer may read: the node's own farm is authorized as without it.
func WithFarmHint(ctx context.Context, farm uuid.UUID) context.Context {
	return context.WithValue(ctx, farmHintKey{}, farm)
}

type nodeFarmKey struct{}

// nodeFarmFilter is an interceptor of every query, traversal and eager load: within a node
// lookup on a farm (a hinted one, nodeOnHintedFarm, or the node's own, Node), a farm table's
// rows and the link rows ent's loaders join are those of that farm (citus.OnFarm). It is
// written when the statement is, since ent's load of a many-to-many edge joins the link table
// after the predicates are added.
var nodeFarmFilter = intercept.TraverseFunc(func(ctx context.Context, q intercept.Query) error {
	if f, ok := ctx.Value(nodeFarmKey{}).(uuid.UUID); ok {
		q.WhereP(citus.OnFarm(f))
	}
	return nil
})

// nodeOnHintedFarm runs find on the request's hinted farm first, then, when it found
// nothing there (or there is no hint), everywhere.
func nodeOnHintedFarm[T any](ctx context.Context, find func(context.Context) (T, error)) (T, error) {
	if f, ok := ctx.Value(farmHintKey{}).(uuid.UUID); ok && f != uuid.Nil {
		v, err := find(context.WithValue(ctx, nodeFarmKey{}, f))
		if ErrorCode(err) != ENOTFOUND {
			return v, err
		}
	}
	return find(ctx)
}
