// Package eid reads and writes animal identifiers: ISO 11784/11785 electronic codes (EIDs)
// in every display and transfer form readers emit (ISO 24631-6 names the representations),
// and official visual ear tag numbers with their published check rules. It is pure: no I/O.
//
// An ISO 11784 code is 64 bits. Counted from the first bit a transponder sends: bit 1 is
// the animal flag (1 for an animal identification transponder), bits 2 to 15 are reserved
// (retagging counter, user information), bit 16 flags a following data block, bits 17 to
// 26 hold the country or manufacturer code (10 bits) and bits 27 to 64 the national
// identification number (38 bits, so at most 274,877,906,943). The canonical spelling is
// 15 decimal digits: the 3-digit code, then the national number in 12 digits.
package eid

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxNational is the largest national identification number 38 bits hold (2^38 − 1).
const MaxNational = 1<<38 - 1

// TestCountry is the code ISO 11784 reserves for test transponders.
const TestCountry = 999

// Code is an ISO 11784 animal identification code.
type Code struct {
	// Country is the ISO 3166-1 numeric country code (1 to 899) or a manufacturer code
	// (900 to 998); 999 marks a test transponder.
	Country uint16
	// National is the national identification number, at most MaxNational.
	National uint64
}

// String is the canonical 15 digits.
func (c Code) String() string { return fmt.Sprintf("%03d%012d", c.Country, c.National) }

// IsTest reports whether the code is a test transponder's (country code 999).
func (c Code) IsTest() bool { return c.Country == TestCountry }

// Form is a way readers and farm software print a code.
type Form string

// The forms Parse reads and Format writes.
const (
	// Decimal is the canonical 15 digits: 826000301234003.
	Decimal Form = "decimal"
	// Spaced is the 3-digit code, a space and the 12-digit number: 826 000301234003.
	Spaced Form = "spaced"
	// ASCII16 is Tru-Test's and FarmIT's "ASCII 16": a leading 0, then the 15 digits:
	// 0826000301234003.
	ASCII16 Form = "ascii16"
	// DotHex is the code and the national number in hexadecimal, joined by a dot (13
	// characters): 33A.0011F47753 (ISO11784Tools' "isodothex", the "bi-hex" of some readers).
	DotHex Form = "dothex"
	// HexFlagFirst is the 64 bits as 16 hexadecimal digits with the animal flag as the most
	// significant bit, so that it starts with 8 or 9: 8000CE8011F47753 (ISO11784Tools'
	// "iso64bitleft").
	HexFlagFirst Form = "hex_flag_first"
	// HexAsSent is the 64 bits in the order a transponder sends them, first bit first, so the
	// animal flag is the least significant bit: CAEE2F8801730001 (ISO11784Tools'
	// "iso64bitright").
	HexAsSent Form = "hex_as_sent"
)

// Forms lists every form Format writes, in the order the docs give them.
var Forms = []Form{Decimal, Spaced, ASCII16, DotHex, HexFlagFirst, HexAsSent}

// Format writes c in form f. The hexadecimal forms set the animal flag and leave the
// reserved bits and the data-block flag at 0.
func (c Code) Format(f Form) string {
	switch f {
	case Spaced:
		return fmt.Sprintf("%03d %012d", c.Country, c.National)
	case ASCII16:
		return "0" + c.String()
	case DotHex:
		return fmt.Sprintf("%03X.%010X", c.Country, c.National)
	case HexFlagFirst:
		return fmt.Sprintf("%016X", c.bits())
	case HexAsSent:
		return fmt.Sprintf("%016X", bits.Reverse64(c.bits()))
	}
	return c.String()
}

// bits is the 64-bit code with the animal flag as the most significant bit.
func (c Code) bits() uint64 { return 1<<63 | uint64(c.Country)<<38 | c.National&MaxNational }

// Error says why a value is not an EID; its message is a clause to follow a field's name
// ("eid must be …", "eid has …").
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func errorf(format string, args ...any) error { return &Error{Message: fmt.Sprintf(format, args...)} }

// formsText lists the forms Parse reads, for messages.
const formsText = "15 digits (826000301234003), the 3-digit code, a space and 12 digits (826 000301234003), " +
	"16 digits with a leading 0 (0826000301234003), dot-hex (33A.0011F47753) or 16 hexadecimal digits"

