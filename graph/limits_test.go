package graph_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// fragmentBomb is levels fragments on User, each spreading the next one twice: the document
// grows linearly and its expansion exponentially.
func fragmentBomb(levels int) string {
	var b strings.Builder
	b.WriteString("query{viewer{...F0}}")
	for i := 0; i < levels; i++ {
		fmt.Fprintf(&b, " fragment F%d on User{...F%d ...F%d}", i, i+1, i+1)
	}
	fmt.Fprintf(&b, " fragment F%d on User{id}", levels)
	return b.String()
}

// aliases selects id n times under n names.
func aliases(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " a%d: id", i)
	}
	return b.String()
}

// inPlaces selects the user fields sel in each of n aliases of viewer.
func inPlaces(n int, sel string) string {
	var b strings.Builder
	b.WriteString("query{")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " v%d: viewer{%s}", i, sel)
	}
	b.WriteString("}")
	return b.String()
}

// hostileDocument is a document the limits refuse with a 422, the code and (when not "")
// the extensions.limit given.
type hostileDocument struct{ name, query, code, limit string }

// hostileDocuments cost seconds of CPU (or more) each without the limits.
func hostileDocuments(tb testing.TB) []hostileDocument {
	// spreads spreads n fragments side by side, each bringing one field, in each of places
	// aliases of viewer.
	spreads := func(places, n int) string {
		var b strings.Builder
		b.WriteString("query{")
		for p := 0; p < places; p++ {
			fmt.Fprintf(&b, " v%d: viewer{id", p)
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, " ...F%d", i)
			}
			b.WriteString("}")
		}
		b.WriteString("}")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, " fragment F%d on User{a%d: id}", i, i)
		}
		return b.String()
	}
	nested := func(k int) string { // k viewers of k ids: k² fields under one response name
		return "query{" + strings.Repeat(" viewer{"+strings.Repeat(" id", k)+"}", k) + "}"
	}
	// deep is 14 fields deep: farm, then members and farm 6 times, then id; through a chain
	// of fragments when frags is set.
	deep := func(frags bool) string {
		const farm = `farm(id: "00000000-0000-0000-0000-000000000000")`
		if !frags {
			return "query{" + farm + "{" + strings.Repeat("members{farm{", 6) + "id" + strings.Repeat("}", 13) + "}"
		}
		q := "query{" + farm + "{...M0}}"
		for i := 0; i < 6; i++ {
			q += fmt.Sprintf(" fragment M%d on Farm{members{farm{...M%d}}}", i, i+1)
		}
		return q + " fragment M6 on Farm{id}"
	}
	introspectionBomb := "query{"
	for i := 0; i < 40; i++ {
		introspectionBomb += fmt.Sprintf(" a%d: __schema{types{fields{type{fields{type{name}}}}}}", i)
	}
	introspectionBomb += "}"
	fiveTimes := mustRead(tb, "testdata/introspection.graphql")
	for i := 0; i < 4; i++ {
		fiveTimes = strings.Replace(fiveTimes, "types {\n          ...FullType\n        }",
			fmt.Sprintf("types {\n          ...FullType\n        } t%d: types { ...FullType }", i), 1)
	}
	const valid, parse = "GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED"
	return []hostileDocument{
		// Issue 14.1: the field 8,000 times (24 KB) cost 8–13 s in validation.
		{"RepeatedField8000", "query{viewer{" + strings.Repeat(" id", 8000) + "}}", valid, "fields"},
		{"RepeatedField4000", "query{viewer{" + strings.Repeat(" id", 4000) + "}}", valid, "selectionFields"},
		{"RepeatedFieldInThreePlaces", inPlaces(3, strings.Repeat(" id", graph.MaxSelectionFields)), valid, "mergeWork"},
		{"RepeatedNestedField", nested(60), valid, "selectionFields"},
		{"ManyAliases", "query{viewer{" + aliases(3000) + "}}", valid, "selectionFields"},
		// Issue 14.1: 26 nested fragments that each spread the next twice (943 bytes) cost
		// 7.5–12 s; each further level doubled it.
		{"FragmentBomb26", fragmentBomb(26), valid, "fields"},
		{"FragmentBomb60", fragmentBomb(60), valid, "fields"},
		{"FragmentBomb10", fragmentBomb(10), valid, "selectionFields"},
		{"SpreadsSideBySide", spreads(1, 500), valid, "selectionFields"},
		{"SpreadsInThreePlaces", spreads(3, graph.MaxSelectionFields-1), valid, "mergeWork"},
		{"FragmentCycle", "query{viewer{...A}} fragment A on User{...B} fragment B on User{...A}", valid, "fragmentCycle"},
		{"FragmentCycleThroughField", "query{farms{edges{node{...A}}}} fragment A on Farm{id members{farm{...A}}}", valid, "fragmentCycle"},
		{"TooManyTokens", "query{viewer{" + strings.Repeat(" a: id", graph.MaxTokens/3+1) + "}}", parse, ""},
		{"TooLong", "query{viewer{id}}#" + strings.Repeat("x", graph.MaxDocumentBytes), parse, "documentBytes"},
		{"TooDeep", deep(false), valid, "depth"},
		{"TooDeepThroughFragments", deep(true), valid, "depth"},
		{"IntrospectionBomb", introspectionBomb, valid, "introspectionComplexity"},
		{"IntrospectionFiveTimes", fiveTimes, valid, "introspectionComplexity"},
	}
}

