package oauth_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/ent/oauthclient"
	"github.com/herdbook/herdbook/ent/oauthcode"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// TestRedirectURI: the redirect_uri must equal a registered one exactly, and nothing is
// ever sent to a URI that is not registered, not even an error.
func TestRedirectURI(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		b := e.browser()
		b.signIn()
		v := verifier("r")
		for _, tc := range []struct {
			name, client, redirect string
		}{
			{"ErrOtherHost", e.public, "http://127.0.0.2:1/callback"},
			{"ErrOtherPort", e.public, "http://127.0.0.1:2/callback"},
			{"ErrLongerPath", e.public, "http://127.0.0.1:1/callback/more"},
			{"ErrPathPrefix", e.public, "http://127.0.0.1:1/callbackx"},
			{"ErrDotSegments", e.public, "http://127.0.0.1:1/callback/../evil"},
			{"ErrExtraQuery", e.public, "http://127.0.0.1:1/callback?next=evil"},
			{"ErrFragment", e.public, "http://127.0.0.1:1/callback#x"},
			{"ErrUpperCaseHost", e.public, "https://APP.example/callback"},
			{"ErrHostSuffix", e.public, "https://evil.app.example/callback"},
			{"ErrHostPrefix", e.public, "https://app.example.evil.test/callback"},
			{"ErrUserinfo", e.public, "https://app.example@evil.test/callback"},
			{"ErrMissing", e.public, ""},
			{"ErrUnknownClient", "no-such-client", e.redirect},
			// Even a request that has other errors must not be redirected anywhere.
		} {
			t.Run(tc.name, func(t *testing.T) {
				q := e.authQuery(tc.client, v)
				q.Set("redirect_uri", tc.redirect)
				q.Set("response_type", "token") // a second error, which must not be redirected
				for _, path := range []string{"/oauth/authorize?", "/oauth/consent?"} {
					res := b.get(path + q.Encode())
					if res.Status != http.StatusBadRequest || res.Header.Get("Location") != "" {
						t.Fatalf("%s: status %d Location %q, want 400 and no redirect", path, res.Status, res.Header.Get("Location"))
					}
				}
				// The consent form's POST checks the same.
				page := b.get("/oauth/activate")
				form := url.Values{"decision": {"allow"}}
				for k, vs := range q {
					form[k] = vs
				}
				res := b.form(page, "/oauth/consent", form)
				if res.Status != http.StatusBadRequest || res.Header.Get("Location") != "" {
					t.Fatalf("consent POST: status %d Location %q", res.Status, res.Header.Get("Location"))
				}
			})
		}
		t.Run("OKExactMatch", func(t *testing.T) {
			for _, redirect := range []string{e.redirect, "https://app.example/callback"} {
				q := e.authQuery(e.public, v)
				q.Set("redirect_uri", redirect)
				loc := b.authorize(q)
				if got := loc.Scheme + "://" + loc.Host + loc.Path; got != redirect || loc.Query().Get("code") == "" {
					t.Fatalf("redirected to %s, want %s with a code", loc, redirect)
				}
			}
		})
		t.Run("ErrorsGoToTheVerifiedURIOnly", func(t *testing.T) {
			q := e.authQuery(e.public, v)
			q.Set("scope", "read:everything")
			loc := location(t, b.get("/oauth/authorize?"+q.Encode()))
			if loc.Scheme+"://"+loc.Host+loc.Path != e.redirect || loc.Query().Get("error") != "invalid_scope" ||
				loc.Query().Get("state") != "st-123" || loc.Query().Get("code") != "" {
				t.Fatalf("error redirect = %s", loc)
			}
		})
		t.Run("ErrTokenRedirectMismatch", func(t *testing.T) {
			code := e.code(e.public, v)
			f := url.Values{"grant_type": {"authorization_code"}, "client_id": {e.public}, "code": {code},
				"redirect_uri": {"https://app.example/callback"}, "code_verifier": {v}}
			wantOAuthError(t, e.post("/oauth/token", f), http.StatusBadRequest, "invalid_grant")
		})
	})
}

