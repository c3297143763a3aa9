package graph_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/graph"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func persisted(hash string) map[string]any {
	return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}
}

// TestAutomaticPersistedQueries registers a query by its hash, runs it by the hash alone over
// POST and GET, and shows that the cache is bounded: the oldest of APQCacheSize+1 registered
// queries is forgotten, and the client is told to send it again.
func TestAutomaticPersistedQueries(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	u := app.MustUser()
	app.MustFarm(u, "Persisted")
	query := `query FarmCount { farms { totalCount } }`
	hash := sha256Hex(query)

	post := func(t *testing.T, body map[string]any) map[string]any {
		t.Helper()
		res := app.Do("POST", "/graphql", u.Token, body)
		return res.JSON(t)
	}
	wantFarms := func(t *testing.T, out map[string]any) {
		t.Helper()
		wantNoErrors(t, out)
		if dig(t, out, "data.farms.totalCount") != float64(1) {
			t.Fatalf("answer %v", out)
		}
	}

	t.Run("HashOnlyBeforeRegisteringIsNotFound", func(t *testing.T) {
		out := post(t, map[string]any{"extensions": persisted(sha256Hex("{ viewer { id } }"))})
		if errorCode(out) != "PERSISTED_QUERY_NOT_FOUND" {
			t.Fatalf("want PERSISTED_QUERY_NOT_FOUND: %v", out)
		}
	})
	t.Run("RegisterThenHashOnly", func(t *testing.T) {
		wantFarms(t, post(t, map[string]any{"query": query, "extensions": persisted(hash)}))
		wantFarms(t, post(t, map[string]any{"extensions": persisted(hash)}))
	})
	t.Run("HashOnlyOverGET", func(t *testing.T) {
		ext, _ := json.Marshal(persisted(hash))
		res := app.Do("GET", "/graphql?extensions="+url.QueryEscape(string(ext)), u.Token, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		wantFarms(t, res.JSON(t))
	})
	t.Run("ErrHashMismatch", func(t *testing.T) {
		out := post(t, map[string]any{"query": query, "extensions": persisted(sha256Hex("something else"))})
		if msg, _ := dig(t, out, "errors.0.message").(string); !strings.Contains(msg, "hash does not match") {
			t.Fatalf("want a mismatch error: %v", out)
		}
	})
	t.Run("ErrBadExtension", func(t *testing.T) {
		for _, ext := range []any{"nope", map[string]any{"version": 2, "sha256Hash": hash}, map[string]any{"version": "x"}} {
			out := post(t, map[string]any{"extensions": map[string]any{"persistedQuery": ext}})
			if _, ok := out["errors"]; !ok || out["data"] != nil {
				t.Fatalf("extension %v: want an error and no data: %v", ext, out)
			}
		}
	})
	t.Run("CacheIsBounded", func(t *testing.T) {
		first := `query Q0 { __typename }`
		for i := 0; i <= graph.APQCacheSize; i++ {
			q := fmt.Sprintf(`query Q%d { __typename }`, i)
			out := post(t, map[string]any{"query": q, "extensions": persisted(sha256Hex(q))})
			wantNoErrors(t, out)
		}
		last := fmt.Sprintf(`query Q%d { __typename }`, graph.APQCacheSize)
		if out := post(t, map[string]any{"extensions": persisted(sha256Hex(last))}); dig(t, out, "data.__typename") != "Query" {
			t.Fatalf("the newest query was forgotten: %v", out)
		}
		if out := post(t, map[string]any{"extensions": persisted(sha256Hex(first))}); errorCode(out) != "PERSISTED_QUERY_NOT_FOUND" {
			t.Fatalf("the cache kept %d queries, want at most %d: %v", graph.APQCacheSize+1, graph.APQCacheSize, out)
		}
	})
}

// TestGETQueries: reads work as GET with URL parameters (so HTTP caches and CDNs can keep
// them), mutations are refused over GET, and a GET without an operation is the explorer.
func TestGETQueries(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Over GET")
		get := func(params url.Values) herdbooktest.Response {
			return app.Do("GET", "/graphql?"+params.Encode(), u.Token, nil)
		}

		t.Run("Query", func(t *testing.T) {
			res := get(url.Values{"query": {`query($f: ID!) { farm(id: $f) { name } }`}, "variables": {`{"f":"` + f.ID.String() + `"}`}})
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			out := res.JSON(t)
			wantNoErrors(t, out)
			if dig(t, out, "data.farm.name") != "Over GET" {
				t.Fatalf("answer %v", out)
			}
		})
		t.Run("ErrMutation", func(t *testing.T) {
			res := get(url.Values{"query": {`mutation { createFarm(input: {name: "By GET", species: GOAT}) { farm { id } } }`}})
			if res.Status != http.StatusNotAcceptable || !strings.Contains(string(res.Body), "only allow query") {
				t.Fatalf("a mutation over GET: %d %s", res.Status, res.Body)
			}
			out := app.GraphQL(u.Token, `{ farms { totalCount } }`, nil)
			if dig(t, out, "data.farms.totalCount") != float64(1) {
				t.Fatalf("the GET mutation ran: %v", out)
			}
		})
		t.Run("ErrMutationNamedAmongQueries", func(t *testing.T) {
			res := get(url.Values{"query": {`query A { __typename } mutation B { deleteFarm(id: "` + f.ID.String() + `") }`}, "operationName": {"B"}})
			if res.Status != http.StatusNotAcceptable {
				t.Fatalf("a named mutation over GET: %d %s", res.Status, res.Body)
			}
		})
		t.Run("ErrBadVariables", func(t *testing.T) {
			res := get(url.Values{"query": {`{ __typename }`}, "variables": {`{not json`}})
			if res.Status != http.StatusBadRequest {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
		})
		t.Run("ErrNoAuth", func(t *testing.T) {
			res := app.Do("GET", "/graphql?"+url.Values{"query": {`{ farms { totalCount } }`}}.Encode(), "", nil)
			if out := res.JSON(t); errorCode(out) != "UNAUTHENTICATED" {
				t.Fatalf("anonymous GET: %v", out)
			}
		})
	})
}

