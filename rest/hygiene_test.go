package rest_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

func TestAPIRateLimit(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"), herdbooktest.Options{APIRateLimit: 100})
	u := app.MustUser()
	f := app.MustFarm(u, "Busy")
	for i := 1; i <= 100; i++ {
		p := "/v1/farm"
		if i%2 == 0 {
			p = "/api/v1/farm" // both prefixes share one budget
		}
		res := app.Do("GET", p, u.Token, nil)
		if res.Status != 200 {
			t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
		}
		if got := res.Header.Get("RateLimit-Remaining"); got != strconv.Itoa(100-i) {
			t.Fatalf("request %d: RateLimit-Remaining %q", i, got)
		}
		if res.Header.Get("RateLimit-Limit") != "100" || res.Header.Get("RateLimit-Policy") == "" {
			t.Fatalf("request %d: headers %v", i, res.Header)
		}
	}
	res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/records", u.Token, nil)
	herdbooktest.WantEnvelope(t, res, 429, "ServiceError", "rate limit exceeded")
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 900 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	t.Run("UnlimitedOperations", func(t *testing.T) {
		if res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/birth-history/settings", u.Token, nil); res.Status != 200 {
			t.Fatalf("birth-history settings: %d", res.Status)
		}
		if res := app.Do("GET", "/v1/openapi.json", "", nil); res.Status != 200 {
			t.Fatalf("openapi: %d", res.Status)
		}
	})
	t.Run("LegacyKeyHasItsOwnBudget", func(t *testing.T) {
		key, _, err := app.Issuer.CreateAPIKey(context.Background(), oauth.APIKeyInput{UserID: u.ID, Name: "integration", Scopes: []string{herdbook.ScopeReadFarms}})
		if err != nil {
			t.Fatal(err)
		}
		res := app.Do("GET", "/v1/farm", "", nil, "X-API-Key", key)
		if res.Status != 200 || res.Header.Get("Deprecation") != "true" || res.Header.Get("RateLimit-Remaining") != "99" {
			t.Fatalf("status %d, headers %v", res.Status, res.Header)
		}
	})
}

func TestCORS(t *testing.T) {
	t.Parallel()
	const origin = "https://app.herdbook.example"
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"), herdbooktest.Options{WebOrigin: origin})
	u := app.MustUser()
	preflight := func(from string) herdbooktest.Response {
		// As a browser sends it: header names lowercase and sorted.
		return app.Do("OPTIONS", "/v1/farm", "", nil, "Origin", from, "Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "authorization,content-type")
	}
	t.Run("PreflightAllowedOrigin", func(t *testing.T) {
		res := preflight(origin)
		if res.Status >= 300 || res.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Fatalf("status %d headers %v", res.Status, res.Header)
		}
	})
	t.Run("ErrPreflightOtherOrigin", func(t *testing.T) {
		if got := preflight("https://evil.example").Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Fatalf("an unlisted origin was allowed: %q", got)
		}
	})
	t.Run("ErrRequestFromOtherOrigin", func(t *testing.T) {
		res := app.Do("GET", "/v1/farm", u.Token, nil, "Origin", "https://evil.example")
		if res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("an unlisted origin may read the answer")
		}
	})
	t.Run("RequestFromWebOrigin", func(t *testing.T) {
		res := app.Do("GET", "/v1/farm", u.Token, nil, "Origin", origin)
		if res.Status != 200 || res.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Fatalf("status %d headers %v", res.Status, res.Header)
		}
	})
	t.Run("NoOriginServerSide", func(t *testing.T) {
		if res := app.Do("GET", "/v1/farm", u.Token, nil); res.Status != http.StatusOK {
			t.Fatalf("status %d", res.Status)
		}
	})
}
