// Package schema is the hand-written ent schema of Herdbook; everything else under ent/ is
// generated from it.
package schema

import (
	"context"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/intercept"
)

// BaseMixin gives every entity a random UUID id and created_at/updated_at stamps in UTC.
type BaseMixin struct{ mixin.Schema }

// Fields of the BaseMixin.
func (BaseMixin) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(uuid.New).Immutable().
			Comment("The object's id: a random UUID, the same in REST and GraphQL."),
		field.Time("created_at").Default(now).Immutable().
			Comment("When the object was created (UTC).").
			Annotations(entgql.OrderField("CREATED_AT")),
		field.Time("updated_at").Default(now).UpdateDefault(now).
			Comment("When the object last changed (UTC).").
			Annotations(entgql.OrderField("UPDATED_AT")),
	}
}

// now is a row's instant, cut to the microsecond: PostgreSQL keeps no finer, and SQLite, which
// keeps the nanosecond, would order rows of one write by it where PostgreSQL orders them by
// id, so that lists ordered by creation (the farm archive's) came out in another order once a
// farm moved from one database to the other.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

type includeInactiveKey struct{}

// IncludeInactive returns a context in which queries also see soft-deleted rows. Only
// administrative code and the soft-delete operations themselves use it.
func IncludeInactive(ctx context.Context) context.Context {
	return context.WithValue(ctx, includeInactiveKey{}, true)
}

// SoftDeleteMixin adds is_active and hides inactive rows from every query, traversal and
// eager load, so no caller can forget the filter.
type SoftDeleteMixin struct{ mixin.Schema }

// Fields of the SoftDeleteMixin.
func (SoftDeleteMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("is_active").Default(true).
			Comment("False once the object is deleted: deletion is soft, and references to a deleted object still resolve."),
	}
}

// Interceptors of the SoftDeleteMixin.
func (SoftDeleteMixin) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{
		intercept.TraverseFunc(func(ctx context.Context, q intercept.Query) error {
			if skip, _ := ctx.Value(includeInactiveKey{}).(bool); skip {
				return nil
			}
			// Book entries as they stood at a past moment: in force then, whatever since.
			if t, ok := KnownAtFrom(ctx); ok && bookTypes[q.Type()] {
				q.WhereP(func(s *sql.Selector) { s.Where(KnownBy(s.C, t)) })
				return nil
			}
			q.WhereP(sql.FieldEQ("is_active", true))
			return nil
		}),
	}
}
