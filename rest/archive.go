package rest

import (
	"encoding/json"
	"errors"
	"net/http"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// The farm archive (docs/archive.md): the whole farm as one JSON document, and its import
// into a new farm.

func (h *Handler) exportArchive(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var opts herdbook.ArchiveOptions
	switch v := r.URL.Query().Get("with_files"); v {
	case "", "false":
	case "true":
		opts.WithFiles = true
	default:
		httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "with_files", Message: "must be true or false"}))
		return
	}
	a, err := h.svc.ExportFarmArchive(r.Context(), farmID, opts)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="farm-`+farmID.String()+`.herdbook.json"`)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(a)
}

func (h *Handler) importArchive(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, herdbook.MaxArchiveBody)
	f, err := h.svc.ImportFarmArchive(r.Context(), archiveBody{r}, herdbook.ArchiveOptions{})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, map[string]any{"farm": newFarmJSON(f)})
}

// archiveBody reads the request body, turning a body over the limit or cut short into the
// API's errors.
type archiveBody struct{ r *http.Request }

func (b archiveBody) Read(p []byte) (int, error) {
	n, err := b.r.Body.Read(p)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return n, herdbook.Errorf(herdbook.ETOOLARGE, "the archive is larger than %d bytes", tooLarge.Limit)
		}
		if e := httpapi.ReadError(err); e != nil {
			return n, e
		}
	}
	return n, err
}
