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

// WebhookEndpoint is a URL a farm's OWNER registered to hear about the farm's changes. It
// receives the event types it names, signed with its own secret (Standard Webhooks).
type WebhookEndpoint struct{ ent.Schema }

// Mixin of the WebhookEndpoint.
func (WebhookEndpoint) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the WebhookEndpoint.
func (WebhookEndpoint) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.String("url").NotEmpty().MaxLen(2000),
		field.String("description").Optional().Nillable().MaxLen(500),
		field.JSON("event_types", []string{}),
		// secret is the whsec_ string shown once at creation. It is kept in clear because
		// every delivery is signed with it; only the farm's OWNERs' requests create it.
		field.String("secret").NotEmpty().Immutable().Sensitive(),
		field.Bool("enabled").Default(true),
		// disabled_reason says why delivery stopped by itself (a 410 Gone answer).
		field.String("disabled_reason").Optional().Nillable().MaxLen(300),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Edges of the WebhookEndpoint: deleting an endpoint deletes its deliveries and their log.
func (WebhookEndpoint) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("deliveries", WebhookDelivery.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the WebhookEndpoint.
func (WebhookEndpoint) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "created_at")}
}

// Annotations of the WebhookEndpoint.
func (WebhookEndpoint) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// WebhookEvent is one change of a farm, written to this outbox in the transaction of the
// change. payload is the exact body every endpoint receives, so that retries and replays
// send the same bytes under the same webhook-id (the event's id).
type WebhookEvent struct{ ent.Schema }

// Mixin of the WebhookEvent.
func (WebhookEvent) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the WebhookEvent.
func (WebhookEvent) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.String("type").NotEmpty().MaxLen(50).Immutable(),
		field.UUID("subject_id", uuid.UUID{}).Immutable(),
		field.Bytes("payload").Immutable(),
	}
}

// Edges of the WebhookEvent.
func (WebhookEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("deliveries", WebhookDelivery.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the WebhookEvent.
func (WebhookEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "created_at")}
}

// Annotations of the WebhookEvent.
func (WebhookEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// WebhookDelivery is one event on its way to one endpoint. Workers lease rows (lease_until,
// leased_by) so that each is delivered by one of them, as notifications are.
type WebhookDelivery struct{ ent.Schema }

// Mixin of the WebhookDelivery.
func (WebhookDelivery) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the WebhookDelivery.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.UUID("endpoint_id", uuid.UUID{}).Immutable(),
		field.UUID("event_id", uuid.UUID{}).Immutable(),
		field.Enum("status").Values("PENDING", "SUCCEEDED", "FAILED").Default("PENDING"),
		// attempts counts the attempts since the delivery was queued or last replayed; the
		// log (WebhookAttempt) keeps every attempt.
		field.Int("attempts").NonNegative().Default(0),
		field.Time("next_attempt_at"),
		field.Time("lease_until").Optional().Nillable(),
		field.String("leased_by").Optional().Nillable().MaxLen(100),
		field.Int("last_status_code").Optional().Nillable(),
		field.String("last_error").Optional().Nillable().MaxLen(1000),
		field.Time("delivered_at").Optional().Nillable(),
	}
}

// Edges of the WebhookDelivery.
func (WebhookDelivery) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("endpoint", WebhookEndpoint.Type).Ref("deliveries").Field("endpoint_id").Unique().Required().Immutable(),
		edge.From("event", WebhookEvent.Type).Ref("deliveries").Field("event_id").Unique().Required().Immutable(),
		edge.To("attempt_log", WebhookAttempt.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the WebhookDelivery: one delivery per event and endpoint, the workers' queue,
// and an endpoint's log.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		// farm_id is in every unique key: a Citus cluster checks one on a single shard (docs/scaling.md).
		index.Fields("event_id", "endpoint_id", "farm_id").Unique(),
		index.Fields("status", "next_attempt_at"),
		index.Fields("endpoint_id", "created_at"),
	}
}

// Annotations of the WebhookDelivery.
func (WebhookDelivery) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// WebhookAttempt is one try of a delivery: what the receiver answered, or why it could not.
type WebhookAttempt struct{ ent.Schema }

// Mixin of the WebhookAttempt.
func (WebhookAttempt) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the WebhookAttempt.
func (WebhookAttempt) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("delivery_id", uuid.UUID{}).Immutable(),
		field.Int("status_code").Optional().Nillable().Immutable(),
		field.String("error").Optional().Nillable().MaxLen(1000).Immutable(),
		// response is the start of the receiver's answer, for debugging a refusal.
		field.String("response").Optional().Nillable().MaxLen(1000).Immutable(),
		field.Int64("duration_ms").NonNegative().Immutable(),
		field.String("worker").Optional().MaxLen(100).Immutable(),
		// farm_id is the delivery's farm, the key a Citus cluster keeps a farm's rows together
		// by (docs/scaling.md).
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
	}
}

// Edges of the WebhookAttempt.
func (WebhookAttempt) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("delivery", WebhookDelivery.Type).Ref("attempt_log").Field("delivery_id").Unique().Required().Immutable(),
	}
}

// Indexes of the WebhookAttempt.
func (WebhookAttempt) Indexes() []ent.Index {
	return []ent.Index{index.Fields("delivery_id", "created_at")}
}

// Annotations of the WebhookAttempt.
func (WebhookAttempt) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// ChangeCounter is a farm's change sequence (id = the farm's id), or, under the nil UUID,
// the sequence of farm-level changes (the farms list). A write transaction takes the next
// number with an upsert that holds the row until it commits, so numbers become visible in
// order and a change-feed cursor never skips a change committed later.
type ChangeCounter struct{ ent.Schema }

// Fields of the ChangeCounter.
func (ChangeCounter) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Immutable(),
		field.Int64("seq").NonNegative().Default(0),
		// The farm's active records, kept by the change-tracking hooks in the transaction
		// that creates or deletes them (the counter row is held until it commits), so that
		// a list's exact total costs a primary-key read instead of counting the farm.
		field.Int64("records").NonNegative().Default(0).
			Comment("How many active records the farm has; kept with every record write."),
	}
}

// Annotations of the ChangeCounter.
func (ChangeCounter) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// changeSeq is the change_seq field of the entities the change feed lists: the number of the
// last transaction that changed the row, from the farm's ChangeCounter (the global one for
// farms). The change-tracking hooks set it; nothing else may.
func changeSeq() ent.Field {
	return field.Int64("change_seq").Default(0).Annotations(entgql.Skip())
}
