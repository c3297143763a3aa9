package oauth_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// TestMetadata: the RFC 8414 document at both locations, with every field SPEC.md requires
// and the device endpoint and grant.
func TestMetadata(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		a := e.app.Do("GET", "/oauth/.well-known/oauth-authorization-server", "", nil)
		b := e.app.Do("GET", "/.well-known/oauth-authorization-server/oauth", "", nil)
		if a.Status != http.StatusOK || b.Status != http.StatusOK || !bytes.Equal(a.Body, b.Body) {
			t.Fatalf("the two locations differ: %d %s\n%d %s", a.Status, a.Body, b.Status, b.Body)
		}
		md := a.JSON(t)
		base := e.app.URL + "/oauth"
		for k, want := range map[string]string{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"revocation_endpoint": base + "/revoke", "userinfo_endpoint": base + "/userinfo", "jwks_uri": base + "/jwks.json",
			"device_authorization_endpoint": base + "/device",
		} {
			if md[k] != want {
				t.Errorf("%s = %v, want %s", k, md[k], want)
			}
		}
		has := func(k, v string) {
			t.Helper()
			list, _ := md[k].([]any)
			for _, x := range list {
				if x == v {
					return
				}
			}
			t.Errorf("%s = %v lacks %s", k, md[k], v)
		}
		has("response_types_supported", "code")
		has("grant_types_supported", "authorization_code")
		has("grant_types_supported", "refresh_token")
		has("grant_types_supported", oauth.DeviceGrantType)
		has("code_challenge_methods_supported", "S256")
		has("scopes_supported", "read:farms")
		has("token_endpoint_auth_methods_supported", "client_secret_basic")
		has("token_endpoint_auth_methods_supported", "none")
		if l := md["code_challenge_methods_supported"].([]any); len(l) != 1 {
			t.Errorf("code_challenge_methods_supported = %v, want S256 only", l)
		}
		for _, path := range []string{"/oauth/jwks.json"} {
			if res := e.app.Do("GET", path, "", nil); res.Status != http.StatusOK {
				t.Errorf("%s: %d", path, res.Status)
			}
		}
	})
}

// TestTokenEndpoint: body formats, refused grants, credentials in URLs, and no-store on
// every answer.
func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		v := verifier("t")
		t.Run("JSONBody", func(t *testing.T) {
			code := e.code(e.public, v)
			res := e.postJSON("/oauth/token", `{"grant_type":"authorization_code","client_id":"`+e.public+`","code":"`+code+`","redirect_uri":"`+e.redirect+`","code_verifier":"`+v+`"}`)
			if res.Status != http.StatusOK || res.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("%d %v %s", res.Status, res.Header, res.Body)
			}
			tok := res.json(t)
			rt := tok["refresh_token"].(string)
			res = e.postJSON("/oauth/token", `{"grant_type":"refresh_token","client_id":"`+e.public+`","refresh_token":"`+rt+`"}`)
			if res.Status != http.StatusOK {
				t.Fatalf("JSON refresh: %d %s", res.Status, res.Body)
			}
		})
		for _, tc := range []struct {
			name   string
			send   func() response
			status int
			want   string
		}{
			{"ErrPasswordGrant", func() response {
				return e.post("/oauth/token", url.Values{"grant_type": {"password"}, "client_id": {e.public}, "username": {e.user.Phone}, "password": {testPassword}})
			}, 400, "unsupported_grant_type"},
			{"ErrClientCredentialsGrant", func() response {
				return e.post("/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {e.conf}, "client_secret": {e.secret}})
			}, 400, "unsupported_grant_type"},
			{"ErrImplicitGrant", func() response {
				return e.post("/oauth/token", url.Values{"grant_type": {"__implicit"}, "client_id": {e.public}})
			}, 400, "unsupported_grant_type"},
			{"ErrNoGrantType", func() response { return e.post("/oauth/token", url.Values{"client_id": {e.public}}) }, 400, "invalid_request"},
			{"ErrCodeWithoutRedirect", func() response {
				return e.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {e.public}, "code": {"x"}})
			}, 400, "invalid_request"},
			{"ErrRefreshWithoutToken", func() response {
				return e.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {e.public}})
			}, 400, "invalid_request"},
			{"ErrCodeInQuery", func() response {
				return e.post("/oauth/token?code=abc", url.Values{"grant_type": {"authorization_code"}, "client_id": {e.public}, "code": {"x"}, "redirect_uri": {e.redirect}})
			}, 400, "invalid_request"},
			{"ErrRefreshTokenInQuery", func() response {
				return e.post("/oauth/token?refresh_token=abc", url.Values{"grant_type": {"refresh_token"}, "client_id": {e.public}, "refresh_token": {"x"}})
			}, 400, "invalid_request"},
			{"ErrMalformedJSON", func() response { return e.postJSON("/oauth/token", `{"grant_type"`) }, 400, "invalid_request"},
			{"ErrRepeatedParameter", func() response {
				return e.post("/oauth/token", url.Values{"grant_type": {"refresh_token", "refresh_token"}, "client_id": {e.public}, "refresh_token": {"x"}})
			}, 400, "invalid_request"},
			{"ErrNoClient", func() response {
				return e.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}})
			}, 401, "invalid_client"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := tc.send()
				wantOAuthError(t, res, tc.status, tc.want)
				if res.Header.Get("Cache-Control") != "no-store" {
					t.Fatalf("no Cache-Control: no-store on %s", res.Body)
				}
			})
		}
		t.Run("ErrAccessTokenInQueryIgnored", func(t *testing.T) {
			a := e.tokens()["access_token"].(string)
			res := e.app.Do("GET", "/v1/farm?access_token="+a, "", nil)
			herdbooktest.WantEnvelope(t, res, http.StatusUnauthorized, "Unauthorized", "")
		})
	})
}

