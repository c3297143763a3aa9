package rest

import (
	"encoding/json"
	"net/http"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/webhookdelivery"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// webhookJSON is a webhook endpoint; its secret is shown only in the create answer.
type webhookJSON struct {
	ID             string    `json:"id"`
	FarmID         string    `json:"farm_id"`
	URL            string    `json:"url"`
	Description    *string   `json:"description"`
	EventTypes     []string  `json:"event_types"`
	Enabled        bool      `json:"enabled"`
	DisabledReason *string   `json:"disabled_reason"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

func newWebhookJSON(ep *ent.WebhookEndpoint) webhookJSON {
	types := ep.EventTypes
	if types == nil {
		types = []string{}
	}
	return webhookJSON{ID: ep.ID.String(), FarmID: ep.FarmID.String(), URL: ep.URL, Description: ep.Description,
		EventTypes: types, Enabled: ep.Enabled, DisabledReason: ep.DisabledReason,
		CreatedAt: ep.CreatedAt.UTC(), UpdatedAt: ep.UpdatedAt.UTC()}
}

// deliveryJSON is one event's delivery to one endpoint, with its attempt log.
type deliveryJSON struct {
	ID             string          `json:"id"`
	WebhookID      string          `json:"webhook_id"`
	EventID        string          `json:"event_id"`
	EventType      string          `json:"event_type"`
	Status         string          `json:"status"`
	Attempts       int             `json:"attempts"`
	NextAttemptAt  *time.Time      `json:"next_attempt_at"`
	LastStatusCode *int            `json:"last_status_code"`
	LastError      *string         `json:"last_error"`
	DeliveredAt    *time.Time      `json:"delivered_at"`
	CreatedAt      time.Time       `json:"created_at"`
	UpdatedAt      time.Time       `json:"updated_at"`
	Payload        json.RawMessage `json:"payload"`
	AttemptLog     []attemptJSON   `json:"attempt_log"`
}

type attemptJSON struct {
	ID         string    `json:"id"`
	StatusCode *int      `json:"status_code"`
	Error      *string   `json:"error"`
	Response   *string   `json:"response"`
	DurationMS int64     `json:"duration_ms"`
	CreatedAt  time.Time `json:"created_at"`
}

func newDeliveryJSON(d *ent.WebhookDelivery) deliveryJSON {
	out := deliveryJSON{ID: d.ID.String(), WebhookID: d.EndpointID.String(), EventID: d.EventID.String(),
		Status: string(d.Status), Attempts: d.Attempts, LastStatusCode: d.LastStatusCode, LastError: d.LastError,
		DeliveredAt: utcPtr(d.DeliveredAt), CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
		Payload: json.RawMessage("null"), AttemptLog: make([]attemptJSON, 0, len(d.Edges.AttemptLog))}
	if d.Status == webhookdelivery.StatusPENDING {
		out.NextAttemptAt = utcPtr(&d.NextAttemptAt)
	}
	if ev := d.Edges.Event; ev != nil {
		out.EventType = ev.Type
		if json.Valid(ev.Payload) {
			out.Payload = ev.Payload
		}
	}
	for _, a := range d.Edges.AttemptLog {
		out.AttemptLog = append(out.AttemptLog, attemptJSON{ID: a.ID.String(), StatusCode: a.StatusCode, Error: a.Error,
			Response: a.Response, DurationMS: a.DurationMs, CreatedAt: a.CreatedAt.UTC()})
	}
	return out
}

func (h *Handler) listWebhooks(w http.ResponseWriter, r *http.Request) {
	farmList(h, h.svc.Webhooks, newWebhookJSON)(w, r)
}

type webhookCreateBody struct {
	URL         *string          `json:"url"`
	EventTypes  []string         `json:"event_types"`
	Description nullable[string] `json:"description" text:"prose"`
	Enabled     nullable[bool]   `json:"enabled"`
}

func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b webhookCreateBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	if b.URL == nil {
		fe.add("url", "is required")
	}
	if b.EventTypes == nil {
		fe.add("event_types", "is required: a list such as [\"record.created\"]")
	}
	enabled := notNull(&fe, "enabled", b.Enabled)
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	ep, secret, err := h.svc.CreateWebhook(r.Context(), farmID, herdbook.WebhookInput{
		URL: *b.URL, EventTypes: b.EventTypes, Description: b.Description.ptr(), Enabled: enabled,
	})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, map[string]any{"webhook": newWebhookJSON(ep), "secret": secret})
}

func (h *Handler) getWebhook(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "webhook_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	ep, err := h.svc.Webhook(r.Context(), farmID, id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"webhook": newWebhookJSON(ep)})
}

type webhookUpdateBody struct {
	URL         nullable[string]   `json:"url"`
	EventTypes  nullable[[]string] `json:"event_types"`
	Description nullable[string]   `json:"description" text:"prose"`
	Enabled     nullable[bool]     `json:"enabled"`
}

func (h *Handler) updateWebhook(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "webhook_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b webhookUpdateBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	patch := herdbook.WebhookPatch{
		URL:         notNull(&fe, "url", b.URL),
		Description: b.Description.optional(),
		Enabled:     notNull(&fe, "enabled", b.Enabled),
	}
	if types := notNull(&fe, "event_types", b.EventTypes); types != nil {
		patch.EventTypes = *types
		if patch.EventTypes == nil {
			patch.EventTypes = []string{}
		}
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	ep, err := h.svc.UpdateWebhook(r.Context(), farmID, id, patch)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"webhook": newWebhookJSON(ep)})
}

func (h *Handler) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "webhook_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if err := h.svc.DeleteWebhook(r.Context(), farmID, id); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "webhook_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := page(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	q := herdbook.WebhookDeliveryQuery{Page: p}
	if r.URL.Query().Has("status") {
		s := r.URL.Query().Get("status")
		q.Status = &s
	}
	ds, total, err := h.svc.WebhookDeliveries(r.Context(), farmID, id, q)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]deliveryJSON, len(ds))
	for i, d := range ds {
		out[i] = newDeliveryJSON(d)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": out})
}

func (h *Handler) replayWebhookDelivery(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "webhook_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	deliveryID, err := h.pathID(r, "delivery_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	d, err := h.svc.ReplayWebhookDelivery(r.Context(), farmID, id, deliveryID)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusAccepted, map[string]any{"delivery": newDeliveryJSON(d)})
}
