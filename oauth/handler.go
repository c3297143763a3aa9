package oauth

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-oauth2/oauth2/v4/server"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
	"github.com/herdbook/herdbook/internal/ratelimit"
)

// DeviceGrantType is the grant_type of the device flow's token request (RFC 8628 §3.4).
const DeviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

// Rate limits of SPEC.md (per client IP and 15-minute window), and the guess limits of the
// pages, which SPEC.md leaves to us.
const (
	LimitWindow      = 15 * time.Minute
	LimitDevice      = 30  // POST /oauth/device
	LimitToken       = 240 // POST /oauth/token, /oauth/device/token and /oauth/revoke, each
	LimitSignIn      = 30  // sign-in attempts per IP
	LimitSignInPhone = 10  // sign-in attempts per IP and phone number
	LimitUserCode    = 20  // user-code entries per IP and per signed-in user
	LimitFailedAuth  = 30  // unknown, expired or malformed bearer tokens and API keys per IP
)

// metadataCacheAge is how long clients may cache the metadata document, in seconds.
const metadataCacheAge = 3600

// Config configures the OAuth handler.
type Config struct {
	// BaseURL is the public address of the service; the issuer is BaseURL + "/oauth".
	BaseURL string
	// Limits holds the rate-limit counters: in memory when nil, Redis to share one budget
	// between API nodes.
	Limits ratelimit.Store
	// ClientIP tells the client address that rate limits key on.
	ClientIP ratelimit.ClientIP
	// Logger receives internal errors and rate-limit store failures.
	Logger *slog.Logger
}

// Handler serves everything under /oauth.
type Handler struct {
	iss    *Issuer
	svc    *herdbook.Service
	cfg    Config
	lib    *server.Server
	mux    *http.ServeMux
	pages  *pages
	secure bool // the base URL is https: cookies get the __Host- prefix

	signIn      *ratelimit.Limiter
	signInPhone *ratelimit.Limiter
	userCode    *ratelimit.Limiter
}

// NewHandler returns the OAuth side over iss, using svc to check passwords.
func NewHandler(iss *Issuer, svc *herdbook.Service, cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Limits == nil {
		cfg.Limits = ratelimit.NewMemoryStore(nil)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	h := &Handler{
		iss:         iss,
		svc:         svc,
		cfg:         cfg,
		lib:         newLibraryServer(iss, cfg.Logger),
		mux:         http.NewServeMux(),
		pages:       mustPages(),
		secure:      strings.HasPrefix(cfg.BaseURL, "https://"),
		signIn:      ratelimit.New(cfg.Limits, "oauth-signin", LimitSignIn, LimitWindow),
		signInPhone: ratelimit.New(cfg.Limits, "oauth-signin-phone", LimitSignInPhone, LimitWindow),
		userCode:    ratelimit.New(cfg.Limits, "oauth-usercode", LimitUserCode, LimitWindow),
	}
	h.lib.PreRedirectErrorHandler = h.libAuthorizeError
	h.routes()
	return h
}

// routes lists the whole OAuth surface.
func (h *Handler) routes() {
	limit := func(name string, n int64, fn http.HandlerFunc) http.Handler {
		l := ratelimit.New(h.cfg.Limits, name, n, LimitWindow)
		return l.Middleware(h.cfg.ClientIP.Of, http.HandlerFunc(h.rateLimited), h.limiterFailed)(fn)
	}
	h.mux.HandleFunc("GET /oauth/.well-known/oauth-authorization-server", h.metadata)
	h.mux.HandleFunc("GET /oauth/authorize", h.authorize)
	h.mux.Handle("POST /oauth/token", limit("oauth-token", LimitToken, h.token))
	h.mux.Handle("POST /oauth/device", limit("oauth-device", LimitDevice, h.device))
	h.mux.Handle("POST /oauth/device/token", limit("oauth-device-token", LimitToken, h.deviceToken))
	h.mux.Handle("POST /oauth/revoke", limit("oauth-revoke", LimitToken, h.revoke))
	h.mux.Handle("GET /oauth/userinfo", Bearer(h.iss, httpapi.WriteError, LimitFailures(NewFailureLimiter(h.cfg.Limits), h.cfg.ClientIP))(http.HandlerFunc(h.userinfo)))
	h.mux.Handle("GET /oauth/device-key", Bearer(h.iss, httpapi.WriteError, LimitFailures(NewFailureLimiter(h.cfg.Limits), h.cfg.ClientIP))(http.HandlerFunc(h.deviceKey)))
	h.mux.HandleFunc("GET /oauth/jwks.json", h.jwks)

	h.mux.HandleFunc("GET /oauth/login", h.loginPage)
	h.mux.HandleFunc("POST /oauth/login", h.login)
	h.mux.HandleFunc("POST /oauth/logout", h.logout)
	h.mux.HandleFunc("GET /oauth/consent", h.consentPage)
	h.mux.HandleFunc("POST /oauth/consent", h.consent)
	h.mux.HandleFunc("GET /oauth/activate", h.activatePage)
	h.mux.HandleFunc("POST /oauth/activate", h.activate)
	h.mux.HandleFunc("POST /oauth/activate/decide", h.decide)
	h.mux.HandleFunc("GET /oauth/static/style.css", h.stylesheet)
}

// ServeHTTP dispatches, answering unknown paths (404) and wrong methods (405) with the error
// envelope.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, pattern := h.mux.Handler(r); pattern == "" {
		if allowed := h.allowedMethods(r); allowed != "" {
			w.Header().Set("Allow", allowed)
			httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EMETHOD, "method %s is not allowed on %s", r.Method, r.URL.Path))
			return
		}
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.ENOTFOUND, "no route %s %s", r.Method, r.URL.Path))
		return
	}
	h.mux.ServeHTTP(w, r)
}

