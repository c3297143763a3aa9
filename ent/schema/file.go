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
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm the file belongs to."),
		field.String("name").NotEmpty().MaxLen(255).Comment("The file name the uploader gave."),
		field.String("mime_type").NotEmpty().MaxLen(100).Comment("The media type sniffed from the content at upload."),
		field.Int64("size").NonNegative().Comment("The size in bytes."),
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
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput), entgql.RelayConnection(),
		schema.Comment("An uploaded file of a farm; its bytes are at /v1/file/{id}/content. It can be attached to records.")}
}
