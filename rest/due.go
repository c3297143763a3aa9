package rest

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// listDue answers the due list (docs/birth-history.md#the-due-list) as of ?as_of= (the
// farm's today when left out), paged like other lists.
func (h *Handler) listDue(w http.ResponseWriter, r *http.Request) {
	asOf := dueAsOf(r)
	load := func(ctx context.Context, farmID uuid.UUID, p herdbook.Page) ([]evidence.DueEntry, int, error) {
		return h.svc.Due(ctx, farmID, asOf, p)
	}
	farmList(h, load, func(e evidence.DueEntry) evidence.DueEntry { return e })(w, r)
}

// dueAsOf reads as_of; given empty, it is a date the service refuses, not today.
func dueAsOf(r *http.Request) string {
	q := r.URL.Query()
	if q.Has("as_of") && q.Get("as_of") == "" {
		return "-"
	}
	return q.Get("as_of")
}

// dueCSV answers the whole due list as due.csv.
func (h *Handler) dueCSV(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	t, err := h.svc.DueCSV(r.Context(), farmID, dueAsOf(r))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	writeCSV(w, r, t, "due.csv")
}
