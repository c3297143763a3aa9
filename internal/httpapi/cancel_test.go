package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/httpapi"
)

// TestCanceledRequestIsNotAnError: a request the client cancelled (a closed tab, an aborted
// fetch) is logged at INFO, not ERROR (issue 31.6): nothing failed on the server. A real
// internal error stays an ERROR. Not parallel: it swaps the default logger.
func TestCanceledRequestIsNotAnError(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"the error wraps context.Canceled", context.Background(), fmt.Errorf("query animals: %w", context.Canceled), "level=INFO"},
		{"the request's context is cancelled", ctx, errors.New("driver: bad connection"), "level=INFO"},
		{"a real internal error", context.Background(), errors.New("driver: bad connection"), "level=ERROR"},
	} {
		buf.Reset()
		r := httptest.NewRequest("GET", "/v1/farm", nil).WithContext(c.ctx)
		w := httptest.NewRecorder()
		httpapi.WriteError(w, r, c.err)
		if got := buf.String(); !strings.Contains(got, c.want) || (c.want == "level=INFO" && strings.Contains(got, "level=ERROR")) {
			t.Errorf("%s: logged %q, want %s", c.name, got, c.want)
		}
		if w.Code != 500 {
			t.Errorf("%s: status %d", c.name, w.Code)
		}
	}
}
