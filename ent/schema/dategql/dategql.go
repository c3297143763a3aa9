// Package dategql maps calendar dates, kept as YYYY-MM-DD strings, to the GraphQL Date scalar:
// a date is a day on the farm's calendar, not an instant, so it carries no time or zone.
package dategql

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// MarshalDate writes a date as a quoted YYYY-MM-DD string.
func MarshalDate(d string) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(d))
	})
}

// InputError is a malformed date in an operation's arguments: the client's mistake, which the
// graph's error presenter shows as BAD_USER_INPUT.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

// BadUserInput marks the error as the client's.
func (e *InputError) BadUserInput() {}

// UnmarshalDate reads a real calendar date in the form YYYY-MM-DD (RFC 3339 full-date).
func UnmarshalDate(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", &InputError{msg: fmt.Sprintf("a date must be a string YYYY-MM-DD, got %T", v)}
	}
	if _, err := time.Parse(time.DateOnly, s); err != nil || len(s) != len(time.DateOnly) {
		return "", &InputError{msg: fmt.Sprintf("%q is not a calendar date YYYY-MM-DD", s)}
	}
	return s, nil
}
