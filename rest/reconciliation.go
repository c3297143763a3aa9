package rest

import (
	"net/http"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

type reconciliationBody struct {
	Animals      []herdbook.RegistryAnimal `json:"animals"`
	HerdList     *string                   `json:"herd_list"`
	FromRegistry *bool                     `json:"from_registry"`
}

type differenceJSON struct {
	Kind     string  `json:"kind"`
	Tag      string  `json:"tag"`
	Field    *string `json:"field"`
	Registry *string `json:"registry"`
	Book     *string `json:"book"`
	Fix      string  `json:"fix"`
}

// reconcileRegistryCopy compares the registry's copy of the farm's holding, sent in the body,
// with the farm's register as of as_of and as known at known_at (docs/registry.md).
func (h *Handler) reconcileRegistryCopy(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b reconciliationBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	in := herdbook.RegistryCopy{AsOf: r.URL.Query().Get("as_of"), Animals: b.Animals}
	if b.HerdList != nil {
		in.HerdList = *b.HerdList
	}
	if b.FromRegistry != nil {
		in.FromRegistry = *b.FromRegistry
	}
	if b.Animals == nil && b.HerdList == nil && !in.FromRegistry {
		httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "animals",
			Message: "is required: the registry's copy as animals, or herd_list (a CTS herd list's text), or from_registry: true"}))
		return
	}
	rec, err := h.svc.ReconcileRegistryCopy(r.Context(), farmID, in)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]differenceJSON, len(rec.Differences))
	for i, d := range rec.Differences {
		out[i] = differenceJSON{Kind: string(d.Kind), Tag: d.Tag, Field: strPtr(d.Field), Registry: strPtr(d.Registry), Book: strPtr(d.Book), Fix: string(d.Fix)}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"holding_id": rec.HoldingID.String(), "as_of": rec.AsOf,
		"total": len(out), "differences": out})
}
