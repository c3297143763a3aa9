// Package trail keeps the audit trail of a farm's book (records and record items): ent
// hooks, registered by the schema's BookMixin, stamp each new entry with its author, stamp
// each voided one with who voided it and when, and append one audit entry per changed row
// (who, when, what, why, the values before and after) in the transaction of the change,
// written in bulk just before it commits, as package track writes webhook events.
package trail

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
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema/onfarm"
	"github.com/herdbook/herdbook/internal/db/citus"
)

// Actions of audit entries.
const (
	Create = "create"
	Update = "update"
	Delete = "delete"
	Void   = "void"
	Amend  = "amend"
)

// Entities of audit entries.
const (
	EntityRecord = "record"
	EntityItem   = "record_item"
)

type actorKey struct{}

// Actor is who writes: the user and the OAuth client (or legacy key) of the credential.
type Actor struct {
	UserID   uuid.UUID
	ClientID string
}

// WithActor returns a context whose writes are stamped with the actor.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

func actorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

type actionKey struct{}

type restoringKey struct{}

// Restoring returns a context whose writes copy entries from a farm archive as they were:
// the entries keep their own authors, times and void stamps, and the trail is copied with
// them (its entries are written by the importer), so the hooks neither stamp nor append.
func Restoring(ctx context.Context) context.Context {
	return context.WithValue(ctx, restoringKey{}, true)
}

func restoring(ctx context.Context) bool { r, _ := ctx.Value(restoringKey{}).(bool); return r }

type action struct{ name, reason string }

// WithAction returns a context whose changes the trail lists as action (void, amend,
// delete) with the writer's reason, instead of the action the change itself suggests.
func WithAction(ctx context.Context, name, reason string) context.Context {
	return context.WithValue(ctx, actionKey{}, action{name, reason})
}

func actionFrom(ctx context.Context) (action, bool) {
	a, ok := ctx.Value(actionKey{}).(action)
	return a, ok
}

// Stamp sets, on a new entry, who recorded it, and on an entry being made inactive, who
// voided it, when and why (unless the writer set them): every path that takes an entry out
// of the book leaves its trace, so that the book as it stood before can be read again.
func Stamp() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if restoring(ctx) {
				return next.Mutate(ctx, m)
			}
			a, known := actorFrom(ctx)
			switch {
			case m.Op().Is(ent.OpCreate):
				if known {
					if _, set := m.Field("recorded_by_user_id"); !set {
						if err := m.SetField("recorded_by_user_id", a.UserID); err != nil {
							return nil, err
						}
					}
					if _, set := m.Field("recorded_by_client_id"); !set && a.ClientID != "" {
						if err := m.SetField("recorded_by_client_id", a.ClientID); err != nil {
							return nil, err
						}
					}
				}
			case m.Op().Is(ent.OpUpdate | ent.OpUpdateOne):
				if v, ok := m.Field("is_active"); ok && v == false {
					if _, set := m.Field("voided_at"); !set {
						if err := m.SetField("voided_at", time.Now().UTC()); err != nil {
							return nil, err
						}
					}
					if _, set := m.Field("voided_by_user_id"); !set && known {
						if err := m.SetField("voided_by_user_id", a.UserID); err != nil {
							return nil, err
						}
						if a.ClientID != "" {
							if err := m.SetField("voided_by_client_id", a.ClientID); err != nil {
								return nil, err
							}
						}
					}
					if act, ok := actionFrom(ctx); ok && act.reason != "" {
						if _, set := m.Field("void_reason"); !set {
							if err := m.SetField("void_reason", act.reason); err != nil {
								return nil, err
							}
						}
					}
				}
			}
			return next.Mutate(ctx, m)
		})
	}
}

// AppendOnly refuses every change of an audit entry but its creation.
func AppendOnly() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if !m.Op().Is(ent.OpCreate) {
				return nil, fmt.Errorf("herdbook: the audit trail is append-only: its entries are never changed or deleted")
			}
			return next.Mutate(ctx, m)
		})
	}
}

