// Package track follows every change of a farm's data inside the transaction that makes it.
// Ent hooks, registered by the schema on farms, members, records, animals, farm tasks,
// files and notifications, do two things with the mutation's own client, so that both
// commit or roll back with the change:
//
//   - They stamp the changed rows of farms, records, animals and farm tasks with a change
//     number (change_seq) from the farm's ChangeCounter (farms from the farm-level one).
//     The counter row is taken with an upsert that holds it until commit, so one farm's
//     numbers become visible in order: a change-feed reader that has seen number n will
//     never later find a committed change numbered n or below that it has not seen.
//   - They collect one event per changed entity (record.created, farm.updated, …) and, just
//     before the transaction commits, write the events that some enabled webhook endpoint
//     of the farm subscribed to into the outbox (webhook_events, webhook_deliveries).
//
// Tracked changes must run in a transaction carried by the context (ent.NewTxContext): the
// hooks refuse a change made outside one, because its number and events could not commit
// with it.
package track

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	gen "github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/changecounter"
	"github.com/herdbook/herdbook/ent/schema/onfarm"
	"github.com/herdbook/herdbook/ent/webhookendpoint"
)

// Change kinds, the second half of an event type.
const (
	Created = "created"
	Updated = "updated"
	Deleted = "deleted"
)

// Kinds are the entity kinds that produce events, the first half of an event type.
var Kinds = []string{"farm", "record", "animal", "task", "notification", "file"}

// EventTypes lists every event type an endpoint may subscribe to.
func EventTypes() []string {
	var out []string
	for _, k := range Kinds {
		for _, c := range []string{Created, Updated, Deleted} {
			out = append(out, k+"."+c)
		}
	}
	return out
}

type quietKey struct{}

// Quietly returns a context in which changes of kinds without a change feed (files,
// notifications) produce no events: for housekeeping such as purging a deleted file's
// links, which tells nobody anything new. Changes that number rows are always tracked.
func Quietly(ctx context.Context) context.Context { return context.WithValue(ctx, quietKey{}, true) }

func quiet(ctx context.Context) bool { q, _ := ctx.Value(quietKey{}).(bool); return q }

// GlobalCounter is the ChangeCounter id of the farm-level sequence (the farms list).
var GlobalCounter = uuid.Nil

// counter says which change sequence a kind's rows are numbered from.
type counter int

const (
	noCounter     counter = iota // the kind has no change feed
	farmCounter                  // the sequence of the rows' farm
	globalCounter                // the farm-level sequence, taken after the farm's own
)

// kind describes one tracked entity.
type kind struct {
	name    string          // event prefix; "" for kinds that only touch others (members)
	counter counter         // which sequence numbers the rows
	isFarm  bool            // the row is the farm itself: its id is the farm's id
	quiet   map[string]bool // fields whose change alone is bookkeeping, not an event
	// farms returns the farm of each row, for bulk updates.
	farms func(ctx context.Context, c *gen.Client, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error)
	// load returns the event data of each row.
	load func(ctx context.Context, c *gen.Client, ids, farms []uuid.UUID) (map[uuid.UUID]any, error)
	// before and after let a kind change others: a member's change is a change of its
	// farm, a file's change one of the records that show it.
	before func(ctx context.Context, c *gen.Client, m ent.Mutation, ids, farms []uuid.UUID) (any, error)
	after  func(ctx context.Context, c *gen.Client, m ent.Mutation, ids []uuid.UUID, farms []uuid.UUID, before any) error
	// unfiltered returns a context in which queries also see soft-deleted rows.
	unfiltered func(context.Context) context.Context
	// tally, for records, returns how many of the rows the mutation makes active (a
	// positive count) or inactive (negative), before it runs; the farm's counter row keeps
	// the sum (ChangeCounter.records).
	tally func(ctx context.Context, c *gen.Client, m ent.Mutation, ids, farms []uuid.UUID) (int64, error)
}

// The generated mutations all have these methods; the hooks reach them through interfaces
// so that one implementation serves every kind.
type (
	withClient interface{ Client() *gen.Client }
	withTx     interface{ Tx() (*gen.Tx, error) }
	withID     interface{ ID() (uuid.UUID, bool) }
	withIDs    interface {
		IDs(context.Context) ([]uuid.UUID, error)
	}
)

