package eid_test

import (
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/quick"

	"github.com/herdbook/herdbook/eid"
)

// TestParseReaderOutput reads what readers and farm software print, each line from a
// published source.
func TestParseReaderOutput(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		// ISO11784Tools (CRAN), tests/testthat/test-to_isodecimal_tform.R: one code in its
		// four forms.
		{"Decimal", "999012345678901", "999012345678901"},
		{"DotHex", "3E7.02DFDC1C35", "999012345678901"},
		{"HexFlagFirst", "8000F9C2DFDC1C35", "999012345678901"},
		{"HexAsSent", "AC383BFB439F0001", "999012345678901"},
		{"HexLowerCase", "ac383bfb439f0001", "999012345678901"},
		// ISO11784Tools' package description: the 13-character dot-hex example.
		{"DotHexIssue19", "3E7.1CBE991A14", "999123456789012"},
		// FarmIT 3000 help, "Tru-Test - Working With EID Tags": ASCII 15, ASCII 16, spaced.
		{"ASCII16TruTest", "0826052636100657", "826052636100657"},
		{"SpacedTruTest", "826 052636100657", "826052636100657"},
		{"ASCII16FarmITSheep", "0826071339300045", "826071339300045"},
		{"ASCII16Issue19", "0826000301234003", "826000301234003"},
		// Allflex panel reader manual: default and TIRIS S2000 line formats.
		{"AllflexLine", "LA 982 000001088420", "982000001088420"},
		{"AllflexLineUnderscores", "LA_982_000001088420", "982000001088420"},
		{"AllflexTIRIS", "LA_00000_0_982_000001088420", "982000001088420"},
		// Datamars GES3S manual, EIC formats.
		{"DatamarsISOLong", "A0000000964000000123456", "964000000123456"},
		{"DatamarsISOShort", "964 000000123456", "964000000123456"},
		{"DatamarsTIRIS", "A 00000 0 964 000000123456", "964000000123456"},
		{"DatamarsF210", "A 00000 0 0999 000000123456", "999000000123456"},
		{"DatamarsBDN", "10000000964000000123456", "964000000123456"},
		{"DatamarsSouthAmerica", "964000000123456", "964000000123456"},
		// docs/identifiers.md's table, one code in every form.
		{"DocPanelLine", "LA 826 000301234003", "826000301234003"},
		{"DocTIRIS", "A 00000 0 826 000301234003", "826000301234003"},
		{"DocISOLong", "A0000000826000301234003", "826000301234003"},
		{"DocBDN", "10000000826000301234003", "826000301234003"},
		{"DocDotHex", "33A.0011F47753", "826000301234003"},
		{"DocHexFlagFirst", "8000CE8011F47753", "826000301234003"},
		{"DocHexAsSent", "CAEE2F8801730001", "826000301234003"},
		{"Surrounding space", "  826000301234003\t", "826000301234003"},
		{"LargestNationalNumber", "826274877906943", "826274877906943"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := eid.Canonical(c.in)
			if err != nil || got != c.want {
				t.Fatalf("Canonical(%q) = %q, %v; want %s", c.in, got, err, c.want)
			}
		})
	}
}

// TestParseRefuses: what ISO 11784 does not allow, and what cannot be told apart.
func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ name, in, says string }{
		// Issue 19: a national number above 2^38 − 1, country code 000.
		{"ErrNationalAbove2To38", "826301234200033", "above 274877906943"},
		{"ErrNationalJustAbove", "826274877906944", "above 274877906943"},
		{"ErrCountry000", "000012903989251", "country code 000"},
		{"ErrNotISO3166", "123000000000001", "not an ISO 3166-1 numeric country code"},
		{"ErrDotHexNationalTooBig", "33A.FFFFFFFFFF", "above 274877906943"},
		{"ErrDotHexCountryAbove999", "3E8.0000000001", "above 999"},
		{"ErrIndustrial", "R00060000000000123456", "non-animal"},
		{"ErrBDNFlag0", "00000000964000000123456", "animal flag 0"},
		{"ErrFlag0BothOrders", "0000F9C2DFDC1C34", "animal flag 0"},
		{"ErrASCII16Leading2", "2826000301234003", "does not start with 0 or 1"},
		{"ErrDecimalHexIsASCII16", "8000790000000258", "read as ASCII 16"},
		{"ErrBlank", "  ", "must not be blank"},
		{"ErrShort", "98200012345678", "must be an ISO 11784 EID"},
		{"ErrDash", "982-000123456789", "must be an ISO 11784 EID"},
		{"ErrSpaceMisplaced", "98 2000123456789", "must be an ISO 11784 EID"},
		{"ErrNotHex", "ZZZZZZZZZZZZZZZZ", "must be an ISO 11784 EID"},
		{"ErrAllOnes", "FFFFFFFFFFFFFFFF", "above 999"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := eid.Parse(c.in)
			var e *eid.Error
			if !errors.As(err, &e) || !strings.Contains(e.Message, c.says) {
				t.Fatalf("Parse(%q) = %v, %v; want an error saying %q", c.in, got, err, c.says)
			}
		})
	}
}

