package rest

import (
	"net/http"

	"github.com/herdbook/herdbook/internal/httpapi"
)

// WriteError answers err the way the operation r is for answers errors: without a body for
// SPEC.md's birth-history operations, with the error envelope otherwise. Middleware in front
// of the facade (authentication, rate limits) answers through it, so that a refused
// credential on a birth-history path is as bodiless as the operation's own errors.
func (h *Handler) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	if _, pattern := h.mux.Handler(r); h.bodiless[pattern] {
		httpapi.WriteEmpty(w, r, err)
		return
	}
	httpapi.WriteError(w, r, err)
}
