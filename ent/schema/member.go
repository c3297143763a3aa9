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

// FarmMember is a user's membership of a farm with a role: OWNER above EDITOR above READER.
type FarmMember struct{ ent.Schema }

// Mixin of the FarmMember.
func (FarmMember) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the FarmMember.
func (FarmMember) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm of the membership."),
		field.UUID("user_id", uuid.UUID{}).Immutable().Comment("The member."),
		field.Enum("role").Values("OWNER", "EDITOR", "READER").Comment("What the member may do: OWNER above EDITOR above READER."),
	}
}

// Edges of the FarmMember.
func (FarmMember) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("farm", Farm.Type).Ref("members").Field("farm_id").Unique().Required().Immutable().Comment("The farm."),
		edge.From("user", User.Type).Ref("memberships").Field("user_id").Unique().Required().Immutable().Comment("The member."),
	}
}

// Indexes of the FarmMember: one membership per user and farm, and the lookups by user.
func (FarmMember) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("farm_id", "user_id").Unique(),
		index.Fields("user_id", "is_active"),
	}
}

// Annotations of the FarmMember.
func (FarmMember) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput),
		schema.Comment("A user's membership of a farm, with a role.")}
}
