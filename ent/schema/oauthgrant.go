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

// The OAuth entities below store every code and token only as a SHA-256 hash (oauth.Hash):
// a copy of the database gives nobody a usable credential. Single-use credentials carry a
// used_at (or consumed_at) stamp that is set by a conditional UPDATE … WHERE used_at IS NULL,
// so that redemption is atomic on SQLite and PostgreSQL alike.

// OAuthGrant is one user's consent to one client, from an authorization code or a device
// code, and the family of every access and refresh token issued under it. Revoking the grant
// revokes the whole family: that is what a replayed code or a reused refresh token does.
type OAuthGrant struct{ ent.Schema }

// Mixin of the OAuthGrant.
func (OAuthGrant) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the OAuthGrant.
func (OAuthGrant) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("client_id", uuid.UUID{}).Immutable(),
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		// Scopes are the most the family may ever carry: a refresh may narrow, never widen.
		field.Strings("scopes").Immutable(),
		field.Enum("source").Values("authorization_code", "device_code").Immutable(),
		field.Time("revoked_at").Optional().Nillable(),
		field.String("revoke_reason").Optional().MaxLen(200),
	}
}

// Edges of the OAuthGrant.
func (OAuthGrant) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("client", OAuthClient.Type).Field("client_id").Unique().Required().Immutable(),
		edge.To("user", User.Type).Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the OAuthGrant.
func (OAuthGrant) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id"), index.Fields("client_id")}
}

// Annotations of the OAuthGrant.
func (OAuthGrant) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// OAuthCode is an authorization code: bound to its client, user, exact redirect_uri and PKCE
// challenge, alive for at most ten minutes, redeemable once.
type OAuthCode struct{ ent.Schema }

// Mixin of the OAuthCode.
func (OAuthCode) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the OAuthCode.
func (OAuthCode) Fields() []ent.Field {
	return []ent.Field{
		field.String("code_hash").NotEmpty().Unique().Immutable().Sensitive(),
		field.UUID("client_id", uuid.UUID{}).Immutable(),
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		field.String("redirect_uri").NotEmpty().MaxLen(2048).Immutable(),
		field.Strings("scopes").Immutable(),
		// The S256 challenge; empty when a confidential client sent none.
		field.String("code_challenge").Optional().MaxLen(128).Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("used_at").Optional().Nillable(),
		// The grant the redemption made, so that a replay can revoke it.
		field.UUID("grant_id", uuid.UUID{}).Optional().Nillable(),
	}
}

// Edges of the OAuthCode.
func (OAuthCode) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("client", OAuthClient.Type).Field("client_id").Unique().Required().Immutable(),
		edge.To("user", User.Type).Field("user_id").Unique().Required().Immutable(),
		edge.To("grant", OAuthGrant.Type).Field("grant_id").Unique(),
	}
}

// Indexes of the OAuthCode.
func (OAuthCode) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at"), index.Fields("client_id"), index.Fields("user_id"), index.Fields("grant_id")}
}

// Annotations of the OAuthCode.
func (OAuthCode) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// RefreshToken is a refresh credential of one grant. It is rotated on use: the used token
// gets used_at and its successor is issued in the same transaction. Presenting a used token
// again is reuse, and revokes the grant.
type RefreshToken struct{ ent.Schema }

// Mixin of the RefreshToken.
func (RefreshToken) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the RefreshToken.
func (RefreshToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("token_hash").NotEmpty().Unique().Immutable().Sensitive(),
		field.UUID("grant_id", uuid.UUID{}).Immutable(),
		field.UUID("client_id", uuid.UUID{}).Immutable(),
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		field.Strings("scopes").Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("used_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the RefreshToken.
func (RefreshToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("grant", OAuthGrant.Type).Field("grant_id").Unique().Required().Immutable(),
		edge.To("client", OAuthClient.Type).Field("client_id").Unique().Required().Immutable(),
		edge.To("user", User.Type).Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the RefreshToken.
func (RefreshToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("grant_id"), index.Fields("expires_at"), index.Fields("client_id"), index.Fields("user_id")}
}

// Annotations of the RefreshToken.
func (RefreshToken) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// DeviceAuthorization is one run of the device flow (RFC 8628): the device holds the
// device code, the user types the user code into the verification page and approves or
// denies; the device's poll then consumes the approval, once.
type DeviceAuthorization struct{ ent.Schema }

// Mixin of the DeviceAuthorization.
func (DeviceAuthorization) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the DeviceAuthorization.
func (DeviceAuthorization) Fields() []ent.Field {
	return []ent.Field{
		field.String("device_code_hash").NotEmpty().Unique().Immutable().Sensitive(),
		// Hash of the normalized user code (upper case, no dash).
		field.String("user_code_hash").NotEmpty().Unique().Immutable().Sensitive(),
		field.UUID("client_id", uuid.UUID{}).Immutable(),
		field.Strings("scopes").Immutable(),
		field.Enum("status").Values("pending", "approved", "denied").Default("pending"),
		field.UUID("user_id", uuid.UUID{}).Optional().Nillable(),
		field.Time("expires_at").Immutable(),
		// Seconds the device must wait between polls; slow_down adds five.
		field.Int("interval").Positive(),
		// The earliest time of the next poll; a poll before it answers slow_down.
		field.Time("next_poll_at").Optional().Nillable(),
		field.Time("decided_at").Optional().Nillable(),
		field.Time("consumed_at").Optional().Nillable(),
		field.UUID("grant_id", uuid.UUID{}).Optional().Nillable(),
	}
}

// Edges of the DeviceAuthorization.
func (DeviceAuthorization) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("client", OAuthClient.Type).Field("client_id").Unique().Required().Immutable(),
		edge.To("user", User.Type).Field("user_id").Unique(),
		edge.To("grant", OAuthGrant.Type).Field("grant_id").Unique(),
	}
}

// Indexes of the DeviceAuthorization.
func (DeviceAuthorization) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at"), index.Fields("client_id"), index.Fields("user_id"), index.Fields("grant_id")}
}

// Annotations of the DeviceAuthorization.
func (DeviceAuthorization) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// BrowserSession is a user signed in to the OAuth pages (sign-in, consent, device
// verification). It lives in the database so that any API node can serve the next page.
type BrowserSession struct{ ent.Schema }

// Mixin of the BrowserSession.
func (BrowserSession) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the BrowserSession.
func (BrowserSession) Fields() []ent.Field {
	return []ent.Field{
		field.String("token_hash").NotEmpty().Unique().Immutable().Sensitive(),
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		field.Time("expires_at"),
	}
}

// Edges of the BrowserSession.
func (BrowserSession) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("user", User.Type).Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the BrowserSession.
func (BrowserSession) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at"), index.Fields("user_id")}
}

// Annotations of the BrowserSession.
func (BrowserSession) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// APIKey is a deprecated legacy credential, sent as X-API-Key: bound to one user and a
// scope set, stored as a hash, made by `herdbook admin key create`. Deactivating it
// (is_active false) revokes it.
type APIKey struct{ ent.Schema }

// Mixin of the APIKey.
func (APIKey) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the APIKey.
func (APIKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("key_hash").NotEmpty().Unique().Immutable().Sensitive(),
		field.String("name").NotEmpty().MaxLen(200),
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		field.Strings("scopes"),
		field.Time("expires_at").Optional().Nillable(),
	}
}

// Edges of the APIKey.
func (APIKey) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("user", User.Type).Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the APIKey.
func (APIKey) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id")}
}

// Annotations of the APIKey.
func (APIKey) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
