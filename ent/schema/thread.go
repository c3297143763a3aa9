package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// Thread is a farm's discussion; every farm starts with a welcome thread.
type Thread struct{ ent.Schema }

// Mixin of the Thread.
func (Thread) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the Thread.
func (Thread) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm of the thread."),
		field.String("title").NotEmpty().MaxLen(200).Comment("The thread's title (1 to 200 characters)."),
		field.Bool("is_private").Default(false).Comment("Private threads are read only by their creator and the farm's OWNERs."),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable().Comment("The user who opened the thread; null for the welcome thread.").
			Annotations(entgql.Type("ID")),
	}
}

// Edges of the Thread.
func (Thread) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("farm", Farm.Type).Ref("threads").Field("farm_id").Unique().Required().Immutable().
			Annotations(entgql.Skip()),
		edge.To("messages", Message.Type).Comment("The thread's messages, all of them, oldest first.").
			Annotations(entgql.Directives(entgql.Deprecated("Unbounded: use messagesConnection, a paged connection with totalCount."))),
	}
}

// Indexes of the Thread.
func (Thread) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "is_active", "created_at")}
}

// Annotations of the Thread.
func (Thread) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput), entgql.RelayConnection(),
		schema.Comment("A discussion of a farm's members; every farm starts with a welcome thread.")}
}

// Message is a member's post in a thread.
type Message struct{ ent.Schema }

// Mixin of the Message.
func (Message) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the Message.
func (Message) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("thread_id", uuid.UUID{}).Immutable().Comment("The thread the message is in."),
		field.UUID("author_id", uuid.UUID{}).Immutable().Comment("The user who wrote the message.").
			Annotations(entgql.Type("ID")),
		field.String("body").NotEmpty().MaxLen(10000).Comment("The text (1 to 10000 characters)."),
		field.UUID("farm_id", uuid.UUID{}).Immutable().
			Comment("The farm of the thread, the key a Citus cluster keeps a farm's rows together by (docs/scaling.md).").
			Annotations(entgql.Skip()),
	}
}

// Edges of the Message.
func (Message) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("thread", Thread.Type).Ref("messages").Field("thread_id").Unique().Required().Immutable().
			Annotations(entgql.Skip()),
	}
}

// Indexes of the Message.
func (Message) Indexes() []ent.Index {
	return []ent.Index{index.Fields("thread_id", "created_at")}
}

// Annotations of the Message.
func (Message) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput), entgql.RelayConnection(),
		schema.Comment("A member's post in a thread.")}
}