// hook returns the ent hook of the kind.
func (k *kind) hook() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			// Hard deletes only purge rows already reported deleted (soft deletion): they
			// are no change anyone syncs.
			if m.Op().Is(ent.OpDelete|ent.OpDeleteOne) || (k.counter == noCounter && quiet(ctx)) {
				return next.Mutate(ctx, m)
			}
			change := k.classify(m)
			if change == "" && k.after == nil {
				return next.Mutate(ctx, m)
			}
			st, c, err := stateOf(ctx, m, k)
			if err != nil {
				return nil, err
			}
			ids, farmOf, err := k.affected(ctx, c, m)
			if err != nil {
				return nil, err
			}
			if len(ids) == 0 {
				return next.Mutate(ctx, m)
			}
			farms := distinct(ids, farmOf)
			if change != "" && k.counter != noCounter {
				if len(farms) != 1 {
					return nil, fmt.Errorf("herdbook: one statement may change the %s rows of one farm only, not %d", k.name, len(farms))
				}
				seq, err := st.next(ctx, c, farms[0])
				if err == nil && k.counter == globalCounter {
					seq, err = st.next(ctx, c, GlobalCounter)
				}
				if err != nil {
					return nil, err
				}
				if err := m.SetField("change_seq", seq); err != nil {
					return nil, err
				}
			}
			var delta int64
			if k.tally != nil {
				if delta, err = k.tally(k.unfiltered(ctx), c, m, ids, farms); err != nil {
					return nil, err
				}
			}
			var prior any
			if k.before != nil {
				if prior, err = k.before(ctx, c, m, ids, farms); err != nil {
					return nil, err
				}
			}
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return v, err
			}
			if delta != 0 {
				// tally counts only the rows of counted kinds, which change one farm per statement.
				st.count(farms[0], delta)
			}
			if change != "" && k.name != "" {
				for _, id := range ids {
					st.add(k, change, id, farmOf[id])
				}
			}
			if k.after != nil {
				if err := k.after(ctx, c, m, ids, farms, prior); err != nil {
					return nil, err
				}
			}
			return v, nil
		})
	}
}

// classify tells what a mutation is for the rows' readers: created, deleted (is_active set
// to false), updated, or "" when only bookkeeping fields change.
func (k *kind) classify(m ent.Mutation) string {
	if m.Op().Is(ent.OpCreate) {
		return Created
	}
	if v, ok := m.Field("is_active"); ok && v == false {
		return Deleted
	}
	if len(k.quiet) == 0 {
		return Updated
	}
	changed := slices.Concat(m.Fields(), m.AddedFields(), m.ClearedFields())
	for _, f := range changed {
		if !k.quiet[f] {
			return Updated
		}
	}
	if len(m.AddedEdges())+len(m.RemovedEdges())+len(m.ClearedEdges()) > 0 {
		return Updated
	}
	return ""
}

// affected returns the ids of the rows the mutation changes and the farm of each, before it
// runs: from the mutation for a create or an update of one row, with a query for a bulk
// update.
func (k *kind) affected(ctx context.Context, c *gen.Client, m ent.Mutation) ([]uuid.UUID, map[uuid.UUID]uuid.UUID, error) {
	farmOf := map[uuid.UUID]uuid.UUID{}
	// A request that names its farm (onfarm) changes that farm's rows only: the mutation
	// is narrowed to them, so its rows' farm is known without reading it, and on a cluster
	// its statements stay on the farm's shard. A row of another farm is then not found.
	if f, ok := onfarm.From(ctx); ok && !k.isFarm && !m.Op().Is(ent.OpCreate) {
		if w, ok := m.(interface{ WhereP(...func(*sql.Selector)) }); ok {
			w.WhereP(onfarm.Rows(ctx))
			ids, err := m.(withIDs).IDs(k.unfiltered(ctx))
			for _, id := range ids {
				farmOf[id] = f
			}
			return ids, farmOf, err
		}
	}
	switch op := m.Op(); {
	case op.Is(ent.OpCreate), op.Is(ent.OpUpdateOne):
		id, ok := m.(withID).ID()
		if !ok {
			return nil, nil, fmt.Errorf("herdbook: a tracked %s mutation has no id", m.Type())
		}
		if k.isFarm {
			farmOf[id] = id
			return []uuid.UUID{id}, farmOf, nil
		}
		if op.Is(ent.OpUpdateOne) {
			// The row's farm, read on the farm the request names (onfarm) when it does.
			farmOf, err := k.farms(k.unfiltered(ctx), c, []uuid.UUID{id})
			if err != nil {
				return nil, nil, err
			}
			if _, ok := farmOf[id]; !ok {
				// Gone: ent's own read answers with its not-found error.
				if _, err := m.OldField(k.unfiltered(ctx), "farm_id"); err != nil {
					return nil, nil, err
				}
				return nil, nil, fmt.Errorf("herdbook: the tracked %s %s to update is not found", m.Type(), id)
			}
			return []uuid.UUID{id}, farmOf, nil
		}
		v, ok := m.Field("farm_id")
		if !ok {
			return nil, nil, fmt.Errorf("herdbook: a tracked %s is created without its farm", m.Type())
		}
		farm, ok := v.(uuid.UUID)
		if !ok {
			return nil, nil, fmt.Errorf("herdbook: the farm of a tracked %s is a %T", m.Type(), v)
		}
		farmOf[id] = farm
		return []uuid.UUID{id}, farmOf, nil
	default:
		ids, err := m.(withIDs).IDs(k.unfiltered(ctx))
		if err != nil || len(ids) == 0 {
			return nil, nil, err
		}
		if k.isFarm {
			for _, id := range ids {
				farmOf[id] = id
			}
			return ids, farmOf, nil
		}
		farmOf, err = k.farms(k.unfiltered(ctx), c, ids)
		return ids, farmOf, err
	}
}

