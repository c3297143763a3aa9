package breed_test

import (
	"testing"

	"github.com/herdbook/herdbook/registry/breed"
)

// TestLookupCTS holds the CTS table to rows of gov.uk's "Official cattle breeds and codes"
// (Aberdeen Angus AA, Aberdeen Angus Cross AAX, Blonde D’Aquitaine BA, British Blue BRB,
// British Friesian BF, Charolais CH, Charolais Cross CHX, Guernsey GU) and of the copy the
// later rows come from (Hereford HE, Holstein HO, Holstein Friesian HF, Limousin LIM,
// Limousin Cross LIMX, Simmental SM, Welsh Black WB), read from a name in any case or
// spelling the book may hold, or from the code itself.
func TestLookupCTS(t *testing.T) {
	ok := []struct{ in, code string }{
		{"Aberdeen Angus", "AA"},
		{"aberdeen angus", "AA"},
		{"Aberdeen-Angus Cross", "AAX"},
		{"AAX", "AAX"},
		{"Blonde D’Aquitaine", "BA"},
		{"blonde d'aquitaine", "BA"},
		{"British Blue", "BRB"},
		{"British Friesian", "BF"},
		{"Charolais", "CH"},
		{"charolais x", "CHX"},
		{"Guernsey", "GU"},
		{"Hereford", "HE"},
		{"Holstein", "HO"},
		{"Holstein Friesian", "HF"},
		{"Holstein-Friesian cross", "HFX"},
		{" Limousin ", "LIM"},
		{"LIMOUSIN CROSS", "LIMX"},
		{"Limousin X", "LIMX"},
		{"limousin-crossbred", "LIMX"},
		{"limx", "LIMX"},
		{"Simmental", "SM"},
		{"Simmental Cross", "SMX"},
		{"Welsh Black", "WB"},
		{"Montbéliarde", "MO"},
		{"Cross Breed Beef", "CB"},
		{"KIWIX", "KIWIX"},
	}
	for _, c := range ok {
		if got, found := breed.Code(breed.CTS, c.in); !found || got != c.code {
			t.Errorf("Code(CTS, %q) = %q, %v; want %q", c.in, got, found, c.code)
		}
	}
	// Unknown, never guessed: names the list does not give (it says Aberdeen Angus, British
	// Friesian or Holstein Friesian, British Blue), a cross of two breeds, a breed with no
	// cross row, codes of other lists (HER, HOL, SIM are not CTS's), and nothing.
	for _, in := range []string{"Angus", "Friesian", "Belgian Blue", "Limousin x Holstein", "Bison Cross",
		"HER", "HOL", "SIM", "FR", "BB", "", "  "} {
		if got, found := breed.Code(breed.CTS, in); found {
			t.Errorf("Code(CTS, %q) = %q; want unknown", in, got)
		}
	}
	b, _ := breed.Lookup(breed.CTS, "limx")
	if b.Name != "Limousin Cross" || !b.Cross {
		t.Errorf("LIMX is %+v", b)
	}
}

// TestLookupHITier holds the HI-Tier table to rows of ViehVerkV Anlage 6 as "Rasseschlüssel
// (Rind)" gives them: Holstein-Schwarzbunt 01 SBT (alternative name Deutsche
// Holstein-Schwarzbunt), Fleckvieh 11 FL, Limousin 22 LIM, Weißblaue Belgier 23 WBB, Salers
// 26 SAL; a key is read with or without its leading zero, or as its short name.
func TestLookupHITier(t *testing.T) {
	ok := []struct{ in, code string }{
		{"Holstein-Schwarzbunt", "01"},
		{"deutsche holstein schwarzbunt", "01"},
		{"1", "01"},
		{"01", "01"},
		{"SBT", "01"},
		{"Fleckvieh", "11"},
		{"Limousin", "22"},
		{"lim", "22"},
		{"Weißblaue Belgier", "23"},
		{"Salers", "26"},
		{"026", "26"},
	}
	for _, c := range ok {
		if got, found := breed.Code(breed.HITier, c.in); !found || got != c.code {
			t.Errorf("Code(HITier, %q) = %q, %v; want %q", c.in, got, found, c.code)
		}
	}
	// Keys past 26 were not read (Angus, the crosses), 07 and 08 are not in the table, and a
	// CTS code is not a RASSE.
	for _, in := range []string{"Angus", "Holstein", "07", "27", "LIMX", "-1", ""} {
		if got, found := breed.Code(breed.HITier, in); found {
			t.Errorf("Code(HITier, %q) = %q; want unknown", in, got)
		}
	}
}

func TestOfHolding(t *testing.T) {
	for in, want := range map[string]breed.Scheme{"uk.cph": breed.CTS, "de.hitier.bnr": breed.HITier} {
		if got, ok := breed.OfHolding(in); !ok || got != want {
			t.Errorf("OfHolding(%q) = %q", in, got)
		}
	}
	if _, ok := breed.OfHolding("nl.ubn"); ok {
		t.Error("nl.ubn has no breed list here")
	}
	if _, ok := breed.Lookup("nl.rvo.breed", "Limousin"); ok {
		t.Error("an unknown scheme answers unknown")
	}
	if n := len(breed.Breeds(breed.CTS)); n != 195 {
		t.Errorf("CTS rows: %d", n)
	}
	seen := map[string]bool{}
	for _, s := range []breed.Scheme{breed.CTS, breed.HITier} {
		for k := range seen {
			delete(seen, k)
		}
		for _, b := range breed.Breeds(s) {
			if seen[b.Code] {
				t.Errorf("%s: code %s twice", s, b.Code)
			}
			seen[b.Code] = true
		}
	}
}
