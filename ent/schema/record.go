package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/schema/schematype"
)

// Record is an event applied to animals and/or groups of a farm.
type Record struct{ ent.Schema }

// Mixin of the Record.
func (Record) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}, BookMixin{}} }

// Fields of the Record.
func (Record) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm the record belongs to."),
		field.Enum("type").Values("OTHER", "FEED", "GENETIC", "HEALTH", "MOVEMENT").Comment("What kind of event the record is."),
		field.String("name").NotEmpty().MaxLen(200).Comment("A short title (1 to 200 characters).").
			Annotations(entgql.OrderField("NAME")),
		field.String("description").Optional().Nillable().MaxLen(10000).Comment("Free text, up to 10000 characters."),
		field.Time("applied_at").Comment("When the event happened.").
			Annotations(entgql.OrderField("APPLIED_AT")),
		field.Bool("acknowledge_withdrawal").Default(false).
			Comment("True when whoever wrote the record acknowledged that it moves, sells or slaughters an animal still under a medicine's meat withdrawal."),
		changeSeq(),
	}
}

// Edges of the Record.
func (Record) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("farm", Farm.Type).Ref("records").Field("farm_id").Unique().Required().Immutable().
			Annotations(entgql.Skip()),
		// Through RecordAnimal and RecordGroup, so that each link names its farm
		// (docs/scaling.md).
		edge.To("animals", Animal.Type).Through("animal_links", RecordAnimal.Type).Comment("The animals the record applies to, all of them.").
			Annotations(entgql.Directives(entgql.Deprecated("Unbounded: use animalsConnection, a paged connection with totalCount."))),
		edge.To("groups", Group.Type).Through("group_links", RecordGroup.Type).Comment("The groups the record applies to."),
		edge.To("items", RecordItem.Type).Comment("The record's lines, oldest first; one may carry a birth_history fact."),
		edge.From("files", File.Type).Ref("records").Comment("The files attached to the record."),
	}
}

// Indexes of the Record: the farm's list of active records is ordered by created_at then
// id, which this partial index answers in order, without sorting the farm's records (the
// soft-delete filter is the bare condition "is_active", which SQLite matches with the
// index's WHERE but cannot use as a column of an index).
func (Record) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("farm_id", "created_at", "id").Annotations(entsql.IndexWhere("is_active")).StorageKey("record_farm_id_created_at_id_active"),
		index.Fields("farm_id", "change_seq"),
	}
}

// Annotations of the Record.
func (Record) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection(),
		schema.Comment("Something that happened to animals and groups of a farm: a feeding, a treatment, a movement, a birth history fact.")}
}

// RecordItem is one line of a record; its metadata may carry a birth_history fact.
type RecordItem struct{ ent.Schema }

// Mixin of the RecordItem.
func (RecordItem) Mixin() []ent.Mixin {
	return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}, BookMixin{}}
}

// Fields of the RecordItem.
func (RecordItem) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("record_id", uuid.UUID{}).Immutable().Comment("The record the item belongs to."),
		field.String("name").Optional().Nillable().MaxLen(200).Comment("A short title, up to 200 characters."),
		field.String("description").Optional().Nillable().MaxLen(10000).Comment("Free text, up to 10000 characters."),
		// A column of its own type rather than field.JSON: ent would decode every row's text
		// with encoding/json; schematype.Metadata scans it as it is (same jsonb/json column).
		field.Other("metadata", schematype.Metadata{}).
			SchemaType(map[string]string{dialect.Postgres: "jsonb", dialect.SQLite: "json"}).Optional().Comment("Free-form JSON; its birth_history key, when present, is a dated fact the birth review reads.").
			Annotations(entgql.Type("Map")),
		// The birth_history fact of the metadata, kept in indexed columns by the service so
		// that the evidence review loads the facts of a few animals, not the farm's history.
		field.String("fact_kind").Optional().Nillable().MaxLen(20).Annotations(entgql.Skip()),
		field.UUID("fact_subject", uuid.UUID{}).Optional().Nillable().Annotations(entgql.Skip()),
		field.UUID("fact_dam", uuid.UUID{}).Optional().Nillable().Annotations(entgql.Skip()),
		field.UUID("fact_group", uuid.UUID{}).Optional().Nillable().Annotations(entgql.Skip()),
		field.String("fact_date").Optional().Nillable().MaxLen(10).Annotations(entgql.Skip()),
		field.String("fact_until").Optional().Nillable().MaxLen(10).Annotations(entgql.Skip()),
		// The canonical value of an identifier fact, so that identifiers are found by value.
		field.String("fact_value").Optional().Nillable().MaxLen(64).Annotations(entgql.Skip()),
		// The last 6 decimal digits of an identifier fact's value, so that the last 4 to 6
		// digits a stockman reads off a tag find the animal by an indexed lookup.
		field.String("fact_tail").Optional().Nillable().MaxLen(6).Annotations(entgql.Skip()),
		field.UUID("farm_id", uuid.UUID{}).Immutable().
			Comment("The farm of the item's record, the key a Citus cluster keeps a farm's rows together by (docs/scaling.md).").
			Annotations(entgql.Skip()),
	}
}

