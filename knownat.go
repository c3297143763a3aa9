package herdbook

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/medicinepurchase"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema"
)

// As known at a moment (bitemporal, docs/audit.md): every derived answer (the register and
// an animal's profile, withdrawals, the medicine book, the evidence review) can be asked as
// the book stood at known_at: entries recorded after it are ignored, entries voided or
// superseded after it still count. The derived answers already say how things stood on a
// date (as_of, the facts' own dates); known_at says which entries of the book were known.
//
// It is carried by the context and applied where facts are loaded: the soft-delete
// interceptor of records and items (ent/schema) and the record conditions of the fact
// queries (liveRecord, liveItem), so every statement keeps its shape and count.

// KnownAt returns a context in which derived answers read the book as it stood at v, an
// RFC 3339 date-time; "" leaves ctx as it is (the book as it stands now). A malformed v is
// a 400 naming known_at.
func (s *Service) KnownAt(ctx context.Context, v string) (context.Context, error) {
	if v == "" {
		return ctx, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return ctx, Invalid(FieldError{Field: "known_at", Message: "must be an RFC 3339 date-time, such as 2026-05-01T08:00:00Z"})
	}
	return schema.KnownAt(ctx, t), nil
}

// KnownAtTime is KnownAt for a parsed time; nil leaves ctx as it is.
func KnownAtTime(ctx context.Context, t *time.Time) context.Context {
	if t == nil {
		return ctx
	}
	return schema.KnownAt(ctx, *t)
}

// liveRecord keeps the records in the book: the active ones, or, as known at an earlier
// moment, those in force then.
func liveRecord(ctx context.Context) predicate.Record {
	if t, ok := schema.KnownAtFrom(ctx); ok {
		return func(s *sql.Selector) { s.Where(schema.KnownBy(s.C, t)) }
	}
	return record.IsActive(true)
}

// liveItem is liveRecord for record items.
func liveItem(ctx context.Context) predicate.RecordItem {
	if t, ok := schema.KnownAtFrom(ctx); ok {
		return func(s *sql.Selector) { s.Where(schema.KnownBy(s.C, t)) }
	}
	return recorditem.IsActive(true)
}

// liveRecordOf is liveRecord on the records table joined under t.
func liveRecordOf(ctx context.Context, t *sql.SelectTable) *sql.Predicate {
	if at, ok := schema.KnownAtFrom(ctx); ok {
		return schema.KnownBy(t.C, at)
	}
	return sql.EQ(t.C(record.FieldIsActive), true)
}

// knownPurchase keeps the medicine purchases in the book: all of them, or, as known at an
// earlier moment, those recorded by then (a purchase is never voided nor deleted).
func knownPurchase(ctx context.Context) predicate.MedicinePurchase {
	if t, ok := schema.KnownAtFrom(ctx); ok {
		return medicinepurchase.CreatedAtLTE(t)
	}
	return func(*sql.Selector) {}
}

// itemsOfFarm keeps the items of farmID's records that match ps. It names the farm twice:
// on the item (its own farm_id) and on its record. The answer is the same (an item is of its
// record's farm), but a Citus cluster routes a statement to one shard only when every farm
// table in it is filtered by the farm; the record's farm alone, through ent's HasRecordWith,
// would send it to every shard (docs/scaling.md, "Statements name the farm").
func itemsOfFarm(farmID uuid.UUID, ps ...predicate.Record) predicate.RecordItem {
	return recorditem.And(recorditem.FarmID(farmID), recorditem.HasRecordWith(append([]predicate.Record{record.FarmID(farmID)}, ps...)...))
}
