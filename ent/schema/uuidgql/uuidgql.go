// Package uuidgql maps uuid.UUID to the GraphQL ID scalar, so that GraphQL ids are the same
// plain UUID strings that the REST facade shows.
package uuidgql

import (
	"fmt"
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
)

// MarshalUUID writes a UUID as a quoted GraphQL string.
func MarshalUUID(u uuid.UUID) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(u.String()))
	})
}

// InputError is a malformed id in an operation's arguments: the client's mistake, which the
// graph's error presenter shows as BAD_USER_INPUT instead of an internal error.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

// BadUserInput marks the error as the client's.
func (e *InputError) BadUserInput() {}

// UnmarshalUUID reads a UUID from a GraphQL string and names the problem when it is not one.
func UnmarshalUUID(v any) (uuid.UUID, error) {
	s, ok := v.(string)
	if !ok {
		return uuid.Nil, &InputError{msg: fmt.Sprintf("an id must be a string, got %T", v)}
	}
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return uuid.Nil, &InputError{msg: fmt.Sprintf("%q is not a UUID", s)}
	}
	return u, nil
}
