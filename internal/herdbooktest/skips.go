package herdbooktest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Tests that need a tool the machine may lack (Chromium, Node.js and the app's packages,
// Lighthouse) skip without it, so that the README's go test ./... passes on a fresh machine.
// But go test ./... prints nothing of a passing package beyond its ok line: a skipped browser
// test would pass unseen. SkipMissing records why a test skipped, and ReportSkips, called by
// the package's TestMain after the run, says it: how many tests, and the command that
// installs what was missing.
var skips struct {
	sync.Mutex
	why map[string]int
}

// SkipMissing skips tb because a tool is missing, saying why (and how to install it), and
// records the reason for ReportSkips.
func SkipMissing(tb testing.TB, why string) {
	tb.Helper()
	skips.Lock()
	if skips.why == nil {
		skips.why = map[string]int{}
	}
	skips.why[why]++
	skips.Unlock()
	tb.Skip(why)
}

// ReportSkips tells what SkipMissing skipped during the run whose exit code is code, and
// answers code. It writes to the terminal go test runs in, which shows it even for a passing
// package, or, without a terminal (a CI runner), to standard error, which go test shows with
// -v or when the package fails.
func ReportSkips(code int) int {
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	WriteSkips(w, strings.TrimSuffix(filepath.Base(os.Args[0]), ".test"))
	return code
}

// WriteSkips writes the report of the tests SkipMissing skipped, one line a reason, naming
// the package; nothing when none was.
func WriteSkips(w io.Writer, pkg string) {
	skips.Lock()
	defer skips.Unlock()
	reasons := make([]string, 0, len(skips.why))
	for why := range skips.why {
		reasons = append(reasons, why)
	}
	sort.Strings(reasons)
	for _, why := range reasons {
		n := skips.why[why]
		tests := "tests"
		if n == 1 {
			tests = "test"
		}
		fmt.Fprintf(w, "%s: %d %s skipped: %s\n", pkg, n, tests, why)
	}
}
