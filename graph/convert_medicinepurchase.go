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
	conn := &model.MedicinePurchaseConnection{TotalCount: total, Edges: make([]*model.MedicinePurchaseEdge, len(ps)),
		PageInfo: &model.OffsetPageInfo{HasPreviousPage: p.Skip > 0, HasNextPage: p.Skip+len(ps) < total}}
	for i, mp := range ps {
		conn.Edges[i] = &model.MedicinePurchaseEdge{Node: mp, Cursor: medicineCursor(p.Skip + i)}
	}
	if len(ps) > 0 {
		first, last := conn.Edges[0].Cursor, conn.Edges[len(ps)-1].Cursor
		conn.PageInfo.StartCursor, conn.PageInfo.EndCursor = &first, &last
	}
	return conn, nil
}

func medicinePurchaseIn(in model.MedicinePurchaseCreateInput) herdbook.MedicinePurchaseInput {
	return herdbook.MedicinePurchaseInput{MedicineID: &in.MedicineID, Batch: &in.Batch, ExpiryDate: in.ExpiryDate,
		Quantity: &in.Quantity, QuantityUnit: &in.QuantityUnit, SupplierName: &in.SupplierName,
		SupplierAddress: &in.SupplierAddress, PurchasedOn: &in.PurchasedOn, DocumentReference: in.DocumentReference,
		FileID: in.FileID}
}
