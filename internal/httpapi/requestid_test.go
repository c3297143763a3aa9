package httpapi_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/httpapi"
)

// TestRequestIDsInLogLines: a line logged anywhere with the request's context carries its
// request id once, also when the caller named it already.
func TestRequestIDsInLogLines(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(httpapi.RequestIDs(slog.NewTextHandler(&buf, nil)))
	h := httpapi.WithRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logger.WarnContext(r.Context(), "deep in the service")
		logger.WarnContext(r.Context(), "named", "request_id", httpapi.RequestID(r.Context()))
		logger.Warn("no request")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines: %q", lines)
	}
	for i, line := range lines[:2] {
		if strings.Count(line, "request_id=") != 1 {
			t.Errorf("line %d: %s", i, line)
		}
	}
	if strings.Contains(lines[2], "request_id=") {
		t.Errorf("a line outside a request got an id: %s", lines[2])
	}
}
