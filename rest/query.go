package rest

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	herdbook "github.com/herdbook/herdbook"
)

// queryParams lists, by "METHOD /v1/path", the query parameters each operation of the
// OpenAPI document declares: the document is the one list, so a path added with its
// parameters documented is checked with no further code.
var queryParams = func() map[string]map[string]bool {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]openAPIParam `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		panic("rest: openapi.json: " + err.Error())
	}
	names := func(raw json.RawMessage, into map[string]bool) {
		var list []openAPIParam
		_ = json.Unmarshal(raw, &list)
		for _, p := range list {
			if p.Ref != "" {
				p = doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
			}
			if p.In == "query" {
				into[p.Name] = true
			}
		}
	}
	out := map[string]map[string]bool{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			var op struct {
				Parameters json.RawMessage `json:"parameters"`
			}
			_ = json.Unmarshal(raw, &op)
			set := map[string]bool{}
			names(item["parameters"], set)
			names(op.Parameters, set)
			out[strings.ToUpper(method)+" "+path] = set
		}
	}
	return out
}()

type openAPIParam struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
}

// strictQuery refuses a query parameter the operation (method and path under /v1) does not
// declare, naming it: ?as_off=2000-01-01 or ?tak=1 was ignored, and the client got today's
// profile or every row, believing its parameter applied. An operation the document does not
// describe is left unchecked.
func strictQuery(method, path string, next http.Handler, fail func(http.ResponseWriter, *http.Request, error)) http.Handler {
	allowed, ok := queryParams[method+" /v1"+path]
	if !ok {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery == "" {
			next.ServeHTTP(w, r)
			return
		}
		var unknown []string
		for name := range r.URL.Query() {
			if !allowed[name] {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		sort.Strings(unknown)
		known := make([]string, 0, len(allowed))
		for name := range allowed {
			known = append(known, name)
		}
		sort.Strings(known)
		hint := "this operation takes no query parameters"
		if len(known) > 0 {
			hint = "this operation takes " + strings.Join(known, ", ")
		}
		fields := make([]herdbook.FieldError, len(unknown))
		for i, name := range unknown {
			fields[i] = herdbook.FieldError{Field: name, Message: "is not a query parameter of this operation; " + hint}
		}
		fail(w, r, herdbook.Invalid(fields...))
	})
}