// documentsWithinLimits are the costliest documents the limits still admit, one per limit.
func documentsWithinLimits() []hostileDocument {
	widest := "query{" // every place as wide as allowed, as many places as MaxFields allows
	for i := 0; i < graph.MaxFields/graph.MaxSelectionFields-2; i++ {
		widest += fmt.Sprintf(" v%d: viewer{...Wide}", i)
	}
	widest += "} fragment Wide on User{" + aliases(graph.MaxSelectionFields) + "}"
	var spreads strings.Builder
	spreads.WriteString("query{viewer{id")
	for i := 0; i < graph.MaxSelectionFields-1; i++ {
		fmt.Fprintf(&spreads, " ...F%d", i)
	}
	spreads.WriteString("}}")
	for i := 0; i < graph.MaxSelectionFields-1; i++ {
		fmt.Fprintf(&spreads, " fragment F%d on User{a%d: id}", i, i)
	}
	var manyOperations string
	for i := 0; i < 1200; i++ {
		manyOperations += fmt.Sprintf(" query Q%d{viewer{id}}", i)
	}
	return []hostileDocument{
		{name: "Widest", query: widest},
		{name: "UnknownFields", query: "query{viewer{" + strings.Repeat(" nosuch", graph.MaxSelectionFields) + "}}"},
		{name: "RepeatedField", query: inPlaces(2, strings.Repeat(" id", graph.MaxSelectionFields))},
		{name: "SpreadsSideBySide", query: spreads.String()},
		{name: "FragmentBomb", query: fragmentBomb(6)},
		{name: "ManyOperations", query: manyOperations},
		{name: "DeepUnknown", query: strings.Repeat("{a", 3000) + strings.Repeat("}", 3000)},
	}
}

// TestHostileDocuments wants each hostile document refused quickly, before gqlgen validates
// it, from an anonymous caller; no ERROR line is logged.
func TestHostileDocuments(t *testing.T) {
	t.Parallel()
	docs := hostileDocuments(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		for _, tc := range docs {
			t.Run(tc.name, func(t *testing.T) {
				t.Logf("%d bytes", len(tc.query))
				wantNoErrorLog(t, func() {
					res := post(t, app, "", query(tc.query, nil))
					out := wantError(t, res, http.StatusUnprocessableEntity, tc.code, tc.limit)
					t.Logf("%v", dig(t, out, "errors.0.message"))
				})
			})
		}
	})
}

// TestDocumentsWithinLimits wants the costliest documents the limits admit validated and
// answered quickly. The caller is anonymous, so that the time is the validation's, not that
// of database round trips.
func TestDocumentsWithinLimits(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		for _, tc := range documentsWithinLimits() {
			t.Run(tc.name, func(t *testing.T) {
				t.Logf("%d bytes", len(tc.query))
				wantNoErrorLog(t, func() {
					res := post(t, app, "", query(tc.query, nil))
					if res.Status >= 500 {
						t.Fatalf("status %d: %.400s", res.Status, res.Body)
					}
				})
			})
		}
	})
}

