package scheme_test

import (
	"testing"

	"github.com/herdbook/herdbook/registry/scheme"
)

// TestCanonical holds each scheme to its published syntax (docs/registry.md cites them):
// ICAR's uk.cph example 34/123/1234 and au.nlis.pic example QABC1234, HI-Tier's 12-digit
// BNR-ZD with its Land code and the 15-digit BNR15 with 276 in front.
func TestCanonical(t *testing.T) {
	ok := []struct{ scheme, in, want string }{
		{scheme.GBCPH, "34/123/1234", "34/123/1234"},
		{scheme.GBCPH, "341231234", "34/123/1234"},
		{scheme.GBCPH, " 34 123 1234 ", "34/123/1234"},
		{scheme.DEBNR, "09 123 456 7890", "091234567890"},
		{scheme.DEBNR, "276091234567890", "091234567890"},
		{scheme.DEBNR, "991234567890", "991234567890"},
		{scheme.NLUBN, "0123456", "123456"},
		{scheme.NLUBN, "1234567", "1234567"},
		{scheme.IEHerd, "a1234567", "A1234567"},
		{scheme.NZNAIT, "012345", "12345"},
		{scheme.AUPIC, "qabc1234", "QABC1234"},
		{scheme.AUPIC, "3ABCD123", "3ABCD123"},
		{scheme.AUPIC, "NA123456", "NA123456"},
	}
	for _, c := range ok {
		got, err := scheme.Canonical(c.scheme, c.in)
		if err != nil || got != c.want {
			t.Errorf("Canonical(%s, %q) = %q, %v; want %q", c.scheme, c.in, got, err, c.want)
		}
	}
	bad := []struct{ scheme, in string }{
		{"uk.cphx", "34/123/1234"},
		{scheme.GBCPH, ""},
		{scheme.GBCPH, "34/1231/234"},
		{scheme.GBCPH, "3412312345"},
		{scheme.GBCPH, "34/12A/1234"},
		{scheme.GBCPH, "00/123/1234"},
		{scheme.DEBNR, "171234567890"}, // Land 17 does not exist
		{scheme.DEBNR, "001234567890"},
		{scheme.DEBNR, "12345678901"},
		{scheme.DEBNR, "040091234567890"}, // 15 digits, not Germany
		{scheme.NLUBN, "12345678"},
		{scheme.NLUBN, "0000"},
		{scheme.NLUBN, "12a"},
		{scheme.IEHerd, "12345678"},
		{scheme.IEHerd, "A123456"},
		{scheme.NZNAIT, "12345678901"},
		{scheme.AUPIC, "XABC1234"},
		{scheme.AUPIC, "QABC123"},
		{scheme.AUPIC, "QABC12_4"},
		{scheme.GBCPH, string(make([]byte, 100))},
	}
	for _, c := range bad {
		if got, err := scheme.Canonical(c.scheme, c.in); err == nil {
			t.Errorf("Canonical(%s, %q) = %q; want an error", c.scheme, c.in, got)
		}
	}
	if scheme.State("3ABCD123") != "VIC" || !scheme.WellKnown(scheme.GBCPH) || scheme.WellKnown(scheme.DEBNR) {
		t.Error("State or WellKnown disagree with ICAR's list")
	}
}
