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

// FarmSettings holds a farm's own rules for its herd book and medicine book: its time zone,
// the withdrawal rule set it keeps, and the biological limits it checks histories against.
// Every limit is unset until the farm sets it (Herdbook ships no biological or
// pharmaceutical defaults); a farm without a row has every setting unset.
type FarmSettings struct{ ent.Schema }

// Mixin of the FarmSettings.
func (FarmSettings) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the FarmSettings.
func (FarmSettings) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.String("time_zone").Optional().Nillable().
			Comment("The farm's IANA time zone: bare dates are local dates of the farm."),
		field.String("withdrawal_rules").Optional().Nillable().
			Comment("The named statutory rule set for off-label (cascade) withdrawal minimums."),
		field.Bool("organic").Default(false),
		field.Bool("allow_test_tags").Default(false),
		field.Int("minimum_breeding_age_female_days").Optional().Nillable(),
		field.Int("minimum_breeding_age_male_days").Optional().Nillable(),
		field.Int("minimum_calving_interval_days").Optional().Nillable(),
		field.JSON("calving_ease_scale", []schematype.CalvingEaseGrade{}).Optional().
			Comment("The farm's calving-ease scale; unset (null) until the farm sets one, and calving ease is refused until then."),
		field.JSON("weaning_age_of_dam", []schematype.AgeOfDamAdjustment{}).Optional().
			Comment("The farm's age-of-dam adjustments of the 205-day weaning weight; none applied while unset."),
		field.UUID("updated_by", uuid.UUID{}).Optional().Nillable(),
	}
}

// Indexes of the FarmSettings.
func (FarmSettings) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id").Unique()}
}

// Annotations of the FarmSettings.
func (FarmSettings) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
