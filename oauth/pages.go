package oauth

import (
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/go-oauth2/oauth2/v4/server"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/httpapi"
	"github.com/herdbook/herdbook/internal/ratelimit"
)

// The browser pages: sign-in, consent and device verification. They are server-rendered
// with html/template (which escapes every value), carry no script, and are protected by a
// CSRF token (double-submit cookie plus an Origin check), frame-ancestors 'none', and
// HttpOnly, Secure, SameSite cookies.

//go:embed web
var webFS embed.FS

type pages struct {
	t   map[string]map[string]*template.Template // by language, then page
	css []byte
}

func mustPages() *pages {
	p := &pages{t: map[string]map[string]*template.Template{}}
	for _, lang := range pageLangs {
		p.t[lang] = map[string]*template.Template{}
		funcs := template.FuncMap{"t": func(text string) string { return tr(lang, text) }}
		for _, name := range []string{"login", "consent", "activate", "confirm", "message"} {
			p.t[lang][name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(webFS, "web/layout.html", "web/"+name+".html"))
		}
	}
	css, err := webFS.ReadFile("web/style.css")
	if err != nil {
		panic(err)
	}
	p.css = css
	return p
}

// pageData is what every template may show. Each page uses the fields it needs.
type pageData struct {
	Lang  string // set by render
	Title string
	Error string
	CSRF  string
	User  string // the signed-in user's name, for the sign-out line

	ReturnTo string
	Phone    string

	ClientName   string
	RedirectHost string
	Scopes       []scopeText
	Hidden       []hiddenField

	UserCode string

	Message  string
	Link     string
	LinkText string
}

type scopeText struct{ Name, Text string }

type hiddenField struct{ Name, Value string }

// scopeTexts says in plain words what each scope lets an application do.
var scopeTexts = map[string]string{
	herdbook.ScopeReadFarms:    "see your farms and who is a member",
	herdbook.ScopeWriteFarms:   "create, change and delete farms",
	herdbook.ScopeReadRecords:  "see records, notifications, files, tasks and birth history",
	herdbook.ScopeWriteRecords: "create, change and delete records, files and tasks",
	herdbook.ScopeReadAnimals:  "see animals and groups",
	herdbook.ScopeWriteAnimals: "create and change animals and groups",
}

func describeScopes(lang string, scopes []string) []scopeText {
	out := make([]scopeText, len(scopes))
	for i, s := range scopes {
		out[i] = scopeText{Name: s, Text: tr(lang, scopeTexts[s])}
	}
	return out
}

// render writes a page with the security headers every page carries, in the browser's
// language (pageLang): its title, error, message and link text are given in English and
// translated here. formTargets are origins that forms on the page may end up at besides our
// own (the client's redirect URI, after the consent form's redirect).
func (h *Handler) render(w http.ResponseWriter, r *http.Request, name string, status int, d pageData, formTargets ...string) {
	d.Lang = pageLang(r)
	d.Title, d.Error, d.Message, d.LinkText = tr(d.Lang, d.Title), tr(d.Lang, d.Error), tr(d.Lang, d.Message), tr(d.Lang, d.LinkText)
	csp := "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
	for _, t := range formTargets {
		csp += " " + t
	}
	hd := w.Header()
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Add("Vary", "Accept-Language")
	noStore(w)
	w.WriteHeader(status)
	_ = h.pages.t[d.Lang][name].ExecuteTemplate(w, "layout", d)
}

// message renders a page that only says something.
func (h *Handler) message(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	h.render(w, r, "message", status, pageData{Title: title, Message: msg, CSRF: h.csrfToken(w, r)})
}

// internalPage answers an unexpected error: 503 with Retry-After while the database is
// unreachable (the same page works again in a moment), 500 otherwise.
func (h *Handler) internalPage(w http.ResponseWriter, r *http.Request, err error) {
	if herdbook.ErrorCode(err) == herdbook.EUNAVAILABLE {
		httpapi.Prepare(w, r, err)
		h.message(w, r, http.StatusServiceUnavailable, "Try again in a moment", "Herdbook cannot reach its database right now. Please try again in a few seconds.")
		return
	}
	h.cfg.Logger.ErrorContext(r.Context(), "oauth page: internal error", "err", err, "path", r.URL.Path)
	h.message(w, r, http.StatusInternalServerError, "Something went wrong", "Something went wrong on our side. Please try again in a moment.")
}

