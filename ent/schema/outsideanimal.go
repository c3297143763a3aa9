package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// OutsideAnimal is an animal that never stands on the farm but is a parent of its animals:
// an AI sire whose semen the farm buys, an embryo-transfer donor. It is named where an
// animal id is taken as a sire or a donor (services, births, DNA results, the review and
// the pedigree), never on the farm's register or herd lists. Its id is a random UUID like an
// animal's, so a fact names either kind of animal by one field.
type OutsideAnimal struct{ ent.Schema }

// Mixin of the OutsideAnimal.
func (OutsideAnimal) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the OutsideAnimal.
func (OutsideAnimal) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.String("name").NotEmpty().MaxLen(200).Comment("The animal's name as the registry or the catalogue gives it."),
		field.String("sex").MaxLen(6).Comment("male or female."),
		field.String("breed").Optional().Nillable().MaxLen(100),
		field.String("registry").Optional().Nillable().MaxLen(200).Comment("The herd book or breed society that registers it."),
		field.String("registration_number").Optional().Nillable().MaxLen(64),
		field.String("batch").Optional().Nillable().MaxLen(200).Comment("The semen or embryo batch (or code) the farm holds."),
		field.String("birth_date").Optional().Nillable().MaxLen(10),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Indexes of the OutsideAnimal: the farm's list by name.
func (OutsideAnimal) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "name")}
}

// Annotations of the OutsideAnimal: its graph type is written by hand (graph/breeding.graphqls).
func (OutsideAnimal) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
