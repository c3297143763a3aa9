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

// Medicine is a product on a farm's medicine list, with the withdrawal periods of its label as
// the farmer entered them. Nothing ships by default. The row holds the current version; every
// change of the periods adds a MedicineVersion, so treatments keep the periods they were given
// under.
type Medicine struct{ ent.Schema }

// Mixin of the Medicine.
func (Medicine) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}, SoftDeleteMixin{}} }

// Fields of the Medicine.
func (Medicine) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.String("name").NotEmpty().MaxLen(200),
		field.String("active_substance").Optional().Nillable().MaxLen(200),
		field.Int("version").Positive(),
		field.Int("withdrawal_meat_days").NonNegative().Optional().Nillable().
			Comment("The label's meat withdrawal in days for species without a line of their own; null: not authorised."),
		field.Int("withdrawal_milk_hours").NonNegative().Optional().Nillable().
			Comment("The label's milk withdrawal in hours for species without a line of their own; null: not authorised."),
		field.JSON("species_withdrawals", []schematype.SpeciesWithdrawal{}).Optional(),
		field.Bool("dry_cow").Default(false).Comment("A dry-cow product: its milk period counts from calving."),
	}
}

// Indexes of the Medicine: the farm's list is ordered by created_at then id.
func (Medicine) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "is_active", "created_at")}
}

// Annotations of the Medicine: the graph's Medicine type is written by hand (graph/medicine.graphqls).
func (Medicine) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// MedicineVersion is one version of a medicine's withdrawal periods. Rows are never changed.
type MedicineVersion struct{ ent.Schema }

// Mixin of the MedicineVersion.
func (MedicineVersion) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the MedicineVersion.
func (MedicineVersion) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("medicine_id", uuid.UUID{}).Immutable(),
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.Int("version").Positive().Immutable(),
		field.Int("withdrawal_meat_days").NonNegative().Optional().Nillable().Immutable(),
		field.Int("withdrawal_milk_hours").NonNegative().Optional().Nillable().Immutable(),
		field.JSON("species_withdrawals", []schematype.SpeciesWithdrawal{}).Optional().Immutable(),
		field.Bool("dry_cow").Default(false).Immutable(),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Indexes of the MedicineVersion.
func (MedicineVersion) Indexes() []ent.Index {
	// farm_id is in every unique key: a Citus cluster checks one on a single shard (docs/scaling.md).
	return []ent.Index{index.Fields("medicine_id", "version", "farm_id").Unique(), index.Fields("farm_id")}
}

// Annotations of the MedicineVersion.
func (MedicineVersion) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
