package graph

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/webhookdelivery"
	"github.com/herdbook/herdbook/graph/model"
)

// The functions below only translate between the service's webhook values and the graph's
// models.

func webhookIn(in model.WebhookCreateInput) herdbook.WebhookInput {
	return herdbook.WebhookInput{URL: in.URL, EventTypes: in.EventTypes, Description: in.Description, Enabled: in.Enabled}
}

func webhookPatchIn(in model.WebhookUpdateInput) herdbook.WebhookPatch {
	p := herdbook.WebhookPatch{URL: in.URL, EventTypes: in.EventTypes, Enabled: in.Enabled}
	if v, ok := in.Description.ValueOK(); ok {
		p.Description = herdbook.Optional[string]{Set: true, Value: v}
	}
	return p
}

func createdWebhook(ep *ent.WebhookEndpoint, secret string, err error) (*model.WebhookCreatePayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.WebhookCreatePayload{Webhook: model.Endpoint(ep), Secret: secret}, nil
}

func updatedWebhook(ep *ent.WebhookEndpoint, err error) (*model.WebhookUpdatePayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.WebhookUpdatePayload{Webhook: model.Endpoint(ep)}, nil
}

func deletedWebhook(id uuid.UUID, err error) (*model.WebhookDeletePayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.WebhookDeletePayload{DeletedWebhookID: id}, nil
}

func replayedDelivery(d *ent.WebhookDelivery, err error) (*model.WebhookDeliveryReplayPayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.WebhookDeliveryReplayPayload{Delivery: &model.WebhookDelivery{WebhookDelivery: d}}, nil
}

// orNull answers null for an id the viewer may not read, as farm(id:) does.
func orNull[T any](v *T, err error) (*T, error) {
	if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
		return nil, nil
	}
	return v, err
}

func webhookList(eps []*ent.WebhookEndpoint, _ int, err error) ([]*model.WebhookEndpoint, error) {
	return model.Endpoints(eps), err
}

// oneWebhook is webhook(farmID, id): null for an id the viewer may not read.
func oneWebhook(ep *ent.WebhookEndpoint, err error) (*model.WebhookEndpoint, error) {
	ep, err = orNull(ep, err)
	return model.Endpoint(ep), err
}

func deliveryQuery(status *webhookdelivery.Status, skip, take *int) herdbook.WebhookDeliveryQuery {
	q := herdbook.WebhookDeliveryQuery{Page: herdbook.Page{Take: take}}
	if skip != nil {
		q.Skip = *skip
	}
	if status != nil {
		s := string(*status)
		q.Status = &s
	}
	return q
}

func deliveryPage(ds []*ent.WebhookDelivery, total int, err error) (*model.WebhookDeliveryPage, error) {
	if err != nil {
		return nil, err
	}
	return &model.WebhookDeliveryPage{TotalCount: total, Nodes: model.Deliveries(ds)}, nil
}

func eventType(d *ent.WebhookDelivery) string {
	if d.Edges.Event == nil {
		return ""
	}
	return d.Edges.Event.Type
}

func eventPayload(d *ent.WebhookDelivery) (map[string]any, error) {
	out := map[string]any{}
	if d.Edges.Event == nil {
		return out, nil
	}
	return out, json.Unmarshal(d.Edges.Event.Payload, &out)
}

func idOf[T any](id T, err error) (T, error) { return id, err }

// offsetPage lays a page of an offset-paged list out as a connection: each element's cursor
// is its position (medicineCursor), pageInfo says what lies around the page.
func offsetPage[T any](skip int, xs []T, total int) ([]string, *model.OffsetPageInfo) {
	cursors := make([]string, len(xs))
	for i := range xs {
		cursors[i] = medicineCursor(skip + i)
	}
	info := &model.OffsetPageInfo{HasPreviousPage: skip > 0, HasNextPage: skip+len(xs) < total}
	if len(xs) > 0 {
		info.StartCursor, info.EndCursor = &cursors[0], &cursors[len(xs)-1]
	}
	return cursors, info
}

// webhookConnection is Farm.webhooks: the farm's webhooks paged by first and after.
func (r *Resolver) webhookConnection(ctx context.Context, farmID uuid.UUID, after *string, first *int) (*model.WebhookEndpointConnection, error) {
	p, err := medicinePage(after, first)
	if err != nil {
		return nil, err
	}
	eps, total, err := r.svc.Webhooks(ctx, farmID, p)
	if err != nil {
		return nil, err
	}
	cursors, info := offsetPage(p.Skip, eps, total)
	out := &model.WebhookEndpointConnection{TotalCount: total, PageInfo: info, Edges: make([]*model.WebhookEndpointEdge, len(eps))}
	for i, ep := range eps {
		out.Edges[i] = &model.WebhookEndpointEdge{Node: model.Endpoint(ep), Cursor: cursors[i]}
	}
	return out, nil
}

// deliveryConnection is WebhookEndpoint.deliveries: paged by first and after.
func (r *Resolver) deliveryConnection(ctx context.Context, ep *ent.WebhookEndpoint, status *webhookdelivery.Status, after *string, first *int) (*model.WebhookDeliveryConnection, error) {
	p, err := medicinePage(after, first)
	if err != nil {
		return nil, err
	}
	q := deliveryQuery(status, &p.Skip, p.Take)
	ds, total, err := r.svc.WebhookDeliveries(ctx, ep.FarmID, ep.ID, q)
	if err != nil {
		return nil, err
	}
	cursors, info := offsetPage(p.Skip, ds, total)
	out := &model.WebhookDeliveryConnection{TotalCount: total, PageInfo: info, Edges: make([]*model.WebhookDeliveryEdge, len(ds))}
	for i, d := range ds {
		out.Edges[i] = &model.WebhookDeliveryEdge{Node: &model.WebhookDelivery{WebhookDelivery: d}, Cursor: cursors[i]}
	}
	return out, nil
}

// withdrawalConnection is Farm.withdrawalsConnection: paged by first and after.
func (r *Resolver) withdrawalConnection(ctx context.Context, farmID uuid.UUID, asOf *string, after *string, first *int) (*model.AnimalWithdrawalConnection, error) {
	p, err := medicinePage(after, first)
	if err != nil {
		return nil, err
	}
	ws, total, err := r.svc.Withdrawals(ctx, farmID, orZero(asOf), p)
	if err != nil {
		return nil, err
	}
	cursors, info := offsetPage(p.Skip, ws, total)
	out := &model.AnimalWithdrawalConnection{TotalCount: total, PageInfo: info, Edges: make([]*model.AnimalWithdrawalEdge, len(ws))}
	for i := range ws {
		out.Edges[i] = &model.AnimalWithdrawalEdge{Node: &ws[i], Cursor: cursors[i]}
	}
	return out, nil
}

// webhookNode is node(id:) for the webhook types, tried when no other node has the id;
// notFound is the error to answer when none of them has it either.
func (r *Resolver) webhookNode(ctx context.Context, id uuid.UUID, notFound error) (ent.Noder, error) {
	n, err := r.svc.WebhookNode(ctx, id)
	switch v := n.(type) {
	case *ent.WebhookEndpoint:
		return &model.WebhookEndpoint{WebhookEndpoint: v}, nil
	case *ent.WebhookDelivery:
		return &model.WebhookDelivery{WebhookDelivery: v}, nil
	}
	if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
		return nil, notFound
	}
	return nil, err
}
