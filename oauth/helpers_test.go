package oauth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

const testPassword = "a long test password"

// clock is a fake clock: real time plus an offset that tests move forward.
type clock struct{ offset atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// env is a running Herdbook with a fake clock, a user who can sign in, and registered
// clients of every kind.
type env struct {
	t     *testing.T
	app   *herdbooktest.App
	clock *clock
	user  herdbooktest.User

	// Redirect URIs are loopback URLs nothing listens on: tests read the Location header.
	redirect string
	public   string // client_id of a public client (PKCE required)
	conf     string // client_id of a confidential client
	secret   string // its secret
	observer string // client_id of a public observer client

	signedIn *browser // a browser signed in as user, shared by the helpers
}

// session returns the env's signed-in browser.
func (e *env) session() *browser {
	if e.signedIn == nil {
		e.signedIn = e.browser()
		e.signedIn.signIn()
	}
	return e.signedIn
}

func newEnv(t *testing.T, d *db.DB) *env {
	t.Helper()
	app := herdbooktest.NewApp(t, d)
	e := &env{t: t, app: app, clock: &clock{}, redirect: "http://127.0.0.1:1/callback"}
	app.Issuer.SetClock(e.clock.Now)
	e.user = app.MustUser()
	e.public = e.client(oauth.ClientInput{ClientID: "public-app", Name: "Public App", Public: true, Scopes: herdbook.AllScopes})
	e.conf = e.client(oauth.ClientInput{ClientID: "server-app", Name: "Server App", Scopes: []string{herdbook.ScopeReadFarms, herdbook.ScopeWriteFarms, herdbook.ScopeReadRecords}})
	e.observer = e.client(oauth.ClientInput{ClientID: "observer-app", Name: "Observer", Public: true, Observer: true, Scopes: []string{herdbook.ScopeReadFarms, herdbook.ScopeReadRecords}})
	return e
}

// client registers a client with the env's redirect URI and returns its id (and, for a
// confidential client, remembers the secret).
func (e *env) client(in oauth.ClientInput) string {
	e.t.Helper()
	if in.RedirectURIs == nil {
		in.RedirectURIs = []string{e.redirect, "https://app.example/callback"}
	}
	_, secret, err := e.app.Issuer.CreateClient(context.Background(), in)
	if err != nil {
		e.t.Fatal(err)
	}
	if secret != "" {
		e.secret = secret
	}
	return in.ClientID
}

// response is an HTTP answer with its body.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("status %d, body is not a JSON object: %s", r.Status, r.Body)
	}
	return v
}

func (r response) res() herdbooktest.Response {
	return herdbooktest.Response{Status: r.Status, Header: r.Header, Body: r.Body}
}

// wantOAuthError fails unless r is an OAuth error object with the status and code.
func wantOAuthError(t testing.TB, r response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	v := r.json(t)
	if v["error"] != code {
		t.Fatalf("error %v, want %s: %s", v["error"], code, r.Body)
	}
	if _, ok := v["error_description"].(string); !ok {
		t.Fatalf("no error_description: %s", r.Body)
	}
}

// post sends a form to the app and reads the answer. header holds name, value pairs.
func (e *env) post(path string, form url.Values, header ...string) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.app.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return e.send(req)
}

// postJSON sends a JSON body.
func (e *env) postJSON(path, body string) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.app.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return e.send(req)
}

func (e *env) send(req *http.Request) response {
	e.t.Helper()
	var sent []byte
	if req.Body != nil {
		sent, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(sent))
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	out := response{Status: res.StatusCode, Header: res.Header, Body: b}
	herdbooktest.Observe(herdbooktest.Exchange{Method: req.Method, Path: req.URL.RequestURI(), Header: req.Header, Body: sent, Res: out.res()})
	return out
}

// browser is a cookie-keeping client of the OAuth pages that never follows redirects. It
// keeps Secure cookies over the test's plain-http loopback server, as browsers do for
// loopback addresses.
type browser struct {
	e       *env
	mu      sync.Mutex
	cookies map[string]string
	lang    string // the Accept-Language it sends, when set
}