func distinct(ids []uuid.UUID, farmOf map[uuid.UUID]uuid.UUID) []uuid.UUID {
	var out []uuid.UUID
	for _, id := range ids {
		if f := farmOf[id]; !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// pending is one entity's change within a transaction.
type pending struct {
	kind   *kind
	change string
	id     uuid.UUID
	farm   uuid.UUID
}

// txState is what the hooks know about one transaction: the change numbers it took and the
// changes it made.
type txState struct {
	mu     sync.Mutex
	seqs   map[uuid.UUID]int64
	counts map[uuid.UUID]int64 // records made active (+) or inactive (-) per farm
	events []pending
	index  map[[2]string]int
}

// states holds the state of every open transaction that made a tracked change, until it
// commits or rolls back.
var states sync.Map // *gen.Tx → *txState

// stateOf returns the state of the mutation's transaction and a client in it, or an error
// when the mutation runs outside a transaction carried by the context.
func stateOf(ctx context.Context, m ent.Mutation, k *kind) (*txState, *gen.Client, error) {
	what := k.name
	if what == "" {
		what = m.Type()
	}
	tx := gen.TxFromContext(ctx)
	if _, err := m.(withTx).Tx(); err != nil || tx == nil {
		return nil, nil, fmt.Errorf("herdbook: a %s change must run in a transaction carried by its context, so that its change number and webhook events commit with it", what)
	}
	if v, ok := states.Load(tx); ok {
		return v.(*txState), m.(withClient).Client(), nil
	}
	st := &txState{seqs: map[uuid.UUID]int64{}, counts: map[uuid.UUID]int64{}, index: map[[2]string]int{}}
	if _, loaded := states.LoadOrStore(tx, st); loaded {
		v, _ := states.Load(tx)
		return v.(*txState), m.(withClient).Client(), nil
	}
	key := tx // the state goes with the transaction it was made for, whichever *Tx commits it
	tx.OnCommit(func(next gen.Committer) gen.Committer {
		return gen.CommitFunc(func(ctx context.Context, tx *gen.Tx) error {
			states.Delete(key)
			if err := st.flush(ctx, tx.Client()); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("write webhook events: %w", err)
			}
			return next.Commit(ctx, tx)
		})
	})
	tx.OnRollback(func(next gen.Rollbacker) gen.Rollbacker {
		return gen.RollbackFunc(func(ctx context.Context, tx *gen.Tx) error {
			states.Delete(key)
			return next.Rollback(ctx, tx)
		})
	})
	return st, m.(withClient).Client(), nil
}

// next returns the transaction's change number of the counter: the first call takes the
// next number (and holds the counter row until commit), later calls reuse it, so that all
// rows a transaction changes carry one number.
func (st *txState) next(ctx context.Context, c *gen.Client, key uuid.UUID) (int64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if n, ok := st.seqs[key]; ok {
		return n, nil
	}
	err := c.ChangeCounter.Create().SetID(key).SetSeq(1).
		OnConflictColumns(changecounter.FieldID).
		Update(func(u *gen.ChangeCounterUpsert) { u.AddSeq(1) }).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("take a change number: %w", err)
	}
	row, err := c.ChangeCounter.Get(ctx, key)
	if err != nil {
		return 0, fmt.Errorf("read the change number: %w", err)
	}
	st.seqs[key] = row.Seq
	return row.Seq, nil
}

// count adds n to the farm's record count when the transaction commits.
func (st *txState) count(farm uuid.UUID, n int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.counts[farm] += n
}

// add remembers a change, merging it with earlier changes of the same entity in the
// transaction: a created entity stays created, a deleted one deleted.
func (st *txState) add(k *kind, change string, id, farm uuid.UUID) {
	st.mu.Lock()
	defer st.mu.Unlock()
	key := [2]string{k.name, id.String()}
	if i, ok := st.index[key]; ok {
		prev := &st.events[i]
		switch {
		case change == Deleted:
			prev.change = Deleted
		case prev.change == Deleted && change == Updated:
			// A deleted entity touched again (a member of a deleted farm) stays deleted.
		case prev.change == Created:
		default:
			prev.change = change
		}
		return
	}
	st.index[key] = len(st.events)
	st.events = append(st.events, pending{kind: k, change: change, id: id, farm: farm})
}

