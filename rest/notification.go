package rest

import (
	"net/http"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// notificationJSON is SPEC.md's Notification.
type notificationJSON struct {
	ID               string     `json:"id"`
	Status           string     `json:"status"`
	Type             string     `json:"type"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
	UserID           string     `json:"user_id"`
	FarmID           string     `json:"farm_id"`
	ErrorMessage     *string    `json:"error_message"`
	ScheduledEventID string     `json:"scheduled_event_id"`
	SentAt           *time.Time `json:"sent_at"`
}

func newNotificationJSON(n *ent.Notification) notificationJSON {
	return notificationJSON{
		ID: n.ID.String(), Status: string(n.Status), Type: string(n.Type),
		CreatedAt: n.CreatedAt.UTC(), UpdatedAt: n.UpdatedAt.UTC(),
		UserID: n.UserID.String(), FarmID: n.FarmID.String(), ErrorMessage: n.ErrorMessage,
		ScheduledEventID: n.ScheduledEventID.String(), SentAt: utcPtr(n.SentAt),
	}
}

func (h *Handler) listNotifications(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := page(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	q := herdbook.NotificationQuery{Page: p}
	if r.URL.Query().Has("status") {
		s := r.URL.Query().Get("status")
		q.Status = &s
	}
	items, total, err := h.svc.Notifications(r.Context(), farmID, q)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]notificationJSON, len(items))
	for i, n := range items {
		out[i] = newNotificationJSON(n)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"notifications": out, "total": total})
}
