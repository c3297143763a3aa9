package graph

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// explorerFiles is GraphiQL (the published UMD builds of graphiql and React, vendored by
// scripts/vendor-graphiql.sh), the page and the script that starts it. They are inside the
// binary so that the explorer works on a machine without internet.
//
//go:embed explorer
var explorerFiles embed.FS

// explorerCSP lets the explorer page load nothing that the server itself does not serve:
// the browser refuses any other origin, so a page that works is a page that works offline.
const explorerCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'"

// explorerAsset is one embedded file with the ETag that lets browsers revalidate it cheaply.
type explorerAsset struct {
	body []byte
	etag string
}

var explorerAssets = func() map[string]explorerAsset {
	out := map[string]explorerAsset{}
	err := fs.WalkDir(explorerFiles, "explorer", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := explorerFiles.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[path.Base(p)] = explorerAsset{body: b, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		return nil
	})
	if err != nil {
		panic("graph: reading the embedded explorer: " + err.Error())
	}
	return out
}()

// serveExplorerFile answers with one embedded file; If-None-Match gets a 304.
func serveExplorerFile(w http.ResponseWriter, r *http.Request, name string) {
	a, ok := explorerAssets[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	if path.Ext(name) == ".html" {
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", explorerCSP)
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.body))
}

// explorerPage serves GraphiQL's page: GET /graphql without an operation.
var explorerPage = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	serveExplorerFile(w, r, "index.html")
})

// ExplorerAssets serves the explorer's scripts and styles under /graphql/assets/.
func ExplorerAssets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/graphql/assets/")
		if !ok || name == "index.html" || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		serveExplorerFile(w, r, name)
	})
}

// isOperationRequest tells a GET that carries a GraphQL operation (a query, or an automatic
// persisted query's hash in extensions) from a browser opening the explorer.
func isOperationRequest(r *http.Request) bool {
	q := r.URL.Query()
	return q.Has("query") || q.Has("extensions")
}
