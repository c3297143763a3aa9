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

// UnmarshalUUID reads a UUID from a GraphQL string and names the problem when it is not one.
func UnmarshalUUID(v any) (uuid.UUID, error) {
	s, ok := v.(string)
	if !ok {
		return uuid.Nil, fmt.Errorf("id must be a string, got %T", v)
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, fmt.Errorf("id %q is not a UUID", s)
	}
	return u, nil
}
