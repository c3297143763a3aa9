package graph

import (
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
	return &model.WebhookCreatePayload{Webhook: ep, Secret: secret}, nil
}

func updatedWebhook(ep *ent.WebhookEndpoint, err error) (*model.WebhookUpdatePayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.WebhookUpdatePayload{Webhook: ep}, nil
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
	return &model.WebhookDeliveryReplayPayload{Delivery: d}, nil
}

// orNull answers null for an id the viewer may not read, as farm(id:) does.
func orNull[T any](v *T, err error) (*T, error) {
	if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
		return nil, nil
	}
	return v, err
}

func webhookList(eps []*ent.WebhookEndpoint, _ int, err error) ([]*ent.WebhookEndpoint, error) {
	return eps, err
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
	return &model.WebhookDeliveryPage{TotalCount: total, Nodes: ds}, nil
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