// allowedMethods lists the methods the path has, empty when the path is unknown.
func (h *Handler) allowedMethods(r *http.Request) string {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, p := h.mux.Handler(probe); p != "" {
			allowed = append(allowed, m)
		}
	}
	return strings.Join(allowed, ", ")
}

// Metadata serves the authorization server metadata document (RFC 8414), for mounting at
// /.well-known/oauth-authorization-server/oauth as well.
func (h *Handler) Metadata() http.Handler { return http.HandlerFunc(h.metadata) }

// Issuer returns the issuer identifier: BaseURL + "/oauth".
func (h *Handler) Issuer() string { return h.cfg.BaseURL + "/oauth" }

func (h *Handler) metadata(w http.ResponseWriter, r *http.Request) {
	iss := h.Issuer()
	authMethods := []string{"client_secret_basic", "client_secret_post", "none"}
	w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(metadataCacheAge))
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{
		"issuer":                                     iss,
		"authorization_endpoint":                     iss + "/authorize",
		"token_endpoint":                             iss + "/token",
		"device_authorization_endpoint":              iss + "/device",
		"revocation_endpoint":                        iss + "/revoke",
		"userinfo_endpoint":                          iss + "/userinfo",
		"jwks_uri":                                   iss + "/jwks.json",
		"response_types_supported":                   []string{"code"},
		"response_modes_supported":                   []string{"query"},
		"grant_types_supported":                      []string{"authorization_code", "refresh_token", DeviceGrantType},
		"code_challenge_methods_supported":           []string{"S256"},
		"scopes_supported":                           herdbook.AllScopes,
		"token_endpoint_auth_methods_supported":      authMethods,
		"revocation_endpoint_auth_methods_supported": authMethods,
	})
}

// jwks publishes an empty key set: access tokens are opaque, nothing is signed. The
// document exists because SPEC.md's metadata requires jwks_uri.
func (h *Handler) jwks(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"keys": []any{}})
}

// userinfo describes the user a bearer token acts for.
func (h *Handler) userinfo(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	u, err := h.svc.Me(r.Context())
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := map[string]any{"sub": u.ID.String(), "phone_number": u.PhoneNumberLocal}
	if u.FullName != nil {
		out["name"] = *u.FullName
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// deviceKey answers the signed-in user's device key (herdbook.Service.DeviceKey) to the web
// app only: the first-party client's access token, never another client's or an API key,
// since the key opens what the web app kept on a device after a sign-out (docs/web.md).
func (h *Handler) deviceKey(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	v := herdbook.ViewerFrom(r.Context())
	switch {
	case v == nil:
		w.Header().Set("WWW-Authenticate", `Bearer realm="herdbook"`)
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EUNAUTHORIZED, "sign in: the device key is the signed-in user's"))
		return
	case v.ClientID != WebClientID:
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EFORBIDDEN, "the device key is given to the web app (%s) only", WebClientID))
		return
	}
	key, err := h.svc.DeviceKey(r.Context())
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"sub": v.UserID.String(), "key": base64.RawURLEncoding.EncodeToString(key)})
}

