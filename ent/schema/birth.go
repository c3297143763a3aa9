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

	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
)

// BirthSettings is one version of a farm's birth-history settings. Rows are never changed:
// every PUT adds a version, so a preview can say which settings it was made with.
type BirthSettings struct{ ent.Schema }

// Mixin of the BirthSettings.
func (BirthSettings) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the BirthSettings.
func (BirthSettings) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.Int("version").Positive().Immutable(),
		field.JSON("settings", evidence.Settings{}).Immutable(),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Indexes of the BirthSettings.
func (BirthSettings) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "version").Unique()}
}

// Annotations of the BirthSettings.
func (BirthSettings) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// FollowUpProtocol is one version of a farm's follow-up protocol: the ordered steps a birth
// turns into tasks. No steps ship by default.
type FollowUpProtocol struct{ ent.Schema }

// Mixin of the FollowUpProtocol.
func (FollowUpProtocol) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the FollowUpProtocol.
func (FollowUpProtocol) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.Int("version").Positive().Immutable(),
		field.JSON("steps", []schematype.ProtocolStep{}).Immutable(),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Indexes of the FollowUpProtocol.
func (FollowUpProtocol) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "version").Unique()}
}

// Annotations of the FollowUpProtocol.
func (FollowUpProtocol) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// BirthPreview snapshots the evidence for a birth with the settings and protocol versions it
// was made with, and the tasks approval would create. A settings change makes it stale.
type BirthPreview struct{ ent.Schema }

// Mixin of the BirthPreview.
func (BirthPreview) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the BirthPreview.
func (BirthPreview) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm of the birth.").
			Annotations(entgql.Type("ID")),
		field.UUID("dam_id", uuid.UUID{}).Immutable().Comment("The mother.").
			Annotations(entgql.Type("ID")),
		field.String("birth_date").MaxLen(10).Immutable().Comment("The day of the birth.").
			Annotations(entgql.Type("Date")),
		field.Int("settings_version").NonNegative().Immutable().Comment("The birth-history settings version the evidence was reviewed with (0: none)."),
		field.Int("protocol_version").NonNegative().Immutable().Comment("The follow-up protocol version the tasks were planned with (0: none)."),
		field.JSON("evidence", evidence.Evidence{}).Immutable().Annotations(entgql.Skip()),
		field.JSON("tasks", []schematype.PlannedTask{}).Immutable().Annotations(entgql.Skip()),
		field.Bool("stale").Default(false).Comment("True once the settings or the protocol changed after the preview: approving it is refused; make a new one."),
		field.Time("approved_at").Optional().Nillable().Comment("When the preview was approved."),
		field.UUID("birth_event_id", uuid.UUID{}).Optional().Nillable().Comment("The birth its approval recorded.").
			Annotations(entgql.Type("ID")),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable().Comment("The user who asked for the preview.").
			Annotations(entgql.Type("ID")),
	}
}

// Indexes of the BirthPreview.
func (BirthPreview) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "stale")}
}

// Annotations of the BirthPreview.
func (BirthPreview) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput, entgql.SkipOrderField),
		schema.Comment("A snapshot of a birth's evidence with the settings and protocol versions it was made with, and the tasks approving it would create.")}
}

// BirthEvent is an approved birth. Approval is idempotent by the client's request id.
type BirthEvent struct{ ent.Schema }

// Mixin of the BirthEvent.
func (BirthEvent) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the BirthEvent.
func (BirthEvent) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm of the birth.").
			Annotations(entgql.Type("ID")),
		field.UUID("dam_id", uuid.UUID{}).Immutable().Comment("The mother.").
			Annotations(entgql.Type("ID")),
		field.String("birth_date").MaxLen(10).Immutable().Comment("The day of the birth.").
			Annotations(entgql.Type("Date")),
		field.UUID("preview_id", uuid.UUID{}).Immutable().Comment("The preview that was approved.").
			Annotations(entgql.Type("ID")),
		field.String("request_id").NotEmpty().MaxLen(200).Immutable().Comment("The client's request id that made approval idempotent."),
		field.Int("settings_version").NonNegative().Immutable().Comment("The settings version of the approved preview."),
		field.Int("protocol_version").NonNegative().Immutable().Comment("The protocol version the tasks were made from."),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable().Comment("The user who approved the birth.").
			Annotations(entgql.Type("ID")),
	}
}

// Edges of the BirthEvent.
func (BirthEvent) Edges() []ent.Edge {
	return []ent.Edge{
		// The graph's BirthEvent.tasks is hand-written (graph/birth.graphqls): it keeps the
		// order by step of the tasks the service loaded.
		edge.To("tasks", FarmTask.Type).Annotations(entgql.Skip()),
	}
}

