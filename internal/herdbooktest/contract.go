package herdbooktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Exchange is one request a test sent and the answer it got.
type Exchange struct {
	Method string
	Path   string      // as sent, with the query string
	Header http.Header // the request's headers
	Body   []byte      // the request's body
	Res    Response
}

// OnExchange, when set (by a package's TestMain, through CheckContract), sees every exchange
// App.Do makes and every one a test hands to Observe.
var OnExchange func(Exchange)

// Observe hands an exchange a test made without App.Do to the contract check.
func Observe(x Exchange) {
	if OnExchange != nil {
		OnExchange(x)
	}
}

// CheckContract runs a package's tests (m.Run) and then checks every exchange they made
// against the OpenAPI document doc, for the paths under the given prefixes:
//
//   - every answer must be documented (path, method, status) and match its schema;
//   - every request is validated too (path, query and header parameters, credentials, body),
//     and a request the document refuses must not succeed (2XX) nor break the server
//     (5XX): deliberately bad requests are recognised by their refusal, and a document
//     stricter than the server shows up as a refused request that succeeded;
//   - when the whole package ran, every documented operation must have been called with
//     a valid request that succeeded, so that the document cannot describe what the server
//     does not do.
//
// It returns the exit code for os.Exit.
func CheckContract(m *testing.M, doc []byte, prefixes ...string) int {
	var (
		mu   sync.Mutex
		list []Exchange
	)
	OnExchange = func(x Exchange) {
		mu.Lock()
		list = append(list, x)
		mu.Unlock()
	}
	code := m.Run()
	OnExchange = nil
	if code != 0 {
		return code
	}
	c, err := NewContract(doc, prefixes...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		return 1
	}
	var problems []string
	for _, x := range list {
		problems = append(problems, c.Check(x)...)
	}
	whole := true
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		whole = false
	}
	if f := flag.Lookup("test.skip"); f != nil && f.Value.String() != "" {
		whole = false
	}
	if whole && !testing.Short() {
		problems = append(problems, c.Uncovered()...)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "openapi: %d problems with the document (rest/openapi.json) in %d exchanges:\n  %s\n", len(problems), c.checked, strings.Join(problems, "\n  "))
		return 1
	}
	fmt.Printf("openapi: %d exchanges match the document: %d requests valid and %d refused as invalid; %d operations covered\n",
		c.checked, c.valid, c.refused, len(c.covered))
	return 0
}

// Contract checks exchanges against an OpenAPI document.
type Contract struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	routes   []route
	prefixes []string

	checked, valid, refused int
	covered                 map[string]bool // "get /v1/farm" called validly with success
}

type route struct {
	template string
	re       *regexp.Regexp
}

