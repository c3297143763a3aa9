package web_test

import (
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestShellKeptInBrowser checks the service worker's shell (app/public/sw.js): once it
// controls the page, the page, its assets, the icons and the screens loaded on demand are
// kept; a file lost from the kept shell (as a put lost under a busy disk was, once, in CI) is
// kept again when a page it controls loads and sends what it loaded; and the app then opens
// offline after a reload. The welcome card needs no sign-in, so the check runs on one
// database (the shell holds no data).
func TestShellKeptInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	d := herdbooktest.MustDB(t, "sqlite")
	b := newBrowser(t, d, 90*time.Second)
	kept := func(what, pattern string) string {
		return `caches.open('herdbook-shell-v3').then((c) => c.keys()).then((ks) => ks.map((r) => new URL(r.url).pathname).filter((p) => /` + pattern + `/.test(p)).join(' '))`
	}
	b.navigate(t, "/")
	b.waitText(t, "#sign-in", "")
	b.poll(t, "the service worker to control the page", `!!navigator.serviceWorker.controller`)
	// Controlling means installed and activated: the whole shell is there already.
	for _, want := range []struct{ what, pattern string }{
		{"the page", `^\/$`}, {"the app's script", `^\/assets\/index-.*\.js$`}, {"its style sheet", `^\/assets\/index-.*\.css$`},
		{"the registry screen", `^\/assets\/Registry-.*\.js$`}, {"the breeding screen", `^\/assets\/Breeding-.*\.js$`},
		{"the icon", `^\/icon\.svg$`}, {"the manifest", `^\/manifest\.webmanifest$`},
	} {
		if got := b.evalString(t, kept(want.what, want.pattern)); got == "" {
			t.Errorf("the shell lacks %s", want.what)
		}
	}
	// The app's own script lost from the kept shell: the next page load sends what it
	// loaded, and the worker keeps it again.
	script := b.evalString(t, kept("the app's script", `^\/assets\/index-.*\.js$`))
	b.evalString(t, `caches.open('herdbook-shell-v3').then((c) => c.delete(`+jsString(script)+`)).then(String)`)
	if got := b.evalString(t, kept("the app's script", `^\/assets\/index-.*\.js$`)); got != "" {
		t.Fatalf("the script is still kept after its deletion: %s", got)
	}
	b.navigate(t, "/")
	b.waitText(t, "#sign-in", "")
	b.poll(t, "the app's script kept again", kept("the app's script", `^\/assets\/index-.*\.js$`)+`.then((s) => s === `+jsString(script)+`)`)
	// Offline and reloaded: the welcome card, from the kept shell.
	b.offline(t, true)
	b.navigate(t, "/")
	b.waitText(t, "#sign-in", "")
	b.offline(t, false)
}