// Parse reads an EID in any form readers emit and returns its code: the forms of Form,
// and the line formats of panel and stick readers ("LA 982 000001088420",
// "A 00000 0 982 000001088420", "A0000000982000001088420", "10000000982000001088420"). Surrounding space is ignored
// and hexadecimal digits may be in either case. A 16-character value of decimal digits is
// always ASCII 16, never hexadecimal.
//
// It refuses, with an *Error: anything else; a national number above 274,877,906,943;
// country code 000; a code from 1 to 899 that is not an ISO 3166-1 numeric country code; a
// code above 999; a transponder whose animal flag is 0; and 16 hexadecimal digits that read
// as a valid animal code in both bit orders. Test codes (999) are returned: whether a farm
// takes them is its setting (Code.IsTest).
func Parse(s string) (Code, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" {
		return Code{}, errorf("must not be blank: give an ISO 11784 code as %s", formsText)
	}
	if c, err, ok := parseReaderLine(s); ok {
		return c, err
	}
	switch {
	case len(s) == 15 && allDigits(s):
		return decimal(s[:3], s[3:])
	case len(s) == 16 && s[3] == ' ' && allDigits(s[:3]) && allDigits(s[4:]):
		return decimal(s[:3], s[4:])
	case len(s) == 23 && allDigits(s):
		// The BDN (Italy) form of some readers: the animal flag, 7 digits of reserved
		// field and data-block flag, then the 15 digits.
		if s[0] == '0' {
			return Code{}, errorf("has the animal flag 0 (its first digit): it is not an animal identification transponder (ISO 11784 bit 1)")
		}
		if s[0] != '1' {
			return Code{}, errorf("has 23 digits but does not start with the animal flag 1, as in 10000000826000301234003")
		}
		return decimal(s[8:11], s[11:])
	case len(s) == 16 && allDigits(s):
		// ASCII 16: Tru-Test and FarmIT put a 0 before the 15 digits; readers that print
		// the animal flag put a 1 there.
		if s[0] != '0' && s[0] != '1' {
			return Code{}, errorf("has 16 decimal digits, which are read as ASCII 16 (a leading 0 then the 15 digits, as in 0826000301234003), but does not start with 0 or 1; if it is a raw hexadecimal reading, give the 15-digit or dot-hex form")
		}
		return decimal(s[1:4], s[4:])
	case strings.Count(s, ".") == 1:
		return dotHex(s)
	case len(s) == 16 && allHex(s):
		return rawHex(s)
	}
	return Code{}, errorf("must be an ISO 11784 EID in a form readers print: %s", formsText)
}

// Canonical returns the canonical 15 digits of an EID in any form Parse reads.
func Canonical(s string) (string, error) {
	c, err := Parse(s)
	if err != nil {
		return "", err
	}
	return c.String(), nil
}

// parseReaderLine reads the line formats of panel and stick readers: an optional L (line
// mode), A for an animal code or R for a non-animal one, then either the code and number
// ("LA 982 000001088420"), the reserved field, data-block flag, code and number ("A 00000 0
// 982 000001088420", the TIRIS S2000 form) or 22 digits run together ("A0000000982000001088420",
// the ISO long form). ok is false when s is none of these.
func parseReaderLine(s string) (c Code, err error, ok bool) {
	head := s
	head = strings.TrimPrefix(head, "L")
	if head == "" || (head[0] != 'A' && head[0] != 'R') {
		return Code{}, nil, false
	}
	animal := head[0] == 'A'
	fields := strings.FieldsFunc(head[1:], func(r rune) bool { return r == ' ' || r == '_' })
	for _, f := range fields {
		if !allDigits(f) {
			return Code{}, nil, false
		}
	}
	var country, national string
	switch {
	case len(fields) == 2 && len(fields[0]) == 3 && len(fields[1]) == 12:
		country, national = fields[0], fields[1]
	case len(fields) == 4 && len(fields[0]) == 5 && len(fields[1]) == 1 && len(fields[3]) == 12 &&
		(len(fields[2]) == 3 || len(fields[2]) == 4 && fields[2][0] == '0'):
		// TIRIS S2000; Datamars' F-210 variant writes the code in 4 digits (0999).
		country, national = fields[2][len(fields[2])-3:], fields[3]
	case len(fields) == 1 && len(fields[0]) == 22:
		country, national = fields[0][7:10], fields[0][10:]
	default:
		if animal || len(fields) == 0 {
			return Code{}, nil, false
		}
	}
	if !animal {
		return Code{}, errorf("is a non-animal (R, industrial) transponder code: its animal flag is 0, so ISO 11784 does not make it an animal's identification"), true
	}
	c, err = decimal(country, national)
	return c, err, true
}

