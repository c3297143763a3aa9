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

// Animal is one animal of a farm. Its biological facts are not columns: they are dated
// birth_history facts in record items, so that history stays evidence.
type Animal struct{ ent.Schema }

// Mixin of the Animal.
func (Animal) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the Animal.
func (Animal) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm the animal belongs to."),
		field.String("tag").NotEmpty().MaxLen(100).Comment("The animal's ear tag or other identifying mark (1 to 100 characters).").
			Annotations(entgql.OrderField("TAG")),
		field.String("name").Optional().Nillable().MaxLen(200).Comment("The animal's name, if it has one."),
		changeSeq(),
	}
}

// Edges of the Animal.
func (Animal) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("farm", Farm.Type).Ref("animals").Field("farm_id").Unique().Required().Immutable().
			Annotations(entgql.Skip()),
		edge.From("records", Record.Type).Ref("animals").Annotations(entgql.Skip()),
		edge.From("farm_tasks", FarmTask.Type).Ref("animals").Annotations(entgql.Skip()),
	}
}

// Indexes of the Animal.
func (Animal) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "is_active", "created_at"), index.Fields("farm_id", "change_seq"),
		// The register pages in tag order (its cursor is the tag and the id).
		index.Fields("farm_id", "tag", "id")}
}

// Annotations of the Animal.
func (Animal) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection(),
		schema.Comment("An animal of a farm. Its biological history (sex, birth, movements, exposures) is kept as dated birth_history facts in record items.")}
}

// Group is a named set of a farm's animals. It has no member links: its members on any day,
// today's included, are the animals its dated membership facts place in it.
type Group struct{ ent.Schema }

// Mixin of the Group.
func (Group) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the Group.
func (Group) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm the group belongs to."),
		field.String("name").NotEmpty().MaxLen(200).Comment("The group's name (1 to 200 characters).").
			Annotations(entgql.OrderField("NAME")),
	}
}

// Edges of the Group.
func (Group) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("farm", Farm.Type).Ref("groups").Field("farm_id").Unique().Required().Immutable().
			Annotations(entgql.Skip()),
		edge.From("records", Record.Type).Ref("groups").Annotations(entgql.Skip()),
	}
}

// Indexes of the Group.
func (Group) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "is_active", "created_at")}
}

// Annotations of the Group.
func (Group) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection(),
		schema.Comment("A named set of a farm's animals, such as a herd or a pen. Its members on any day, today's included, are those its dated membership facts (birth_history facts) place in it.")}
}