// insertChunk bounds one multi-row insert well below the databases' parameter limits.
const insertChunk = 500

// flush writes the transaction's events that an enabled endpoint of their farm subscribed
// to, one outbox event each with one delivery per endpoint. It costs one query when no
// endpoint listens; otherwise one more per kind and the inserts.
func (st *txState) flush(ctx context.Context, c *gen.Client) error {
	// The counter rows are this transaction's already (next took them), so the counts
	// change in the order the records did.
	for farm, n := range st.counts {
		if n == 0 {
			continue
		}
		u := c.ChangeCounter.UpdateOneID(farm)
		// By name: the schema package compiles before the field's setter is generated.
		err := u.Mutation().AddField("records", n)
		if err == nil {
			err = u.Exec(ctx)
		}
		if err != nil {
			return fmt.Errorf("count the farm's records: %w", err)
		}
	}
	if len(st.events) == 0 {
		return nil
	}
	var farms []uuid.UUID
	for _, e := range st.events {
		if !slices.Contains(farms, e.farm) {
			farms = append(farms, e.farm)
		}
	}
	eps, err := c.WebhookEndpoint.Query().
		Where(webhookendpoint.FarmIDIn(farms...), webhookendpoint.Enabled(true)).
		Order(gen.Asc(webhookendpoint.FieldCreatedAt), gen.Asc(webhookendpoint.FieldID)).All(ctx)
	if err != nil || len(eps) == 0 {
		return err
	}
	listeners := func(e pending) []*gen.WebhookEndpoint {
		var out []*gen.WebhookEndpoint
		for _, ep := range eps {
			if ep.FarmID == e.farm && slices.Contains(ep.EventTypes, e.kind.name+"."+e.change) {
				out = append(out, ep)
			}
		}
		return out
	}
	wanted := map[*kind][]uuid.UUID{}
	wantedFarms := map[*kind][]uuid.UUID{} // where to find them: the farms' shards
	var order []*kind
	for _, e := range st.events {
		if len(listeners(e)) == 0 {
			continue
		}
		if _, ok := wanted[e.kind]; !ok {
			order = append(order, e.kind)
		}
		wanted[e.kind] = append(wanted[e.kind], e.id)
		if !slices.Contains(wantedFarms[e.kind], e.farm) {
			wantedFarms[e.kind] = append(wantedFarms[e.kind], e.farm)
		}
	}
	data := map[[2]string]any{}
	for _, k := range order {
		rows, err := k.load(k.unfiltered(ctx), c, wanted[k], wantedFarms[k])
		if err != nil {
			return err
		}
		for id, d := range rows {
			data[[2]string{k.name, id.String()}] = d
		}
	}
	now := time.Now().UTC()
	var (
		events     []*gen.WebhookEventCreate
		deliveries []*gen.WebhookDeliveryCreate
	)
	for _, e := range st.events {
		d, ok := data[[2]string{e.kind.name, e.id.String()}]
		eps := listeners(e)
		if !ok || len(eps) == 0 {
			continue // nobody listens, or the row is gone
		}
		typ := e.kind.name + "." + e.change
		body, err := json.Marshal(Payload{Type: typ, Timestamp: now, Data: d})
		if err != nil {
			return err
		}
		evID := uuid.New()
		events = append(events, c.WebhookEvent.Create().SetID(evID).SetFarmID(e.farm).SetType(typ).
			SetSubjectID(e.id).SetPayload(body).SetCreatedAt(now).SetUpdatedAt(now))
		for _, ep := range eps {
			deliveries = append(deliveries, c.WebhookDelivery.Create().SetFarmID(e.farm).SetEndpointID(ep.ID).
				SetEventID(evID).SetNextAttemptAt(now).SetCreatedAt(now).SetUpdatedAt(now))
		}
	}
	for len(events) > 0 {
		n := min(len(events), insertChunk)
		if err := c.WebhookEvent.CreateBulk(events[:n]...).Exec(ctx); err != nil {
			return err
		}
		events = events[n:]
	}
	for len(deliveries) > 0 {
		n := min(len(deliveries), insertChunk)
		if err := c.WebhookDelivery.CreateBulk(deliveries[:n]...).Exec(ctx); err != nil {
			return err
		}
		deliveries = deliveries[n:]
	}
	return nil
}

// Payload is the body of every webhook: the Standard Webhooks layout of type, timestamp
// (when the change committed) and data (the entity as it was then).
type Payload struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}
