package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/rest"
)

// seen collects every answer the REST tests receive.
var seen struct {
	sync.Mutex
	list []seenResponse
}

type seenResponse struct {
	method, path string
	res          herdbooktest.Response
}

// TestMain runs the REST tests, then validates every answer they received against the
// OpenAPI document: an undocumented route or status, or a body that does not match its
// schema, fails the run.
func TestMain(m *testing.M) {
	herdbooktest.OnResponse = func(method, path string, res herdbooktest.Response) {
		seen.Lock()
		seen.list = append(seen.list, seenResponse{method, path, res})
		seen.Unlock()
	}
	code := m.Run()
	if code == 0 {
		problems, checked, err := validateAll()
		switch {
		case err != nil:
			fmt.Fprintln(os.Stderr, "openapi:", err)
			code = 1
		case len(problems) > 0:
			fmt.Fprintf(os.Stderr, "openapi: %d of %d answers do not match rest/openapi.json:\n  %s\n", len(problems), checked, strings.Join(problems, "\n  "))
			code = 1
		default:
			fmt.Printf("openapi: %d answers of the REST tests match rest/openapi.json\n", checked)
		}
	}
	os.Exit(code)
}

type route struct {
	template string
	re       *regexp.Regexp
}

func validateAll() (problems []string, checked int, err error) {
	var doc map[string]any
	if err := json.Unmarshal(rest.OpenAPI, &doc); err != nil {
		return nil, 0, fmt.Errorf("the document is not JSON: %w", err)
	}
	rawDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(rest.OpenAPI))
	if err != nil {
		return nil, 0, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("openapi.json", rawDoc); err != nil {
		return nil, 0, err
	}
	paths := doc["paths"].(map[string]any)
	var routes []route
	for tmpl := range paths {
		parts := strings.Split(tmpl, "/")
		for i, p := range parts {
			if strings.HasPrefix(p, "{") {
				parts[i] = `[^/]+`
			} else {
				parts[i] = regexp.QuoteMeta(p)
			}
		}
		routes = append(routes, route{tmpl, regexp.MustCompile("^" + strings.Join(parts, "/") + "$")})
	}
	// Literal paths before templated ones: /v1/file/{id} must not swallow /v1/file.
	sort.Slice(routes, func(i, j int) bool {
		return strings.Count(routes[i].template, "{") < strings.Count(routes[j].template, "{")
	})
	compiled := map[string]*jsonschema.Schema{}
	seen.Lock()
	defer seen.Unlock()
	for _, s := range seen.list {
		path, _, _ := strings.Cut(s.path, "?")
		if strings.HasPrefix(path, "/api/v1/") {
			path = strings.TrimPrefix(path, "/api")
		}
		if !strings.HasPrefix(path, "/v1/") || s.method == "OPTIONS" {
			continue // CORS preflights are answered before any operation
		}
		var tmpl string
		for _, r := range routes {
			if r.re.MatchString(path) {
				tmpl = r.template
				break
			}
		}
		if tmpl == "" {
			if s.res.Status == 404 || s.res.Status == 405 {
				continue // an unknown route, answered by the envelope (tested elsewhere)
			}
			problems = append(problems, fmt.Sprintf("%s %s: no path in the document", s.method, path))
			continue
		}
		op, ok := paths[tmpl].(map[string]any)[strings.ToLower(s.method)].(map[string]any)
		if !ok {
			if s.res.Status == 405 {
				continue
			}
			problems = append(problems, fmt.Sprintf("%s %s: no such operation in the document", s.method, tmpl))
			continue
		}
		checked++
		status := fmt.Sprint(s.res.Status)
		resp, ok := op["responses"].(map[string]any)[status].(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s %s: status %s is not documented", s.method, tmpl, status))
			continue
		}
		content, _ := resp["content"].(map[string]any)
		media, hasJSON := content["application/json"].(map[string]any)
		if _, hasSchema := media["schema"]; !hasJSON || !hasSchema {
			if len(content) == 0 && len(s.res.Body) != 0 {
				problems = append(problems, fmt.Sprintf("%s %s %s: documented without a body, got %q", s.method, tmpl, status, s.res.Body))
			}
			continue
		}
		ptr := "openapi.json#/paths/" + strings.ReplaceAll(strings.ReplaceAll(tmpl, "~", "~0"), "/", "~1") + "/" + strings.ToLower(s.method) +
			"/responses/" + status + "/content/application~1json/schema"
		sch, ok := compiled[ptr]
		if !ok {
			if sch, err = c.Compile(ptr); err != nil {
				return nil, 0, fmt.Errorf("compile %s: %w", ptr, err)
			}
			compiled[ptr] = sch
		}
		body, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.res.Body))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %s %s: the body is not JSON: %q", s.method, tmpl, status, s.res.Body))
			continue
		}
		if err := sch.Validate(body); err != nil {
			problems = append(problems, fmt.Sprintf("%s %s %s: %v", s.method, tmpl, status, strings.ReplaceAll(err.Error(), "\n", " ")))
		}
	}
	return problems, checked, nil
}

func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	for _, p := range []string{"/v1/openapi.json", "/api/v1/openapi.json"} {
		res := app.Do("GET", p, "", nil)
		var doc map[string]any
		if res.Status != 200 || json.Unmarshal(res.Body, &doc) != nil || doc["openapi"] != "3.1.0" ||
			doc["info"].(map[string]any)["version"] != "2026-09-06" {
			t.Fatalf("%s: %d", p, res.Status)
		}
	}
}