// TestExplorerFiles: the page and its files come from the binary, with a policy that lets the
// browser load nothing from elsewhere, and the vendored GraphiQL and React are byte for byte
// the pinned releases (scripts/vendor-graphiql.sh).
func TestExplorerFiles(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))

	res := app.Do("GET", "/graphql", "", nil)
	if res.Status != http.StatusOK || !strings.Contains(string(res.Body), "/graphql/assets/graphiql-4.1.2.min.js") {
		t.Fatalf("GET /graphql: %d %s", res.Status, res.Body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Fatalf("Content-Security-Policy %q", csp)
	}
	if strings.Contains(string(res.Body), "https://") {
		t.Fatal("the explorer page names an external URL")
	}

	for _, tc := range []struct{ name, contentType, sri string }{
		{"graphiql-4.1.2.min.js", "javascript", "hnImuor1znlJkD/FOTL3jayfS/xsyNoP04abi8bFJWs="},
		{"graphiql-4.1.2.min.css", "text/css", "MEh+B2NdMSpj9kexQNN3QKc8UzMrCXW/Sx/phcpuyIU="},
		{"react-18.2.0.production.min.js", "javascript", "S0lp+k7zWUMk2ixteM6HZvu8L9Eh//OVrt+ZfbCpmgY="},
		{"react-dom-18.2.0.production.min.js", "javascript", "IXWO0ITNDjfnNXIu5POVfqlgYoop36bDzhodR6LW5Pc="},
		{"explorer.js", "javascript", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := app.Do("GET", "/graphql/assets/"+tc.name, "", nil)
			if res.Status != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), tc.contentType) {
				t.Fatalf("status %d, Content-Type %q", res.Status, res.Header.Get("Content-Type"))
			}
			if tc.sri != "" {
				sum := sha256.Sum256(res.Body)
				if got := base64.StdEncoding.EncodeToString(sum[:]); got != tc.sri {
					t.Fatalf("sha256-%s, want the pinned sha256-%s", got, tc.sri)
				}
			}
			etag := res.Header.Get("ETag")
			if again := app.Do("GET", "/graphql/assets/"+tc.name, "", nil, "If-None-Match", etag); etag == "" || again.Status != http.StatusNotModified {
				t.Fatalf("ETag %q, revalidation answered %d", etag, again.Status)
			}
		})
	}
	for _, name := range []string{"nope.js", "index.html", "../handler.go", "%2e%2e/handler.go"} {
		if res := app.Do("GET", "/graphql/assets/"+name, "", nil); res.Status != http.StatusNotFound && res.Status != http.StatusMovedPermanently {
			t.Fatalf("GET /graphql/assets/%s: %d", name, res.Status)
		}
	}
	if _, err := os.Stat("explorer/LICENSE.graphiql"); err != nil {
		t.Fatalf("the vendored GraphiQL has no licence beside it: %v", err)
	}
}