// Edges of the RecordItem.
func (RecordItem) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("record", Record.Type).Ref("items").Field("record_id").Unique().Required().Immutable().
			Annotations(entgql.Skip()),
		edge.To("fact_animals", FactAnimal.Type).Comment("Every animal the item's fact names.").
			Annotations(entgql.Skip()),
		edge.To("reach", TreatmentReach.Type).Comment("The animals a group treatment reached when it was recorded.").
			Annotations(entgql.Skip()),
	}
}

// Indexes of the RecordItem.
func (RecordItem) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("record_id", "is_active"),
		// An animal's facts of some kinds: a group treatment's reach reads every membership,
		// membership_end and departure of the group's members, and the withdrawal guard their
		// departures. With the kind in the index an animal with a long history (a weighing a
		// month) costs the few facts of those kinds, not a heap fetch for each of its facts
		// (docs/performance.md, issue 32.5). Its prefix serves an animal's facts of any kind.
		index.Fields("fact_subject", "fact_kind"),
		index.Fields("fact_dam"),
		// A group's facts of a kind on a day: the birth review's bulls that ran with the dam's
		// groups (review_mates) filter a group's memberships by their dates, and its exposures
		// are her groups' ones. The index carries all that those parts read, the item's id and
		// farm included, so they read the index alone rather than the row of each of a group's
		// memberships: as key columns, since SQLite has no INCLUDE (PostgreSQL keeps only the
		// columns that tell entries apart in its inner pages, so they cost it next to nothing
		// more) (docs/performance.md, issue 32.4).
		index.Fields("fact_group", "fact_kind", "fact_date", "fact_until", "fact_subject", "record_id", "is_active", "id", "farm_id").
			StorageKey("recorditem_group_review"),
		// The males' profiles: the birth review keeps the members of the dam's groups that
		// are recorded males (review_mates), a look-up by member. Partial, so it holds only
		// the facts that say male (only a profile has a sex) and answers without reading the
		// items' metadata; the review's statement writes the condition as a literal for the
		// planner to match it (docs/performance.md, issue 32.4). The condition names no
		// column that statements compare with an argument: SQLite prepares a statement again
		// when it binds an argument compared where a partial index's condition has a literal
		// (fact_kind = ? against fact_kind = 'profile' did that to every statement of facts).
		index.Fields("fact_subject", "fact_kind").
			Annotations(entsql.IncludeColumns("record_id", "is_active", "farm_id"),
				entsql.IndexWhere("metadata -> 'birth_history' ->> 'sex' = 'male'")).
			StorageKey("recorditem_male_fact"),
		index.Fields("fact_value", "fact_kind"),
		index.Fields("fact_tail", "fact_kind"),
		index.Fields("fact_kind", "fact_date"),
	}
}

// Annotations of the RecordItem.
func (RecordItem) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipWhereInput),
		schema.Comment("One line of a record.")}
}

// FactAnimal links a record item's birth_history fact to each animal it names (the subject,
// a dam, a sire, every offspring), so that an animal's facts load by one indexed lookup
// whatever role it has in them. The service writes it with the item.
type FactAnimal struct{ ent.Schema }

// Fields of the FactAnimal.
func (FactAnimal) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(uuid.New).Immutable().Comment("The link's id."),
		field.UUID("record_item_id", uuid.UUID{}).Immutable().Comment("The item whose fact names the animal."),
		field.UUID("animal_id", uuid.UUID{}).Immutable().Comment("The animal the fact names."),
		field.UUID("farm_id", uuid.UUID{}).Immutable().
			Comment("The farm of the item, the key a Citus cluster keeps a farm's rows together by (docs/scaling.md)."),
	}
}