func (e *env) browser() *browser { return &browser{e: e, cookies: map[string]string{}} }

func (b *browser) do(method, path string, form url.Values) response {
	b.e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	target := path
	if strings.HasPrefix(path, "/") {
		target = b.e.app.URL + path
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", b.e.app.URL)
	}
	if b.lang != "" {
		req.Header.Set("Accept-Language", b.lang)
	}
	b.mu.Lock()
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	b.mu.Unlock()
	res := b.e.send(req)
	b.mu.Lock()
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	b.mu.Unlock()
	return res
}

func (b *browser) get(path string) response { return b.do(http.MethodGet, path, nil) }

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// form posts a form of the last page, adding the CSRF token the page carried.
func (b *browser) form(page response, path string, form url.Values) response {
	b.e.t.Helper()
	m := csrfField.FindSubmatch(page.Body)
	if m == nil {
		b.e.t.Fatalf("the page has no CSRF token (status %d): %s", page.Status, page.Body)
	}
	form.Set("csrf_token", string(m[1]))
	return b.do(http.MethodPost, path, form)
}

// location returns the Location of a redirect, relative to the app.
func location(t testing.TB, r response) *url.URL {
	t.Helper()
	if r.Status != http.StatusFound && r.Status != http.StatusSeeOther {
		t.Fatalf("status %d, want a redirect: %s", r.Status, r.Body)
	}
	u, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// signIn signs the browser in as the env's user.
func (b *browser) signIn() {
	b.e.t.Helper()
	page := b.get("/oauth/login")
	res := b.form(page, "/oauth/login", url.Values{"phone": {b.e.user.Phone}, "password": {testPassword}, "return_to": {"/oauth/activate"}})
	if res.Status != http.StatusSeeOther {
		b.e.t.Fatalf("sign-in: status %d: %s", res.Status, res.Body)
	}
}

// authorize runs /oauth/authorize with q as a signed-in user who allows, and returns the
// redirect back to the client.
func (b *browser) authorize(q url.Values) *url.URL {
	b.e.t.Helper()
	res := b.get("/oauth/authorize?" + q.Encode())
	loc := location(b.e.t, res)
	if loc.Path == "/oauth/login" {
		b.signIn()
		res = b.get("/oauth/authorize?" + q.Encode())
		loc = location(b.e.t, res)
	}
	if loc.Path != "/oauth/consent" {
		return loc // an error redirect to the client
	}
	page := b.get(loc.String())
	if page.Status != http.StatusOK {
		b.e.t.Fatalf("consent page: status %d: %s", page.Status, page.Body)
	}
	form := url.Values{"decision": {"allow"}}
	for k, v := range loc.Query() {
		form[k] = v
	}
	return location(b.e.t, b.form(page, "/oauth/consent", form))
}

// authQuery is an authorization request of client with an S256 challenge of verifier.
func (e *env) authQuery(client, verifier string) url.Values {
	q := url.Values{"client_id": {client}, "redirect_uri": {e.redirect}, "response_type": {"code"},
		"scope": {"read:farms read:records"}, "state": {"st-123"}}
	if verifier != "" {
		q.Set("code_challenge", oauth.S256(verifier))
		q.Set("code_challenge_method", "S256")
	}
	return q
}

// code runs the authorization flow and returns the code.
func (e *env) code(client, verifier string) string {
	e.t.Helper()
	loc := e.session().authorize(e.authQuery(client, verifier))
	c := loc.Query().Get("code")
	if c == "" || loc.Query().Get("state") != "st-123" {
		e.t.Fatalf("no code in the redirect %s", loc)
	}
	return c
}

// verifier is a valid PKCE code verifier.
func verifier(seed string) string { return strings.Repeat(seed, 64) }

// redeem exchanges a code at the token endpoint.
func (e *env) redeem(client, secret, code, verifier string) response {
	e.t.Helper()
	f := url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code}, "redirect_uri": {e.redirect}}
	if secret != "" {
		f.Set("client_secret", secret)
	}
	if verifier != "" {
		f.Set("code_verifier", verifier)
	}
	return e.post("/oauth/token", f)
}