// bookkeeping are the fields whose change alone is no change of the entry for its reader:
// the change number, the update stamp, and the links an amend writes after the fact (the
// amend itself is listed).
var bookkeeping = map[string]bool{"updated_at": true, "change_seq": true, "amends_id": true, "superseded_by_id": true}

// entry is one audit entry waiting for its transaction to commit.
type entry struct {
	farm         uuid.UUID // uuid.Nil: the farm of the record, found at flush (a restored entry)
	record, item uuid.UUID // item uuid.Nil for the record itself
	action       string
	entity       string
	at           time.Time
	actor        Actor
	hasActor     bool
	reason       string
	old, new     []byte
}

// Hook returns the hook that writes the audit trail of records and record items.
// unfiltered returns a context in which queries also see inactive rows.
func Hook(unfiltered func(context.Context) context.Context) ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			entity := map[string]string{"Record": EntityRecord, "RecordItem": EntityItem}[m.Type()]
			if entity == "" || m.Op().Is(ent.OpDelete|ent.OpDeleteOne) || restoring(ctx) {
				return next.Mutate(ctx, m)
			}
			a, hasActor := actorFrom(ctx)
			act, hasAction := actionFrom(ctx)
			base := entry{entity: entity, at: auditNow(), actor: a, hasActor: hasActor, reason: act.reason}
			cl := m.(interface{ Client() *gen.Client }).Client()
			if m.Op().Is(ent.OpCreate) {
				v, err := next.Mutate(ctx, m)
				if err != nil {
					return v, err
				}
				e := base
				e.action = Create
				if hasAction {
					e.action = act.name
				}
				id, _ := m.(interface{ ID() (uuid.UUID, bool) }).ID()
				snap := map[string]any{}
				for _, f := range m.Fields() {
					if bookkeeping[f] || f == "created_at" || f == "farm_id" || f == "record_id" || f == "recorded_at" {
						continue
					}
					snap[f], _ = m.Field(f)
				}
				if entity == EntityRecord {
					e.record = id
					if f, ok := m.Field("farm_id"); ok {
						e.farm, _ = f.(uuid.UUID)
					}
					for _, edge := range []string{"animals", "groups"} {
						if ids := m.AddedIDs(edge); len(ids) > 0 {
							snap[edge[:len(edge)-1]+"_ids"] = ids
						}
					}
				} else {
					e.item = id
					if r, ok := m.Field("record_id"); ok {
						e.record, _ = r.(uuid.UUID)
					}
				}
				// An item carries its farm (its farm_id beside its record's): the entry is
				// written without looking the record up by id, which on a Citus cluster would
				// ask every shard (docs/scaling.md).
				if f, ok := m.Field("farm_id"); ok {
					e.farm, _ = f.(uuid.UUID)
				}
				if e.new, err = json.Marshal(snap); err != nil {
					return nil, err
				}
				return v, add(ctx, cl, unfiltered, e)
			}
			changed := slices.Concat(m.Fields(), m.ClearedFields())
			edges := slices.Concat(m.AddedEdges(), m.RemovedEdges(), m.ClearedEdges())
			if !slices.ContainsFunc(changed, func(f string) bool { return !bookkeeping[f] }) && len(edges) == 0 {
				return next.Mutate(ctx, m)
			}
			var ids []uuid.UUID
			if id, ok := m.(interface{ ID() (uuid.UUID, bool) }).ID(); ok && m.Op().Is(ent.OpUpdateOne) {
				ids = []uuid.UUID{id}
			} else {
				var err error
				if ids, err = m.(interface {
					IDs(context.Context) ([]uuid.UUID, error)
				}).IDs(unfiltered(ctx)); err != nil {
					return nil, err
				}
			}
			if len(ids) == 0 {
				return next.Mutate(ctx, m)
			}
			// Read on the farm the request names (onfarm), then on the farms the rows are.
			before, err := onfarm.Lookup(unfiltered(ctx), len(ids), func(farm func(*sql.Selector)) ([]snapshot, error) {
				return snapshots(unfiltered(ctx), cl, entity, ids, farm)
			})
			if err != nil {
				return nil, err
			}
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return v, err
			}
			var farms []uuid.UUID
			for _, b := range before {
				if !slices.Contains(farms, b.farm) {
					farms = append(farms, b.farm)
				}
			}
			after, err := snapshots(unfiltered(ctx), cl, entity, ids, citus.FarmOf(farms...))
			if err != nil {
				return nil, err
			}
			byID := func(rows []snapshot) map[uuid.UUID]snapshot {
				out := make(map[uuid.UUID]snapshot, len(rows))
				for _, r := range rows {
					out[r.id] = r
				}
				return out
			}
			beforeOf, afterOf := byID(before), byID(after)
			for _, id := range ids {
				b, ok := beforeOf[id]
				if !ok {
					continue
				}
				e := base
				e.farm, e.record = b.farm, b.record
				if entity == EntityItem {
					e.item = id
				}
				e.action = Update
				if v, ok := m.Field("is_active"); ok && v == false {
					e.action = Delete
				}
				if hasAction {
					e.action = act.name
				}
				newSnap := afterOf[id].values
				for _, edge := range []string{"animals", "groups"} {
					if added := m.AddedIDs(edge); len(added) > 0 {
						newSnap["added_"+edge[:len(edge)-1]+"_ids"] = added
					}
				}
				if e.old, err = json.Marshal(b.values); err != nil {
					return nil, err
				}
				if e.new, err = json.Marshal(newSnap); err != nil {
					return nil, err
				}
				if err := add(ctx, cl, unfiltered, e); err != nil {
					return nil, err
				}
			}
			return v, nil
		})
	}
}

