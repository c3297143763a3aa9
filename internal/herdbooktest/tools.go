package herdbooktest

import (
	"os"
	"os/exec"
	"testing"
)

// EnvRequireBrowser makes the headless-Chromium tests fail, instead of skipping, when no
// Chromium is installed; CI sets it after scripts/install-chromium.sh.
const EnvRequireBrowser = "HERDBOOK_REQUIRE_BROWSER"

// ChromiumPath finds a Chromium for a browser test, or skips the test (fails it when
// HERDBOOK_REQUIRE_BROWSER=1).
func ChromiumPath(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(EnvRequireBrowser) == "1" {
		tb.Fatal("no chromium binary found and HERDBOOK_REQUIRE_BROWSER=1: run scripts/install-chromium.sh")
	}
	SkipMissing(tb, "no chromium binary found: run scripts/install-chromium.sh (HERDBOOK_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}
