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

// File is an uploaded blob of a farm, attachable to records.
type File struct{ ent.Schema }

// Mixin of the File.
func (File) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the File.
func (File) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.String("name").NotEmpty().MaxLen(255),
		field.String("mime_type").NotEmpty().MaxLen(100),
		field.Int64("size").NonNegative(),
		field.String("storage_key").NotEmpty().Immutable().Annotations(entgql.Skip()),
		field.Time("deleted_at").Optional().Nillable().Annotations(entgql.Skip()),
	}
}

// Edges of the File.
func (File) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("farm", Farm.Type).Ref("files").Field("farm_id").Unique().Required().Immutable().
			Annotations(entgql.Skip()),
		edge.To("records", Record.Type).Annotations(entgql.Skip()),
	}
}

// Indexes of the File.
func (File) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "is_active", "created_at")}
}

// Annotations of the File.
func (File) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput)}
}