// snapshot is a row as the trail shows it.
type snapshot struct {
	id, farm, record uuid.UUID
	values           map[string]any
}

// snapshots reads the rows ids of the farm predicate's farms as the trail shows them, in one
// query.
func snapshots(ctx context.Context, c *gen.Client, entity string, ids []uuid.UUID, farm func(*sql.Selector)) ([]snapshot, error) {
	out := make([]snapshot, 0, len(ids))
	if entity == EntityRecord {
		rows, err := c.Record.Query().Where(record.IDIn(ids...), farm).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, snapshot{id: r.ID, farm: r.FarmID, record: r.ID, values: map[string]any{
				"name": r.Name, "type": r.Type, "applied_at": r.AppliedAt.UTC(), "description": r.Description,
				"acknowledge_withdrawal": r.AcknowledgeWithdrawal, "is_active": r.IsActive,
				"voided_at": r.VoidedAt, "void_reason": r.VoidReason, "amends_id": r.AmendsID, "superseded_by_id": r.SupersededByID,
			}})
		}
		return out, nil
	}
	rows, err := c.RecordItem.Query().Where(recorditem.IDIn(ids...), farm).
		Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldFarmID, recorditem.FieldName, recorditem.FieldDescription,
			recorditem.FieldMetadata, recorditem.FieldIsActive, recorditem.FieldVoidedAt, recorditem.FieldVoidReason,
			recorditem.FieldAmendsID, recorditem.FieldSupersededByID).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, it := range rows {
		out = append(out, snapshot{id: it.ID, farm: it.FarmID, record: it.RecordID, values: map[string]any{
			"name": it.Name, "description": it.Description, "metadata": it.Metadata, "is_active": it.IsActive,
			"voided_at": it.VoidedAt, "void_reason": it.VoidReason, "amends_id": it.AmendsID, "superseded_by_id": it.SupersededByID,
		}})
	}
	return out, nil
}

// state is what the hook collected in one transaction.
type state struct {
	mu      sync.Mutex
	entries []entry
}

var states sync.Map // *gen.Tx → *state