// refresh uses a refresh token.
func (e *env) refresh(client, secret, rt string, scope string) response {
	e.t.Helper()
	f := url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {rt}}
	if secret != "" {
		f.Set("client_secret", secret)
	}
	if scope != "" {
		f.Set("scope", scope)
	}
	return e.post("/oauth/token", f)
}

// tokens runs the whole code flow for the public client and returns the token answer.
func (e *env) tokens() map[string]any {
	e.t.Helper()
	v := verifier("v")
	res := e.redeem(e.public, "", e.code(e.public, v), v)
	if res.Status != http.StatusOK {
		e.t.Fatalf("redeem: %d %s", res.Status, res.Body)
	}
	return res.json(e.t)
}

// apiStatus calls an API route with a token and returns the status.
func (e *env) apiStatus(token string) int {
	e.t.Helper()
	return e.app.Do("GET", "/v1/farm?take=1", token, nil).Status
}

// metadata reads the metadata document and turns it into an x/oauth2 endpoint, as a stock
// client configured from discovery would.
func (e *env) endpoint() oauth2.Endpoint {
	e.t.Helper()
	res := e.app.Do("GET", "/.well-known/oauth-authorization-server/oauth", "", nil)
	if res.Status != http.StatusOK {
		e.t.Fatalf("metadata: %d %s", res.Status, res.Body)
	}
	var md struct {
		Authorization string   `json:"authorization_endpoint"`
		Token         string   `json:"token_endpoint"`
		Device        string   `json:"device_authorization_endpoint"`
		AuthMethods   []string `json:"token_endpoint_auth_methods_supported"`
	}
	if err := json.Unmarshal(res.Body, &md); err != nil {
		e.t.Fatal(err)
	}
	ep := oauth2.Endpoint{AuthURL: md.Authorization, TokenURL: md.Token, DeviceAuthURL: md.Device}
	if len(md.AuthMethods) > 0 && md.AuthMethods[0] == "client_secret_basic" {
		ep.AuthStyle = oauth2.AuthStyleInHeader
	}
	return ep
}

// deviceStart begins a device authorization for client.
func (e *env) deviceStart(client, scope string) map[string]any {
	e.t.Helper()
	f := url.Values{"client_id": {client}}
	if scope != "" {
		f.Set("scope", scope)
	}
	res := e.post("/oauth/device", f)
	if res.Status != http.StatusOK {
		e.t.Fatalf("device: %d %s", res.Status, res.Body)
	}
	return res.json(e.t)
}

// approve has the env's user approve (or deny) a user code in the verification pages.
func (e *env) approve(userCode string, approve bool) response {
	e.t.Helper()
	b := e.session()
	page := b.get("/oauth/activate?user_code=" + url.QueryEscape(userCode))
	confirm := b.form(page, "/oauth/activate", url.Values{"user_code": {userCode}})
	if confirm.Status != http.StatusOK {
		return confirm
	}
	decision := "deny"
	if approve {
		decision = "approve"
	}
	return b.form(confirm, "/oauth/activate/decide", url.Values{"user_code": {userCode}, "decision": {decision}})
}

// poll asks /oauth/device/token once.
func (e *env) poll(client, deviceCode string) response {
	e.t.Helper()
	return e.post("/oauth/device/token", url.Values{"grant_type": {oauth.DeviceGrantType}, "client_id": {client}, "device_code": {deviceCode}})
}

// freshWindow waits for the next rate-limit window when the current one ends within a few
// seconds: windows are fixed and aligned to the Unix epoch, and a test that counts requests
// up to a limit must not straddle two of them.
func freshWindow(t *testing.T) {
	t.Helper()
	left := oauth.LimitWindow - time.Duration(time.Now().UnixNano()%int64(oauth.LimitWindow))
	if left < 5*time.Second {
		time.Sleep(left + 50*time.Millisecond)
	}
}
