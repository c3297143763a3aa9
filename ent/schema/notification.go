package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/schema/schematype"
)

// ScheduledEvent is something that fell due on a farm: a task's due date, a birth window
// opening, or an administrator's test. The unique key (farm, kind, subject, due_on) makes
// creating the same event again a no-op, however many scheduler nodes race to create it.
type ScheduledEvent struct{ ent.Schema }

// Mixin of the ScheduledEvent.
func (ScheduledEvent) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the ScheduledEvent.
func (ScheduledEvent) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.Enum("kind").Values("task_due", "birth_window_opening", "test", "withdrawal_ending", "notice_due").Immutable(),
		// subject names what fell due: a task id, a birth window's label, a test's own id, a
		// treatment's record item id with ":meat" or ":milk", a statutory notice's key.
		field.String("subject").NotEmpty().MaxLen(200).Immutable(),
		// due_on is the calendar day (UTC, YYYY-MM-DD) the subject fell due on; a task whose
		// due date moves falls due again on the new day.
		field.String("due_on").MaxLen(10).Immutable(),
		field.Time("due_at").Immutable(),
		field.JSON("payload", schematype.EventPayload{}).Immutable(),
		// recipient_id and channel narrow a test event to one user and one channel.
		field.UUID("recipient_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		field.String("channel").Optional().Nillable().MaxLen(10).Immutable(),
		// processed_at is set once the event's notifications exist.
		field.Time("processed_at").Optional().Nillable(),
	}
}

// Indexes of the ScheduledEvent.
func (ScheduledEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("farm_id", "kind", "subject", "due_on").Unique(),
		index.Fields("processed_at", "due_at"),
	}
}

// Annotations of the ScheduledEvent.
func (ScheduledEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Notification is one message to one farm member on one channel about one scheduled event.
// The unique key (scheduled_event_id, user_id, type) makes the fan-out idempotent. Workers
// lease rows (lease_until, leased_by) so that each is delivered by one of them.
type Notification struct{ ent.Schema }

// Mixin of the Notification.
func (Notification) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the Notification.
func (Notification) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm the notification is about.").
			Annotations(entgql.Type("ID")),
		field.UUID("user_id", uuid.UUID{}).Immutable().Comment("The recipient.").
			Annotations(entgql.Type("ID")),
		field.UUID("scheduled_event_id", uuid.UUID{}).Immutable().Comment("The event that fell due and caused the notification.").
			Annotations(entgql.Type("ID")),
		field.Enum("type").Values("EMAIL", "IN_APP", "SMS").Immutable().Comment("The channel it goes out on."),
		field.Enum("status").Values("FAILED", "PENDING", "SENT").Default("PENDING").Comment("PENDING until a delivery succeeds (SENT) or the attempts run out (FAILED)."),
		// recipient is the address the message goes to: an email address or a phone number,
		// captured at fan-out; empty for IN_APP.
		field.String("recipient").Optional().MaxLen(254).Annotations(entgql.Skip()),
		field.String("title").MaxLen(300).Comment("A one-line summary."),
		field.String("body").MaxLen(4000).Comment("The message text."),
		field.Int("attempts").NonNegative().Default(0).Comment("How many deliveries were tried."),
		field.Time("next_attempt_at").Comment("When the next delivery is tried, while PENDING."),
		field.Time("lease_until").Optional().Nillable().Annotations(entgql.Skip()),
		field.String("leased_by").Optional().Nillable().MaxLen(100).Annotations(entgql.Skip()),
		field.Time("sent_at").Optional().Nillable().Comment("When the delivery succeeded."),
		field.String("error_message").Optional().Nillable().MaxLen(1000).Comment("Why the last delivery failed."),
		field.Time("read_at").Optional().Nillable().Comment("When the recipient marked it read."),
	}
}

// Indexes of the Notification: the fan-out key, the workers' queue, and the farm's lists.
func (Notification) Indexes() []ent.Index {
	return []ent.Index{
		// farm_id is in every unique key: a Citus cluster checks one on a single shard (docs/scaling.md).
		index.Fields("scheduled_event_id", "user_id", "type", "farm_id").Unique(),
		index.Fields("status", "next_attempt_at"),
		index.Fields("farm_id", "user_id", "created_at"),
		index.Fields("farm_id", "status", "created_at"),
	}
}

// Annotations of the Notification.
func (Notification) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.RelayConnection(),
		entgql.Skip(entgql.SkipWhereInput, entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput),
		schema.Comment("One message to one farm member on one channel about something that fell due."),
	}
}

// NotificationPreference is a user's choice of channels, for one farm or (farm_id nil UUID)
// for every farm without its own row. Without any row, the role's defaults apply.
type NotificationPreference struct{ ent.Schema }

// Mixin of the NotificationPreference.
func (NotificationPreference) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the NotificationPreference.
func (NotificationPreference) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		// farm_id is the nil UUID for the user's default, so that the unique index holds
		// (NULLs never collide in a unique index).
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.Bool("email"),
		field.Bool("sms"),
		field.Bool("in_app"),
	}
}

// Indexes of the NotificationPreference.
func (NotificationPreference) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id", "farm_id").Unique()}
}

// Annotations of the NotificationPreference.
func (NotificationPreference) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
