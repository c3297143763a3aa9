package schema

import (
	"context"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/ent/schema/trail"
)

// BookMixin makes an entity an entry of a legal book (a record, a record item): it says who
// wrote it and when (recorded_by, recorded_at), and, once it is voided or superseded by a
// corrected entry, who took it out, when and why. Nothing is erased: a voided entry keeps
// its row (is_active false) and stays readable as the book stood before (known_at).
type BookMixin struct{ mixin.Schema }

// Fields of the BookMixin.
func (BookMixin) Fields() []ent.Field {
	return []ent.Field{
		// Nullable in the database only so that the column could be added to the tables
		// (SQLite adds no NOT NULL column without a constant default); every row has it: new
		// ones from the default, older ones from their created_at (migration book_audit_trail).
		field.Time("recorded_at").Default(now).Optional().Immutable().
			Comment("When the entry was written into the book (UTC): not when the event happened, which may be earlier (a backdated entry)."),
		field.UUID("recorded_by_user_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("The user whose token wrote the entry; null for entries written before authors were kept, or by the operator's command line.").
			Annotations(entgql.Type("ID")),
		field.String("recorded_by_client_id").Optional().Nillable().Immutable().MaxLen(255).
			Comment("The OAuth client (or legacy key) the entry was written through; null when unknown."),
		field.Time("voided_at").Optional().Nillable().
			Comment("When the entry was voided, deleted or superseded by a corrected entry; null while it is in force."),
		field.UUID("voided_by_user_id", uuid.UUID{}).Optional().Nillable().
			Comment("The user who voided, deleted or amended the entry.").
			Annotations(entgql.Type("ID")),
		field.String("voided_by_client_id").Optional().Nillable().MaxLen(255).
			Comment("The OAuth client the entry was voided through."),
		field.String("void_reason").Optional().Nillable().MaxLen(1000).
			Comment("Why the entry was voided or amended, as its writer gave it."),
		field.UUID("amends_id", uuid.UUID{}).Optional().Nillable().
			Comment("The entry this one corrects (amend), null for an original entry.").
			Annotations(entgql.Type("ID")),
		field.UUID("superseded_by_id", uuid.UUID{}).Optional().Nillable().
			Comment("The corrected entry that replaced this one (amend), null while it is not superseded.").
			Annotations(entgql.Type("ID")),
	}
}

// Hooks of the BookMixin: every write stamps its author, and every change is written to
// the audit trail in its transaction.
func (BookMixin) Hooks() []ent.Hook { return []ent.Hook{trail.Stamp(), trail.Hook(IncludeInactive)} }

type knownAtKey struct{}

// KnownAt returns a context in which queries of book entries (records and record items)
// see the book as it stood at t: entries recorded by t and not voided by t, active or not
// today. Without it they see the active entries, as every soft-deleted entity.
func KnownAt(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, knownAtKey{}, t.UTC())
}

// KnownAtFrom returns the time KnownAt put in ctx.
func KnownAtFrom(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(knownAtKey{}).(time.Time)
	return t, ok
}

// bookTypes are the entities that carry BookMixin.
var bookTypes = map[string]bool{"Record": true, "RecordItem": true}

// KnownBy is the condition that keeps the book entries in force at t: recorded at or
// before t and not voided at or before t. col names a column of the entries' table (a
// selector's C).
func KnownBy(col func(string) string, t time.Time) *sql.Predicate {
	return sql.And(
		sql.LTE(col("recorded_at"), t),
		sql.Or(sql.IsNull(col("voided_at")), sql.GT(col("voided_at"), t)),
	)
}

// AuditEntry is one line of a farm's audit trail: who changed which record or record item,
// when, why, with the values before and after. Entries are only ever appended, in the
// transaction of the change they describe.
type AuditEntry struct{ ent.Schema }

// Fields of the AuditEntry.
func (AuditEntry) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(newV7).Immutable().Comment("The entry's id: time-ordered (UUID version 7)."),
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm whose book changed.").
			Annotations(entgql.Type("ID")),
		field.Time("at").Immutable().Comment("When the change was made (UTC).").
			Annotations(entgql.OrderField("AT")),
		field.UUID("user_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("The user who made the change; null when unknown (the operator's command line).").
			Annotations(entgql.Type("ID")),
		field.String("client_id").Optional().Nillable().Immutable().MaxLen(255).
			Comment("The OAuth client (or legacy key) the change came through."),
		field.String("action").Immutable().MaxLen(20).
			Comment("What was done: create, update, delete, void or amend."),
		field.String("entity").Immutable().MaxLen(20).
			Comment("What changed: record or record_item."),
		field.UUID("record_id", uuid.UUID{}).Immutable().Comment("The record changed, or the record of the item changed.").
			Annotations(entgql.Type("ID")),
		field.UUID("record_item_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("The record item changed; null for a change of the record itself.").
			Annotations(entgql.Type("ID")),
		field.String("reason").Optional().Nillable().Immutable().MaxLen(1000).
			Comment("Why, as the writer gave it (required to void or amend)."),
		field.Other("old_value", schematype.Metadata{}).
			SchemaType(map[string]string{dialect.Postgres: "jsonb", dialect.SQLite: "json"}).Optional().Immutable().
			Comment("The entry as it was before the change; null for a creation.").
			Annotations(entgql.Type("Map")),
		field.Other("new_value", schematype.Metadata{}).
			SchemaType(map[string]string{dialect.Postgres: "jsonb", dialect.SQLite: "json"}).Optional().Immutable().
			Comment("The entry as it was after the change.").
			Annotations(entgql.Type("Map")),
	}
}

// Indexes of the AuditEntry: a farm's trail is read in time order, whole or for one record
// or user.
func (AuditEntry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("farm_id", "at", "id"),
		index.Fields("record_id"),
		index.Fields("farm_id", "user_id", "at"),
	}
}

// Hooks of the AuditEntry: the trail is append-only.
func (AuditEntry) Hooks() []ent.Hook { return []ent.Hook{trail.AppendOnly()} }

// Annotations of the AuditEntry.
func (AuditEntry) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection(), entgql.Skip(entgql.SkipWhereInput, entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
		schema.Comment("One change of a farm's book: who changed which record or record item, when, why, and the values before and after.")}
}

// newV7 is a time-ordered UUID, so that entries written together keep their order.
func newV7() uuid.UUID { return uuid.Must(uuid.NewV7()) }
