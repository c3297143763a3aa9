// Package web serves the Herdbook web app: the Preact + urql single-page app built by
// scripts/build-web.sh from web/app into web/dist, committed and embedded here, so that the
// one binary serves it with only Go installed (docs/web.md).
//
// Hashed assets (/assets/…) are immutable for a year; the page itself, the service worker
// and the manifest are served with no-cache, so a new build is picked up at the next load.
// The page carries a strict Content-Security-Policy: scripts only from this origin, no inline
// script or style, connections only to this origin.
package web

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed all:dist
var dist embed.FS

// CSP is the Content-Security-Policy of the app's page.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; worker-src 'self'; manifest-src 'self'; font-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// appRoutes are the first path segments the app routes itself (web/app/src/main.tsx): the
// page is answered for them and nothing else, so an unknown path, an API path or a typo keeps
// its JSON 404 and never turns into a page with status 200.
var appRoutes = map[string]bool{
	"": true, "farms": true, "callback": true, "settings": true, "outbox": true, "signout": true,
}

// Files returns the built app (index.html, sw.js, assets/…).
func Files() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// IsAppRoute reports whether p is a path the app itself routes (the page is answered for it):
// "/", /farms/…, /callback, /settings and /outbox. Everything else (the API under /v1, the
// graph, OAuth, the operational endpoints, unknown paths) is left to the fallback.
func IsAppRoute(p string) bool {
	seg, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	return appRoutes[seg]
}

// WantsPage reports whether a request is a browser's navigation (or any GET that does not ask
// for JSON only): API clients sending Accept: application/json keep getting JSON answers.
func WantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	accept := r.Header.Get("Accept")
	if strings.Contains(accept, "text/html") {
		return true
	}
	return !strings.Contains(accept, "json")
}

// Handler serves the app. notFound answers what is not the app's: a missing asset, a
// reserved path, or a request that asks for JSON.
func Handler(notFound http.Handler) http.Handler {
	files := preload(Files())
	if _, ok := files.raw["index.html"]; !ok {
		files.raw["index.html"] = []byte("<!doctype html><title>Herdbook</title><p>The web app is not built: run scripts/build-web.sh.</p>")
	}
	started := time.Now()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			notFound.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		if strings.HasPrefix(p, "/assets/") {
			name := strings.TrimPrefix(path.Clean(p), "/")
			if _, ok := files.raw[name]; !ok {
				notFound.ServeHTTP(w, r)
				return
			}
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
			files.serve(w, r, name, started)
			return
		}
		switch p {
		case "/sw.js", "/manifest.webmanifest", "/icon.svg", "/favicon.svg", "/robots.txt":
			if _, ok := files.raw[p[1:]]; !ok {
				notFound.ServeHTTP(w, r)
				return
			}
			h.Set("Cache-Control", "no-cache")
			if p == "/sw.js" {
				h.Set("Service-Worker-Allowed", "/")
			}
			files.serve(w, r, p[1:], started)
			return
		}
		if !IsAppRoute(p) || !WantsPage(r) {
			notFound.ServeHTTP(w, r)
			return
		}
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Security-Policy", CSP)
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		files.serve(w, r, "index.html", started)
	})
}

// preloaded holds the built files in memory (the embedded FS copies on every read), each
// with its gzip form when that is smaller.
type preloaded struct {
	raw, gz map[string][]byte
}

func preload(files fs.FS) *preloaded {
	p := &preloaded{raw: map[string][]byte{}, gz: map[string][]byte{}}
	_ = fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		p.raw[name] = b
		var buf bytes.Buffer
		z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = z.Write(b)
		_ = z.Close()
		if buf.Len() < len(b) {
			p.gz[name] = buf.Bytes()
		}
		return nil
	})
	return p
}

// serve answers one file, gzip-compressed when the client accepts it (and asks no range).
func (p *preloaded) serve(w http.ResponseWriter, r *http.Request, name string, mod time.Time) {
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		h.Set("Content-Type", ct)
	}
	if path.Ext(name) == ".webmanifest" {
		h.Set("Content-Type", "application/manifest+json")
	}
	b := p.raw[name]
	if gz, ok := p.gz[name]; ok && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") && r.Header.Get("Range") == "" {
		b = gz
		h.Set("Content-Encoding", "gzip")
	}
	http.ServeContent(w, r, name, mod, bytes.NewReader(b))
}
