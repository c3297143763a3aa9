package herdbooktest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// closedDoc is a small document in the shapes rest/openapi.json uses: a described $ref as
// an allOf wrapper, a nested object that says nothing of other keys, and one open on purpose.
const closedDoc = `{
  "openapi": "3.2.0",
  "paths": {"/v1/x": {"put": {
    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Body"}}}},
    "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Body"}}}}}
  }}},
  "components": {"schemas": {
    "Body": {"type": "object", "properties": {
      "dose": {"allOf": [{"$ref": "#/components/schemas/Dose"}], "description": "The dose band."},
      "meta": {"type": "object", "additionalProperties": true, "properties": {"note": {"type": "string"}}}
    }},
    "Dose": {"type": "object", "required": ["unit", "min"], "properties": {"unit": {"type": "string"}, "min": {"type": "number"}}}
  }}
}`

// TestClosedContract guards FuzzOpenAPI's two properties: read closed, the document refuses a
// nested key it does not name, in a write the server accepted and in an answer, where plain
// JSON Schema lets it through; a described $ref and an object open on purpose stay valid.
func TestClosedContract(t *testing.T) {
	t.Parallel()
	open, err := herdbooktest.NewContract([]byte(closedDoc), "/v1/")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := herdbooktest.Closed([]byte(closedDoc))
	if err != nil {
		t.Fatal(err)
	}
	closed, err := herdbooktest.NewContract(doc, "/v1/")
	if err != nil {
		t.Fatal(err)
	}
	exchange := func(body string) herdbooktest.Exchange {
		return herdbooktest.Exchange{Method: "PUT", Path: "/v1/x", Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body),
			Res: herdbooktest.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}}
	}
	for _, tc := range []struct {
		name, body string
		openOK     bool // plain JSON Schema accepts it
		closedOK   bool
	}{
		{"OK", `{"dose":{"unit":"ml","min":1}}`, true, true},
		{"OKOpenOnPurpose", `{"meta":{"note":"n","colour":"red"}}`, true, true},
		{"ErrNestedUnknownKey", `{"dose":{"unit":"ml","min":1,"bogus":1}}`, true, false},
		{"ErrUnknownKey", `{"bogus":1}`, true, false},
		{"ErrMissingNumber", `{"dose":{"unit":"ml"}}`, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(tc.body)
			for _, c := range []struct {
				name string
				c    *herdbooktest.Contract
				ok   bool
			}{{"open", open, tc.openOK}, {"closed", closed, tc.closedOK}} {
				req := c.c.RequestProblem(x)
				res := c.c.ResponseProblems(x)
				if (req == "") != c.ok || (len(res) == 0) != c.ok {
					t.Errorf("%s document: request %q, answer %q; want valid %v", c.name, req, strings.Join(res, "; "), c.ok)
				}
			}
		})
	}
}