// Edges of the FactAnimal.
func (FactAnimal) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("record_item", RecordItem.Type).Ref("fact_animals").Field("record_item_id").
			Unique().Required().Immutable().Annotations(entgql.Skip()),
	}
}

// Indexes of the FactAnimal.
func (FactAnimal) Indexes() []ent.Index {
	// farm_id is in every unique key: a Citus cluster checks one on a single shard (docs/scaling.md).
	return []ent.Index{index.Fields("animal_id"), index.Fields("record_item_id", "animal_id", "farm_id").Unique()}
}

// Annotations of the FactAnimal.
func (FactAnimal) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll),
		schema.Comment("A link from a birth_history fact to an animal it names.")}
}

// TreatmentReach is one animal a group treatment reached, stored when the treatment was
// recorded: the members its group's membership facts placed in the group on the treatment's
// date at that moment. A later correction of membership may add animals to the treatment but
// never removes these (a food-safety record does not shrink silently).
type TreatmentReach struct{ ent.Schema }

// Fields of the TreatmentReach.
func (TreatmentReach) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(uuid.New).Immutable().Comment("The row's id."),
		field.UUID("farm_id", uuid.UUID{}).Immutable().Comment("The farm of the treatment."),
		field.UUID("record_item_id", uuid.UUID{}).Immutable().Comment("The item that holds the treatment fact."),
		field.UUID("animal_id", uuid.UUID{}).Immutable().Comment("An animal the treatment reached."),
		field.UUID("membership_item_id", uuid.UUID{}).Optional().Nillable().Immutable().
			Comment("The membership fact that placed the animal in the group, when one did."),
	}
}

// Edges of the TreatmentReach.
func (TreatmentReach) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("record_item", RecordItem.Type).Ref("reach").Field("record_item_id").
			Unique().Required().Immutable().Annotations(entgql.Skip()),
	}
}

// Indexes of the TreatmentReach.
func (TreatmentReach) Indexes() []ent.Index {
	// farm_id is in every unique key: a Citus cluster checks one on a single shard (docs/scaling.md).
	return []ent.Index{index.Fields("record_item_id", "animal_id", "farm_id").Unique(), index.Fields("farm_id", "animal_id")}
}

// Annotations of the TreatmentReach.
func (TreatmentReach) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll),
		schema.Comment("An animal a group treatment reached, stored when it was recorded.")}
}

// RecordAnimal links a record to an animal it applies to (Record.animals), with the record's
// farm: the key a Citus cluster keeps a farm's rows together by (docs/scaling.md).
type RecordAnimal struct{ ent.Schema }

// Annotations of the RecordAnimal: keyed by the record and the animal, as ent's join table was.
func (RecordAnimal) Annotations() []schema.Annotation {
	return []schema.Annotation{field.ID("record_id", "animal_id"), entgql.Skip(entgql.SkipAll)}
}

// Fields of the RecordAnimal.
func (RecordAnimal) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("record_id", uuid.UUID{}).Immutable(),
		field.UUID("animal_id", uuid.UUID{}).Immutable(),
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
	}
}

// Edges of the RecordAnimal: a link goes with its record or its animal.
func (RecordAnimal) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("record", Record.Type).Unique().Required().Immutable().Field("record_id").
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("animal", Animal.Type).Unique().Required().Immutable().Field("animal_id").
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// RecordGroup links a record to a group it applies to (Record.groups), with the record's farm
// (docs/scaling.md).
type RecordGroup struct{ ent.Schema }

// Annotations of the RecordGroup: keyed by the record and the group, as ent's join table was.
func (RecordGroup) Annotations() []schema.Annotation {
	return []schema.Annotation{field.ID("record_id", "group_id"), entgql.Skip(entgql.SkipAll)}
}

// Fields of the RecordGroup.
func (RecordGroup) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("record_id", uuid.UUID{}).Immutable(),
		field.UUID("group_id", uuid.UUID{}).Immutable(),
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
	}
}

// Edges of the RecordGroup: a link goes with its record or its group.
func (RecordGroup) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("record", Record.Type).Unique().Required().Immutable().Field("record_id").
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("group", Group.Type).Unique().Required().Immutable().Field("group_id").
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}
