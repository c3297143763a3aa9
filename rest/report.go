package rest

import (
	"net/http"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// The herd reports (docs/breeding.md), as JSON and as CSV.

func reportQuery(r *http.Request) herdbook.ReportQuery {
	q := r.URL.Query()
	return herdbook.ReportQuery{From: q.Get("from"), To: q.Get("to"), ExposureFrom: q.Get("exposure_from"), ExposureTo: q.Get("exposure_to")}
}

func (h *Handler) report(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		farmID, err := h.pathID(r, "farm_id")
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		out, err := h.svc.Report(r.Context(), farmID, name, reportQuery(r))
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, out)
	}
}

func (h *Handler) reportCSV(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		farmID, err := h.pathID(r, "farm_id")
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		t, err := h.svc.ReportTable(r.Context(), farmID, name, reportQuery(r))
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		writeCSV(w, r, t, name+".csv")
	}
}
