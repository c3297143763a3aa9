package model

import "github.com/herdbook/herdbook/ent"

// WebhookEndpoint is a webhook as a Node: ent keeps the webhook types out of its generated
// graph (they are managed by hand in graph/webhook.graphqls), so the Node marker is added
// here, as for Medicine.
type WebhookEndpoint struct{ *ent.WebhookEndpoint }

// IsNode marks WebhookEndpoint as a Node.
func (WebhookEndpoint) IsNode() {}

// WebhookDelivery is a delivery as a Node (see WebhookEndpoint).
type WebhookDelivery struct{ *ent.WebhookDelivery }

// IsNode marks WebhookDelivery as a Node.
func (WebhookDelivery) IsNode() {}

// Endpoints wraps endpoints for the graph.
func Endpoints(eps []*ent.WebhookEndpoint) []*WebhookEndpoint {
	out := make([]*WebhookEndpoint, len(eps))
	for i, ep := range eps {
		out[i] = &WebhookEndpoint{ep}
	}
	return out
}

// Deliveries wraps deliveries for the graph.
func Deliveries(ds []*ent.WebhookDelivery) []*WebhookDelivery {
	out := make([]*WebhookDelivery, len(ds))
	for i, d := range ds {
		out[i] = &WebhookDelivery{d}
	}
	return out
}

// Endpoint wraps one endpoint; nil stays nil.
func Endpoint(ep *ent.WebhookEndpoint) *WebhookEndpoint {
	if ep == nil {
		return nil
	}
	return &WebhookEndpoint{ep}
}