// TestRevoke: a client revokes its own tokens, never another client's.
func TestRevoke(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		revoke := func(client, token string) response {
			return e.post("/oauth/revoke", url.Values{"client_id": {client}, "token": {token}})
		}
		revoked := func(t *testing.T, res response) bool {
			t.Helper()
			if res.Status != http.StatusOK || res.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("%d %v %s", res.Status, res.Header, res.Body)
			}
			v, ok := res.json(t)["revoked"].(bool)
			if !ok {
				t.Fatalf("no boolean revoked: %s", res.Body)
			}
			return v
		}
		t.Run("AccessToken", func(t *testing.T) {
			a := e.tokens()["access_token"].(string)
			if revoked(t, revoke(e.conf, a)) || e.apiStatus(a) != http.StatusOK {
				t.Fatal("another client revoked the token")
			}
			if !revoked(t, revoke(e.public, a)) {
				t.Fatal("the owner could not revoke")
			}
			if st := e.apiStatus(a); st != http.StatusUnauthorized {
				t.Fatalf("revoked token still works: %d", st)
			}
			if revoked(t, revoke(e.public, a)) {
				t.Fatal("revoked twice")
			}
		})
		t.Run("RefreshTokenRevokesFamily", func(t *testing.T) {
			tok := e.tokens()
			rt, a := tok["refresh_token"].(string), tok["access_token"].(string)
			if revoked(t, revoke(e.observer, rt)) {
				t.Fatal("another client revoked the refresh token")
			}
			if !revoked(t, e.postJSON("/oauth/revoke", `{"client_id":"`+e.public+`","token":"`+rt+`"}`)) {
				t.Fatal("the owner could not revoke (JSON body)")
			}
			wantOAuthError(t, e.refresh(e.public, "", rt, ""), http.StatusBadRequest, "invalid_grant")
			if st := e.apiStatus(a); st != http.StatusUnauthorized {
				t.Fatalf("access token of a revoked family: %d", st)
			}
		})
		t.Run("UnknownToken", func(t *testing.T) {
			if revoked(t, revoke(e.public, "hbat_nothing")) {
				t.Fatal("revoked an unknown token")
			}
		})
		t.Run("AdminTokenOfOtherClient", func(t *testing.T) {
			if revoked(t, revoke(e.public, e.user.Token)) || e.apiStatus(e.user.Token) != http.StatusOK {
				t.Fatal("a client revoked a token issued through another client")
			}
		})
		for _, tc := range []struct {
			name   string
			form   url.Values
			status int
			errN   string
		}{
			{"ErrNoToken", url.Values{"client_id": {"x"}}, 400, "ValidationError"},
			{"ErrTokenTooLong", url.Values{"client_id": {"x"}, "token": {strings.Repeat("t", 2049)}}, 400, "ValidationError"},
			{"ErrNoClient", url.Values{"token": {"x"}}, 400, "ValidationError"},
			{"ErrClientTooLong", url.Values{"client_id": {strings.Repeat("c", 256)}, "token": {"x"}}, 400, "ValidationError"},
			{"ErrUnknownClient", url.Values{"client_id": {"nobody"}, "token": {"x"}}, 401, "Unauthorized"},
			{"ErrWrongSecret", url.Values{"client_id": {"server-app"}, "client_secret": {"hbcs_x"}, "token": {"x"}}, 401, "Unauthorized"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, e.post("/oauth/revoke", tc.form).res(), tc.status, tc.errN, "")
			})
		}
	})
}