// TestPKCE: S256 only, PKCE required for public clients, verifier format checked.
func TestPKCE(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		b := e.browser()
		b.signIn()
		v := verifier("p")
		t.Run("Authorize", func(t *testing.T) {
			for _, tc := range []struct {
				name, client, challenge, method, want string
			}{
				{"ErrPlain", e.public, v[:43], "plain", "invalid_request"},
				{"ErrMethodMissing", e.public, oauth.S256(v), "", "invalid_request"},
				{"ErrMethodLowerCase", e.public, oauth.S256(v), "s256", "invalid_request"},
				{"ErrPublicWithoutPKCE", e.public, "", "", "invalid_request"},
				{"ErrObserverWithoutPKCE", e.observer, "", "", "invalid_request"},
				{"ErrChallengeTooShort", e.public, oauth.S256(v)[:42], "S256", "invalid_request"},
				{"ErrChallengeTooLong", e.public, oauth.S256(v) + "A", "S256", "invalid_request"},
				{"ErrChallengeBadChars", e.public, strings.Repeat("+", 43), "S256", "invalid_request"},
				{"ErrMethodWithoutChallenge", e.conf, "", "S256", "invalid_request"},
				{"OKS256", e.public, oauth.S256(v), "S256", ""},
				{"OKConfidentialWithoutPKCE", e.conf, "", "", ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					q := e.authQuery(tc.client, "")
					q.Set("scope", "read:farms")
					if tc.challenge != "" {
						q.Set("code_challenge", tc.challenge)
					}
					if tc.method != "" {
						q.Set("code_challenge_method", tc.method)
					}
					loc := b.authorize(q)
					if tc.want == "" {
						if loc.Query().Get("code") == "" {
							t.Fatalf("no code: %s", loc)
						}
						return
					}
					if loc.Query().Get("error") != tc.want || loc.Query().Get("code") != "" {
						t.Fatalf("redirect %s, want error=%s", loc, tc.want)
					}
				})
			}
		})
		t.Run("Token", func(t *testing.T) {
			for _, tc := range []struct {
				name, client, secret, challengeOf, verifier string
				status                                      int
				want                                        string
			}{
				{"ErrWrongVerifier", e.public, "", v, verifier("q"), 400, "invalid_grant"},
				{"ErrMissingVerifier", e.public, "", v, "", 400, "invalid_grant"},
				{"ErrVerifierTooShort", e.public, "", v[:42], v[:42], 400, "invalid_request"},
				{"ErrVerifierTooLong", e.public, "", strings.Repeat("a", 129), strings.Repeat("a", 129), 400, "invalid_request"},
				{"ErrVerifierBadChars", e.public, "", strings.Repeat("a", 42) + "!", strings.Repeat("a", 42) + "!", 400, "invalid_request"},
				{"ErrVerifierWithoutChallenge", e.conf, e.secret, "", v, 400, "invalid_grant"},
				{"OKVerifier", e.public, "", v, v, 200, ""},
				{"OKLongestVerifier", e.public, "", strings.Repeat("~", 128), strings.Repeat("~", 128), 200, ""},
				{"OKConfidentialWithoutPKCE", e.conf, e.secret, "", "", 200, ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					q := e.authQuery(tc.client, "")
					q.Set("scope", "read:farms")
					if tc.challengeOf != "" {
						q.Set("code_challenge", oauth.S256(tc.challengeOf))
						q.Set("code_challenge_method", "S256")
					}
					code := b.authorize(q).Query().Get("code")
					res := e.redeem(tc.client, tc.secret, code, tc.verifier)
					if tc.want == "" {
						if res.Status != http.StatusOK {
							t.Fatalf("status %d: %s", res.Status, res.Body)
						}
						return
					}
					wantOAuthError(t, res, tc.status, tc.want)
				})
			}
		})
	})
}