// NewContract parses the document; it checks the paths under prefixes.
func NewContract(doc []byte, prefixes ...string) (*Contract, error) {
	c := &Contract{compiled: map[string]*jsonschema.Schema{}, prefixes: prefixes, covered: map[string]bool{}}
	if err := json.Unmarshal(doc, &c.doc); err != nil {
		return nil, fmt.Errorf("the document is not JSON: %w", err)
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c.compiler = jsonschema.NewCompiler()
	c.compiler.DefaultDraft(jsonschema.Draft2020)
	c.compiler.AssertFormat()
	if err := c.compiler.AddResource("openapi.json", raw); err != nil {
		return nil, err
	}
	for tmpl := range c.paths() {
		parts := strings.Split(tmpl, "/")
		for i, p := range parts {
			if strings.HasPrefix(p, "{") {
				parts[i] = `([^/]+)`
			} else {
				parts[i] = regexp.QuoteMeta(p)
			}
		}
		c.routes = append(c.routes, route{tmpl, regexp.MustCompile("^" + strings.Join(parts, "/") + "$")})
	}
	// Literal paths before templated ones: /v1/file/{id} must not swallow /v1/file.
	sort.Slice(c.routes, func(i, j int) bool {
		ci, cj := strings.Count(c.routes[i].template, "{"), strings.Count(c.routes[j].template, "{")
		if ci != cj {
			return ci < cj
		}
		return c.routes[i].template < c.routes[j].template
	})
	return c, nil
}

func (c *Contract) paths() map[string]any { return c.doc["paths"].(map[string]any) }

func (c *Contract) inScope(path string) bool {
	for _, p := range c.prefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// Uncovered lists the operations in scope that no valid, successful request reached.
func (c *Contract) Uncovered() []string {
	var out []string
	for tmpl, item := range c.paths() {
		if !c.inScope(tmpl) {
			continue
		}
		for method := range item.(map[string]any) {
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			if key := method + " " + tmpl; !c.covered[key] {
				out = append(out, fmt.Sprintf("%s %s: no test calls it with a valid request that succeeds", strings.ToUpper(method), tmpl))
			}
		}
	}
	sort.Strings(out)
	return out
}

// operation is the documented operation an exchange reached.
type operation struct {
	tmpl, method string
	item, op     map[string]any
	values       []string   // the path parameters' values, in the template's order
	query        url.Values // the request's query
}

// lookup finds the operation of x. It returns nil, with the problems when there are any,
// when x is out of scope or reached no documented operation.
func (c *Contract) lookup(x Exchange) (*operation, []string) {
	u, err := url.Parse(x.Path)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s %s: the test sent an unparsable path", x.Method, x.Path)}
	}
	path := u.Path
	if strings.HasPrefix(path, "/api/v1/") {
		path = strings.TrimPrefix(path, "/api") // every /v1 path is also served under /api/v1
	}
	if x.Method == http.MethodOptions || !c.inScope(path) {
		return nil, nil // CORS preflights are answered before any operation
	}
	var (
		tmpl   string
		values []string
	)
	for _, r := range c.routes {
		if m := r.re.FindStringSubmatch(path); m != nil {
			tmpl, values = r.template, m[1:]
			break
		}
	}
	if tmpl == "" {
		if x.Res.Status == http.StatusNotFound || x.Res.Status == http.StatusMethodNotAllowed || !strings.HasPrefix(path, "/v1/") {
			// An unknown route, answered by the envelope (tested elsewhere), or one of the
			// pages for people under /oauth, which are no part of the API.
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("%s %s: no path in the document", x.Method, path)}
	}
	item := c.paths()[tmpl].(map[string]any)
	method := strings.ToLower(x.Method)
	op, ok := item[method].(map[string]any)
	if !ok {
		if x.Res.Status == http.StatusMethodNotAllowed {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("%s %s: no such operation in the document", x.Method, tmpl)}
	}
	return &operation{tmpl: tmpl, method: method, item: item, op: op, values: values, query: u.Query()}, nil
}

// Check returns the problems of one exchange (none when it is out of scope).
func (c *Contract) Check(x Exchange) []string {
	o, problems := c.lookup(x)
	if o == nil {
		return problems
	}
	c.checked++
	name := x.Method + " " + o.tmpl
	problems = c.checkResponse(name, o.tmpl, o.method, o.op, x.Res)
	bad := c.checkRequest(o.tmpl, o.item, o.op, o.values, o.query, x)
	ok2xx := x.Res.Status >= 200 && x.Res.Status < 300
	switch {
	case bad != "" && ok2xx:
		problems = append(problems, fmt.Sprintf("%s: the server accepted (%d) a request the document refuses: %s", name, x.Res.Status, bad))
	case bad != "" && x.Res.Status >= 500:
		problems = append(problems, fmt.Sprintf("%s: a request the document refuses broke the server (%d): %s", name, x.Res.Status, bad))
	case bad != "":
		c.refused++
	default:
		c.valid++
		if x.Res.Status < 400 { // GET /oauth/authorize succeeds with a redirect
			c.covered[o.method+" "+o.tmpl] = true
		}
	}
	return problems
}

// RequestProblem returns why the document refuses the request of x (its parameters,
// credentials or body), or "" when the document accepts it or x is out of scope.
func (c *Contract) RequestProblem(x Exchange) string {
	o, problems := c.lookup(x)
	if o == nil {
		return strings.Join(problems, "; ")
	}
	return c.checkRequest(o.tmpl, o.item, o.op, o.values, o.query, x)
}

// ResponseProblems returns how the answer of x departs from the document: a status it does
// not declare, a header it does not name, a JSON body its schema refuses.
func (c *Contract) ResponseProblems(x Exchange) []string {
	o, problems := c.lookup(x)
	if o == nil {
		return problems
	}
	return c.checkResponse(x.Method+" "+o.tmpl, o.tmpl, o.method, o.op, x.Res)
}

// Closed returns the OpenAPI document with every object schema closed that lists its
// properties (type object) and says nothing of others: it gains unevaluatedProperties
// false, so that a key the document does not name fails validation at any depth. The
// server refuses unknown keys in every body (internal/httpapi.Unmarshal) and answers with
// the keys it documents; a schema that is open on purpose says so with additionalProperties
// (true, or the schema of the values). unevaluatedProperties, unlike additionalProperties,
// sees the properties an allOf wrapper brings in, so a described $ref stays valid.
func Closed(doc []byte) ([]byte, error) {
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("the document is not JSON: %w", err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			_, open := x["additionalProperties"]
			_, unevaluated := x["unevaluatedProperties"]
			props, hasProps := x["properties"].(map[string]any)
			if hasProps && !open && !unevaluated && isObjectType(x["type"]) {
				x["unevaluatedProperties"] = false
			}
			for k, c := range x {
				if k == "properties" && hasProps {
					for _, p := range props {
						walk(p) // a property named "type" or "properties" is no keyword
					}
					continue
				}
				if k == "examples" || k == "example" || k == "const" || k == "enum" || k == "default" {
					continue // values, not schemas
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(root)
	return json.Marshal(root)
}

// isObjectType reports whether a schema's type is object, alone or beside null.
func isObjectType(t any) bool {
	switch x := t.(type) {
	case string:
		return x == "object"
	case []any:
		for _, e := range x {
			if e == "object" {
				return true
			}
		}
	}
	return false
}

// resolve follows a local $ref (responses, parameters) and returns the object and the JSON
// pointer it lives at.
func (c *Contract) resolve(v any, at string) (map[string]any, string) {
	obj, _ := v.(map[string]any)
	for i := 0; obj != nil && i < 8; i++ {
		ref, ok := obj["$ref"].(string)
		if !ok {
			return obj, at
		}
		at = strings.TrimPrefix(ref, "#")
		var cur any = c.doc
		for _, tok := range strings.Split(strings.TrimPrefix(at, "/"), "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			m, _ := cur.(map[string]any)
			cur = m[tok]
		}
		obj, _ = cur.(map[string]any)
	}
	return obj, at
}

func pointer(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func (c *Contract) schema(at string) (*jsonschema.Schema, error) {
	if s, ok := c.compiled[at]; ok {
		return s, nil
	}
	s, err := c.compiler.Compile("openapi.json#" + at)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", at, err)
	}
	c.compiled[at] = s
	return s, nil
}

// validate checks v against the schema at the pointer and returns the error in one line.
func (c *Contract) validate(at string, v any) string {
	s, err := c.schema(at)
	if err != nil {
		return err.Error()
	}
	if err := s.Validate(v); err != nil {
		return strings.ReplaceAll(err.Error(), "\n", " ")
	}
	return ""
}

// meaningfulHeaders are request headers the API acts on beyond credentials: an operation
// that honours one declares it.
var meaningfulHeaders = []string{"Idempotency-Key"}

// rateLimitHeaders must be documented on the answers that carry them.
var rateLimitHeaders = []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Retry-After"}

func (c *Contract) checkResponse(name, tmpl, method string, op map[string]any, res Response) []string {
	status := strconv.Itoa(res.Status)
	responses, _ := op["responses"].(map[string]any)
	resp, at := c.resolve(responses[status], pointer("paths", tmpl, method, "responses", status))
	if resp == nil {
		return []string{fmt.Sprintf("%s: status %s is not documented", name, status)}
	}
	var problems []string
	if res.Status < 300 || res.Status == http.StatusTooManyRequests {
		declared, _ := resp["headers"].(map[string]any)
		for _, h := range rateLimitHeaders {
			if res.Header.Get(h) != "" && declared[h] == nil {
				problems = append(problems, fmt.Sprintf("%s %s: header %s is sent but not documented", name, status, h))
			}
		}
	}
	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 {
		if len(res.Body) != 0 {
			problems = append(problems, fmt.Sprintf("%s %s: documented without a body, got %q", name, status, res.Body))
		}
		return problems
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if mt != "application/json" {
		return problems // files, HTML pages: only JSON bodies have schemas to check
	}
	media, ok := content["application/json"].(map[string]any)
	if !ok {
		return append(problems, fmt.Sprintf("%s %s: answers JSON, documented as %v", name, status, keys(content)))
	}
	if _, ok := media["schema"]; !ok {
		return problems
	}
	body, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Body))
	if err != nil {
		return append(problems, fmt.Sprintf("%s %s: the body is not JSON: %q", name, status, res.Body))
	}
	if msg := c.validate(at+pointer("content", "application/json", "schema"), body); msg != "" {
		problems = append(problems, fmt.Sprintf("%s %s: %s", name, status, msg))
	}
	return problems
}

// parameter is a resolved parameter object and where its schema lives.
type parameter struct {
	name, in string
	required bool
	schemaAt string
	schema   map[string]any
}

func (c *Contract) parameters(tmpl, method string, item, op map[string]any) []parameter {
	var out []parameter
	add := func(list any, at string) {
		for i, p := range asSlice(list) {
			obj, pat := c.resolve(p, at+pointer(strconv.Itoa(i)))
			if obj == nil {
				continue
			}
			name, _ := obj["name"].(string)
			in, _ := obj["in"].(string)
			req, _ := obj["required"].(bool)
			sch, _ := obj["schema"].(map[string]any)
			out = append(out, parameter{name: name, in: in, required: req, schemaAt: pat + "/schema", schema: sch})
		}
	}
	add(item["parameters"], pointer("paths", tmpl, "parameters"))
	add(op["parameters"], pointer("paths", tmpl, method, "parameters"))
	return out
}

// checkRequest returns why the document refuses the request, or "" when it accepts it.
func (c *Contract) checkRequest(tmpl string, item, op map[string]any, values []string, query url.Values, x Exchange) string {
	method := strings.ToLower(x.Method)
	names := regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(tmpl, -1)
	pathValue := map[string]string{}
	for i, n := range names {
		if i < len(values) {
			v, _ := url.PathUnescape(values[i])
			pathValue[n[1]] = v
		}
	}
	declared := map[string]bool{}
	for _, p := range c.parameters(tmpl, method, item, op) {
		var (
			raw     string
			present bool
		)
		switch p.in {
		case "path":
			raw, present = pathValue[p.name]
		case "query":
			declared[p.name] = true
			present = query.Has(p.name)
			raw = query.Get(p.name)
			if len(query[p.name]) > 1 {
				return fmt.Sprintf("query parameter %s is given %d times", p.name, len(query[p.name]))
			}
		case "header":
			declared["header:"+http.CanonicalHeaderKey(p.name)] = true
			raw = x.Header.Get(p.name)
			present = raw != ""
		default:
			continue
		}
		if !present {
			if p.required {
				return fmt.Sprintf("%s parameter %s is required", p.in, p.name)
			}
			continue
		}
		if msg := c.validate(p.schemaAt, typed(raw, p.schema)); msg != "" {
			return fmt.Sprintf("%s parameter %s=%q: %s", p.in, p.name, raw, msg)
		}
	}
	for k := range query {
		if !declared[k] {
			return fmt.Sprintf("query parameter %s is not in the document", k)
		}
	}
	// Headers are open-ended, but the ones the API gives a meaning must be declared.
	for _, h := range meaningfulHeaders {
		if x.Header.Get(h) != "" && !declared["header:"+h] {
			return fmt.Sprintf("header %s is not in the document", h)
		}
	}
	if msg := c.checkCredentials(op, x.Header); msg != "" {
		return msg
	}
	return c.checkBody(tmpl, method, op, x)
}

// checkCredentials refuses a request without any credential to an operation that needs one.
func (c *Contract) checkCredentials(op map[string]any, h http.Header) string {
	sec, ok := op["security"]
	if !ok {
		sec = c.doc["security"]
	}
	reqs := asSlice(sec)
	if len(reqs) == 0 {
		return ""
	}
	for _, r := range reqs {
		if m, _ := r.(map[string]any); len(m) == 0 {
			return "" // {} makes credentials optional
		}
	}
	if h.Get("Authorization") == "" && h.Get("X-API-Key") == "" {
		return "no credential, and the operation needs one"
	}
	return ""
}

func (c *Contract) checkBody(tmpl, method string, op map[string]any, x Exchange) string {
	rb, at := c.resolve(op["requestBody"], pointer("paths", tmpl, method, "requestBody"))
	if rb == nil {
		if len(x.Body) > 0 {
			return "the operation takes no body"
		}
		return ""
	}
	if len(x.Body) == 0 {
		if req, _ := rb["required"].(bool); req {
			return "the body is required"
		}
		return ""
	}
	content, _ := rb["content"].(map[string]any)
	mt, params, err := mime.ParseMediaType(x.Header.Get("Content-Type"))
	if err != nil {
		return fmt.Sprintf("Content-Type %q cannot be parsed", x.Header.Get("Content-Type"))
	}
	if _, ok := content[mt]; !ok {
		return fmt.Sprintf("Content-Type %s is not one of %v", mt, keys(content))
	}
	schemaAt := at + pointer("content", mt, "schema")
	media := content[mt].(map[string]any)
	var v any
	switch mt {
	case "application/json":
		if v, err = jsonschema.UnmarshalJSON(bytes.NewReader(x.Body)); err != nil {
			return "the body is not JSON"
		}
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(x.Body))
		if err != nil {
			return "the body is not a URL-encoded form"
		}
		form := map[string]any{}
		for k, vs := range vals {
			if len(vs) > 1 {
				return fmt.Sprintf("form field %s is given %d times", k, len(vs))
			}
			form[k] = vs[0]
		}
		v = form
	case "multipart/form-data":
		form, msg := multipartForm(x.Body, params["boundary"], media)
		if msg != "" {
			return msg
		}
		v = form
	default:
		return ""
	}
	if msg := c.validate(schemaAt, v); msg != "" {
		return "body: " + msg
	}
	return ""
}

// multipartForm reads a multipart body into an object: fields as strings, and the parts of a
// property the schema makes an array collected into it (file contents as empty strings: the
// schema describes the form, the server judges the bytes).
func multipartForm(body []byte, boundary string, media map[string]any) (map[string]any, string) {
	if boundary == "" {
		return nil, "a multipart body without a boundary"
	}
	props := map[string]any{}
	if s, ok := media["schema"].(map[string]any); ok {
		props, _ = s["properties"].(map[string]any)
	}
	form := map[string]any{}
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "a malformed multipart body: " + err.Error()
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return nil, "a malformed multipart body: " + err.Error()
		}
		name, value := p.FormName(), any(string(b))
		if p.FileName() != "" {
			value = ""
		}
		prop, _ := props[name].(map[string]any)
		if t, _ := prop["type"].(string); t == "array" {
			list, _ := form[name].([]any)
			form[name] = append(list, value)
			continue
		}
		if _, dup := form[name]; dup {
			return nil, fmt.Sprintf("form field %s is given twice", name)
		}
		form[name] = value
	}
	return form, ""
}

// typed converts a parameter's text to what its schema's type expects, so that "5" can be
// an integer; text that does not convert stays text and fails the schema.
func typed(raw string, schema map[string]any) any {
	t, _ := schema["type"].(string)
	switch t {
	case "integer":
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			return json.Number(strconv.FormatInt(n, 10))
		}
	case "number":
		if _, err := strconv.ParseFloat(raw, 64); err == nil {
			return json.Number(raw)
		}
	case "boolean":
		if b, err := strconv.ParseBool(raw); err == nil {
			return b
		}
	}
	return raw
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
