package rest_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/rest"
)

// TestOpenAPIFactSchemas (issue 22.8): the document has a schema per fact kind of
// evidence.Kinds, reached from BirthHistoryFact's discriminator, and each names exactly the
// fields evidence.ParseFact lets that kind take, with the same ones required. A kind or a
// field added to evidence/fact.go without its schema fails here.
func TestOpenAPIFactSchemas(t *testing.T) {
	t.Parallel()
	doc := parseDoc(t)
	schemas := doc.root["components"].(map[string]any)["schemas"].(map[string]any)
	bh := schemas["BirthHistoryFact"].(map[string]any)
	mapping := bh["discriminator"].(map[string]any)["mapping"].(map[string]any)
	if len(asAny(bh["oneOf"])) != len(evidence.Kinds) || len(mapping) != len(evidence.Kinds) {
		t.Fatalf("BirthHistoryFact has %d alternatives and %d mappings for %d kinds", len(asAny(bh["oneOf"])), len(mapping), len(evidence.Kinds))
	}
	// Every metadata field of evidence.Fact, by its JSON name.
	var all []string
	ft := reflect.TypeFor[evidence.Fact]()
	for i := range ft.NumField() {
		name, _, _ := strings.Cut(ft.Field(i).Tag.Get("json"), ",")
		if name != "-" && name != "kind" {
			all = append(all, name)
		}
	}
	for _, k := range evidence.Kinds {
		ref, _ := mapping[string(k)].(string)
		sch := doc.resolve(map[string]any{"$ref": ref})
		if sch == nil {
			t.Errorf("kind %s: no schema in the discriminator's mapping", k)
			continue
		}
		props := sch["properties"].(map[string]any)
		if c := props["kind"].(map[string]any)["const"]; c != string(k) {
			t.Errorf("kind %s: its schema's kind is %v", k, c)
		}
		if sch["additionalProperties"] != false {
			t.Errorf("kind %s: the server refuses unknown fields; the schema must too", k)
		}
		// The fields the kind takes: ParseFact says "is not used by kind" of any other.
		var takes []string
		for _, f := range all {
			raw, _ := json.Marshal(map[string]any{"kind": k, f: nil})
			// null reads as absent, so send a value of the field's JSON type instead.
			raw = []byte(strings.Replace(string(raw), "null", sampleOf(f), 1))
			_, errs := evidence.ParseFact(raw)
			used := true
			for _, e := range errs {
				if e.Field == "birth_history."+f && strings.HasPrefix(e.Message, "is not used by kind") {
					used = false
				}
			}
			if used {
				takes = append(takes, f)
			}
		}
		var documented []string
		for p := range props {
			if p != "kind" {
				documented = append(documented, p)
			}
		}
		sort.Strings(takes)
		sort.Strings(documented)
		if !slices.Equal(takes, documented) {
			t.Errorf("kind %s: the server takes %v, the schema names %v", k, takes, documented)
		}
		// The fields it requires: ParseFact of the bare kind says "is required for kind K".
		raw, _ := json.Marshal(map[string]any{"kind": k})
		_, errs := evidence.ParseFact(raw)
		var required []string
		for _, e := range errs {
			if e.Message == "is required for kind "+string(k) {
				required = append(required, strings.TrimPrefix(e.Field, "birth_history."))
			}
		}
		var declared []string
		for _, r := range asAny(sch["required"]) {
			if r != "kind" {
				declared = append(declared, fmt.Sprint(r))
			}
		}
		sort.Strings(required)
		sort.Strings(declared)
		if !slices.Equal(required, declared) {
			t.Errorf("kind %s: the server requires %v, the schema %v", k, required, declared)
		}
	}
	// The record item's metadata, in requests and answers, leads there.
	md := schemas["RecordItemMetadata"].(map[string]any)["properties"].(map[string]any)["birth_history"].(map[string]any)
	if md["$ref"] != "#/components/schemas/BirthHistoryFact" {
		t.Errorf("RecordItemMetadata.birth_history is %v", md)
	}
	if ref := schemas["RecordItem"].(map[string]any)["properties"].(map[string]any)["metadata"].(map[string]any)["$ref"]; ref != "#/components/schemas/RecordItemMetadata" {
		t.Errorf("RecordItem.metadata is %v", ref)
	}
}

