package graph

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// httpStatus is the status of an error answered before the executor runs (by middleware in
// front of the graph): GraphQL clients read the body, HTTP tooling the status.
var httpStatus = map[string]int{
	herdbook.EINVALID:      http.StatusBadRequest,
	herdbook.EUNAUTHORIZED: http.StatusUnauthorized,
	herdbook.EFORBIDDEN:    http.StatusForbidden,
	herdbook.ENOTFOUND:     http.StatusNotFound,
	herdbook.ECONFLICT:     http.StatusConflict,
	herdbook.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	herdbook.ERATELIMITED:  http.StatusTooManyRequests,
	herdbook.EUNAVAILABLE:  http.StatusServiceUnavailable,
	herdbook.EMETHOD:       http.StatusMethodNotAllowed,
}

// WriteError answers a request with a GraphQL response holding one error: the shape GraphQL
// clients parse, with the same extensions.code as errors raised inside the executor.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	code := herdbook.ErrorCode(err)
	status, ok := httpStatus[code]
	switch {
	case !ok:
		status = http.StatusInternalServerError
		if httpapi.Canceled(r.Context(), err) {
			slog.InfoContext(r.Context(), "graphql request cancelled by the client", "err", err)
		} else {
			slog.ErrorContext(r.Context(), "graphql internal error", "err", err)
		}
	case code == herdbook.EUNAVAILABLE:
		slog.WarnContext(r.Context(), "graphql: dependency unavailable", "err", err, "method", r.Method, "path", r.URL.Path)
	}
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", strconv.Itoa(RetryAfterUnavailable))
		}
	}
	gqlErr := map[string]any{"message": herdbook.ErrorMessage(err), "extensions": map[string]any{"code": codeTable[code]}}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{gqlErr}})
}
