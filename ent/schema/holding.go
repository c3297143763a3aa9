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

// Holding is a place where livestock are kept, as a national registry knows it: its official
// number under a scheme (a GB CPH, a German Betriebsnummer, …), its herd mark and keeper, and
// the rule set its statutory notices are due under (docs/registry.md). A holding may keep
// several farms (cattle and sheep under one CPH): they share its identity and its reporting.
type Holding struct{ ent.Schema }

// Mixin of the Holding.
func (Holding) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the Holding.
func (Holding) Fields() []ent.Field {
	return []ent.Field{
		field.String("scheme").NotEmpty().MaxLen(32).Comment("The identifier scheme, ICAR style: uk.cph, de.hitier.bnr, nl.ubn, ie.herd, nz.nait, au.nlis.pic."),
		field.String("identifier").NotEmpty().MaxLen(64).Comment("The holding's number in its scheme's canonical spelling."),
		field.String("name").Optional().Nillable().MaxLen(200),
		field.String("herd_mark").Optional().Nillable().MaxLen(32).Comment("The herd mark its ear tags carry, where the registry issues one."),
		field.String("keeper_name").NotEmpty().MaxLen(200),
		field.String("keeper_reference").Optional().Nillable().MaxLen(64).Comment("The keeper's own number at the registry, if any."),
		field.String("address").Optional().Nillable().MaxLen(1000),
		field.String("postcode").Optional().Nillable().MaxLen(20),
		field.String("country").MaxLen(2).Comment("ISO 3166-1 alpha-2 country code."),
		field.String("rule_set").NotEmpty().MaxLen(32).Comment("The statutory rule set its notices fall due under: gb_cts, de_hitier, eu_2021_520, nl_rvo."),
		field.String("herd_type").MaxLen(10).Default("beef").Comment("beef or dairy: a dairy calf's first tag is due sooner under gb_cts."),
		field.String("time_zone").NotEmpty().MaxLen(64).Comment("The IANA time zone whose days the holding's deadlines count."),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Edges of the Holding.
func (Holding) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("farms", HoldingFarm.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Holding: holdings are found by their number.
func (Holding) Indexes() []ent.Index {
	return []ent.Index{index.Fields("scheme", "identifier")}
}

// Annotations of the Holding: its graph type is written by hand (graph/registry.graphqls).
func (Holding) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// HoldingFarm links a farm to the holding that keeps it; a farm is on at most one holding.
type HoldingFarm struct{ ent.Schema }

// Fields of the HoldingFarm.
func (HoldingFarm) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(uuid.New).Immutable(),
		field.UUID("holding_id", uuid.UUID{}).Immutable(),
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.Time("created_at").Default(now).Immutable(),
		field.UUID("linked_by", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Edges of the HoldingFarm.
func (HoldingFarm) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("holding", Holding.Type).Ref("farms").Field("holding_id").Unique().Required().Immutable(),
	}
}

// Indexes of the HoldingFarm.
func (HoldingFarm) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id").Unique(), index.Fields("holding_id")}
}

// Annotations of the HoldingFarm.
func (HoldingFarm) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// NoticeSubmission is one submission of a statutory notice to its registry, and the
// registry's answer: the record that makes a notice sent, accepted or rejected. Notices
// themselves are derived from the book (package registry/notice) and named by a stable key;
// a submission names the notice by that key. An outbox fills this table idempotently: a
// submission's idempotency_key is unique, so a retry of the same attempt finds its row
// instead of reporting twice; state pending is a submission queued but not yet sent.
type NoticeSubmission struct{ ent.Schema }

// Mixin of the NoticeSubmission.
func (NoticeSubmission) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the NoticeSubmission.
func (NoticeSubmission) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("holding_id", uuid.UUID{}).Immutable(),
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.String("notice_key").NotEmpty().MaxLen(120).Immutable().Comment("The derived notice's stable key."),
		field.String("kind").NotEmpty().MaxLen(30).Immutable(),
		field.UUID("animal_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		field.String("idempotency_key").NotEmpty().MaxLen(200).Immutable(),
		field.Enum("state").Values("pending", "sent", "accepted", "rejected"),
		field.String("channel").NotEmpty().MaxLen(20).Comment("How it went: manual (the keeper reported it), file, or an adapter's name."),
		field.String("registry_reference").Optional().Nillable().MaxLen(200).Comment("The registry's receipt or reference."),
		field.String("cause").Optional().Nillable().MaxLen(1000).Comment("The registry's reason for a reject."),
		field.Time("sent_at").Optional().Nillable(),
		field.Time("answered_at").Optional().Nillable(),
		field.Int("attempts").NonNegative().Default(0),
		field.Time("next_attempt_at").Optional().Nillable(),
		field.Bytes("payload").Optional().Comment("The message as sent, byte for byte; for the outbox, the report (JSON) it hands the adapter, sent again as it was on a retry."),
		field.String("batch_id").Optional().Nillable().MaxLen(64).Comment("The outbox's batch: the submissions sent in one request, under this id (a registry's transaction id)."),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Indexes of the NoticeSubmission.
func (NoticeSubmission) Indexes() []ent.Index {
	return []ent.Index{
		// farm_id is in every unique key: a Citus cluster checks one on a single shard (docs/scaling.md).
		index.Fields("idempotency_key", "farm_id").Unique(),
		index.Fields("holding_id", "notice_key", "created_at"),
		index.Fields("state", "next_attempt_at"),
	}
}

// Annotations of the NoticeSubmission.
func (NoticeSubmission) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// RegistryCredential is a holding's credentials at its registry's web service, for the
// outbox that sends its notices (docs/registry.md, "Sending"). The password is kept sealed
// (AES-256-GCM under the operator's registry key, bound to the holding); it is never
// returned. Sending is the keeper's switch: off until an OWNER turns it on, and the outbox
// sends nothing at all until the operator configures an adapter and the key.
type RegistryCredential struct{ ent.Schema }

// Mixin of the RegistryCredential.
func (RegistryCredential) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the RegistryCredential.
func (RegistryCredential) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("holding_id", uuid.UUID{}).Immutable().Unique(),
		field.String("username").NotEmpty().MaxLen(200).Comment("The keeper's user name at the registry's web service."),
		field.Bytes("sealed_password").NotEmpty().Sensitive().Comment("The password, sealed: nonce then AES-256-GCM ciphertext, the holding's id as additional data."),
		field.String("key_id").NotEmpty().MaxLen(16).Comment("Which registry key sealed it: the first bytes of its SHA-256, hex."),
		field.Bool("sending").Default(false).Comment("Whether the outbox sends this holding's notices."),
		field.String("last_error").Optional().Nillable().MaxLen(1000).Comment("Why the outbox last could not use them, until they are changed."),
		field.UUID("updated_by", uuid.UUID{}).Optional().Nillable(),
	}
}

// Annotations of the RegistryCredential.
func (RegistryCredential) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
