package herdbook

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/eid"
	"github.com/herdbook/herdbook/evidence"
)

// Identifiers: every EID that enters (a register body's eid, an identifier fact of a record
// or of the facts API, a CSV import cell) is read by eid.Parse in any reader form and stored
// as its canonical 15 digits; every visual tag (an identifier fact of scheme visual, an
// animal's tag) is checked by its official scheme's rule (eid.ParseTag) and stored in the
// scheme's spacing. docs/identifiers.md lists the forms and rules with their sources.

// eidMessage is the message of an EID that eid.Parse refuses.
func eidMessage(err error) string {
	return strings.TrimSuffix(err.Error(), ".") + " (ISO 11784/11785; see docs/identifiers.md)"
}

// testTagMessage is the message of a test transponder code on a farm that does not take them.
const testTagMessage = "is a test transponder code (999, ISO 11784): the farm's settings do not allow test tags (allow_test_tags)"

// checkIdentifierValues holds each identifier fact being written to its scheme: an EID
// must be an ISO 11784 animal code, a test code (999) only on a farm whose settings allow
// test tags, and is rewritten as its 15 digits; a visual tag of an official scheme must
// pass the scheme's check and is rewritten in its spacing. It reads the farm's settings
// only when a test code is written. field names fact i's value.
func (s *Service) checkIdentifierValues(ctx context.Context, farmID uuid.UUID, facts []*evidence.Fact, field func(i int) string) error {
	var fe fieldErrors
	var tests []int
	for i, f := range facts {
		if f == nil || f.Kind != evidence.KindIdentifier {
			continue
		}
		switch f.Scheme {
		case evidence.SchemeEID:
			c, err := eid.Parse(f.Value)
			if err != nil {
				fe.add(field(i), "%s", eidMessage(err))
				continue
			}
			f.Value = c.String()
			if c.IsTest() {
				tests = append(tests, i)
			}
		case evidence.SchemeVisual:
			t, err := eid.ParseTag(f.Value)
			if err != nil {
				fe.add(field(i), "%s", err.Error())
				continue
			}
			f.Value = t.Value
		}
	}
	if len(tests) > 0 {
		allowed, err := s.testTagsAllowed(ctx, farmID)
		if err != nil {
			return err
		}
		for _, i := range tests {
			if !allowed {
				fe.add(field(i), "%s", testTagMessage)
			}
		}
	}
	return fe.err()
}

// testTagsAllowed reports whether the farm's settings allow test transponders
// (allow_test_tags); unset is false.
func (s *Service) testTagsAllowed(ctx context.Context, farmID uuid.UUID) (bool, error) {
	st, err := s.settings(ctx, farmID)
	return st.AllowTestTags, err
}

// normalizeTag checks an animal's tag: a number of an official scheme (eid.ParseTag) must
// pass its check and is spelled in the scheme's spacing; anything else is trimmed.
func normalizeTag(tag string) (string, error) {
	t, err := eid.ParseTag(tag)
	if err != nil {
		return "", err
	}
	return t.Value, nil
}

// tagValue is an animal's tag as stored: normalizeTag's spelling, or the tag trimmed when
// it does not pass (the caller validated it).
func tagValue(tag string) string {
	if t, err := normalizeTag(tag); err == nil {
		return t
	}
	return strings.TrimSpace(tag)
}

// identifierTail is what the last-digits search matches: the last 6 decimal digits of an
// identifier's value (fewer when it has fewer), or nil when it has none.
func identifierTail(value string) *string {
	var digits []byte
	for i := len(value) - 1; i >= 0 && len(digits) < tailDigits; i-- {
		if c := value[i]; c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	if len(digits) == 0 {
		return nil
	}
	for i, j := 0, len(digits)-1; i < j; i, j = i+1, j-1 {
		digits[i], digits[j] = digits[j], digits[i]
	}
	s := string(digits)
	return &s
}

// tailDigits is how many of an identifier's last digits are indexed for search.
const tailDigits = 6

// tailsFor returns the stored tails (identifierTail) of the identifiers whose last digits
// are q (4 to 6 decimal digits): q itself, and q behind every digit string that brings it to
// at most 6 digits (111 values for 4 digits). nil when q is not 4 to 6 digits.
func tailsFor(q string) []string {
	if len(q) < 4 || len(q) > tailDigits || strings.Trim(q, "0123456789") != "" {
		return nil
	}
	out := []string{q}
	level := []string{q}
	for range tailDigits - len(q) {
		var next []string
		for _, t := range level {
			for d := '0'; d <= '9'; d++ {
				next = append(next, string(d)+t)
			}
		}
		out, level = append(out, next...), next
	}
	return out
}