func (h *Handler) stylesheet(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(h.pages.css)
}

// Cookies. Over https they get the __Host- prefix, which browsers only accept with Secure,
// Path=/ and no Domain, so no sibling host can plant one.

func (h *Handler) cookieName(base string) string {
	if h.secure {
		return "__Host-" + base
	}
	return base
}

func (h *Handler) setCookie(w http.ResponseWriter, base, value string, maxAge int, sameSite http.SameSite) {
	http.SetCookie(w, &http.Cookie{
		Name:     h.cookieName(base),
		Value:    value,
		Path:     "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   true,
		SameSite: sameSite,
	})
}

func cookieValue(r *http.Request, name string) string {
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// csrfToken returns the CSRF token for the page's forms, setting the cookie that holds it
// when the browser has none yet.
func (h *Handler) csrfToken(w http.ResponseWriter, r *http.Request) string {
	if v := cookieValue(r, h.cookieName("hb_csrf")); strings.HasPrefix(v, prefixCSRF) && len(v) == len(prefixCSRF)+43 {
		return v
	}
	v := NewSecret(prefixCSRF)
	h.setCookie(w, "hb_csrf", v, 0, http.SameSiteStrictMode)
	return v
}

// checkCSRF accepts a form post only when its csrf_token equals the CSRF cookie, and when
// the browser says it comes from our own origin.
func (h *Handler) checkCSRF(r *http.Request, form url.Values) bool {
	// A post from another origin, or one whose origin the browser hides ("null"), is not
	// ours. Browsers that send no Origin still send Sec-Fetch-Site, or are old enough that
	// the SameSite=Strict cookie below is the defence.
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, h.origin()) {
		return false
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" {
		return false
	}
	c, f := cookieValue(r, h.cookieName("hb_csrf")), form.Get("csrf_token")
	return c != "" && subtle.ConstantTimeCompare([]byte(c), []byte(f)) == 1
}

// sameOrigin tells whether a request comes from a page of this server's own origin: its
// Origin is ours, or, without Origin, the browser says Sec-Fetch-Site: same-origin.
func (h *Handler) sameOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" {
		return strings.EqualFold(o, h.origin())
	}
	return r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

func (h *Handler) origin() string {
	u, err := url.Parse(h.cfg.BaseURL)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// sessionUser returns the signed-in user, or nil.
func (h *Handler) sessionUser(r *http.Request) (*ent.User, error) {
	return h.iss.SessionUser(r.Context(), cookieValue(r, h.cookieName("hb_session")))
}

func displayName(u *ent.User) string {
	if u.FullName != nil && *u.FullName != "" {
		return *u.FullName
	}
	return u.PhoneNumberLocal
}

// toLogin sends the browser to the sign-in page, to come back to returnTo.
func toLogin(w http.ResponseWriter, r *http.Request, returnTo string) {
	http.Redirect(w, r, "/oauth/login?"+url.Values{"return_to": {returnTo}}.Encode(), http.StatusFound)
}

// safeReturn keeps sign-in redirects on our own OAuth pages: a return_to pointing anywhere
// else (another host, a scheme, "//evil") is replaced by the device page.
func safeReturn(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(s, "/oauth/") ||
		strings.ContainsAny(s, "\\\r\n") || strings.HasPrefix(s, "//") {
		return "/oauth/activate"
	}
	return s
}

// allowLimit counts one attempt against a page limiter; over the limit it answers 429 and
// reports false. A failing counter store lets the attempt through (and is logged), as the
// API limiters do.
func (h *Handler) allowLimit(w http.ResponseWriter, r *http.Request, l *ratelimit.Limiter, keys ...string) bool {
	for _, k := range keys {
		d, err := l.Allow(r.Context(), k)
		if err != nil {
			h.limiterFailed(w, r, err)
			continue
		}
		if !d.Allowed {
			secs := int(d.RetryAfter.Seconds()) + 1
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			h.message(w, r, http.StatusTooManyRequests, "Too many attempts",
				trf(pageLang(r), "Too many attempts. For your safety, wait %d minutes before you try again.", (secs+59)/60))
			return false
		}
	}
	return true
}

// Sign-in.

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request) {
	ret := safeReturn(r.URL.Query().Get("return_to"))
	u, err := h.sessionUser(r)
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	if u != nil {
		http.Redirect(w, r, ret, http.StatusFound)
		return
	}
	h.render(w, r, "login", http.StatusOK, pageData{Title: "Sign in", CSRF: h.csrfToken(w, r), ReturnTo: ret})
}

