package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"golang.org/x/oauth2"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/oauthclient"
	"github.com/herdbook/herdbook/ent/schema"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// TestWebClient is the first-party web app's client, herdbook-web (issue 23, deliverable 2):
// it exists without set-up with the server's own redirect URIs, is public with PKCE S256
// required, skips the consent page, refreshes with rotation and signs out by revocation,
// driven through the real server by golang.org/x/oauth2 as the IETF's "OAuth 2.0 for
// Browser-Based Applications" describes the flow of a browser app.
func TestWebClient(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		ctx := context.Background()
		hc := context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Timeout: 30 * time.Second})
		base := e.app.URL
		conf := &oauth2.Config{ClientID: oauth.WebClientID, Endpoint: e.endpoint(), RedirectURL: base + "/callback",
			Scopes: herdbook.AllScopes}

		t.Run("ExistsWithoutSetUp", func(t *testing.T) {
			cl, err := e.app.Issuer.Client(ctx, oauth.WebClientID)
			if err != nil {
				t.Fatal(err)
			}
			if !cl.Public || cl.Observer || cl.SecretHash != "" || !slices.Equal(cl.Scopes, herdbook.AllScopes) ||
				!slices.Equal(cl.RedirectUris, []string{base + "/", base + "/callback"}) {
				t.Fatalf("client = %+v", cl)
			}
		})

		t.Run("Idempotent", func(t *testing.T) {
			a, err := e.app.Issuer.EnsureWebClient(ctx, base+"/")
			if err != nil {
				t.Fatal(err)
			}
			b, err := e.app.Issuer.EnsureWebClient(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			n, err := d.Client.OAuthClient.Query().Where(oauthclient.ClientID(oauth.WebClientID)).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if a.ID != b.ID || n != 1 || !slices.Equal(b.RedirectUris, oauth.WebRedirectURIs(base)) {
				t.Fatalf("ensure twice: %v %v, %d rows, uris %v", a.ID, b.ID, n, b.RedirectUris)
			}
			// A base URL that is not https (nor loopback http) is refused, as for any client.
			if _, err := e.app.Issuer.EnsureWebClient(ctx, "http://farm.example"); err == nil {
				t.Fatal("a plain-http public base URL was accepted")
			}
		})

		t.Run("CodeWithPKCENoConsentRefreshRevoke", func(t *testing.T) {
			b := e.browser()
			b.signIn()
			v := oauth2.GenerateVerifier()
			authURL, err := url.Parse(conf.AuthCodeURL("st-web", oauth2.S256ChallengeOption(v)))
			if err != nil {
				t.Fatal(err)
			}
			loc := location(t, b.get("/oauth/authorize?"+authURL.RawQuery))
			if loc.Path != "/oauth/consent" {
				t.Fatalf("authorize sent the browser to %s", loc)
			}
			// No consent page: the code comes straight back to the app.
			back := location(t, b.get(loc.String()))
			if got := back.Scheme + "://" + back.Host + back.Path; got != base+"/callback" || back.Query().Get("state") != "st-web" || back.Query().Get("code") == "" {
				t.Fatalf("redirect back = %s", back)
			}
			tok, err := conf.Exchange(hc, back.Query().Get("code"), oauth2.VerifierOption(v))
			if err != nil {
				t.Fatal(err)
			}
			if tok.RefreshToken == "" || e.apiStatus(tok.AccessToken) != http.StatusOK {
				t.Fatalf("token = %+v", tok)
			}
			old := *tok
			tok.Expiry = time.Now().Add(-time.Minute)
			fresh, err := conf.TokenSource(hc, tok).Token()
			if err != nil {
				t.Fatal(err)
			}
			if fresh.RefreshToken == old.RefreshToken || fresh.AccessToken == old.AccessToken {
				t.Fatal("refresh did not rotate")
			}
			// Sign-out: revoking from the app's page (same origin, with the browser's cookies)
			// revokes the family and ends the sign-in, so the next sign-in asks the password.
			res := b.do(http.MethodPost, "/oauth/revoke", url.Values{"token": {fresh.RefreshToken}, "client_id": {oauth.WebClientID}})
			if res.Status != http.StatusOK || res.json(t)["revoked"] != true {
				t.Fatalf("revoke: %d %s", res.Status, res.Body)
			}
			if st := e.apiStatus(fresh.AccessToken); st != http.StatusUnauthorized {
				t.Fatalf("access token after sign-out: %d", st)
			}
			if loc := location(t, b.get("/oauth/authorize?"+authURL.RawQuery)); loc.Path != "/oauth/login" {
				t.Fatalf("after sign-out, authorize went to %s, want the sign-in page", loc)
			}
		})

		t.Run("CrossOriginRevokeKeepsTheSession", func(t *testing.T) {
			b := e.browser()
			b.signIn()
			v := oauth2.GenerateVerifier()
			q := url.Values{"client_id": {oauth.WebClientID}, "redirect_uri": {base + "/"}, "response_type": {"code"},
				"scope": {"read:farms"}, "state": {"s"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(v)}, "code_challenge_method": {"S256"}}
			back := b.authorizeNoConsent(q)
			tok, err := conf.Exchange(hc, back.Query().Get("code"), oauth2.VerifierOption(v), oauth2.SetAuthURLParam("redirect_uri", base+"/"))
			if err != nil {
				t.Fatal(err)
			}
			res := e.post("/oauth/revoke", url.Values{"token": {tok.RefreshToken}, "client_id": {oauth.WebClientID}}, "Origin", "https://evil.example")
			if res.Status != http.StatusOK {
				t.Fatalf("revoke: %d %s", res.Status, res.Body)
			}
			if loc := location(t, b.get("/oauth/authorize?"+q.Encode())); loc.Path != "/oauth/consent" {
				t.Fatalf("the browser was signed out by another origin: %s", loc)
			}
		})

		t.Run("PKCEIsRequired", func(t *testing.T) {
			b := e.browser()
			b.signIn()
			q := url.Values{"client_id": {oauth.WebClientID}, "redirect_uri": {base + "/callback"}, "response_type": {"code"},
				"scope": {"read:farms"}, "state": {"s"}}
			loc := location(t, b.get("/oauth/authorize?"+q.Encode()))
			if loc.Query().Get("error") != "invalid_request" {
				t.Fatalf("without a challenge: %s", loc)
			}
			q.Set("code_challenge", verifier("p"))
			q.Set("code_challenge_method", "plain")
			if loc := location(t, b.get("/oauth/authorize?"+q.Encode())); loc.Query().Get("error") != "invalid_request" {
				t.Fatalf("plain challenge: %s", loc)
			}
			// A code redeemed without its verifier is refused.
			v := oauth2.GenerateVerifier()
			q.Set("code_challenge", oauth2.S256ChallengeFromVerifier(v))
			q.Set("code_challenge_method", "S256")
			back := b.authorizeNoConsent(q)
			res := e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {oauth.WebClientID},
				"code": {back.Query().Get("code")}, "redirect_uri": {base + "/callback"}})
			wantOAuthError(t, res, http.StatusBadRequest, "invalid_grant")
		})

		t.Run("OnlyItsOwnRedirectURIs", func(t *testing.T) {
			b := e.browser()
			b.signIn()
			for _, ru := range []string{base + "/evil", base, "https://evil.example/callback", base + "/callback/"} {
				q := url.Values{"client_id": {oauth.WebClientID}, "redirect_uri": {ru}, "response_type": {"code"}, "scope": {"read:farms"},
					"code_challenge": {oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())}, "code_challenge_method": {"S256"}}
				res := b.get("/oauth/consent?" + q.Encode())
				if res.Status != http.StatusBadRequest || res.Header.Get("Location") != "" {
					t.Fatalf("redirect_uri %s: status %d, Location %q", ru, res.Status, res.Header.Get("Location"))
				}
			}
		})

		t.Run("DeactivatedStaysDeactivated", func(t *testing.T) {
			app := e.app
			cl, err := app.Issuer.Client(ctx, oauth.WebClientID)
			if err != nil {
				t.Fatal(err)
			}
			if err := cl.Update().SetIsActive(false).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := app.Issuer.EnsureWebClient(ctx, app.URL); err != nil {
				t.Fatal(err)
			}
			if _, err := app.Issuer.Client(ctx, oauth.WebClientID); herdbook.ErrorCode(err) != herdbook.EUNAUTHORIZED {
				t.Fatalf("a deactivated web client came back: %v", err)
			}
			// Put it back for the other subtests sharing the database.
			if err := d.Client.OAuthClient.Update().Where(oauthclient.ClientID(oauth.WebClientID)).SetIsActive(true).Exec(schema.IncludeInactive(ctx)); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// authorizeNoConsent runs a first-party authorization request as the signed-in browser and
// returns the redirect back to the app, failing if a consent page was shown.
func (b *browser) authorizeNoConsent(q url.Values) *url.URL {
	b.e.t.Helper()
	loc := location(b.e.t, b.get("/oauth/authorize?"+q.Encode()))
	if loc.Path != "/oauth/consent" {
		b.e.t.Fatalf("authorize: %s", loc)
	}
	back := location(b.e.t, b.get(loc.String()))
	if back.Query().Get("code") == "" {
		b.e.t.Fatalf("no code: %s", back)
	}
	return back
}