// BenchmarkDocuments measures the server's work for each hostile document and each document
// at the limits, calling the graph's handler directly (no network, no client).
func BenchmarkDocuments(b *testing.B) {
	app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, "sqlite"))
	h := graph.NewHandler(app.Service, app.DB.Client)
	for _, tc := range append(hostileDocuments(b), documentsWithinLimits()...) {
		b.Run(tc.name, func(b *testing.B) {
			bodies := make([][]byte, b.N)
			for i := range bodies {
				// A comment of its own keeps each document out of gqlgen's cache.
				body, err := json.Marshal(query(fmt.Sprintf("%s\n#%d", tc.query, i), nil))
				if err != nil {
					b.Fatal(err)
				}
				bodies[i] = body
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(bodies[i]))
				req.Header.Set("Content-Type", "application/json")
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}

// TestListCost wants lists to count once per element they may have (issue 14.3: 40 aliases
// of a records page of 100, 2.9 KB and under the old limit, returned 83 MB).
func TestListCost(t *testing.T) {
	t.Parallel()
	page := `records(first: 100) { edges { node { id name items { id name description metadata } } } }`
	var aliases strings.Builder
	aliases.WriteString("query($f: ID!) { farm(id: $f) {")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&aliases, " r%d: %s", i, page)
	}
	aliases.WriteString(" } }")
	var spread strings.Builder
	spread.WriteString("query($f: ID!) {")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&spread, " f%d: farm(id: $f) { ...Page }", i)
	}
	spread.WriteString(" } fragment Page on Farm { " + page + " }")
	// 10 aliases of 500 nodes with their items: 10 × 500 × (items 1 + 10 × 2) and more.
	nodes := "query($ids: [ID!]!) {"
	for i := 0; i < 10; i++ {
		nodes += fmt.Sprintf(" n%d: nodes(ids: $ids) { id ... on Record { items { id name } } }", i)
	}
	nodes += " }"
	ids := make([]string, herdbook.MaxConnectionPage)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Costly")
		seedRecords(t, app, u, f.ID, 3)
		vars := map[string]any{"f": f.ID.String()}
		for _, tc := range []struct {
			name, query string
			vars        map[string]any
			refused     bool
		}{
			{"FortyAliasesOfAPage", aliases.String(), vars, true},
			{"OnePageOf50", "query($f: ID!) { farm(id: $f) { " + strings.Replace(page, "first: 100", "first: 50", 1) + " } }", vars, false},
			{"FortySpreadsOfAPage", spread.String(), vars, true},
			{"NestedConnectionsWithoutFirst", `{ farms { edges { node { animals { edges { node { groups { id name } } } } } } } }`, nil, true},
			{"NestedConnectionsWithFirst", `{ farms(first: 5) { edges { node { animals(first: 20) { edges { node { groups { id name } } } } } } } }`, nil, false},
			{"PageFromVariable", `query($n: Int) { farms(first: $n) { edges { node { records(first: $n) { edges { node { items { id name } } } } } } } }`, map[string]any{"n": 500}, true},
			{"SmallPageFromVariable", `query($n: Int) { farms(first: $n) { edges { node { records(first: $n) { edges { node { items { id name } } } } } } } }`, map[string]any{"n": 5}, false},
			{"NodesCountTheirIds", nodes, map[string]any{"ids": ids}, true},
			{"LastCounts", `{ farms(last: 500) { edges { node { records(last: 500) { totalCount edges { cursor } } } } } }`, nil, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Logf("%d bytes", len(tc.query))
				res := post(t, app, u.Token, query(tc.query, tc.vars))
				if tc.refused {
					out := wantError(t, res, http.StatusUnprocessableEntity, "GRAPHQL_VALIDATION_FAILED", "complexity")
					t.Logf("%v", dig(t, out, "errors.0.message"))
					return
				}
				if res.Status != http.StatusOK {
					t.Fatalf("status %d: %s", res.Status, res.Body)
				}
				wantNoErrors(t, res.JSON(t))
			})
		}
	})
}

// TestFullIntrospection sends the query graphql-js's getIntrospectionQuery builds with every
// option on (descriptions, specifiedByUrl, directiveIsRepeatable, schemaDescription,
// inputValueDeprecation, oneOf): tools must get the whole schema although it is deeper than
// MaxDepth.
func TestFullIntrospection(t *testing.T) {
	t.Parallel()
	full := mustRead(t, "testdata/introspection.graphql")
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		for _, token := range []string{"", app.MustUser().Token} {
			start := time.Now()
			res := app.Do("POST", "/graphql", token, map[string]any{"query": full, "operationName": "IntrospectionQuery"})
			t.Logf("answered %d in %v", res.Status, time.Since(start))
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %.400s", res.Status, res.Body)
			}
			out := res.JSON(t)
			wantNoErrors(t, out)
			schema := dig(t, out, "data.__schema").(map[string]any)
			if _, ok := schema["description"]; !ok || dig(t, schema, "queryType.name") != "Query" || dig(t, schema, "mutationType.kind") != "OBJECT" {
				t.Fatalf("__schema: %.300v", schema)
			}
			types := map[string]map[string]any{}
			for _, ty := range schema["types"].([]any) {
				types[dig(t, ty, "name").(string)] = ty.(map[string]any)
			}
			if _, ok := types["Time"]["specifiedByURL"]; !ok {
				t.Fatalf("no specifiedByURL: %v", types["Time"])
			}
			if types["CreateFarmInput"]["isOneOf"] != false || len(types["CreateFarmInput"]["inputFields"].([]any)) != 3 {
				t.Fatalf("CreateFarmInput: %v", types["CreateFarmInput"])
			}
			if len(types["Query"]["fields"].([]any)) == 0 || dig(t, schema, "directives.0.isRepeatable") == nil {
				t.Fatalf("fields or directives missing")
			}
			t.Logf("%d types, %d bytes", len(types), len(res.Body))
		}
	})
}