// Indexes of the BirthEvent: a request id is used once per farm.
func (BirthEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "request_id").Unique()}
}

// Annotations of the BirthEvent.
func (BirthEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput, entgql.SkipOrderField),
		schema.Comment("An approved birth, with the follow-up tasks its approval created.")}
}

// FarmTask is a follow-up task of a birth.
type FarmTask struct{ ent.Schema }

// Mixin of the FarmTask.
func (FarmTask) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the FarmTask.
func (FarmTask) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm of the task.").
			Annotations(entgql.Type("ID")),
		field.UUID("birth_event_id", uuid.UUID{}).Immutable().Comment("The birth the task follows up."),
		field.String("name").NotEmpty().MaxLen(200).Comment("What to do: the protocol step's name."),
		field.Enum("status").Values("TODO", "DONE", "CANCELLED").Default("TODO").Comment("Where the task stands.").
			Annotations(entgql.Type("TaskStatus")),
		field.Time("due_date").Optional().Nillable().Comment("The due day as midnight UTC, or null when undated.").
			Annotations(entgql.Directives(entgql.Deprecated("A calendar day, not an instant: use dueOn, a Date."))),
		field.Int("protocol_version").NonNegative().Immutable().Comment("The protocol version the task was made from."),
		field.Int("step").NonNegative().Immutable().Comment("The task's step in that protocol, from 0."),
		changeSeq(),
	}
}

// Edges of the FarmTask.
func (FarmTask) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("birth_event", BirthEvent.Type).Ref("tasks").Field("birth_event_id").Unique().Required().Immutable().
			Comment("The birth the task follows up."),
		// The graph's FollowUpTask.animals is hand-written (graph/birth.graphqls): it reads the
		// animals the task list loaded with the page, deleted ones included.
		// Through FarmTaskAnimal, so that each link names its farm (docs/scaling.md).
		edge.To("animals", Animal.Type).Through("animal_links", FarmTaskAnimal.Type).Annotations(entgql.Skip()),
	}
}

// Indexes of the FarmTask: the farm's list filters by status and sorts by due date.
func (FarmTask) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "status", "due_date"), index.Fields("farm_id", "change_seq"), index.Fields("birth_event_id")}
}

// Annotations of the FarmTask.
func (FarmTask) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Type("FollowUpTask"), entgql.RelayConnection(), entgql.Skip(entgql.SkipWhereInput, entgql.SkipOrderField),
		schema.Comment("A follow-up task of an approved birth, made from a step of the farm's follow-up protocol.")}
}

// FarmTaskAnimal links a follow-up task to an animal it is about (FarmTask.animals), with the
// task's farm: the key a Citus cluster keeps a farm's rows together by (docs/scaling.md).
type FarmTaskAnimal struct{ ent.Schema }

// Annotations of the FarmTaskAnimal: keyed by the task and the animal, as ent's join table was.
func (FarmTaskAnimal) Annotations() []schema.Annotation {
	return []schema.Annotation{field.ID("farm_task_id", "animal_id"), entgql.Skip(entgql.SkipAll)}
}

// Fields of the FarmTaskAnimal.
func (FarmTaskAnimal) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_task_id", uuid.UUID{}).Immutable(),
		field.UUID("animal_id", uuid.UUID{}).Immutable(),
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
	}
}

// Edges of the FarmTaskAnimal: a link goes with its task or its animal.
func (FarmTaskAnimal) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("farm_task", FarmTask.Type).Unique().Required().Immutable().Field("farm_task_id").
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("animal", Animal.Type).Unique().Required().Immutable().Field("animal_id").
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// TaskUpdate remembers the answer to a farm-task update made with a request id, so that a
// retried request replays it and a reused id with another body is refused.
type TaskUpdate struct{ ent.Schema }

// Mixin of the TaskUpdate.
func (TaskUpdate) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the TaskUpdate.
func (TaskUpdate) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.String("request_id").NotEmpty().MaxLen(200).Immutable(),
		field.UUID("task_id", uuid.UUID{}).Immutable(),
		field.String("body_hash").NotEmpty().Immutable(),
		// snapshot is the first answer, replayed to a retry with the same body.
		field.Bytes("snapshot").Immutable(),
	}
}

// Indexes of the TaskUpdate.
func (TaskUpdate) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "request_id").Unique()}
}

// Annotations of the TaskUpdate.
func (TaskUpdate) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