// decimal checks a code read from decimal digits.
func decimal(country, national string) (Code, error) {
	cc, _ := strconv.ParseUint(country, 10, 16)
	n, _ := strconv.ParseUint(national, 10, 64)
	if n > MaxNational {
		return Code{}, errorf("has the national identification number %s, above 274877906943 (2^38 − 1), the largest the 38 bits of an ISO 11784 code hold", national)
	}
	c := Code{Country: uint16(cc), National: n}
	return c, c.checkCountry()
}

// dotHex reads the dot-hex form: the code (1 to 3 hexadecimal digits), a dot, the national
// number (1 to 10 hexadecimal digits).
func dotHex(s string) (Code, error) {
	country, national, _ := strings.Cut(s, ".")
	if len(country) < 1 || len(country) > 3 || len(national) < 1 || len(national) > 10 || !allHex(country) || !allHex(national) {
		return Code{}, errorf("must be an ISO 11784 EID in a form readers print: %s; the dot-hex form is the code in 3 hexadecimal digits, a dot and the national number in 10 (33A.0011F47753)", formsText)
	}
	cc, _ := strconv.ParseUint(country, 16, 16)
	n, _ := strconv.ParseUint(national, 16, 64)
	if n > MaxNational {
		return Code{}, errorf("has the national identification number %d (%s), above 274877906943 (2^38 − 1), the largest the 38 bits of an ISO 11784 code hold", n, national)
	}
	if cc > 999 {
		return Code{}, errorf("has the code %d (%s), above 999: ISO 11784 codes are 3 decimal digits", cc, country)
	}
	c := Code{Country: uint16(cc), National: n}
	return c, c.checkCountry()
}

// rawHex reads 16 hexadecimal digits in the bit order that makes a valid animal code: the
// animal flag first (most significant bit) or last (the order of transmission). When both
// orders give a valid animal code, the one whose reserved bits and data-block flag are 0
// wins; when that does not tell them apart either, the value is refused.
func rawHex(s string) (Code, error) {
	v, _ := strconv.ParseUint(s, 16, 64)
	type reading struct {
		code  Code
		err   error
		clean bool
	}
	read := func(x uint64) reading {
		if x>>63 == 0 {
			return reading{err: errorf("has the animal flag 0 in both bit orders: it is not an animal identification transponder (ISO 11784 bit 1)")}
		}
		country := uint16(x >> 38 & 0x3FF)
		c := Code{Country: country, National: x & MaxNational}
		if country > 999 {
			return reading{err: errorf("has the code %d, above 999: ISO 11784 codes are 3 decimal digits", country)}
		}
		return reading{code: c, err: c.checkCountry(), clean: x>>48&0x7FFF == 0}
	}
	first, sent := read(v), read(bits.Reverse64(v))
	switch {
	case first.err == nil && sent.err == nil:
		if first.code == sent.code || (first.clean && !sent.clean) {
			return first.code, nil
		}
		if sent.clean && !first.clean {
			return sent.code, nil
		}
		return Code{}, errorf("reads as %s with the animal flag first and as %s in the order of transmission: give the 15-digit or dot-hex form", first.code, sent.code)
	case first.err == nil:
		return first.code, nil
	case sent.err == nil:
		return sent.code, nil
	case v>>63 == 1:
		return Code{}, first.err
	case v&1 == 1:
		return Code{}, sent.err
	}
	return Code{}, first.err
}

// checkCountry refuses code 000 and a code from 1 to 899 that is not an ISO 3166-1 numeric
// country code.
func (c Code) checkCountry() error {
	switch {
	case c.Country == 0:
		return errorf("has the country code 000, which ISO 11784 does not assign")
	case c.Country < 900 && !IsCountry(c.Country):
		return errorf("has the country code %03d, which is not an ISO 3166-1 numeric country code (ISO 11784: 1 to 899 are countries, 900 to 998 manufacturers, 999 test transponders)", c.Country)
	}
	return nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && (s[i] < 'A' || s[i] > 'F') {
			return false
		}
	}
	return s != ""
}
