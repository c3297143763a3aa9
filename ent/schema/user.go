package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// User is a person who signs in with a phone number and password and belongs to farms.
type User struct{ ent.Schema }

// Mixin of the User.
func (User) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("full_name").Optional().Nillable().MaxLen(200).Comment("The user's name as they gave it."),
		field.String("phone_number_local").NotEmpty().MaxLen(40).Unique().Comment("The phone number the user signs in with, digits only."),
		// email is where EMAIL notifications go; users without one receive none.
		field.String("email").Optional().Nillable().MaxLen(254).Comment("Where EMAIL notifications go; without one, none are sent."),
		field.String("password_hash").Optional().Sensitive().
			Annotations(entgql.Skip()),
	}
}

// Edges of the User.
func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("memberships", FarmMember.Type).Annotations(entgql.Skip()),
	}
}

// Annotations of the User.
func (User) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput, entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
		schema.Comment("A person who signs in and belongs to farms. Only the signed-in user (viewer) is readable.")}
}