func mustRead(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestAnswerBounds sends issue 22.2's amplification requests: 40 aliases of a farm's page of
// 100 records with their items' metadata (2.9 KB, cost 92,120 when items counted as 10; 83 MB
// of answer) is refused by its cost now that a record's items count by their cap; 100
// aliases over one record of 500 items with 4 KB of metadata each (201 MB, and the server
// grew by 770 MB) passes the cost and is stopped by the answer's byte ceiling, with one
// error and no data. Metadata over MaxItemMetadataBytes and items past MaxRecordItems are
// refused on write, naming the field.
func TestAnswerBounds(t *testing.T) {
	t.Parallel()
	var forty strings.Builder
	forty.WriteString("query($f: ID!) {")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&forty, " f%d: farm(id: $f) { records(first: 100) { edges { node { id items { id metadata } } } } }", i)
	}
	forty.WriteString(" }")
	var hundred strings.Builder
	hundred.WriteString("query($f: ID!) {")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&hundred, " f%d: farm(id: $f) { records(first: 1) { edges { node { id items { id metadata } } } } }", i)
	}
	hundred.WriteString(" }")
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Amplified")
		a := app.MustAnimal(u, f.ID, "A")
		items := make([]herdbook.RecordItemInput, herdbook.MaxRecordItems)
		for i := range items {
			items[i] = herdbook.RecordItemInput{Metadata: map[string]any{"note": strings.Repeat("x", 4000)}}
		}
		rec, err := app.Service.CreateRecord(app.Ctx(u), f.ID, herdbook.RecordInput{
			AnimalIDs: []uuid.UUID{a.ID}, Name: "Big", Type: "OTHER", AppliedAt: ptrTime(), Items: items})
		if err != nil {
			t.Fatal(err)
		}
		vars := map[string]any{"f": f.ID.String()}
		t.Run("FortyAliasesOfAPage", func(t *testing.T) {
			t.Logf("%d bytes", forty.Len())
			out := wantError(t, post(t, app, u.Token, query(forty.String(), vars)), http.StatusUnprocessableEntity, "GRAPHQL_VALIDATION_FAILED", "complexity")
			t.Logf("%v", dig(t, out, "errors.0.message"))
		})
		t.Run("HundredAliasesOfABigRecord", func(t *testing.T) {
			t.Logf("%d bytes", hundred.Len())
			// Stopping costs the ~16 MB read until the ceiling: more than post's bound for
			// work that is only CPU, on a busy machine.
			start := time.Now()
			res := app.Do("POST", "/graphql", u.Token, query(hundred.String(), vars))
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Fatalf("refused after %v", elapsed)
			}
			out := wantError(t, res, http.StatusUnprocessableEntity, "ANSWER_TOO_LARGE", "answerBytes")
			if len(res.Body) > 1000 || out["data"] != nil || len(out["errors"].([]any)) != 1 {
				t.Fatalf("want one error and no data: %.600s", res.Body)
			}
			t.Logf("%v", dig(t, out, "errors.0.message"))
		})
		t.Run("OneAliasOfABigRecord", func(t *testing.T) {
			// 2 MB: under the ceiling, answered whole.
			q := "query($f: ID!) { farm(id: $f) { records(first: 1) { edges { node { id items { id metadata } } } } } }"
			res := post(t, app, u.Token, query(q, vars))
			if res.Status != http.StatusOK || len(res.Body) < 2_000_000 {
				t.Fatalf("status %d, %d bytes: %.300s", res.Status, len(res.Body), res.Body)
			}
			wantNoErrors(t, res.JSON(t))
		})
		t.Run("ErrItemPastTheCap", func(t *testing.T) {
			body := map[string]any{"query": `mutation($in: RecordUpdateInput!) { recordUpdate(input: $in) { record { id } } }`,
				"variables": map[string]any{"in": map[string]any{"farmID": f.ID.String(), "id": rec.ID.String(), "items": []any{map[string]any{"name": "one more"}}}}}
			out := app.Do("POST", "/graphql", u.Token, body).JSON(t)
			if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out["errors"]), "at most 500 items") {
				t.Fatalf("answer %v", out)
			}
		})
		t.Run("ErrMetadataTooLarge", func(t *testing.T) {
			_, err := app.Service.CreateRecord(app.Ctx(u), f.ID, herdbook.RecordInput{
				AnimalIDs: []uuid.UUID{a.ID}, Name: "Huge", Type: "OTHER", AppliedAt: ptrTime(),
				Items: []herdbook.RecordItemInput{{Metadata: map[string]any{"note": strings.Repeat("x", herdbook.MaxItemMetadataBytes)}}}})
			if fields := herdbook.ErrorFields(err); len(fields) != 1 || fields[0].Field != "record_items[0].metadata" {
				t.Fatalf("error %v", err)
			}
		})
	})
}
