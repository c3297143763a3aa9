package rest

import (
	"encoding/csv"
	"errors"
	"log/slog"
	"net/http"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// csvFlushRows is how many rows are written between flushes, so that a large export reaches
// the client as it is read instead of piling up in buffers.
const csvFlushRows = 500

// writeCSV streams a service table as text/csv. Errors known before the first row answer
// the envelope (the caller handles them); an error after the header is sent can no longer
// change the status, so the connection is cut instead, and the client sees a broken
// transfer rather than a short file that looks complete.
func writeCSV(w http.ResponseWriter, r *http.Request, t *herdbook.Table, filename string) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	rc := http.NewResponseController(w)
	if err := cw.Write(t.Header); err != nil {
		return
	}
	n := 0
	err := t.Rows(func(row []string) error {
		if err := cw.Write(row); err != nil {
			return err
		}
		if n++; n%csvFlushRows == 0 {
			cw.Flush()
			if err := cw.Error(); err != nil {
				return err
			}
			if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return err
			}
		}
		return nil
	})
	if err == nil {
		cw.Flush()
		err = cw.Error()
	}
	if err != nil {
		slog.WarnContext(r.Context(), "CSV export cut short", "err", err, "rows", n, "request_id", httpapi.RequestID(r.Context()))
		panic(http.ErrAbortHandler)
	}
}

func (h *Handler) exportRecords(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	q := r.URL.Query()
	t, err := h.svc.ExportRecords(r.Context(), farmID, q.Get("from"), q.Get("to"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	writeCSV(w, r, t, "records.csv")
}
