package web_test

import (
	"os"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestMain runs the package's tests, then says which were skipped for a missing tool
// (Chromium, axe-core, Node.js, Lighthouse) and how to install it: go test ./... shows
// nothing else of a passing package.
func TestMain(m *testing.M) {
	os.Exit(herdbooktest.ReportSkips(m.Run()))
}
