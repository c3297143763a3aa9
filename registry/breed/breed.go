// Package breed maps a breed as the book records it (a name in any case, or already a code)
// to the official cattle breed code of a registry's scheme, and says so plainly when it
// cannot: a registry refuses a code it does not know, and a passport that prints a wrong
// breed is worse than one that prints none, so nothing here guesses. It is pure: no I/O, no
// clock. docs/registry.md ("Breed codes") describes the tables and their sources.
//
// Schemes and their sources:
//
//   - CTS (uk.cts.breed, the name ICAR's well-known breed identifier schemes give it:
//     adewg/ICAR, well-known/icarBreedIdentifierType.md): the Cattle Tracing System breed
//     code list that BCMS publishes on gov.uk, "Official cattle breeds and codes"
//     (www.gov.uk/guidance/official-cattle-breeds-and-codes), which replaces the list in the
//     Cattle Keeper's Handbook. Rows from Aberdeen Angus to Guernsey were read on that page;
//     the rows from Guernsey Cross on were read in a public copy of the same list (a farm
//     application's breed table whose rows up to Guernsey agree with the page row for row),
//     since the stored copy of the page was cut short there. A cross is its breed's code
//     with X, listed on its own row (Limousin Cross LIMX); not every breed has one.
//   - HITier (de.hitier.rasse, Herdbook's name in the same style): the Rasseschlüssel of
//     Anlage 6 to the German Viehverkehrsverordnung, the breed key a keeper reports to
//     HI-Tier (RASSE), as the German Wikipedia article "Rasseschlüssel (Rind)" tabulates it
//     after the notice of 3 March 2010: the key, the breed, its short name and alternative
//     names. Only keys 01 to 26 could be read; every later key (the other beef breeds and
//     the crosses) is unknown here, so a breed among them answers unknown, not a guess.
package breed

import (
	"strconv"
	"strings"

	"github.com/herdbook/herdbook/registry/scheme"
)

// Scheme names a registry's breed code list.
type Scheme string

// The schemes this package knows.
const (
	// CTS is GB's Cattle Tracing System breed code list (BCMS), ICAR's uk.cts.breed.
	CTS Scheme = "uk.cts.breed"
	// HITier is Germany's Rasseschlüssel (ViehVerkV Anlage 6), reported to HI-Tier as RASSE.
	HITier Scheme = "de.hitier.rasse"
)

// Breed is one row of a scheme's list.
type Breed struct {
	// Code is the official code in the list's spelling: CTS's letters (LIMX), HI-Tier's
	// two-digit key (22).
	Code string
	// Name is the breed's name as the list spells it.
	Name string
	// Cross is true for a CTS cross row (a breed's code with X, "… Cross").
	Cross bool
	// Short is HI-Tier's Kurzbezeichnung (LIM), "" for CTS.
	Short string
	// Aliases are other names the same source gives the breed (HI-Tier's Alternativnamen).
	Aliases []string
}

// schemes holds each scheme's rows and their indexes by code and by folded name.
type table struct {
	rows   []Breed
	code   map[string]int
	name   map[string]int
	number bool // codes are numbers: "1" and "01" are the same key
}

var tables = map[Scheme]*table{
	CTS:    index(ctsBreeds, false),
	HITier: index(hitierBreeds, true),
}

func index(rows []Breed, number bool) *table {
	t := &table{rows: rows, code: map[string]int{}, name: map[string]int{}, number: number}
	for i, b := range rows {
		t.code[t.codeKey(b.Code)] = i
		if b.Short != "" {
			t.code[t.codeKey(b.Short)] = i
		}
		t.name[fold(b.Name)] = i
		for _, a := range b.Aliases {
			t.name[fold(a)] = i
		}
	}
	return t
}

func (t *table) codeKey(v string) string {
	v = strings.ToUpper(strings.TrimSpace(v))
	if t.number {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return strconv.Itoa(n)
		}
	}
	return v
}

// Breeds returns a scheme's list in its source's order (nil for a scheme not known).
func Breeds(s Scheme) []Breed {
	t := tables[s]
	if t == nil {
		return nil
	}
	out := make([]Breed, len(t.rows))
	copy(out, t.rows)
	return out
}

// Lookup returns the row of scheme s for a breed as recorded: a code of the scheme in any
// case (LIMX, limx; 22 or 022 for HI-Tier, or its short name LIM), or a name of the list in
// any case and spacing, with hyphens or spaces, straight or curly apostrophes, and, for a
// CTS cross, "Cross", "X" or "x" after the name (Limousin x, limousin-cross). ok is false —
// unknown — for anything else, an unknown scheme included: a name the list does not give
// (Angus for Aberdeen Angus), a cross of two named breeds, or an empty value. It never
// picks the nearest breed.
func Lookup(s Scheme, recorded string) (Breed, bool) {
	t := tables[s]
	v := strings.TrimSpace(recorded)
	if t == nil || v == "" {
		return Breed{}, false
	}
	if i, ok := t.code[t.codeKey(v)]; ok {
		return t.rows[i], true
	}
	key := fold(v)
	if i, ok := t.name[key]; ok {
		return t.rows[i], true
	}
	if s == CTS {
		for _, suffix := range []string{" x", " cross bred", " crossbred", " cross"} {
			if base, found := strings.CutSuffix(key, suffix); found && base != "" {
				if i, ok := t.name[base+" cross"]; ok {
					return t.rows[i], true
				}
			}
		}
	}
	return Breed{}, false
}

// Code is Lookup's code alone: "" and false when the breed is unknown to the scheme.
func Code(s Scheme, recorded string) (string, bool) {
	b, ok := Lookup(s, recorded)
	return b.Code, ok
}

// OfHolding returns the breed code scheme of the registry that keeps holdings of a holding
// identifier scheme (package registry/scheme's names): CTS for a GB CPH, HI-Tier for a
// German Betriebsnummer. ok is false for the others, whose breed lists Herdbook does not
// have.
func OfHolding(holdingScheme string) (Scheme, bool) {
	switch holdingScheme {
	case scheme.GBCPH:
		return CTS, true
	case scheme.DEBNR:
		return HITier, true
	}
	return "", false
}

// fold is the form names are compared in: lower case, curly apostrophes straight, accents
// of French breed names dropped, hyphens and runs of spaces one space.
func fold(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	v = foldChars.Replace(v)
	return strings.Join(strings.Fields(v), " ")
}

var foldChars = strings.NewReplacer("’", "'", "‘", "'", "`", "'", "-", " ", "–", " ", "_", " ",
	"é", "e", "è", "e", "ê", "e", "ë", "e", "à", "a", "â", "a", "ç", "c", "î", "i", "ï", "i", "ô", "o", "û", "u")
