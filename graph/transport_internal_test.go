package graph

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// TestWriteResponseAsEncodingJSON: the answer writer gives the bytes encoding/json gives a
// graphql.Response (members, order, omitted empties), for every member it can carry.
func TestWriteResponseAsEncodingJSON(t *testing.T) {
	t.Parallel()
	yes := true
	for name, resp := range map[string]*graphql.Response{
		"Data":       {Data: json.RawMessage(`{"farm":{"name":"Hill \u00e9 \"top\""}}`)},
		"NullData":   {},
		"Errors":     {Errors: gqlerror.List{{Message: "no", Path: ast.Path{ast.PathName("farm")}, Extensions: map[string]any{"code": "NOT_FOUND"}}}},
		"Both":       {Data: json.RawMessage(`{"farm":null}`), Errors: gqlerror.List{{Message: "x"}}},
		"Deferred":   {Data: json.RawMessage(`{}`), Label: "l", Path: ast.Path{ast.PathName("a"), ast.PathIndex(2)}, HasNext: &yes},
		"Extensions": {Data: json.RawMessage(`{"a":1}`), Extensions: map[string]any{"cost": 3}},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			writeResponse(&got, resp)
			if got.String() != string(want) {
				t.Fatalf("got  %s\nwant %s", got.String(), want)
			}
		})
	}
}