// sampleOf is a JSON value of a fact field's type (its validity does not matter here).
func sampleOf(field string) string {
	switch field {
	case "kg", "dose", "quantity_per_animal", "quantity_total", "medicine_version", "withdrawal_meat_days",
		"withdrawal_milk_hours", "foetal_age_days", "foetal_age_min_days", "foetal_age_max_days":
		return "1"
	case "slaughter", "off_label", "organic":
		return "true"
	case "offspring_ids":
		return `["x"]`
	}
	return `"x"`
}

// TestOpenAPIEIDFields: every eid field of the document is the EID schema (the reader forms
// of package eid and docs/identifiers.md), and so is an identifier fact's value under scheme eid.
func TestOpenAPIEIDFields(t *testing.T) {
	t.Parallel()
	var root any
	if err := json.Unmarshal(rest.OpenAPI, &root); err != nil {
		t.Fatal(err)
	}
	const eidRef = "#/components/schemas/EID"
	n := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k == "eid" {
					if refOf(c) != eidRef {
						t.Errorf("%s.eid is not the EID schema: %v", path, c)
					}
					n++
					continue
				}
				walk(path+"."+k, c)
			}
		case []any:
			for i, c := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), c)
			}
		}
	}
	walk("", root)
	if n < 3 {
		t.Errorf("found %d eid fields, want AnimalWrite's and the calvings'", n)
	}
	doc := parseDoc(t)
	id := doc.resolve(map[string]any{"$ref": "#/components/schemas/FactIdentifier"})
	then, _ := id["then"].(map[string]any)
	if v := doc.resolve(then["properties"].(map[string]any)["value"]); v == nil || v["pattern"] == nil {
		t.Errorf("FactIdentifier: an eid value is not the EID schema")
	}
}

// TestOpenAPIRequestText: every string a request carries, in a body or a query parameter,
// states the text rule (text.go) as a pattern, unless an enum, a const, a format or a media
// type already bounds it; routes added later are held to it too.
func TestOpenAPIRequestText(t *testing.T) {
	t.Parallel()
	doc := parseDoc(t)
	var walk func(path string, v any, depth int)
	walk = func(path string, v any, depth int) {
		sch := doc.resolve(v)
		if sch == nil || depth > 30 {
			return
		}
		types := asAny(sch["type"])
		if s, ok := sch["type"].(string); ok {
			types = []any{s}
		}
		if slices.Contains(types, any("string")) {
			bounded := false
			for _, k := range []string{"pattern", "enum", "const", "format", "contentMediaType"} {
				bounded = bounded || sch[k] != nil
			}
			if !bounded {
				t.Errorf("%s: a request string without the text rule's pattern", path)
			}
		}
		props, _ := sch["properties"].(map[string]any)
		for k, p := range props {
			walk(path+"."+k, p, depth+1)
		}
		if sch["items"] != nil {
			walk(path+"[]", sch["items"], depth+1)
		}
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			for _, a := range asAny(sch[k]) {
				walk(path, a, depth+1)
			}
		}
		if ap, ok := sch["additionalProperties"].(map[string]any); ok {
			walk(path+".*", ap, depth+1)
		}
	}
	for _, op := range doc.operations() {
		name := strings.ToUpper(op.method) + " " + op.path
		g := &generator{doc: doc}
		for _, p := range g.parameters(op) {
			if p["in"] == "query" {
				walk(name+" ?"+fmt.Sprint(p["name"]), p["schema"], 0)
			}
		}
		if body := doc.resolve(op.op["requestBody"]); body != nil {
			content, _ := body["content"].(map[string]any)
			for ct, media := range content {
				walk(name+" "+ct, media.(map[string]any)["schema"], 0)
			}
		}
	}
}

// refOf returns the $ref a schema stands for: its own, or the one of the allOf wrapper that
// carries a description beside it (issue 33.4: a $ref with sibling keywords is lost on some
// generators), or of the first alternative of a nullable anyOf.
func refOf(v any) any {
	m, _ := v.(map[string]any)
	if ref, ok := m["$ref"]; ok {
		return ref
	}
	if all := asAny(m["allOf"]); len(all) == 1 {
		return refOf(all[0])
	}
	if alts := asAny(m["anyOf"]); len(alts) > 0 {
		return refOf(alts[0])
	}
	return nil
}

