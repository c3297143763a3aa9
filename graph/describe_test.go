package graph_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestEverythingDescribed walks the schema by introspection and fails on any type, field,
// argument, input field, enum value or directive without a description: a web developer
// reads the schema in GraphiQL's docs, not in our source.
func TestEverythingDescribed(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	out := app.GraphQL("", `{ __schema {
		types { kind name description
			fields(includeDeprecated: true) { name description args(includeDeprecated: true) { name description } }
			inputFields(includeDeprecated: true) { name description }
			enumValues(includeDeprecated: true) { name description } }
		directives { name description args(includeDeprecated: true) { name description } } } }`, nil)
	wantNoErrors(t, out)

	var missing []string
	described := func(where string, v any) {
		if d, _ := dig(t, v, "description").(string); strings.TrimSpace(d) == "" {
			missing = append(missing, where)
		}
	}
	list := func(v any, key string) []any {
		l, _ := v.(map[string]any)[key].([]any)
		return l
	}
	counted := 0
	for _, ty := range dig(t, out, "data.__schema.types").([]any) {
		name := dig(t, ty, "name").(string)
		if strings.HasPrefix(name, "__") {
			continue // the introspection types are the GraphQL spec's
		}
		described(name, ty)
		for _, f := range list(ty, "fields") {
			described(name+"."+dig(t, f, "name").(string), f)
			for _, a := range list(f, "args") {
				described(name+"."+dig(t, f, "name").(string)+"("+dig(t, a, "name").(string)+")", a)
				counted++
			}
			counted++
		}
		for _, f := range list(ty, "inputFields") {
			described(name+"."+dig(t, f, "name").(string), f)
			counted++
		}
		for _, v := range list(ty, "enumValues") {
			described(name+"."+dig(t, v, "name").(string), v)
			counted++
		}
		counted++
	}
	for _, d := range dig(t, out, "data.__schema.directives").([]any) {
		name := "@" + dig(t, d, "name").(string)
		described(name, d)
		for _, a := range list(d, "args") {
			described(name+"("+dig(t, a, "name").(string)+")", a)
			counted++
		}
		counted++
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("%d of %d schema elements have no description:\n%s", len(missing), counted, strings.Join(missing, "\n"))
	}
	t.Logf("%d types, fields, arguments, input fields, enum values and directives, all described", counted)
}
