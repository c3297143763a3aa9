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

// OAuthClient is a registered OAuth 2.0 client. There is no self-serve registration:
// `herdbook admin client create` makes them.
type OAuthClient struct{ ent.Schema }

// Mixin of the OAuthClient.
func (OAuthClient) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the OAuthClient.
func (OAuthClient) Fields() []ent.Field {
	return []ent.Field{
		field.String("client_id").NotEmpty().MaxLen(255).Unique().Immutable(),
		field.String("name").NotEmpty().MaxLen(200),
		field.String("secret_hash").Optional().Sensitive(),
		field.Strings("redirect_uris").Optional(),
		field.Strings("scopes"),
		field.Bool("public").Default(false),
		field.Bool("observer").Default(false),
	}
}

// Edges of the OAuthClient.
func (OAuthClient) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("tokens", AccessToken.Type),
	}
}

// Annotations of the OAuthClient.
func (OAuthClient) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// AccessToken is an issued bearer credential. Only the SHA-256 of the token is stored, so a
// database leak does not leak usable tokens.
type AccessToken struct{ ent.Schema }

// Mixin of the AccessToken.
func (AccessToken) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the AccessToken.
func (AccessToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("token_hash").NotEmpty().Unique().Immutable().Sensitive(),
		field.UUID("client_id", uuid.UUID{}).Immutable(),
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		field.Strings("scopes"),
		field.Time("expires_at"),
		field.Time("revoked_at").Optional().Nillable(),
		// The grant (token family) an OAuth flow issued the token under; nil for tokens
		// issued by `herdbook admin token issue`.
		field.UUID("grant_id", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Edges of the AccessToken.
func (AccessToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("client", OAuthClient.Type).Ref("tokens").Field("client_id").Unique().Required().Immutable(),
		edge.To("user", User.Type).Field("user_id").Unique().Required().Immutable(),
		edge.To("grant", OAuthGrant.Type).Field("grant_id").Unique().Immutable(),
	}
}

// Indexes of the AccessToken.
func (AccessToken) Indexes() []ent.Index {
	// client_id: revoking or deleting a client finds its tokens.
	return []ent.Index{index.Fields("user_id"), index.Fields("expires_at"), index.Fields("grant_id"), index.Fields("client_id")}
}

// Annotations of the AccessToken.
func (AccessToken) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
