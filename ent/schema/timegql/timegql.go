// Package timegql maps instants to the GraphQL Time scalar strictly: RFC 3339 with a zone,
// as REST reads them. gqlgen's own Time takes "" as the zero time (0001-01-01, which it
// then cannot write back: every read of such a field failed) and a date-time without a
// zone as UTC.
package timegql

import (
	"fmt"
	"io"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// min is the earliest instant the scalar reads, the service's MinInstant.
var min = time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC)

// MarshalTime writes t as RFC 3339 with nanoseconds. The zero time, which no write makes
// any more but an older row may hold, is written as it is rather than as null, so that a
// field that must have a time can still be read.
func MarshalTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		b := make([]byte, 0, 40)
		b = append(b, '"')
		b = t.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
		_, _ = w.Write(b)
	})
}

// InputError is a malformed time in an operation's arguments: the client's mistake, which
// the graph's error presenter shows as BAD_USER_INPUT naming the argument.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

// BadUserInput marks the error as the client's.
func (e *InputError) BadUserInput() {}

// UnmarshalTime reads an RFC 3339 date-time with a zone (Z or an offset), on or after
// 0001-01-02T00:00:00Z.
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, &InputError{msg: fmt.Sprintf("a time must be an RFC 3339 string such as 2026-03-01T08:00:00Z, got %T", v)}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, &InputError{msg: fmt.Sprintf("%q is not an RFC 3339 date-time with a zone, such as 2026-03-01T08:00:00Z", s)}
	}
	if t.Before(min) {
		return time.Time{}, &InputError{msg: fmt.Sprintf("%q is before 0001-01-02T00:00:00Z", s)}
	}
	return t, nil
}
