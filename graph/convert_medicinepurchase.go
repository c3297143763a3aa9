package graph

import (
	"context"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph/model"
)

func (r *Resolver) medicinePurchases(ctx context.Context, farmID uuid.UUID, after *string, first *int) (*model.MedicinePurchaseConnection, error) {
	p, err := medicinePage(after, first)
	if err != nil {
		return nil, err
	}
	ps, total, err := r.svc.MedicinePurchases(ctx, farmID, p)
	if err != nil {
		return nil, err
	}
	cursors, info := offsetPage(p.Skip, ps, total)
	conn := &model.MedicinePurchaseConnection{TotalCount: total, Edges: make([]*model.MedicinePurchaseEdge, len(ps)), PageInfo: info}
	for i, mp := range ps {
		conn.Edges[i] = &model.MedicinePurchaseEdge{Node: mp, Cursor: cursors[i]}
	}
	return conn, nil
}

func medicinePurchaseIn(in model.MedicinePurchaseCreateInput) herdbook.MedicinePurchaseInput {
	return herdbook.MedicinePurchaseInput{MedicineID: &in.MedicineID, Batch: &in.Batch, ExpiryDate: in.ExpiryDate,
		Quantity: &in.Quantity, QuantityUnit: &in.QuantityUnit, SupplierName: &in.SupplierName,
		SupplierAddress: &in.SupplierAddress, PurchasedOn: &in.PurchasedOn, DocumentReference: in.DocumentReference,
		FileID: in.FileID}
}
