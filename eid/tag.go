package eid

import (
	"fmt"
	"strconv"
	"strings"
)

// The official visual tag schemes ParseTag checks.
const (
	// SchemeUKCattle is the GB cattle ear tag and passport number since 2000: UK, a 6-digit
	// herd mark, a check digit from 1 to 7 and a 5-digit animal number (UK 123456 100001).
	// The check digit is the remainder of the 11-digit number formed by the herd mark and
	// the animal number divided by 7, plus 1 (BCMS numbering; a herd's consecutive calves
	// cycle through 1 to 7).
	SchemeUKCattle = "uk_cattle"
	// SchemeUKOther is a 12-digit UK or XI number outside the GB cattle scheme: sheep and
	// goats (UK 0 and a flock mark, no check digit) and Northern Ireland cattle (UK 9, and
	// XI 0 from 2024; no published check digit). Only the spacing is normalised.
	SchemeUKOther = "uk"
	// SchemeDECattle is the German cattle ear tag number (Lebensohrmarke, HI-Tier): DE, a
	// 2-digit code of the issuing federal state (01 to 16) and 8 digits (DE 01 234 56789).
	// It has no check digit.
	SchemeDECattle = "de_cattle"
)

// Tag is a visual ear tag number read by ParseTag.
type Tag struct {
	// Scheme is the official scheme the number follows, or "" for free text.
	Scheme string
	// Value is the number in its scheme's spacing, or the free text trimmed.
	Value string
}

// ParseTag reads a visual ear tag number. A number of an official scheme (SchemeUKCattle,
// SchemeUKOther, SchemeDECattle), recognised by its country letters and digit count
// whatever the spacing and case, is checked by the scheme's rule and returned in its
// printed spacing; anything else is free text, returned trimmed. A wrong check digit or
// state code is an *Error naming the digit the rule gives.
func ParseTag(s string) (Tag, error) {
	text := strings.TrimSpace(s)
	compact := strings.ToUpper(strings.Join(strings.Fields(text), ""))
	if len(compact) < 2 || !allDigits(compact[2:]) {
		return Tag{Value: text}, nil
	}
	digits := compact[2:]
	switch prefix := compact[:2]; {
	case (prefix == "UK" || prefix == "XI") && len(digits) == 12:
		spaced := prefix + " " + digits[:6] + " " + digits[6:]
		switch {
		case digits[0] == '0' && prefix == "UK":
			// Sheep and goats: UK 0 and the flock mark, then the animal's 5 digits.
			return Tag{Scheme: SchemeUKOther, Value: prefix + " " + digits[:7] + " " + digits[7:]}, nil
		case prefix == "XI" || digits[0] == '9':
			// Northern Ireland cattle: UK 9 (XI 0 from 2024), the herd number, 5 digits.
			return Tag{Scheme: SchemeUKOther, Value: prefix + " " + digits[:1] + " " + digits[1:7] + " " + digits[7:]}, nil
		}
		want := UKCheckDigit(digits[:6], digits[7:])
		if digits[6] != want {
			return Tag{}, errorf("is %s, whose check digit %c is wrong: for herd mark %s and animal number %s the UK cattle rule (the 11-digit number %s%s modulo 7, plus 1) gives %c",
				spaced, digits[6], digits[:6], digits[7:], digits[:6], digits[7:], want)
		}
		return Tag{Scheme: SchemeUKCattle, Value: spaced}, nil
	case prefix == "DE" && len(digits) == 10:
		state, _ := strconv.Atoi(digits[:2])
		if state < 1 || state > 16 {
			return Tag{}, errorf("is DE %s %s, whose state code %s is not one of the 16 German federal states (01 to 16)", digits[:2], digits[2:], digits[:2])
		}
		return Tag{Scheme: SchemeDECattle, Value: fmt.Sprintf("DE %s %s %s", digits[:2], digits[2:5], digits[5:])}, nil
	}
	return Tag{Value: text}, nil
}

// UKCheckDigit returns the check digit ('1' to '7') of a GB cattle tag with this 6-digit
// herd mark and 5-digit animal number.
func UKCheckDigit(herd, animal string) byte {
	n, _ := strconv.ParseUint(herd+animal, 10, 64)
	return byte('1' + n%7)
}
