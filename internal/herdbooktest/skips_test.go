package herdbooktest

import (
	"bytes"
	"testing"
)

// TestSkipsReported: a test skipped for a missing tool is counted by its reason, and the
// report names the package, the count (in the right number) and the reason.
func TestSkipsReported(t *testing.T) {
	for i := 0; i < 2; i++ {
		t.Run("missing", func(t *testing.T) { SkipMissing(t, "no frobnicator: run scripts/install-frobnicator.sh") })
	}
	t.Run("other", func(t *testing.T) { SkipMissing(t, "no widget") })
	var out bytes.Buffer
	WriteSkips(&out, "example")
	want := "example: 2 tests skipped: no frobnicator: run scripts/install-frobnicator.sh\nexample: 1 test skipped: no widget\n"
	if out.String() != want {
		t.Fatalf("report:\n%s\nwant:\n%s", out.String(), want)
	}
}