// TestCodes: authorization codes are single-use, live at most ten minutes, are bound to
// their client and redirect_uri, and a replay revokes what the code issued.
func TestCodes(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		v := verifier("c")
		t.Run("ErrReplayRevokesIssuedTokens", func(t *testing.T) {
			code := e.code(e.public, v)
			first := e.redeem(e.public, "", code, v)
			if first.Status != http.StatusOK {
				t.Fatalf("first redemption: %d %s", first.Status, first.Body)
			}
			tok := first.json(t)
			if st := e.apiStatus(tok["access_token"].(string)); st != http.StatusOK {
				t.Fatalf("access token before replay: %d", st)
			}
			wantOAuthError(t, e.redeem(e.public, "", code, v), http.StatusBadRequest, "invalid_grant")
			if st := e.apiStatus(tok["access_token"].(string)); st != http.StatusUnauthorized {
				t.Fatalf("access token after replay: %d, want 401", st)
			}
			wantOAuthError(t, e.refresh(e.public, "", tok["refresh_token"].(string), ""), http.StatusBadRequest, "invalid_grant")
		})
		t.Run("ExpiresAfterTenMinutes", func(t *testing.T) {
			code := e.code(e.public, v)
			e.clock.Advance(9*time.Minute + 50*time.Second)
			if res := e.redeem(e.public, "", code, v); res.Status != http.StatusOK {
				t.Fatalf("at 9m50s: %d %s", res.Status, res.Body)
			}
			code = e.code(e.public, v)
			e.clock.Advance(10*time.Minute + time.Second)
			wantOAuthError(t, e.redeem(e.public, "", code, v), http.StatusBadRequest, "invalid_grant")
		})
		t.Run("ErrOtherClient", func(t *testing.T) {
			code := e.code(e.public, v)
			wantOAuthError(t, e.redeem(e.conf, e.secret, code, v), http.StatusBadRequest, "invalid_grant")
			// The rightful client can still redeem it.
			if res := e.redeem(e.public, "", code, v); res.Status != http.StatusOK {
				t.Fatalf("rightful client: %d %s", res.Status, res.Body)
			}
		})
		t.Run("ErrUnknownCode", func(t *testing.T) {
			wantOAuthError(t, e.redeem(e.public, "", oauth.NewSecret("hbac_"), v), http.StatusBadRequest, "invalid_grant")
		})
		t.Run("StoredHashedWithTenMinuteLifetime", func(t *testing.T) {
			code := e.code(e.public, v)
			c, err := d.Client.OAuthCode.Query().Where(oauthcode.CodeHash(oauth.Hash(code))).Only(context.Background())
			if err != nil {
				t.Fatalf("no code row under the hash: %v", err)
			}
			if life := c.ExpiresAt.Sub(e.clock.Now()); life > 10*time.Minute || life < 9*time.Minute {
				t.Fatalf("code lifetime %v", life)
			}
			wantNotStored(t, d, code)
		})
	})
}

// TestRefresh: refresh tokens are bound to their client, rotated on use, reuse revokes the
// family, and the scope never grows.
func TestRefresh(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		t.Run("RotationAndReuse", func(t *testing.T) {
			tok := e.tokens()
			r1 := tok["refresh_token"].(string)
			res := e.refresh(e.public, "", r1, "")
			if res.Status != http.StatusOK {
				t.Fatalf("refresh: %d %s", res.Status, res.Body)
			}
			next := res.json(t)
			r2, a2 := next["refresh_token"].(string), next["access_token"].(string)
			if r2 == "" || r2 == r1 || res.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("no rotation or cacheable: %v %v", next, res.Header)
			}
			if st := e.apiStatus(a2); st != http.StatusOK {
				t.Fatalf("new access token: %d", st)
			}
			// Reusing the first refresh token revokes the whole family.
			wantOAuthError(t, e.refresh(e.public, "", r1, ""), http.StatusBadRequest, "invalid_grant")
			wantOAuthError(t, e.refresh(e.public, "", r2, ""), http.StatusBadRequest, "invalid_grant")
			for _, a := range []string{tok["access_token"].(string), a2} {
				if st := e.apiStatus(a); st != http.StatusUnauthorized {
					t.Fatalf("access token of a revoked family: %d, want 401", st)
				}
			}
		})
		t.Run("ErrOtherClient", func(t *testing.T) {
			rt := e.tokens()["refresh_token"].(string)
			wantOAuthError(t, e.refresh(e.conf, e.secret, rt, ""), http.StatusBadRequest, "invalid_grant")
			wantOAuthError(t, e.refresh(e.observer, "", rt, ""), http.StatusBadRequest, "unauthorized_client")
			if res := e.refresh(e.public, "", rt, ""); res.Status != http.StatusOK {
				t.Fatalf("the rightful client after another's attempt: %d %s", res.Status, res.Body)
			}
		})
		t.Run("ScopeNeverGrows", func(t *testing.T) {
			rt := e.tokens()["refresh_token"].(string) // read:farms read:records
			for _, tc := range []struct {
				name, scope, want string
			}{
				{"ErrWiden", "read:farms write:farms", "invalid_scope"},
				{"ErrUnknown", "read:everything", "invalid_scope"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					wantOAuthError(t, e.refresh(e.public, "", rt, tc.scope), http.StatusBadRequest, tc.want)
				})
			}
			res := e.refresh(e.public, "", rt, "read:farms")
			if res.Status != http.StatusOK || res.json(t)["scope"] != "read:farms" {
				t.Fatalf("narrowing: %d %s", res.Status, res.Body)
			}
			narrowed := res.json(t)
			if st := e.app.Do("GET", "/v1/farm/"+e.user.ID.String()+"/records", narrowed["access_token"].(string), nil).Status; st != http.StatusForbidden {
				t.Fatalf("a narrowed token used a dropped scope: %d", st)
			}
			// Once narrowed, the family cannot win the dropped scope back.
			wantOAuthError(t, e.refresh(e.public, "", narrowed["refresh_token"].(string), "read:farms read:records"), http.StatusBadRequest, "invalid_scope")
			res = e.refresh(e.public, "", narrowed["refresh_token"].(string), "")
			if res.Status != http.StatusOK || res.json(t)["scope"] != "read:farms" {
				t.Fatalf("refresh without scope after narrowing: %d %s", res.Status, res.Body)
			}
		})
		t.Run("Expiry", func(t *testing.T) {
			rt := e.tokens()["refresh_token"].(string)
			e.clock.Advance(oauth.RefreshTokenTTL + time.Second)
			wantOAuthError(t, e.refresh(e.public, "", rt, ""), http.StatusBadRequest, "invalid_grant")
		})
		t.Run("AccessTokenExpiry", func(t *testing.T) {
			a := e.tokens()["access_token"].(string)
			e.clock.Advance(oauth.DefaultAccessTokenTTL + time.Second)
			if st := e.apiStatus(a); st != http.StatusUnauthorized {
				t.Fatalf("expired access token: %d", st)
			}
		})
	})
}