func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	form, err := readBody(w, r)
	if err != nil || !h.checkCSRF(r, form) {
		h.message(w, r, http.StatusForbidden, "Page expired", "This page expired or did not come from Herdbook. Go back, reload the page and try again. Cookies must be enabled.")
		return
	}
	ret := safeReturn(form.Get("return_to"))
	phone := form.Get("phone")
	ip := h.cfg.ClientIP.Of(r)
	if !h.allowLimit(w, r, h.signIn, "ip:"+ip) ||
		!h.allowLimit(w, r, h.signInPhone, "ip-phone:"+ip+":"+Hash(h.svc.NormalizePhone(phone))[:16]) {
		return
	}
	u, err := h.svc.CheckPassword(r.Context(), phone, form.Get("password"))
	if herdbook.ErrorCode(err) == herdbook.EUNAUTHORIZED {
		h.render(w, r, "login", http.StatusUnauthorized, pageData{Title: "Sign in", CSRF: h.csrfToken(w, r), ReturnTo: ret, Phone: phone,
			Error: "Wrong phone number or password."})
		return
	}
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	raw, err := h.iss.StartSession(r.Context(), u.ID)
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	h.setCookie(w, "hb_session", raw, int(SessionTTL.Seconds()), http.SameSiteLaxMode)
	http.Redirect(w, r, ret, http.StatusSeeOther)
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	form, err := readBody(w, r)
	if err != nil || !h.checkCSRF(r, form) {
		h.message(w, r, http.StatusForbidden, "Page expired", "This page expired. Go back, reload the page and try again.")
		return
	}
	if err := h.iss.EndSession(r.Context(), cookieValue(r, h.cookieName("hb_session"))); err != nil {
		h.internalPage(w, r, err)
		return
	}
	h.setCookie(w, "hb_session", "", -1, http.SameSiteLaxMode)
	http.Redirect(w, r, "/oauth/login", http.StatusSeeOther)
}

// Authorization code flow.

// authParams are the parameters of an authorization request that travel from
// /oauth/authorize through sign-in to the consent form.
var authParams = []string{"client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method"}

