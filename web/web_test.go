package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/web"
)

func get(t *testing.T, h http.Handler, method, path, accept string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestHandler: the page answers the app's routes with no-cache and a strict CSP; hashed
// assets are immutable; the service worker is no-cache; the API's paths, JSON clients and
// other methods get the fallback (the JSON 404 in production).
func TestHandler(t *testing.T) {
	t.Parallel()
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := web.Handler(notFound)
	for _, p := range []string{"/", "/farms/1/register", "/callback?code=x", "/farms/a/animals/b"} {
		w := get(t, h, "GET", p, "text/html,application/xhtml+xml")
		if w.Code != 200 || !strings.Contains(w.Body.String(), `<div id="app">`) {
			t.Fatalf("GET %s: %d %.200s", p, w.Code, w.Body)
		}
		if cc := w.Header().Get("Cache-Control"); cc != "no-cache" {
			t.Fatalf("GET %s Cache-Control %q", p, cc)
		}
		csp := w.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe") {
			t.Fatalf("GET %s CSP %q", p, csp)
		}
	}
	// No inline script in the page: every <script> has a src under /assets/.
	page := get(t, h, "GET", "/", "").Body.String()
	for _, m := range regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1) {
		if !strings.Contains(m, `src="/assets/`) {
			t.Fatalf("inline or foreign script %q", m)
		}
	}
	assets := regexp.MustCompile(`/assets/[A-Za-z0-9._-]+`).FindAllString(page, -1)
	if len(assets) == 0 {
		t.Fatal("the page names no assets")
	}
	for _, a := range assets {
		w := get(t, h, "GET", a, "")
		if w.Code != 200 || w.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Fatalf("GET %s: %d %q", a, w.Code, w.Header().Get("Cache-Control"))
		}
	}
	// Compressed for clients that accept gzip.
	r := httptest.NewRequest("GET", assets[0], nil)
	r.Header.Set("Accept-Encoding", "gzip, br")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Header().Get("Content-Encoding") != "gzip" || !strings.Contains(w.Header().Get("Vary"), "Accept-Encoding") {
		t.Fatalf("GET %s with gzip: %v", assets[0], w.Header())
	}
	if z, err := gzip.NewReader(w.Body); err != nil {
		t.Fatal(err)
	} else if b, err := io.ReadAll(z); err != nil || len(b) == 0 {
		t.Fatalf("gunzip %s: %v", assets[0], err)
	}
	if w := get(t, h, "GET", "/sw.js", ""); w.Code != 200 || w.Header().Get("Cache-Control") != "no-cache" || !strings.Contains(w.Header().Get("Content-Type"), "javascript") {
		t.Fatalf("GET /sw.js: %d %v", w.Code, w.Header())
	}
	for _, c := range []struct{ method, path, accept string }{
		{"GET", "/assets/missing.js", ""},
		{"GET", "/v1/farm", "text/html"},
		{"GET", "/v2/anything", "text/html"},
		{"GET", "/oauth/nothing", "text/html"},
		{"GET", "/.well-known/x", "text/html"},
		{"GET", "/graphql/x", "text/html"},
		{"GET", "/metrics", "text/html"},
		{"GET", "/", "application/json"},
		{"GET", "/farms", "application/json"},
		{"POST", "/", "text/html"},
		{"DELETE", "/farms", ""},
		{"GET", "/no/such/path", ""},
		{"GET", "/farmsx", "text/html"},
		{"GET", "/openapi.json", "text/html"},
	} {
		if w := get(t, h, c.method, c.path, c.accept); w.Code != http.StatusTeapot {
			t.Errorf("%s %s (Accept %q) answered %d, want the fallback", c.method, c.path, c.accept, w.Code)
		}
	}
}

// TestFirstLoadBudget holds the first load to at most 250 KB of gzip-compressed JavaScript
// (issue 23.7): every script the page loads, compressed at the default level.
func TestFirstLoadBudget(t *testing.T) {
	t.Parallel()
	files := web.Files()
	page, err := fs.ReadFile(files, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, m := range regexp.MustCompile(`(?:src|href)="/(assets/[^"]+\.js)"`).FindAllStringSubmatch(string(page), -1) {
		b, err := fs.ReadFile(files, m[1])
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		z := gzip.NewWriter(&buf)
		_, _ = z.Write(b)
		_ = z.Close()
		total += buf.Len()
	}
	if total == 0 || total > 250_000 {
		t.Fatalf("first load: %d bytes of compressed JavaScript, want 1 to 250000", total)
	}
	t.Logf("first load: %d bytes of compressed JavaScript", total)
}

// BenchmarkPage measures answering a browser's navigation with the app's page.
func BenchmarkPage(b *testing.B) {
	h := web.Handler(http.NotFoundHandler())
	r := httptest.NewRequest("GET", "/farms/x/register", nil)
	r.Header.Set("Accept", "text/html")
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}

// BenchmarkAsset measures answering a hashed, immutable asset to a browser (gzip, precompressed).
func BenchmarkAsset(b *testing.B) {
	h := web.Handler(http.NotFoundHandler())
	page := get(&testing.T{}, h, "GET", "/", "").Body.String()
	r := httptest.NewRequest("GET", regexp.MustCompile(`/assets/[A-Za-z0-9._-]+\.js`).FindString(page), nil)
	r.Header.Set("Accept-Encoding", "gzip")
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}