// TestOpenAPIStrictness holds the document to issue 33.4's findings, where it disagreed with
// the server: the herd reports require from and to (the calving report exposure_from and
// exposure_to too); PUT …/records/{record_id} and both amendments declare closed bodies; a
// file's content lists text/csv among its types; and no $ref has sibling keywords, which
// some generators drop (a described reference is an allOf wrapper).
func TestOpenAPIStrictness(t *testing.T) {
	t.Parallel()
	doc := parseDoc(t)
	paths := doc.root["paths"].(map[string]any)
	op := func(path, method string) map[string]any {
		t.Helper()
		item, _ := paths[path].(map[string]any)
		o, _ := item[method].(map[string]any)
		if o == nil {
			t.Fatalf("%s %s is not in the document", method, path)
		}
		return o
	}
	query := func(o map[string]any) map[string]bool {
		out := map[string]bool{}
		for _, p := range asAny(o["parameters"]) {
			m := doc.resolve(p)
			if m["in"] == "query" {
				req, _ := m["required"].(bool)
				out[m["name"].(string)] = req
			}
		}
		return out
	}
	t.Run("ReportPeriodsRequired", func(t *testing.T) {
		n := 0
		for path := range paths {
			if !strings.HasPrefix(path, "/v1/farm/{farm_id}/reports/") {
				continue
			}
			n++
			want := []string{"from", "to"}
			if strings.HasPrefix(path, "/v1/farm/{farm_id}/reports/calving.") || path == "/v1/farm/{farm_id}/reports/calving" {
				want = append(want, "exposure_from", "exposure_to")
			}
			q := query(op(path, "get"))
			for _, name := range want {
				if !q[name] {
					t.Errorf("GET %s: %s is not a required parameter (%v)", path, name, q)
				}
			}
		}
		if n != 10 {
			t.Errorf("%d report operations, want the 10 herd reports (5 reports, JSON and CSV)", n)
		}
	})
	t.Run("ClosedWriteBodies", func(t *testing.T) {
		for _, w := range []struct{ path, method string }{
			{"/v1/farm/{farm_id}/records/{record_id}", "put"},
			{"/v1/farm/{farm_id}/records/{record_id}/amend", "post"},
			{"/v1/farm/{farm_id}/records/{record_id}/items/{item_id}/amend", "post"},
		} {
			rb := doc.resolve(op(w.path, w.method)["requestBody"])
			content, _ := rb["content"].(map[string]any)
			media, _ := content["application/json"].(map[string]any)
			sch := doc.resolve(media["schema"])
			if props, _ := sch["properties"].(map[string]any); len(props) == 0 || sch["additionalProperties"] != false || rb["required"] != true {
				t.Errorf("%s %s: the body is not a required, closed object with its properties: %v", w.method, w.path, rb)
			}
		}
	})
	t.Run("FileContentTypes", func(t *testing.T) {
		res := asMap(asMap(op("/v1/file/{file_id}/content", "get")["responses"])["200"])
		content := asMap(doc.resolve(res)["content"])
		for _, ct := range []string{"text/csv", "application/json", "application/pdf", "image/jpeg"} {
			if content[ct] == nil {
				t.Errorf("the file content does not list %s: %v", ct, slices.Sorted(maps.Keys(content)))
			}
		}
	})
	t.Run("NoRefWithSiblings", func(t *testing.T) {
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch x := v.(type) {
			case map[string]any:
				// A Reference Object outside a schema may carry summary and description
				// (OpenAPI 3.1); a schema's $ref may carry nothing.
				if _, ok := x["$ref"]; ok && len(x) > 1 && (strings.Contains(path, "/schema") || strings.HasPrefix(path, "/components/schemas/")) {
					t.Errorf("%s: a $ref with sibling keywords %v", path, slices.Sorted(maps.Keys(x)))
				}
				for k, c := range x {
					walk(path+"/"+k, c)
				}
			case []any:
				for i, c := range x {
					walk(fmt.Sprintf("%s/%d", path, i), c)
				}
			}
		}
		walk("", doc.root)
	})
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