// add queues e for the commit of ctx's transaction, or writes it at once outside one.
func add(ctx context.Context, c *gen.Client, unfiltered func(context.Context) context.Context, e entry) error {
	tx := gen.TxFromContext(ctx)
	if tx == nil {
		return write(unfiltered(ctx), c, []entry{e})
	}
	if v, ok := states.Load(tx); ok {
		st := v.(*state)
		st.mu.Lock()
		st.entries = append(st.entries, e)
		st.mu.Unlock()
		return nil
	}
	st := &state{entries: []entry{e}}
	if _, loaded := states.LoadOrStore(tx, st); loaded {
		states.Delete(tx)
		return fmt.Errorf("herdbook: the audit trail of a transaction began twice")
	}
	key := tx
	tx.OnCommit(func(next gen.Committer) gen.Committer {
		return gen.CommitFunc(func(ctx context.Context, tx *gen.Tx) error {
			states.Delete(key)
			st.mu.Lock()
			entries := st.entries
			st.mu.Unlock()
			if err := write(unfiltered(ctx), tx.Client(), entries); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("write the audit trail: %w", err)
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
	return nil
}

// chunk bounds one multi-row insert well below the databases' parameter limits.
const chunk = 500

// lookupChunk bounds the ids of one lookup of the records' farms.
const lookupChunk = 5000

// write inserts entries: one query for the farms of items' records, then the inserts.
func write(ctx context.Context, c *gen.Client, entries []entry) error {
	// The records whose farm an entry lacks, each once (a seed's transaction holds hundreds
	// of thousands of items: no quadratic search), looked up in chunks that stay below the
	// databases' parameter limits (SQLite's 32,766, PostgreSQL's 65,535).
	var missing []uuid.UUID
	asked := map[uuid.UUID]bool{}
	for _, e := range entries {
		if e.farm == uuid.Nil && !asked[e.record] {
			asked[e.record] = true
			missing = append(missing, e.record)
		}
	}
	farms := make(map[uuid.UUID]uuid.UUID, len(missing))
	for len(missing) > 0 {
		n := min(len(missing), lookupChunk)
		rows, err := c.Record.Query().Where(record.IDIn(missing[:n]...)).Select(record.FieldID, record.FieldFarmID).All(ctx)
		if err != nil {
			return err
		}
		for _, r := range rows {
			farms[r.ID] = r.FarmID
		}
		missing = missing[n:]
	}
	builders := make([]*gen.AuditEntryCreate, 0, len(entries))
	for _, e := range entries {
		farm := e.farm
		if farm == uuid.Nil {
			farm = farms[e.record]
		}
		if farm == uuid.Nil {
			continue // an item of a record that is not there: its write fails anyway
		}
		b := c.AuditEntry.Create().SetFarmID(farm).SetAt(e.at).SetAction(e.action).SetEntity(e.entity).
			SetRecordID(e.record).SetNewValue(e.new)
		if e.item != uuid.Nil {
			b.SetRecordItemID(e.item)
		}
		if e.hasActor {
			b.SetUserID(e.actor.UserID)
			if e.actor.ClientID != "" {
				b.SetClientID(e.actor.ClientID)
			}
		}
		if e.reason != "" {
			b.SetReason(e.reason)
		}
		if e.old != nil {
			b.SetOldValue(e.old)
		}
		builders = append(builders, b)
	}
	for len(builders) > 0 {
		n := min(len(builders), chunk)
		if err := c.AuditEntry.CreateBulk(builders[:n]...).Exec(ctx); err != nil {
			return err
		}
		builders = builders[n:]
	}
	return nil
}

// auditNow is an entry's instant, cut to the microsecond: PostgreSQL keeps no finer, and on
// SQLite, which keeps the nanosecond, entries of one write would otherwise be ordered by
// their nanoseconds where PostgreSQL orders them by id, so that a farm moved from one to the
// other (the archive) read its audit trail in another order.
func auditNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
