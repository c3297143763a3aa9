package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// IdempotentRequest remembers a write sent with an Idempotency-Key: while the first request
// runs it holds its place (status 0), so a concurrent duplicate waits instead of writing
// twice; afterwards it holds the answer that a retry with the same key and body replays.
type IdempotentRequest struct{ ent.Schema }

// Mixin of the IdempotentRequest.
func (IdempotentRequest) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the IdempotentRequest.
func (IdempotentRequest) Fields() []ent.Field {
	return []ent.Field{
		// Keys are per user: two users may pick the same key.
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		field.String("key").NotEmpty().MaxLen(255).Immutable(),
		// fingerprint is the SHA-256 of the method, path, query and body.
		field.String("fingerprint").NotEmpty().Immutable(),
		// status is the answer's HTTP status; 0 while the first request still runs.
		field.Int("status").Default(0),
		field.String("content_type").Default(""),
		field.Bytes("body").Optional(),
	}
}

// Indexes of the IdempotentRequest: one row per user and key, and the purge by age.
func (IdempotentRequest) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "key").Unique(),
		index.Fields("created_at"),
	}
}

// Annotations of the IdempotentRequest.
func (IdempotentRequest) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
