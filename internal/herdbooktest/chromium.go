package herdbooktest

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
)

// ChromiumAllocator starts the headless Chromium of a browser test (ChromiumPath finds it,
// or skips the test): no sandbox (tests may run as root), no GPU, none of the background
// connections a closed network refuses (updates, sync, QUIC), and a fresh profile in a
// directory of the test's own. Cancel the answer's context to stop the browser.
func ChromiumAllocator(tb testing.TB) (context.Context, context.CancelFunc) {
	tb.Helper()
	return chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(ChromiumPath(tb)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(tb.TempDir()),
	)
}
