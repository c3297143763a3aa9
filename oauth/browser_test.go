package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// TestBrowser signs in, consents and approves a device code in headless Chromium, on a
// phone-sized viewport. With HERDBOOK_SCREENSHOT_DIR set it saves a screenshot per page.
func TestBrowser(t *testing.T) {
	t.Parallel()
	herdbooktest.ChromiumPath(t) // skips (or fails under HERDBOOK_REQUIRE_BROWSER=1) before any set-up
	e := newEnv(t, herdbooktest.MustDB(t, "sqlite"))

	// The client application: its callback records the code it receives.
	codes := make(chan url.Values, 1)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case codes <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Farm app</title><p id="done">Back in the app</p>`)
	}))
	t.Cleanup(app.Close)
	e.client(oauth.ClientInput{ClientID: "browser-app", Name: "Farm Diary", Public: true,
		RedirectURIs: []string{app.URL + "/callback"}, Scopes: []string{herdbook.ScopeReadFarms, herdbook.ScopeReadRecords}})

	actx, cancelAlloc := herdbooktest.ChromiumAllocator(t)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	// Start the browser on a context without deadline, then bound the whole test.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 25*time.Second)
	defer cancel()

	shots := os.Getenv("HERDBOOK_SCREENSHOT_DIR")
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if shots == "" {
				return nil
			}
			b, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, name+".png"), b, 0o644)
		})
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}

	t.Run("SignInAndConsent", func(t *testing.T) {
		v := verifier("b")
		q := url.Values{"client_id": {"browser-app"}, "redirect_uri": {app.URL + "/callback"}, "response_type": {"code"},
			"scope": {"read:farms read:records"}, "state": {"browser-state"}, "code_challenge": {oauth.S256(v)}, "code_challenge_method": {"S256"}}
		err := chromedp.Do(ctx,
			chromedp.Navigate(e.app.URL+"/oauth/authorize?"+q.Encode()),
			chromedp.WaitVisible(chromedp.ID("phone")),
			shot("1-sign-in"),
			chromedp.SendKeys(chromedp.ID("phone"), e.user.Phone),
			chromedp.SendKeys(chromedp.ID("password"), testPassword),
			chromedp.Click(chromedp.ID("sign-in")),
			chromedp.WaitVisible(chromedp.ID("allow")),
			shot("2-consent"),
		)
		if err != nil {
			t.Fatal(err)
		}
		if body := text("main"); !strings.Contains(body, "Farm Diary") || !strings.Contains(body, "read:records") {
			t.Fatalf("consent page: %q", body)
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("allow")), chromedp.WaitVisible(chromedp.ID("done"))); err != nil {
			t.Fatal(err)
		}
		var back url.Values
		select {
		case back = <-codes:
		case <-ctx.Done():
			t.Fatal("the client never got its callback")
		}
		if back.Get("state") != "browser-state" || back.Get("code") == "" {
			t.Fatalf("callback %v", back)
		}
		f := url.Values{"grant_type": {"authorization_code"}, "client_id": {"browser-app"}, "code": {back.Get("code")},
			"redirect_uri": {app.URL + "/callback"}, "code_verifier": {v}}
		if res := e.post("/oauth/token", f); res.Status != http.StatusOK {
			t.Fatalf("redeem the browser's code: %d %s", res.Status, res.Body)
		}
	})

	t.Run("ApproveDeviceCode", func(t *testing.T) {
		da := e.deviceStart("browser-app", "read:farms")
		err := chromedp.Do(ctx,
			chromedp.Navigate(da["verification_uri_complete"].(string)),
			chromedp.WaitVisible(chromedp.ID("user_code")),
			shot("3-device-code"),
			chromedp.Click(chromedp.ID("continue")),
			chromedp.WaitVisible(chromedp.ID("approve")),
			shot("4-device-confirm"),
		)
		if err != nil {
			t.Fatal(err)
		}
		if got := text("#shown-code"); got != da["user_code"] {
			t.Fatalf("the confirmation shows %q, want %q", got, da["user_code"])
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("message")), shot("5-device-done")); err != nil {
			t.Fatal(err)
		}
		if got := text("h1"); got != "Device connected" {
			t.Fatalf("after approval: %q", got)
		}
		res := e.poll("browser-app", da["device_code"].(string))
		if res.Status != http.StatusOK {
			t.Fatalf("the device's poll: %d %s", res.Status, res.Body)
		}
	})

	t.Run("TypedCodeAndDeny", func(t *testing.T) {
		da := e.deviceStart("browser-app", "")
		typed := strings.ToLower(strings.ReplaceAll(da["user_code"].(string), "-", ""))
		err := chromedp.Do(ctx,
			chromedp.Navigate(e.app.URL+"/oauth/activate"),
			chromedp.WaitVisible(chromedp.ID("user_code")),
			chromedp.SendKeys(chromedp.ID("user_code"), typed),
			chromedp.Click(chromedp.ID("continue")),
			chromedp.WaitVisible(chromedp.ID("deny")),
			chromedp.Click(chromedp.ID("deny")),
			chromedp.WaitVisible(chromedp.ID("message")),
		)
		if err != nil {
			t.Fatal(err)
		}
		herdbooktest.WantEnvelope(t, e.poll("browser-app", da["device_code"].(string)).res(), http.StatusUnauthorized, "AuthError", "denied")
	})
}
