// Package scheme validates and canonicalises the official identifiers of holdings (the
// places where livestock are kept) under the schemes of the registries Herdbook reports to.
// It is pure: no I/O, no clock. Scheme names follow ICAR ADE's well-known location
// identifier schemes (adewg/ICAR, well-known/icarLocationIdentifierType.md, commit b788ef5)
// where ICAR names one (uk.cph, au.nlis.pic) and the same reverse-domain style otherwise.
// docs/registry.md cites the source of each rule.
package scheme

import (
	"fmt"
	"slices"
	"strings"
)

// The schemes a holding's identifier may be issued under.
const (
	// GBCPH is Great Britain's county parish holding number, CC/PPP/HHHH: two digits of
	// county, three of parish, four of holding (ICAR's uk.cph; gov.uk "Register land you
	// use to keep livestock"). It carries no check digit.
	GBCPH = "uk.cph"
	// DEBNR is the German Betriebsnummer (BNR-ZD) of HI-Tier: 12 digits whose first two are
	// the Land (01 to 16, 99 for bodies across Länder); the 15-digit BNR15 puts the ISO
	// country code 276 in front (hi-tier.de, Konzept Betriebs-DB).
	DEBNR = "de.hitier.bnr"
	// NLUBN is the Dutch Uniek Bedrijfsnummer of RVO's I&R: a location number of up to 7
	// digits.
	NLUBN = "nl.ubn"
	// IEHerd is the Irish herd number DAFM's Regional Veterinary Offices allocate: a letter
	// and seven letters or digits.
	IEHerd = "ie.herd"
	// NZNAIT is a New Zealand NAIT location number: digits.
	NZNAIT = "nz.nait"
	// AUPIC is the Australian NLIS property identification code (ICAR's au.nlis.pic): eight
	// characters whose first names the state that issued it.
	AUPIC = "au.nlis.pic"
)

// Schemes lists every scheme, in the order the documentation gives them.
var Schemes = []string{GBCPH, DEBNR, NLUBN, IEHerd, NZNAIT, AUPIC}

// WellKnown reports whether ICAR's list of well-known location schemes names the scheme
// (the others are Herdbook's names in the same style, until ICAR adds them).
func WellKnown(s string) bool { return s == GBCPH || s == AUPIC }

// Error says why an identifier is not valid under its scheme, in a sentence a farmer can act on.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func invalid(format string, args ...any) error { return &Error{Message: fmt.Sprintf(format, args...)} }

// germanLand names the Land codes a Betriebsnummer may begin with.
func germanLand(code string) bool {
	if code == "99" {
		return true
	}
	return code >= "01" && code <= "16"
}

// auStates maps the first character of a PIC to the state or territory that issued it.
var auStates = map[byte]string{'N': "NSW", 'Q': "QLD", '3': "VIC", 'S': "SA", 'W': "WA", 'M': "TAS", 'T': "NT"}

// Canonical returns an identifier in its scheme's canonical spelling, or an error saying
// why it is not one: spaces, dots and dashes that people type between groups are dropped
// and letters are upper-cased first. The canonical value is what Herdbook stores and
// compares, so that one holding has one spelling.
func Canonical(s, id string) (string, error) {
	if !slices.Contains(Schemes, s) {
		return "", invalid("is not a known holding scheme; use one of %s", strings.Join(Schemes, ", "))
	}
	if len(id) > 64 {
		return "", invalid("is too long for a holding number")
	}
	compact := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '.', '-', '\t':
			return -1
		}
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, id)
	if compact == "" {
		return "", invalid("must not be blank")
	}
	switch s {
	case GBCPH:
		digits := strings.ReplaceAll(compact, "/", "")
		if strings.Count(compact, "/") != 0 && !cphSlashes(compact) {
			return "", invalid("must be a CPH in the form CC/PPP/HHHH, such as 34/123/1234")
		}
		if len(digits) != 9 || !allDigits(digits) {
			return "", invalid("must be a CPH of 9 digits in the form CC/PPP/HHHH, such as 34/123/1234")
		}
		if digits[:2] == "00" {
			return "", invalid("has county 00, which no CPH has")
		}
		return digits[:2] + "/" + digits[2:5] + "/" + digits[5:], nil
	case DEBNR:
		if !allDigits(compact) {
			return "", invalid("must be a Betriebsnummer of 12 digits (or 15 beginning 276)")
		}
		if len(compact) == 15 {
			if compact[:3] != "276" {
				return "", invalid("is a 15-digit number not beginning with 276, Germany's country code")
			}
			compact = compact[3:]
		}
		if len(compact) != 12 {
			return "", invalid("must be a Betriebsnummer of 12 digits (or 15 beginning 276)")
		}
		if !germanLand(compact[:2]) {
			return "", invalid("begins with %s, which is no Land code (01 to 16, or 99)", compact[:2])
		}
		return compact, nil
	case NLUBN:
		if !allDigits(compact) || len(compact) > 7 {
			return "", invalid("must be a UBN of 1 to 7 digits")
		}
		compact = strings.TrimLeft(compact, "0")
		if compact == "" {
			return "", invalid("must be a UBN other than 0")
		}
		return compact, nil
	case IEHerd:
		if len(compact) != 8 || compact[0] < 'A' || compact[0] > 'Z' || !allAlnum(compact) {
			return "", invalid("must be a herd number of a letter and 7 letters or digits, such as A1234567")
		}
		return compact, nil
	case NZNAIT:
		if !allDigits(compact) || len(compact) > 10 {
			return "", invalid("must be a NAIT number of 1 to 10 digits")
		}
		compact = strings.TrimLeft(compact, "0")
		if compact == "" {
			return "", invalid("must be a NAIT number other than 0")
		}
		return compact, nil
	case AUPIC:
		if len(compact) != 8 || !allAlnum(compact) {
			return "", invalid("must be a PIC of 8 letters or digits, such as QABC1234")
		}
		if _, ok := auStates[compact[0]]; !ok {
			return "", invalid("begins with %q, which names no state (N, Q, 3, S, W, M or T)", compact[:1])
		}
		return compact, nil
	}
	return "", invalid("is not a known holding scheme")
}

// State returns the Australian state or territory a PIC's first character names, "" for
// other schemes or an unknown character.
func State(pic string) string {
	if pic == "" {
		return ""
	}
	return auStates[pic[0]]
}

// cphSlashes reports whether a CPH typed with slashes puts them between county, parish
// and holding (2/3/4 digits).
func cphSlashes(s string) bool {
	parts := strings.Split(s, "/")
	return len(parts) == 3 && len(parts[0]) == 2 && len(parts[1]) == 3 && len(parts[2]) == 4
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func allAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return s != ""
}
