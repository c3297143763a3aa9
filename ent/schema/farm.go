package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Species lists the species a farm may keep; each farm keeps exactly one.
var Species = []string{"BISON", "CATTLE", "ELK", "GOAT", "HORSE", "OTHER", "SHEEP"}

// Farm is a holding of one species with members, animals, groups and records.
type Farm struct{ ent.Schema }

// Mixin of the Farm.
func (Farm) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the Farm.
func (Farm) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").MinLen(2).MaxLen(200).Comment("The farm's name (2 to 200 characters).").
			Annotations(entgql.OrderField("NAME")),
		field.Bool("allow_private_threads").Default(false).Comment("Whether members may open private threads."),
		field.Time("current_month_start").Optional().Nillable().Comment("The start of the farm's current accounting month, if set."),
		field.Enum("species").Values(Species...).Comment("The one species the farm keeps."),
		field.String("species_other").Optional().Nillable().MaxLen(100).Comment("The species' own name when species is OTHER, or a breed note."),
		changeSeq(),
	}
}

// Edges of the Farm.
func (Farm) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("members", FarmMember.Type).Comment("The farm's active members with their roles."),
		edge.To("animals", Animal.Type).Annotations(entgql.Skip()),
		edge.To("groups", Group.Type).Annotations(entgql.Skip()),
		edge.To("records", Record.Type).Annotations(entgql.Skip()),
		edge.To("threads", Thread.Type).Annotations(entgql.Skip()),
		edge.To("files", File.Type).Annotations(entgql.Skip()),
	}
}

// Indexes of the Farm.
func (Farm) Indexes() []ent.Index {
	return []ent.Index{index.Fields("created_at"), index.Fields("change_seq")}
}

// Annotations of the Farm.
func (Farm) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection(),
		schema.Comment("A holding of one species, with members, animals, groups, records, files and threads.")}
}
