package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
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
		// Through FileRecord, so that each link names its farm (docs/scaling.md).
		edge.To("records", Record.Type).Through("record_links", FileRecord.Type).Annotations(entgql.Skip()),
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

// FileRecord links a file to a record it is attached to (File.records), with the file's farm:
// the key a Citus cluster keeps a farm's rows together by (docs/scaling.md).
type FileRecord struct{ ent.Schema }

// Annotations of the FileRecord: keyed by the file and the record, as ent's join table was.
func (FileRecord) Annotations() []schema.Annotation {
	return []schema.Annotation{field.ID("file_id", "record_id"), entgql.Skip(entgql.SkipAll)}
}

// Fields of the FileRecord.
func (FileRecord) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("file_id", uuid.UUID{}).Immutable(),
		field.UUID("record_id", uuid.UUID{}).Immutable(),
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
	}
}

// Edges of the FileRecord: a link goes with its file or its record.
func (FileRecord) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("file", File.Type).Unique().Required().Immutable().Field("file_id").
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("record", Record.Type).Unique().Required().Immutable().Field("record_id").
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}
