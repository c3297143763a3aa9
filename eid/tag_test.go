package eid_test

import (
	"strings"
	"testing"

	"github.com/herdbook/herdbook/eid"
)

// TestParseTag checks official visual tags by their published rules and leaves the rest as
// free text. UK numbers are real ones published with the BCMS scheme: the herd 123450 of
// the British Cattle Movement Service article (its first three calves) and a herd's bull
// and his neighbours in number (collingridge.net, "Ear tags").
func TestParseTag(t *testing.T) {
	for _, c := range []struct{ name, in, scheme, want string }{
		{"UKFirstCalf", "UK 123450 600001", eid.SchemeUKCattle, "UK 123450 600001"},
		{"UKSecondCalf", "UK 123450 700002", eid.SchemeUKCattle, "UK 123450 700002"},
		{"UKThirdCalf", "UK 123450 100003", eid.SchemeUKCattle, "UK 123450 100003"},
		{"UKBull", "UK 284205 700016", eid.SchemeUKCattle, "UK 284205 700016"},
		{"UKBefore", "UK284205600015", eid.SchemeUKCattle, "UK 284205 600015"},
		{"UKAfterLowerCaseSpaced", " uk 284205 1000 17 ", eid.SchemeUKCattle, "UK 284205 100017"},
		{"UKHerd123456", "UK123456 100001", eid.SchemeUKCattle, "UK 123456 100001"},
		{"UKSheep", "UK0713393 00045", eid.SchemeUKOther, "UK 0713393 00045"},
		{"NICattle", "UK 9 530008 12345", eid.SchemeUKOther, "UK 9 530008 12345"},
		{"NICattleXI", "XI0530008 12345", eid.SchemeUKOther, "XI 0 530008 12345"},
		{"DECattle", "DE 01 234 56789", eid.SchemeDECattle, "DE 01 234 56789"},
		{"DECattleCompact", "de0923456789", eid.SchemeDECattle, "DE 09 234 56789"},
		{"FreeText", " Y12 ", "", "Y12"},
		{"FreeTextUKFlock", "UK0713393", "", "UK0713393"},
		{"FreeTextLetters", "Daisy 7", "", "Daisy 7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := eid.ParseTag(c.in)
			if err != nil || got.Scheme != c.scheme || got.Value != c.want {
				t.Fatalf("ParseTag(%q) = %+v, %v; want %s %q", c.in, got, err, c.scheme, c.want)
			}
		})
	}
	for _, c := range []struct{ name, in, says string }{
		// Issue 19's example: herd 123456, animal 00001 has check digit 1, not 7.
		{"ErrUKCheckDigit", "UK 123456 700001", "check digit 7 is wrong"},
		{"ErrUKCheckDigitNames", "UK 284205 600016", "gives 7"},
		{"ErrDEState", "DE 17 234 56789", "not one of the 16 German federal states"},
		{"ErrDEState00", "DE0023456789", "not one of the 16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := eid.ParseTag(c.in)
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("ParseTag(%q) = %+v, %v; want an error saying %q", c.in, got, err, c.says)
			}
		})
	}
}

// TestUKCheckDigitCycles: a herd's consecutive calves cycle through 1 to 7.
func TestUKCheckDigitCycles(t *testing.T) {
	got := ""
	for _, n := range []string{"00001", "00002", "00003", "00004", "00005", "00006", "00007", "00008"} {
		got += string(eid.UKCheckDigit("123450", n))
	}
	if got != "67123456" {
		t.Fatalf("check digits %s, want 67123456", got)
	}
}