// TestParseHexAmbiguous: 16 hexadecimal digits that are a clean animal code in both bit
// orders cannot be read; the message names both readings.
func TestParseHexAmbiguous(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for range 1_000_000 {
		c := randomCode(rng)
		s := c.Format(eid.HexFlagFirst)
		_, err := eid.Parse(s)
		if err == nil || allDigits(s) {
			continue
		}
		if !strings.Contains(err.Error(), "give the 15-digit or dot-hex form") || !strings.Contains(err.Error(), c.String()) {
			t.Fatalf("Parse(%s) of %s: %v", s, c, err)
		}
		return
	}
	t.Skip("no ambiguous code in a million draws")
}

// randomCode draws a valid animal code: a country from ISO 3166-1, a manufacturer code or
// the test code, and a national number up to 2^38 − 1.
func randomCode(rng *rand.Rand) eid.Code {
	var country uint16
	for {
		country = uint16(1 + rng.Intn(999))
		if country >= 900 || eid.IsCountry(country) {
			break
		}
	}
	national := rng.Uint64() & eid.MaxNational
	switch rng.Intn(4) { // small and large numbers matter most
	case 0:
		national = uint64(rng.Intn(1000))
	case 1:
		national = eid.MaxNational - uint64(rng.Intn(1000))
	}
	return eid.Code{Country: country, National: national}
}

// validCode is a quick.Generator of valid codes.
type validCode struct{ eid.Code }

func (validCode) Generate(rng *rand.Rand, _ int) reflect.Value {
	return reflect.ValueOf(validCode{randomCode(rng)})
}

// TestRoundTripEveryForm is the property: every valid code, written in every form (in
// upper and lower case, with space around), reads back as its canonical 15 digits. The raw
// hexadecimal forms may instead be refused as ambiguous (both bit orders read as a clean
// animal code), never read as another code; and a raw hexadecimal form that happens to be
// all decimal digits is not hexadecimal to the parser (16 decimal digits are ASCII 16).
func TestRoundTripEveryForm(t *testing.T) {
	ambiguous := 0
	prop := func(v validCode) bool {
		for _, f := range eid.Forms {
			s := v.Format(f)
			if (f == eid.HexFlagFirst || f == eid.HexAsSent) && allDigits(s) {
				if got, err := eid.Parse(s); err == nil && got == v.Code {
					t.Logf("%s: %s read as hexadecimal", v, s)
					return false
				}
				continue
			}
			for _, in := range []string{s, strings.ToLower(s), " " + s + " "} {
				got, err := eid.Parse(in)
				if err != nil && (f == eid.HexFlagFirst || f == eid.HexAsSent) &&
					strings.Contains(err.Error(), "give the 15-digit or dot-hex form") && strings.Contains(err.Error(), v.String()) {
					ambiguous++
					continue
				}
				if err != nil || got != v.Code {
					t.Logf("%s form %s: Parse(%q) = %v, %v", v, f, in, got, err)
					return false
				}
			}
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 20000}); err != nil {
		t.Fatal(err)
	}
	if ambiguous > 200 {
		t.Fatalf("%d of 20000 codes were ambiguous in a raw hexadecimal form", ambiguous)
	}
}

// TestFormatExamples holds the examples the docs give for each form.
func TestFormatExamples(t *testing.T) {
	c := eid.Code{Country: 826, National: 301234003}
	want := map[eid.Form]string{
		eid.Decimal: "826000301234003", eid.Spaced: "826 000301234003", eid.ASCII16: "0826000301234003",
		eid.DotHex: "33A.0011F47753", eid.HexFlagFirst: "8000CE8011F47753", eid.HexAsSent: "CAEE2F8801730001",
	}
	for _, f := range eid.Forms {
		if got := c.Format(f); got != want[f] {
			t.Errorf("Format(%s) = %s, want %s", f, got, want[f])
		}
	}
	if !(eid.Code{Country: 999}).IsTest() || c.IsTest() {
		t.Error("IsTest")
	}
}

// TestCountries: the shipped ISO 3166-1 list has the codes herds use and not the gaps.
func TestCountries(t *testing.T) {
	for n, a := range map[uint16]string{826: "GB", 372: "IE", 276: "DE", 250: "FR", 840: "US", 36: "AU", 554: "NZ", 124: "CA"} {
		if !eid.IsCountry(n) || eid.Alpha2(n) != a {
			t.Errorf("%03d: IsCountry %v, Alpha2 %q; want %s", n, eid.IsCountry(n), eid.Alpha2(n), a)
		}
	}
	for _, n := range []uint16{0, 1, 123, 899, 900, 982, 999} {
		if eid.IsCountry(n) {
			t.Errorf("%03d is not an ISO 3166-1 numeric code", n)
		}
	}
}

func allDigits(s string) bool { return strings.Trim(s, "0123456789") == "" }