// TestObserver: observer clients never get a refresh token and cannot refresh.
func TestObserver(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		t.Run("AuthorizationCode", func(t *testing.T) {
			v := verifier("o")
			res := e.redeem(e.observer, "", e.code(e.observer, v), v)
			if res.Status != http.StatusOK {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			if _, ok := res.json(t)["refresh_token"]; ok {
				t.Fatalf("observer got a refresh token: %s", res.Body)
			}
		})
		t.Run("DeviceFlow", func(t *testing.T) {
			for _, path := range []string{"/oauth/device/token", "/oauth/token"} {
				da := e.deviceStart(e.observer, "")
				if res := e.approve(da["user_code"].(string), true); res.Status != http.StatusOK {
					t.Fatalf("approve: %d %s", res.Status, res.Body)
				}
				res := e.post(path, url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {e.observer}, "device_code": {da["device_code"].(string)}})
				if res.Status != http.StatusOK {
					t.Fatalf("%s: %d %s", path, res.Status, res.Body)
				}
				if _, ok := res.json(t)["refresh_token"]; ok {
					t.Fatalf("%s: observer got a refresh token: %s", path, res.Body)
				}
			}
		})
		t.Run("ErrRefreshGrant", func(t *testing.T) {
			wantOAuthError(t, e.refresh(e.observer, "", oauth.NewSecret("hbrt_"), ""), http.StatusBadRequest, "unauthorized_client")
		})
		t.Run("ErrWriteScopes", func(t *testing.T) {
			_, _, err := e.app.Issuer.CreateClient(context.Background(), oauth.ClientInput{ClientID: "obs-w", Name: "x", Public: true, Observer: true, Scopes: []string{"write:farms"}})
			if err == nil || !strings.Contains(err.Error(), "observer") {
				t.Fatalf("an observer with a write scope: %v", err)
			}
		})
	})
}