func pickAuthParams(from url.Values) url.Values {
	out := url.Values{}
	for _, k := range authParams {
		if v := from.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	return out
}

// checkAuthorize validates the request in p. On failure it has answered: with an error page
// when the client or redirect_uri cannot be trusted, else with a redirect carrying the
// error to the registered redirect_uri.
func (h *Handler) checkAuthorize(w http.ResponseWriter, r *http.Request, p url.Values) (*AuthorizeRequest, bool) {
	if err := herdbook.CheckText("state", p.Get("state")); err != nil {
		h.message(w, r, http.StatusBadRequest, "This link is not valid",
			trf(pageLang(r), "The application sent you here with a request Herdbook cannot accept: its state %s. Tell the application's developer; you will not be sent back to it.", herdbook.ErrorFields(err)[0].Message))
		return nil, false
	}
	req, err := h.iss.CheckAuthorizeRequest(r.Context(), p.Get("client_id"), p.Get("redirect_uri"), p.Get("response_type"),
		p.Get("scope"), p.Get("code_challenge"), p.Get("code_challenge_method"))
	if err == nil {
		return req, true
	}
	var bad *ErrBadRedirect
	switch e := AsError(err); {
	case errors.As(err, &bad):
		h.message(w, r, http.StatusBadRequest, "This link is not valid",
			trf(pageLang(r), "The application sent you here with a request Herdbook cannot accept: %s. Tell the application's developer; you will not be sent back to it.", bad.Reason))
	case e != nil && req != nil:
		h.redirectError(w, r, req.RedirectURI, p.Get("state"), e.Code, e.Description)
	default:
		h.internalPage(w, r, err)
	}
	return nil, false
}

// redirectError sends the browser back to a verified redirect_uri with an OAuth error.
func (h *Handler) redirectError(w http.ResponseWriter, r *http.Request, redirectURI, state, code, desc string) {
	u, err := url.Parse(redirectURI)
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	q := u.Query()
	q.Set("error", code)
	q.Set("error_description", desc)
	if state != "" {
		q.Set("state", state)
	}
	u.RawQuery = q.Encode()
	noStore(w)
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// authorize is GET /oauth/authorize: it checks the request and sends the browser on to the
// consent page, through sign-in when nobody is signed in.
func (h *Handler) authorize(w http.ResponseWriter, r *http.Request) {
	p := pickAuthParams(r.URL.Query())
	if _, ok := h.checkAuthorize(w, r, p); !ok {
		return
	}
	consent := "/oauth/consent?" + p.Encode()
	u, err := h.sessionUser(r)
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	noStore(w)
	if u == nil {
		toLogin(w, r, consent)
		return
	}
	http.Redirect(w, r, consent, http.StatusFound)
}

func redirectOrigin(redirectURI string) (host, origin string) {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI, ""
	}
	return u.Host, u.Scheme + "://" + u.Host
}

func (h *Handler) consentPage(w http.ResponseWriter, r *http.Request) {
	p := pickAuthParams(r.URL.Query())
	req, ok := h.checkAuthorize(w, r, p)
	if !ok {
		return
	}
	u, err := h.sessionUser(r)
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	if u == nil {
		toLogin(w, r, "/oauth/consent?"+p.Encode())
		return
	}
	// The web app served by this server is Herdbook itself: signing in to it is not granting
	// a third party access, so there is nothing to consent to (the IETF's "OAuth 2.0 for
	// Browser-Based Applications" treats a first-party app's authorization as the sign-in).
	// The code still goes only to its exactly registered redirect URI, bound to its PKCE
	// challenge.
	if IsFirstParty(req.Client) {
		h.issueCode(w, r, p, u)
		return
	}
	var hidden []hiddenField
	for _, k := range authParams {
		if v := p.Get(k); v != "" {
			hidden = append(hidden, hiddenField{k, v})
		}
	}
	host, origin := redirectOrigin(req.RedirectURI)
	h.render(w, r, "consent", http.StatusOK, pageData{
		Title:        "Allow access?",
		CSRF:         h.csrfToken(w, r),
		User:         displayName(u),
		ClientName:   req.Client.Name,
		RedirectHost: host,
		Scopes:       describeScopes(pageLang(r), req.Scopes),
		Hidden:       hidden,
	}, origin)
}

// consent is the consent form's POST: deny sends access_denied back; allow issues a code
// through go-oauth2's authorize handler and our manager.
func (h *Handler) consent(w http.ResponseWriter, r *http.Request) {
	form, err := readBody(w, r)
	if err != nil || !h.checkCSRF(r, form) {
		h.message(w, r, http.StatusForbidden, "Page expired", "This page expired or did not come from Herdbook. Go back to the application and start again.")
		return
	}
	p := pickAuthParams(form)
	req, ok := h.checkAuthorize(w, r, p)
	if !ok {
		return
	}
	u, err := h.sessionUser(r)
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	if u == nil {
		toLogin(w, r, "/oauth/consent?"+p.Encode())
		return
	}
	switch form.Get("decision") {
	case "allow":
	case "deny":
		h.redirectError(w, r, req.RedirectURI, p.Get("state"), ErrCodeAccessDenied, "the user denied the request")
		return
	default:
		h.message(w, r, http.StatusBadRequest, "Choose Allow or Deny", "Go back and choose Allow or Deny.")
		return
	}
	h.issueCode(w, r, p, u)
}

// issueCode issues an authorization code for the checked parameters p approved by u, through
// go-oauth2's authorize handler and our manager, and redirects to the client with it.
func (h *Handler) issueCode(w http.ResponseWriter, r *http.Request, p url.Values, u *ent.User) {
	// go-oauth2 reads the request from the form: give it exactly the checked parameters.
	r.Form, r.PostForm = p, p
	noStore(w)
	ctx := context.WithValue(r.Context(), userIDKey{}, u.ID)
	if err := h.lib.HandleAuthorizeRequest(w, r.WithContext(ctx)); err != nil {
		h.internalPage(w, r, err)
	}
}

// libAuthorizeError is go-oauth2's PreRedirectErrorHandler: an error is sent to the
// redirect_uri only after that URI has been matched exactly against the client's list.
func (h *Handler) libAuthorizeError(w http.ResponseWriter, req *server.AuthorizeRequest, err error) error {
	r := req.Request
	cl, cerr := h.iss.Client(r.Context(), req.ClientID)
	if herdbook.ErrorCode(cerr) == herdbook.EUNAVAILABLE {
		h.internalPage(w, r, cerr)
		return nil
	}
	if cerr != nil || !slices.Contains(cl.RedirectUris, req.RedirectURI) {
		h.message(w, r, http.StatusBadRequest, "This link is not valid", "The application sent you here with a request Herdbook cannot accept.")
		return nil
	}
	code, desc := ErrCodeServerError, "Internal error."
	if e := AsError(err); e != nil {
		code, desc = e.Code, e.Description
	} else if err != nil && oauthLibraryCode(err) != "" {
		code, desc = oauthLibraryCode(err), "the authorization request is invalid"
	} else {
		h.cfg.Logger.ErrorContext(r.Context(), "oauth authorize: internal error", "err", err)
	}
	h.redirectError(w, r, req.RedirectURI, req.State, code, desc)
	return nil
}

// Device verification.

func (h *Handler) activatePage(w http.ResponseWriter, r *http.Request) {
	u, err := h.sessionUser(r)
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	if u == nil {
		ret := "/oauth/activate"
		if uc := r.URL.Query().Get("user_code"); uc != "" {
			ret += "?" + url.Values{"user_code": {uc}}.Encode()
		}
		toLogin(w, r, ret)
		return
	}
	var code string
	if norm, ok := NormalizeUserCode(r.URL.Query().Get("user_code")); ok {
		code = norm[:4] + "-" + norm[4:]
	}
	h.render(w, r, "activate", http.StatusOK, pageData{Title: "Connect a device", CSRF: h.csrfToken(w, r), User: displayName(u), UserCode: code})
}

// devicePost is the common start of the device page posts: form, CSRF, session and the
// guess limit. It returns nil when it has answered.
func (h *Handler) devicePost(w http.ResponseWriter, r *http.Request) (url.Values, *ent.User) {
	form, err := readBody(w, r)
	if err != nil || !h.checkCSRF(r, form) {
		h.message(w, r, http.StatusForbidden, "Page expired", "This page expired or did not come from Herdbook. Go back, reload the page and try again.")
		return nil, nil
	}
	u, err := h.sessionUser(r)
	if err != nil {
		h.internalPage(w, r, err)
		return nil, nil
	}
	if u == nil {
		toLogin(w, r, "/oauth/activate")
		return nil, nil
	}
	if !h.allowLimit(w, r, h.userCode, "ip:"+h.cfg.ClientIP.Of(r), "user:"+u.ID.String()) {
		return nil, nil
	}
	return form, u
}

// activate looks up the code the user typed and asks for a decision.
func (h *Handler) activate(w http.ResponseWriter, r *http.Request) {
	form, u := h.devicePost(w, r)
	if u == nil {
		return
	}
	pd, err := h.iss.LookupUserCode(r.Context(), form.Get("user_code"))
	if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
		h.render(w, r, "activate", http.StatusBadRequest, pageData{Title: "Connect a device", CSRF: h.csrfToken(w, r), User: displayName(u),
			UserCode: form.Get("user_code"), Error: herdbook.ErrorMessage(err)})
		return
	}
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	h.render(w, r, "confirm", http.StatusOK, pageData{Title: trf(pageLang(r), "Connect %s?", pd.ClientName), CSRF: h.csrfToken(w, r), User: displayName(u),
		UserCode: pd.UserCode, ClientName: pd.ClientName, Scopes: describeScopes(pageLang(r), pd.Scopes)})
}

// decide records the user's approval or denial.
func (h *Handler) decide(w http.ResponseWriter, r *http.Request) {
	form, u := h.devicePost(w, r)
	if u == nil {
		return
	}
	approve := form.Get("decision") == "approve"
	if !approve && form.Get("decision") != "deny" {
		h.message(w, r, http.StatusBadRequest, "Choose Approve or Deny", "Go back and choose Approve or Deny.")
		return
	}
	err := h.iss.DecideDevice(r.Context(), form.Get("user_code"), u.ID, approve)
	if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
		h.render(w, r, "activate", http.StatusBadRequest, pageData{Title: "Connect a device", CSRF: h.csrfToken(w, r), User: displayName(u),
			UserCode: form.Get("user_code"), Error: herdbook.ErrorMessage(err)})
		return
	}
	if err != nil {
		h.internalPage(w, r, err)
		return
	}
	if approve {
		h.message(w, r, http.StatusOK, "Device connected", "Your device is connected. You can close this page and go back to it.")
		return
	}
	h.message(w, r, http.StatusOK, "Request denied", "You denied the request. The device gets no access.")
}