// TestPages: the browser pages' flow and their protections.
func TestPages(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d)
		v := verifier("g")
		t.Run("AuthorizeRedirectsToSignInThenConsent", func(t *testing.T) {
			b := e.browser()
			q := e.authQuery(e.public, v)
			loc := location(t, b.get("/oauth/authorize?"+q.Encode()))
			if loc.Path != "/oauth/login" || !strings.HasPrefix(loc.Query().Get("return_to"), "/oauth/consent?") {
				t.Fatalf("signed out: %s", loc)
			}
			page := b.get(loc.String())
			res := b.form(page, "/oauth/login", url.Values{"phone": {e.user.Phone}, "password": {testPassword}, "return_to": {loc.Query().Get("return_to")}})
			if next := location(t, res); !strings.HasPrefix(next.String(), "/oauth/consent?") {
				t.Fatalf("after sign-in: %s", next)
			}
			loc = location(t, b.get("/oauth/authorize?"+q.Encode()))
			if loc.Path != "/oauth/consent" {
				t.Fatalf("signed in: %s", loc)
			}
			consent := b.get(loc.String())
			for _, want := range []string{"Public App", "read:farms", "read:records", "127.0.0.1:1"} {
				if !strings.Contains(string(consent.Body), want) {
					t.Fatalf("consent page lacks %q", want)
				}
			}
			res = b.form(consent, "/oauth/consent", mergeForm(loc.Query(), "decision", "deny"))
			back := location(t, res)
			if back.Query().Get("error") != "access_denied" || back.Query().Get("state") != "st-123" || back.Query().Get("code") != "" {
				t.Fatalf("deny: %s", back)
			}
		})
		t.Run("SignInWithLocalPhoneNumber", func(t *testing.T) {
			// A farmer types the number as at home: the national form and the 00 form of
			// the service's region (NO by default) name the user stored as +4791234567.
			if _, err := e.app.Service.CreateUser(context.Background(), herdbook.UserInput{PhoneNumberLocal: "+47 912 34 567", Password: testPassword}); err != nil {
				t.Fatal(err)
			}
			for _, phone := range []string{"91234567", "004791234567", "912 34 567"} {
				b := e.browser()
				res := b.form(b.get("/oauth/login"), "/oauth/login", url.Values{"phone": {phone}, "password": {testPassword}, "return_to": {"/oauth/activate"}})
				if res.Status != http.StatusSeeOther {
					t.Fatalf("%s: %d %s", phone, res.Status, res.Body)
				}
			}
		})
		t.Run("ErrWrongPassword", func(t *testing.T) {
			b := e.browser()
			page := b.get("/oauth/login")
			res := b.form(page, "/oauth/login", url.Values{"phone": {e.user.Phone}, "password": {"wrong password!"}})
			if res.Status != http.StatusUnauthorized || !strings.Contains(string(res.Body), "Wrong phone number or password") || res.Header.Get("Location") != "" {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			if strings.Contains(string(res.Body), "wrong password!") {
				t.Fatal("the page echoes the password")
			}
		})
		t.Run("SecurityHeadersAndCookies", func(t *testing.T) {
			b := e.browser()
			res := b.get("/oauth/login")
			h := res.Header
			if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") {
				t.Fatalf("CSP %q", csp)
			}
			if h.Get("X-Frame-Options") != "DENY" || h.Get("Cache-Control") != "no-store" || h.Get("Referrer-Policy") != "same-origin" {
				t.Fatalf("headers %v", h)
			}
			res = b.form(res, "/oauth/login", url.Values{"phone": {e.user.Phone}, "password": {testPassword}})
			for _, c := range (&http.Response{Header: res.Header}).Cookies() {
				if !c.HttpOnly || !c.Secure || c.SameSite == http.SameSiteNoneMode || c.SameSite == http.SameSiteDefaultMode {
					t.Fatalf("cookie %s lacks HttpOnly/Secure/SameSite: %+v", c.Name, c)
				}
			}
			if !strings.Contains(string(b.get("/oauth/activate").Body), `lang="en"`) {
				t.Fatal("pages must declare their language")
			}
		})
		t.Run("CSRF", func(t *testing.T) {
			b := e.browser()
			page := b.get("/oauth/login")
			form := url.Values{"phone": {e.user.Phone}, "password": {testPassword}}
			for _, tc := range []struct {
				name   string
				token  string
				header []string
			}{
				{"ErrNoToken", "", nil},
				{"ErrWrongToken", "hbcf_" + strings.Repeat("A", 43), nil},
				{"ErrCrossOrigin", "", []string{"Origin", "https://evil.test"}},
				{"ErrCrossSite", "", []string{"Sec-Fetch-Site", "cross-site"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					f := url.Values{}
					for k, v := range form {
						f[k] = v
					}
					token := tc.token
					if token == "" && tc.header != nil {
						token = string(csrfField.FindSubmatch(page.Body)[1])
					}
					f.Set("csrf_token", token)
					req, _ := http.NewRequest(http.MethodPost, e.app.URL+"/oauth/login", strings.NewReader(f.Encode()))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					for k, v := range b.cookies {
						req.AddCookie(&http.Cookie{Name: k, Value: v})
					}
					for i := 0; i+1 < len(tc.header); i += 2 {
						req.Header.Set(tc.header[i], tc.header[i+1])
					}
					res := e.send(req)
					if res.Status != http.StatusForbidden || res.Header.Get("Set-Cookie") != "" && strings.Contains(res.Header.Get("Set-Cookie"), "hb_session") {
						t.Fatalf("%d %v", res.Status, res.Header)
					}
				})
			}
		})
		t.Run("ErrOpenRedirectAfterSignIn", func(t *testing.T) {
			for _, ret := range []string{"https://evil.test/", "//evil.test/oauth/", "/\\evil.test", "/v1/farm", "javascript:alert(1)"} {
				b := e.browser()
				page := b.get("/oauth/login?return_to=" + url.QueryEscape(ret))
				res := b.form(page, "/oauth/login", url.Values{"phone": {e.user.Phone}, "password": {testPassword}, "return_to": {ret}})
				if got := res.Header.Get("Location"); got != "/oauth/activate" {
					t.Fatalf("return_to %q led to %q", ret, got)
				}
			}
		})
		t.Run("SignOut", func(t *testing.T) {
			b := e.browser()
			b.signIn()
			page := b.get("/oauth/activate")
			if page.Status != http.StatusOK {
				t.Fatal(page.Status)
			}
			b.form(page, "/oauth/logout", url.Values{})
			if loc := location(t, b.get("/oauth/activate")); loc.Path != "/oauth/login" {
				t.Fatalf("still signed in: %s", loc)
			}
		})
		t.Run("Userinfo", func(t *testing.T) {
			res := e.app.Do("GET", "/oauth/userinfo", e.tokens()["access_token"].(string), nil)
			if res.Status != http.StatusOK || res.JSON(t)["sub"] != e.user.ID.String() {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			herdbooktest.WantEnvelope(t, e.app.Do("GET", "/oauth/userinfo", "", nil), http.StatusUnauthorized, "Unauthorized", "")
		})
		t.Run("UnknownRoutes", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, e.app.Do("GET", "/oauth/nothing", "", nil), http.StatusNotFound, "ServiceError", "")
			res := e.app.Do("GET", "/oauth/token", "", nil)
			herdbooktest.WantEnvelope(t, res, http.StatusMethodNotAllowed, "ServiceError", "")
			if res.Header.Get("Allow") != "POST" {
				t.Fatalf("Allow %q", res.Header.Get("Allow"))
			}
		})
	})
}

func mergeForm(q url.Values, kv ...string) url.Values {
	f := url.Values{}
	for k, v := range q {
		f[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Set(kv[i], kv[i+1])
	}
	return f
}