// TestSecrets: tokens carry at least 256 random bits and are stored only as hashes; client
// secrets are hashed; confidential clients authenticate at the token endpoint.
func TestSecrets(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		t.Run("TokensAre256BitAndHashed", func(t *testing.T) {
			tok := e.tokens()
			da := e.deviceStart(e.public, "")
			for _, raw := range []string{tok["access_token"].(string), tok["refresh_token"].(string), da["device_code"].(string)} {
				_, body, ok := strings.Cut(raw, "_")
				b, err := base64.RawURLEncoding.DecodeString(body)
				if !ok || err != nil || len(b) < 32 {
					t.Fatalf("%q does not carry 256 random bits", raw)
				}
				wantNotStored(t, d, raw)
			}
			var n int
			if err := d.SQL.QueryRow(rebind(d, "SELECT COUNT(*) FROM access_tokens WHERE token_hash = ?"), oauth.Hash(tok["access_token"].(string))).Scan(&n); err != nil || n != 1 {
				t.Fatalf("access token hash rows = %d, %v", n, err)
			}
			seen := map[string]bool{}
			for range 50 {
				a := e.tokens()["access_token"].(string)
				if seen[a] {
					t.Fatal("a token repeated")
				}
				seen[a] = true
			}
		})
		t.Run("ClientSecretHashed", func(t *testing.T) {
			cl, err := e.app.DB.Client.OAuthClient.Query().Where(oauthclient.ClientID(e.conf)).Only(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if cl.SecretHash != oauth.Hash(e.secret) || strings.Contains(cl.SecretHash, e.secret) {
				t.Fatal("the client secret is not stored as its hash")
			}
			wantNotStored(t, d, e.secret)
		})
		t.Run("ClientAuthentication", func(t *testing.T) {
			basic := func(id, secret string) string {
				return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
			}
			for _, tc := range []struct {
				name          string
				client        string
				secret        string
				authorization string
				status        int
				want          string
			}{
				{"ErrNoSecret", e.conf, "", "", 401, "invalid_client"},
				{"ErrWrongSecret", e.conf, "hbcs_wrong", "", 401, "invalid_client"},
				{"ErrWrongBasic", "", "", basic(e.conf, "hbcs_wrong"), 401, "invalid_client"},
				{"ErrBothMethods", e.conf, e.secret, basic(e.conf, e.secret), 400, "invalid_request"},
				{"ErrPublicWithSecret", e.public, "something", "", 401, "invalid_client"},
				{"ErrUnknownClient", "nobody", "x", "", 401, "invalid_client"},
				{"OKSecretInBody", e.conf, e.secret, "", 200, ""},
				{"OKBasic", "", "", basic(e.conf, e.secret), 200, ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					code := e.session().authorize(url.Values{"client_id": {e.conf}, "redirect_uri": {e.redirect}, "response_type": {"code"}, "scope": {"read:farms"}}).Query().Get("code")
					f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {e.redirect}}
					if tc.client != "" {
						f.Set("client_id", tc.client)
					}
					if tc.secret != "" {
						f.Set("client_secret", tc.secret)
					}
					var h []string
					if tc.authorization != "" {
						h = []string{"Authorization", tc.authorization}
					}
					res := e.post("/oauth/token", f, h...)
					if tc.want == "" {
						if res.Status != http.StatusOK {
							t.Fatalf("%d %s", res.Status, res.Body)
						}
						return
					}
					wantOAuthError(t, res, tc.status, tc.want)
					if tc.status == 401 && !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Basic") {
						t.Fatalf("no WWW-Authenticate on 401: %v", res.Header)
					}
				})
			}
		})
	})
}

// wantNotStored fails when raw appears in any text column of the OAuth tables.
func wantNotStored(t *testing.T, d *db.DB, raw string) {
	t.Helper()
	for table, cols := range map[string][]string{
		"access_tokens":         {"token_hash"},
		"refresh_tokens":        {"token_hash"},
		"oauth_codes":           {"code_hash", "redirect_uri", "code_challenge"},
		"device_authorizations": {"device_code_hash", "user_code_hash"},
		"oauth_clients":         {"secret_hash", "client_id", "name"},
		"browser_sessions":      {"token_hash"},
		"api_keys":              {"key_hash", "name"},
	} {
		for _, c := range cols {
			var n int
			q := rebind(d, "SELECT COUNT(*) FROM "+table+" WHERE "+c+" = ?")
			if err := d.SQL.QueryRow(q, raw).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Fatalf("%s.%s holds a credential in clear", table, c)
			}
		}
	}
}

// rebind turns ? placeholders into PostgreSQL's $n.
func rebind(d *db.DB, q string) string {
	if d.Dialect != "postgres" {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + string(rune('0'+n)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
