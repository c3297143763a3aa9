package graph_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// errorLines counts the ERROR records logged while the graph's tests run. A client's mistake
// must never log one: only failures of the server do, and the tests cause none.
var errorLines atomic.Int64

type countErrors struct{ slog.Handler }

func (h countErrors) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		errorLines.Add(1)
	}
	return h.Handler.Handle(ctx, r)
}

func (h countErrors) WithAttrs(attrs []slog.Attr) slog.Handler {
	return countErrors{h.Handler.WithAttrs(attrs)}
}

func (h countErrors) WithGroup(name string) slog.Handler {
	return countErrors{h.Handler.WithGroup(name)}
}

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(countErrors{slog.NewTextHandler(os.Stderr, nil)}))
	code := m.Run()
	if n := errorLines.Load(); n > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the graph's tests logged %d ERROR lines\n", n)
		code = 1
	}
	os.Exit(herdbooktest.ReportSkips(code))
}

// wantNoErrorLog fails when fn logs an ERROR record. Tests run in parallel, so a record of
// another test may be counted too; that is a failure worth seeing as well.
func wantNoErrorLog(t *testing.T, fn func()) {
	t.Helper()
	before := errorLines.Load()
	fn()
	if n := errorLines.Load() - before; n > 0 {
		t.Fatalf("%d ERROR lines logged", n)
	}
}
