package graph_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestExplorerInBrowser opens GET /graphql in headless Chromium with every request to
// anywhere but the test server blocked, as on a machine without internet: GraphiQL loads,
// its docs pane lists Query.farms, and its default query, run with a bearer token in the
// Headers tab, shows the viewer's farm. With HERDBOOK_SCREENSHOT_DIR set it saves
// screenshots.
func TestExplorerInBrowser(t *testing.T) {
	t.Parallel()
	herdbooktest.ChromiumPath(t) // skips (or fails under HERDBOOK_REQUIRE_BROWSER=1) before any set-up
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	u := app.MustUser()
	app.MustFarm(u, "Offline Acres")
	server, err := url.Parse(app.URL)
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var requested, exceptions []string
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			requested = append(requested, ev.Request.URL)
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			exceptions = append(exceptions, msg)
		}
	}

	actx, cancelAlloc := herdbooktest.ChromiumAllocator(t)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithListener(listen))
	defer cancelCtx()
	// The network is off but for the test server: the first matching pattern wins.
	block := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{
			{URLPattern: server.Scheme + "://" + server.Host + "/*", Block: false},
			{URLPattern: "*://*:*/*", Block: true},
		}})
		return err
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), block); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()

	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			dir := os.Getenv("HERDBOOK_SCREENSHOT_DIR")
			if dir == "" {
				return nil
			}
			b, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644)
		})
	}
	// waitText polls until the element's text contains want.
	waitText := func(t *testing.T, sel, want string) {
		t.Helper()
		js := `(() => { const e = document.querySelector(` + jsString(sel) + `); return !!e && e.innerText.includes(` + jsString(want) + `); })()`
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			var got string
			got, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(`+jsString(sel)+`) || document.body).innerText`))
			t.Fatalf("waiting for %q in %s: %v; it shows:\n%s", want, sel, err, got)
		}
	}
	click := func(t *testing.T, js string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil {
			t.Fatalf("click: %v", err)
		}
	}

	t.Run("LoadsOffline", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/graphql"), chromedp.WaitVisible(chromedp.CSS(".graphiql-execute-button")), shot("explorer-1-loaded")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("DocsListQueryFarms", func(t *testing.T) {
		click(t, `(() => { document.querySelector('[aria-label="Show Documentation Explorer"]').click(); return true; })()`)
		waitText(t, ".graphiql-doc-explorer", "Query")
		click(t, `(() => { const a = [...document.querySelectorAll('.graphiql-doc-explorer a')].find(a => a.innerText.trim() === 'Query'); a.click(); return true; })()`)
		waitText(t, ".graphiql-doc-explorer", "farms(")
		if err := chromedp.Do(ctx, shot("explorer-2-docs")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("RunsQueryWithBearerToken", func(t *testing.T) {
		headers, _ := json.Marshal(map[string]string{"Authorization": "Bearer " + u.Token})
		// What a person types into the Headers tab; GraphiQL keeps it in localStorage.
		set := `(() => { localStorage.setItem('graphiql:headers', ` + jsString(string(headers)) + `); return true; })()`
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](set)); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(".graphiql-execute-button"))); err != nil {
			t.Fatal(err)
		}
		click(t, `(() => { document.querySelector('.graphiql-execute-button').click(); return true; })()`)
		waitText(t, ".graphiql-response", "Offline Acres")
		if err := chromedp.Do(ctx, shot("explorer-3-result")); err != nil {
			t.Fatal(err)
		}
	})

	mu.Lock()
	defer mu.Unlock()
	for _, r := range requested {
		p, err := url.Parse(r)
		if err != nil || (p.Scheme != "data" && p.Scheme != "blob" && p.Host != server.Host) {
			t.Errorf("the explorer asked for %s: it must need nothing but the server", r)
		}
	}
	for _, e := range exceptions {
		t.Errorf("uncaught exception in the page: %s", e)
	}
	if !strings.Contains(strings.Join(requested, " "), "/graphql/assets/graphiql-4.1.2.min.js") {
		t.Errorf("GraphiQL was not loaded from the server: %v", requested)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