// rateLimited answers a request over its limit with the envelope; Retry-After and the
// RateLimit headers are already set by the limiter.
func (h *Handler) rateLimited(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	msg := "too many requests from this address; try again later"
	if s := w.Header().Get("Retry-After"); s != "" {
		msg = "too many requests from this address; retry after " + s + " seconds"
	}
	httpapi.WriteError(w, r, herdbook.Errorf(herdbook.ERATELIMITED, "%s", msg))
}

// limiterFailed logs a counter store failure; the limiter then lets the request through.
func (h *Handler) limiterFailed(w http.ResponseWriter, r *http.Request, err error) {
	h.cfg.Logger.ErrorContext(r.Context(), "rate limit store failed; request let through", "err", err, "path", r.URL.Path)
}

// noStore forbids caches to keep an answer: token answers and pages carry secrets.
func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}

// readBody reads a form-encoded or JSON request body into r.PostForm and r.Form, so that
// go-oauth2's parsing sees the body and nothing else: parameters in the URL query are never
// merged in. Every parameter may appear once (RFC 6749 §3.2), in a form as in a JSON object;
// JSON values must be strings; no name or value may hold a control character or invalid
// UTF-8 (herdbook.CheckText), so that nothing malformed reaches a lookup. Errors are EINVALID
// (or ETOOLARGE) naming the problem.
func readBody(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	b, err := httpapi.ReadBody(w, r)
	if err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	vals := url.Values{}
	switch {
	case len(b) == 0:
	case ct == "application/x-www-form-urlencoded":
		if vals, err = url.ParseQuery(string(b)); err != nil {
			return nil, bodyInvalid("is not valid application/x-www-form-urlencoded")
		}
	case ct == "application/json" || strings.HasSuffix(ct, "+json"):
		var m map[string]any
		if err := httpapi.Unmarshal(b, &m); err != nil {
			return nil, err // malformed, or a key given twice
		}
		if m == nil {
			return nil, bodyInvalid("must be a JSON object")
		}
		var fe []herdbook.FieldError
		for k, v := range m {
			switch v := v.(type) {
			case string:
				vals.Set(k, v)
			case nil:
			default:
				fe = append(fe, herdbook.FieldError{Field: k, Message: "must be a string"})
			}
		}
		if err := herdbook.Invalid(fe...); err != nil {
			return nil, err
		}
	default:
		return nil, bodyInvalid("Content-Type must be application/x-www-form-urlencoded or application/json")
	}
	var fe []herdbook.FieldError
	for k, v := range vals {
		if len(v) > 1 {
			fe = append(fe, herdbook.FieldError{Field: k, Message: "must be given once"})
			continue
		}
		if err := herdbook.CheckText(k, k); err != nil {
			fe = append(fe, herdbook.FieldError{Field: "body", Message: "a parameter name holds a control character or invalid UTF-8"})
			continue
		}
		if err := herdbook.CheckText(k, v[0]); err != nil {
			fe = append(fe, herdbook.ErrorFields(err)...)
		}
	}
	if err := herdbook.Invalid(sortFields(fe)...); err != nil {
		return nil, err
	}
	r.PostForm, r.Form = vals, vals
	return vals, nil
}

// sortFields orders field problems by field, so that an answer does not depend on map order.
func sortFields(fe []herdbook.FieldError) []herdbook.FieldError {
	slices.SortFunc(fe, func(a, b herdbook.FieldError) int { return strings.Compare(a.Field, b.Field) })
	return fe
}

func bodyInvalid(msg string) error {
	return herdbook.Invalid(herdbook.FieldError{Field: "body", Message: msg})
}

// credentialsInQuery refuses requests that put credentials in the URL, where logs, proxies
// and browser history keep them.
func credentialsInQuery(r *http.Request) error {
	q := r.URL.Query()
	for _, k := range []string{"code", "code_verifier", "refresh_token", "client_secret", "device_code", "token", "access_token", "password"} {
		if q.Has(k) {
			return oauthErr(ErrCodeInvalidRequest, "%s must be sent in the request body, never in the URL", k)
		}
	}
	return nil
}

// checkLen adds a field error when a required string is empty or longer than max.
func checkLen(fe *[]herdbook.FieldError, vals url.Values, field string, max int, required bool) {
	v := vals.Get(field)
	switch {
	case v == "" && required:
		*fe = append(*fe, herdbook.FieldError{Field: field, Message: "is required"})
	case len(v) > max:
		*fe = append(*fe, herdbook.FieldError{Field: field, Message: fmt.Sprintf("must be at most %d characters", max)})
	}
}
