package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// The browser tests of the web app share this harness: a real server (herdbooktest.App) on
// one database, a signed-up user, the first-party OAuth client, and a headless Chromium
// driven through chromedp, with the steps a person takes (type, click, follow a link, wait
// for a text) and the checks every screen gets (axe-core, uncaught exceptions, screenshots).

// browserTools answers axe-core's source, or skips the test when it or Chromium is missing
// (it fails instead under HERDBOOK_REQUIRE_BROWSER=1 or HERDBOOK_REQUIRE_NODE=1).
func browserTools(t *testing.T) (axe string) {
	t.Helper()
	herdbooktest.ChromiumPath(t)
	b, err := os.ReadFile(filepath.Join("app", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		if os.Getenv("HERDBOOK_REQUIRE_NODE") == "1" || os.Getenv(herdbooktest.EnvRequireBrowser) == "1" {
			t.Fatalf("axe-core is not installed: run scripts/build-web.sh (%v)", err)
		}
		herdbooktest.SkipMissing(t, "axe-core is not installed: run scripts/build-web.sh")
	}
	return string(b)
}

// browser is one signed-up user's headless Chromium against a real server.
type browser struct {
	app     *herdbooktest.App
	user    herdbooktest.User
	dialect string
	axe     string
	// ctx carries the deadline of the whole scenario; page is the tab without it, for the
	// diagnostics printed after a timeout.
	ctx, page context.Context

	mu         sync.Mutex
	exceptions []string
	// console keeps the page's last console messages, printed with a timeout's diagnostics.
	console []string
}

// EnvBrowserTests set to "after" makes the suite skip the app's browser tests, for a runner
// that runs ./web/ on its own once the rest is done, as .ci/run does: each drives a Chromium
// and a server through timed steps, and on a two-core machine the other packages' tests
// (the REST suite's six minutes above all) made their service-worker and offline steps time
// out now and then.
const EnvBrowserTests = "HERDBOOK_BROWSER_TESTS"

// newBrowser starts a server on d with the herdbook-web client and one user, and a Chromium
// at 360 × 800 (a phone) whose every step must be done within timeout. At the end of the test
// any uncaught exception the page threw is an error.
func newBrowser(t *testing.T, d *db.DB, timeout time.Duration) *browser {
	t.Helper()
	return newBrowserWith(t, d, timeout, herdbooktest.Options{})
}

// newBrowserWith is newBrowser over an App made with opts (a registry outbox, say).
func newBrowserWith(t *testing.T, d *db.DB, timeout time.Duration, opts herdbooktest.Options) *browser {
	t.Helper()
	if os.Getenv(EnvBrowserTests) == "after" {
		t.Skip("run on their own after the suite (" + EnvBrowserTests + "=after; .ci/run runs ./web/ next)")
	}
	axe := browserTools(t)
	app := herdbooktest.NewApp(t, d, opts)
	// The first-party client exists without set-up in production (serve); made here when
	// the test app has not made it itself.
	_, _, _ = app.Issuer.CreateClient(context.Background(), oauth.ClientInput{ClientID: "herdbook-web", Name: "Herdbook", Public: true,
		RedirectURIs: []string{app.URL + "/", app.URL + "/callback"}, Scopes: herdbook.AllScopes})
	b := &browser{app: app, user: app.MustUser(), dialect: d.Dialect, axe: axe}

	listen := func(ev any) {
		if ev, ok := ev.(*runtime.EventExceptionThrown); ok {
			b.mu.Lock()
			b.exceptions = append(b.exceptions, ev.ExceptionDetails.Text+" "+fmt.Sprint(ev.ExceptionDetails.Exception))
			b.mu.Unlock()
		}
		if ev, ok := ev.(*cdplog.EventEntryAdded); ok && ev.Entry != nil {
			b.note(string(ev.Entry.Level) + " (" + string(ev.Entry.Source) + "): " + ev.Entry.Text + " " + ev.Entry.URL)
		}
		if ev, ok := ev.(*runtime.EventConsoleAPICalled); ok {
			var args []string
			for _, a := range ev.Args {
				if a.Value != nil {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			b.note(string(ev.Type) + ": " + strings.Join(args, " "))
		}
	}
	actx, cancelAlloc := herdbooktest.ChromiumAllocator(t)
	page, cancelPage := chromedp.NewContext(actx, chromedp.WithListener(listen))
	if err := chromedp.Do(page, chromedp.EmulateViewport(360, 800)); err != nil {
		cancelPage()
		cancelAlloc()
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(page, timeout)
	b.ctx, b.page = ctx, page
	t.Cleanup(func() {
		cancel()
		cancelPage()
		cancelAlloc()
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, e := range b.exceptions {
			t.Errorf("uncaught exception in the page: %s", e)
		}
	})
	return b
}

// note keeps one of the page's console or log messages (the last 30), with its time.
func (b *browser) note(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.console = append(b.console, time.Now().Format("15:04:05.000")+" "+msg)
	if len(b.console) > 30 {
		b.console = b.console[len(b.console)-30:]
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// eval runs a JavaScript expression in the page.
func (b *browser) eval(t *testing.T, expr string) {
	t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](expr)); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
}

// evalString answers a JavaScript expression's string value (awaited when it is a promise).
func (b *browser) evalString(t *testing.T, expr string) string {
	t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// poll waits until a JavaScript expression (or the promise it makes) is true.
func (b *browser) poll(t *testing.T, what, expr string) {
	t.Helper()
	// Until the test's own deadline (b.ctx), as waitText waits: chromedp's default of 30 s
	// is shorter than what a loaded CI machine takes for some steps (a service worker's first
	// install fetches the whole shell).
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(0))); err != nil {
		t.Fatalf("waiting for %s: %v; %s", what, err, b.diagnose())
	}
}

// diagnose answers what a timed-out step saw: the page's address and text, its service
// worker's state, and the last console messages.
func (b *browser) diagnose() string {
	ctx, cancel := context.WithTimeout(b.page, 10*time.Second)
	defer cancel()
	got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + ' (' + document.readyState + ')\n' + document.body.innerText +
		'\nresources: ' + performance.getEntriesByType('resource').map((e) => e.name.replace(location.origin, '') + ' ' + (e.responseStatus ?? '') + (e.transferSize === 0 && e.decodedBodySize > 0 ? ' (cache)' : '')).slice(-20).join(', ')`))
	sw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`!('serviceWorker' in navigator) ? 'none' : navigator.serviceWorker.getRegistration().then((r) => JSON.stringify({
		controller: navigator.serviceWorker.controller?.state ?? null, registered: !!r,
		installing: r?.installing?.state ?? null, waiting: r?.waiting?.state ?? null, active: r?.active?.state ?? null }))`, chromedp.EvalAwaitPromise))
	if err != nil {
		sw = err.Error()
	}
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`!('caches' in self) ? 'none' : caches.keys().then((ks) => Promise.all(ks.map((k) =>
		caches.open(k).then((c) => c.keys()).then((rs) => k + ': ' + rs.map((r) => r.url.replace(location.origin, '')).join(' '))))).then((l) => l.join('\n'))`, chromedp.EvalAwaitPromise))
	if err != nil {
		kept = err.Error()
	}
	b.mu.Lock()
	console := strings.Join(b.console, "\n")
	b.mu.Unlock()
	return "the page shows:\n" + got + "\nservice worker: " + sw + "\nCache Storage: " + kept + "\nconsole:\n" + console
}

// overflow answers how the page overflows the window's width: "" when it fits, else the
// document's width and the last three elements of main that reach past the edge, named
// (tag#id.class), so that a failure says what to fix.
func (b *browser) overflow(t *testing.T) string {
	t.Helper()
	return b.evalString(t, `(() => { const e = document.documentElement; if (e.scrollWidth <= e.clientWidth) return '';
		const wide = [...document.querySelectorAll('main *')].filter(x => x.getBoundingClientRect().right > e.clientWidth)
			.map(x => x.tagName.toLowerCase() + (x.id ? '#' + x.id : '') + (x.className ? '.' + String(x.className).replace(/ /g, '.') : '')).slice(-3);
		return e.scrollWidth + ' px for ' + e.clientWidth + ' (' + wide.join(', ') + ')'; })()`)
}

// waitText waits until the element sel exists and its text includes want.
func (b *browser) waitText(t *testing.T, sel, want string) {
	t.Helper()
	q := `(() => { const e = document.querySelector(` + jsString(sel) + `); return !!e && e.innerText.includes(` + jsString(want) + `); })()`
	// Polled from here, so that a navigation between two polls (sign-in's redirects) is
	// only a missed poll.
	for {
		if ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](q)); err == nil && ok {
			return
		}
		select {
		case <-b.ctx.Done():
			t.Fatalf("waiting for %q in %s: %v; %s", want, sel, b.ctx.Err(), b.diagnose())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// click waits for sel and clicks it.
func (b *browser) click(t *testing.T, sel string) {
	t.Helper()
	b.waitText(t, sel, "")
	b.eval(t, `document.querySelector(`+jsString(sel)+`).click()`)
}

// set types into a field as a person would: the value, then input and change events.
func (b *browser) set(t *testing.T, sel, value string) {
	t.Helper()
	b.waitText(t, sel, "")
	b.eval(t, `(() => { const e = document.querySelector(`+jsString(sel)+`);
		const proto = e instanceof HTMLSelectElement ? HTMLSelectElement.prototype : e instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
		Object.getOwnPropertyDescriptor(proto, 'value').set.call(e, `+jsString(value)+`);
		e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); })()`)
}

// goTo follows one of the app's own links (the tokens live in the page's memory, so a
// navigation would sign out) and waits for the screen's heading.
func (b *browser) goTo(t *testing.T, path, heading string) {
	t.Helper()
	b.eval(t, `(() => { const a = document.createElement('a'); a.href = `+jsString(path)+`; document.querySelector('.shell').appendChild(a); a.click(); a.remove(); })()`)
	b.waitText(t, "h1", heading)
}

// navigate loads a URL of the server (a new page: the app forgets its tokens).
func (b *browser) navigate(t *testing.T, path string) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.app.URL+path)); err != nil {
		t.Fatal(err)
	}
}

// checkAxe runs axe-core on the page as it is: any violation is an error.
func (b *browser) checkAxe(t *testing.T, screen string) {
	t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](`window.axe ? true : (function(){`+b.axe+`; return true})()`)); err != nil {
		t.Fatalf("load axe-core: %v", err)
	}
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ['violations']}).then(r =>
		r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.nodes.map(n => n.target.join(' ')).join(', ')).join('\n'))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe-core on %s: %v", screen, err)
	}
	if got != "" {
		t.Errorf("axe-core finds violations on %s:\n%s", screen, got)
	}
}

// shot checks the screen with axe-core and, with HERDBOOK_SCREENSHOT_DIR set (and on
// SQLite, so that one run makes one set), saves it as web-NAME-phone.png (360 px) and
// web-NAME-desktop.png (1280 px).
func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	b.checkAxe(t, name)
	dir := os.Getenv("HERDBOOK_SCREENSHOT_DIR")
	if dir == "" || b.dialect != "sqlite3" {
		return
	}
	for _, size := range []struct {
		suffix string
		w, h   int64
	}{{"phone", 360, 800}, {"desktop", 1280, 860}} {
		err := chromedp.Do(b.ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Sleep(150*time.Millisecond),
			chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				png, err := chromedp.FullScreenshot(100)(ctx, tg)
				if err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(dir, "web-"+name+"-"+size.suffix+".png"), png, 0o644)
			}))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
	}
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(360, 800)); err != nil {
		t.Fatal(err)
	}
}

// offline cuts the network (the page's and its service worker's) or gives it back.
func (b *browser) offline(t *testing.T, off bool) {
	t.Helper()
	yes := true
	if _, err := chromedp.Call(b.ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		EmulateOfflineServiceWorker: &yes,
		MatchedNetworkConditions:    []*network.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(b.ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		t.Fatal(err)
	}
}

// signIn opens the app, signs in through the OAuth pages with the user's phone number and
// password, and waits for the farms screen; before is called on the welcome card and after
// on the farms screen when they are not nil (for screenshots).
func (b *browser) signIn(t *testing.T, before, after func()) {
	t.Helper()
	b.navigate(t, "/")
	b.waitText(t, "#sign-in", "")
	if before != nil {
		before()
	}
	b.click(t, "#sign-in")
	b.waitText(t, "#phone", "")
	b.set(t, "#phone", b.user.Phone)
	b.set(t, "#password", "a long test password")
	b.click(t, "form button[type=submit], #sign-in")
	// The first-party client has no consent page; a consent page, if any, is allowed.
	for i := 0; i < 50; i++ {
		done, _ := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(() => { const a = document.querySelector('#allow'); if (a) { a.click(); return false; } return !!document.querySelector('#farms-title'); })()`))
		if done {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.waitText(t, "#farms-title", "")
	if after != nil {
		after()
	}
}

// gql runs a GraphQL operation as the user, straight on the server (to seed or to check
// what the app did); any error fails the test.
func (b *browser) gql(t *testing.T, q string, vars map[string]any) map[string]any {
	t.Helper()
	out := b.app.GraphQL(b.user.Token, q, vars)
	if out["errors"] != nil {
		t.Fatalf("%s: %v", q, out["errors"])
	}
	return out["data"].(map[string]any)
}
