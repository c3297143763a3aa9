package evidence

import (
	"strings"

	"github.com/herdbook/herdbook/eid"
)

// NormalizeEID reads an EID in any form readers emit (eid.Parse: 15 digits, spaced, ASCII
// 16, dot-hex, raw hexadecimal in either bit order, reader line formats) and returns its
// canonical 15 digits. Surrounding spaces are ignored. 15 decimal digits are also taken as
// they are, as stored facts spell them: facts stored before the parser refused country 000
// or a national number above 2^38 − 1 still read. Writes hold every EID to eid.Parse's
// rules (the service's identifier check). ok is false for anything else.
func NormalizeEID(s string) (string, bool) {
	if c, err := eid.Parse(s); err == nil {
		return c.String(), true
	}
	if t := strings.TrimSpace(s); len(t) == 15 && allDigits(t) {
		return t, true
	}
	return "", false
}

// eidProblem is what is wrong with an EID value, for Validate.
func eidProblem(s string) string {
	if _, ok := NormalizeEID(s); ok {
		return ""
	}
	_, err := eid.Parse(s)
	return err.Error()
}

// EIDHex returns the raw hexadecimal form of a canonical 15-digit EID with the animal flag
// first, as many readers print it (eid.HexFlagFirst).
func EIDHex(s string) (string, bool) {
	c, err := eid.Parse(s)
	if err != nil || len(strings.TrimSpace(s)) != 15 {
		return "", false
	}
	return c.Format(eid.HexFlagFirst), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
