package herdbook

import "testing"

// TestGuardCell: the CSV injection guard (OWASP "CSV Injection") and its inverse. Every
// formula lead gets the apostrophe, numbers stay numbers, and UnguardCell undoes GuardCell
// for every value, including values that begin with apostrophes themselves.
func TestGuardCell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"Daisy", "Daisy"}, {"=1+2", "'=1+2"}, {`=HYPERLINK("http://x","y")`, `'=HYPERLINK("http://x","y")`},
		{"+44 20 7946 0958", "'+44 20 7946 0958"}, {"-1+2", "'-1+2"}, {"@SUM(A1)", "'@SUM(A1)"}, {"\tx", "'\tx"}, {"\rx", "'\rx"},
		{"-3", "-3"}, {"-0.25", "-0.25"}, {"+12", "+12"}, {"-", "'-"}, {"-.", "'-."}, {"12-3", "12-3"},
		{"'", "'"}, {"'x", "'x"}, {"'=x", "''=x"}, {"''=x", "'''=x"}, {"''", "''"}, {"'-3", "'-3"},
	} {
		if got := GuardCell(tc.in); got != tc.want {
			t.Errorf("GuardCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := UnguardCell(GuardCell(tc.in)); got != tc.in {
			t.Errorf("round trip of %q gives %q", tc.in, got)
		}
	}
}

func FuzzGuardCell(f *testing.F) {
	for _, s := range []string{"=1", "'=1", "''", "-3", "-3x", "'-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g := GuardCell(s)
		if UnguardCell(g) != s {
			t.Fatalf("round trip of %q gives %q", s, UnguardCell(g))
		}
		if g != "" && formulaLead(g) {
			t.Fatalf("GuardCell(%q) = %q still leads with a formula", s, g)
		}
	})
}
