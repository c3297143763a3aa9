package rest

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the OpenAPI 3.1 document of the /v1 surface (version label 2026-09-06). The
// REST tests validate every answer they receive against it, so it cannot drift from the code.
//
//go:embed openapi.json
var OpenAPI []byte

func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(OpenAPI)
}
