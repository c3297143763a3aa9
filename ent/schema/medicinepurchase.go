package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// MedicinePurchase is a keeper's acquisition record of a veterinary medicine (GB VMR 2013
// reg. 17; EU 2019/6 Art. 108(2): supplier's name and address, proof of acquisition,
// quantity): the product on the farm's list, its batch and expiry, the quantity bought with
// its unit, the supplier, the date, and the document that proves it (a reference, an
// uploaded file, or both). It is a legal record kept five years: rows are never deleted.
type MedicinePurchase struct{ ent.Schema }

// Mixin of the MedicinePurchase.
func (MedicinePurchase) Mixin() []ent.Mixin { return []ent.Mixin{BaseMixin{}} }

// Fields of the MedicinePurchase.
func (MedicinePurchase) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("farm_id", uuid.UUID{}).Immutable(),
		field.UUID("medicine_id", uuid.UUID{}).Immutable(),
		field.String("batch").NotEmpty().MaxLen(200).Immutable(),
		field.String("expiry_date").Optional().Nillable().MaxLen(10).Immutable(),
		field.Float("quantity").Positive().Immutable(),
		field.String("quantity_unit").NotEmpty().MaxLen(200).Immutable(),
		field.String("supplier_name").NotEmpty().MaxLen(200).Immutable(),
		field.String("supplier_address").NotEmpty().MaxLen(1000).Immutable(),
		field.String("purchased_on").MaxLen(10).Immutable(),
		field.String("document_reference").Optional().Nillable().MaxLen(200).Immutable(),
		field.UUID("file_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		field.UUID("created_by", uuid.UUID{}).Optional().Nillable().Immutable(),
	}
}

// Indexes of the MedicinePurchase: the farm's list by date, and a batch's purchases for the
// stock balance and the book's supplier columns.
func (MedicinePurchase) Indexes() []ent.Index {
	return []ent.Index{index.Fields("farm_id", "purchased_on"), index.Fields("farm_id", "medicine_id", "batch")}
}

// Annotations of the MedicinePurchase: its graph type is written by hand (graph/medicine.graphqls).
func (MedicinePurchase) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
