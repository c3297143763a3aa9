package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
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

// cancelledExec is an executor whose operation finds its request's context ended, as gqlgen's
// does when the client goes away between parsing and running: its answer is nil.
type cancelledExec struct{}

func (cancelledExec) CreateOperationContext(ctx context.Context, _ *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	return &graphql.OperationContext{}, nil
}

func (cancelledExec) DispatchOperation(ctx context.Context, _ *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	return func(context.Context) *graphql.Response { return nil }, ctx
}

func (cancelledExec) DispatchError(context.Context, gqlerror.List) *graphql.Response {
	return &graphql.Response{}
}

// TestCancelledBeforeItRuns: a request whose client went away before its operation ran
// gets no body and no panic (the transport read gqlgen's nil answer as a response once, and
// the server logged a recovered nil dereference at the end of a browser test).
func TestCancelledBeforeItRuns(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ viewer { id } }"}`))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	postJSON{}.Do(w, r, cancelledExec{})
	if w.Body.Len() != 0 {
		t.Fatalf("answered %q to a request no one waits for", w.Body.String())
	}
}
