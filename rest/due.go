package rest

import (
	"net/http"

	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// listDue answers the due list (docs/birth-history.md#the-due-list), paged like other lists.
func (h *Handler) listDue(w http.ResponseWriter, r *http.Request) {
	farmList(h, h.svc.Due, func(e evidence.DueEntry) evidence.DueEntry { return e })(w, r)
}

// dueCSV answers the whole due list as due.csv.
func (h *Handler) dueCSV(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	t, err := h.svc.DueCSV(r.Context(), farmID)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	writeCSV(w, r, t, "due.csv")
}
