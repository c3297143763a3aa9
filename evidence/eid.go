package evidence

import (
	"fmt"
	"strconv"
)

// EIDs (ISO 11784/11785) are 64-bit codes. Their decimal reading is a 3-digit country (or
// manufacturer) code followed by a 12-digit national identification number; readers print
// it as 15 digits, sometimes with a space after the code, or print the whole code as 16
// hexadecimal digits (the FDX-B form), with the animal flag as the most significant bit,
// then 14 reserved and data-block bits, the 10-bit country code and the 38-bit national
// number.
const (
	eidNationalBits = 38
	eidNationalMask = 1<<eidNationalBits - 1
	eidCountryMask  = 1<<10 - 1
	eidMaxNational  = 999_999_999_999
	eidMaxCountry   = 999
)

// NormalizeEID reads an EID in any form readers emit and returns its canonical 15 digits:
// "982000123456789", "982 000123456789" and the 16-hex-digit FDX-B form of the same code
// all give "982000123456789". Surrounding spaces are ignored. ok is false for anything
// else, including a hex code whose country or national number has no 15-digit spelling.
func NormalizeEID(s string) (string, bool) {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	switch {
	case len(s) == 15 && allDigits(s):
		return s, true
	case len(s) == 16 && s[3] == ' ' && allDigits(s[:3]) && allDigits(s[4:]):
		return s[:3] + s[4:], true
	case len(s) == 16:
		v, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			return "", false
		}
		country, national := (v>>eidNationalBits)&eidCountryMask, v&eidNationalMask
		if country > eidMaxCountry || national > eidMaxNational {
			return "", false
		}
		return fmt.Sprintf("%03d%012d", country, national), true
	}
	return "", false
}

// EIDHex returns the FDX-B hexadecimal form of a canonical 15-digit EID, with the animal
// flag set, as many readers print it. It is the inverse of NormalizeEID for that form.
func EIDHex(eid string) (string, bool) {
	if len(eid) != 15 || !allDigits(eid) {
		return "", false
	}
	country, _ := strconv.ParseUint(eid[:3], 10, 64)
	national, _ := strconv.ParseUint(eid[3:], 10, 64)
	if country > eidCountryMask || national > eidNationalMask {
		return "", false
	}
	return fmt.Sprintf("%016X", uint64(1)<<63|country<<eidNationalBits|national), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
