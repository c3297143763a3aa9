package oauth

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
	"github.com/herdbook/herdbook/internal/ratelimit"
)

// MiddlewareOption tunes Bearer.
type MiddlewareOption func(*middlewareConfig)

type middlewareConfig struct {
	apiKeys  bool
	failures *ratelimit.Limiter
	clientIP ratelimit.ClientIP
}

// AllowAPIKeys admits deprecated legacy keys sent as `X-API-Key: <key>`. Answers to such
// requests carry `Deprecation: true`. Where keys are not admitted, a request that sends one
// is refused with 403 (a credential type that is not allowed), not treated as anonymous.
func AllowAPIKeys() MiddlewareOption { return func(c *middlewareConfig) { c.apiKeys = true } }

// LimitFailures rate-limits failed authentication per client address: every credential
// that turns out unknown, expired or malformed spends one of l's budget (NewFailureLimiter),
// and once it is spent, any request that presents a credential is answered 429 with
// Retry-After before the credential is looked up. Guessing tokens or keys then costs the
// guesser a wait and the database nothing. A failing counter store lets requests through.
func LimitFailures(l *ratelimit.Limiter, clientIP ratelimit.ClientIP) MiddlewareOption {
	return func(c *middlewareConfig) { c.failures, c.clientIP = l, clientIP }
}

// NewFailureLimiter returns the failed-authentication budget of SPEC.md's 15-minute window
// (LimitFailedAuth per client address) over store. Limiters over one store share it, so the
// REST, GraphQL and OAuth userinfo endpoints, and every node on one Redis, count together.
func NewFailureLimiter(store ratelimit.Store) *ratelimit.Limiter {
	return ratelimit.New(store, "auth-failures", LimitFailedAuth, LimitWindow)
}

// Bearer resolves `Authorization: Bearer <token>` (and, with AllowAPIKeys, `X-API-Key`) into
// a herdbook.Viewer on the request context. A request without credentials goes on
// anonymously (the service answers 401 where authentication is needed); a request with a bad
// credential is answered by fail at once. Tokens in query strings are never read: they end
// up in logs and Referer headers.
func Bearer(iss *Issuer, fail func(http.ResponseWriter, *http.Request, error), opts ...MiddlewareOption) func(http.Handler) http.Handler {
	var cfg middlewareConfig
	for _, o := range opts {
		o(&cfg)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h, key := r.Header.Get("Authorization"), r.Header.Get("X-API-Key")
			if (h != "" || key != "") && cfg.overBudget(w, r) {
				fail(w, r, herdbook.Errorf(herdbook.ERATELIMITED,
					"too many failed authentication attempts from this address; retry after %s seconds", w.Header().Get("Retry-After")))
				return
			}
			failed := func(err error) {
				if herdbook.ErrorCode(err) == herdbook.EUNAUTHORIZED {
					cfg.countFailure(r)
				}
				fail(w, r, err)
			}
			switch {
			case h != "" && key != "":
				fail(w, r, herdbook.Invalid(herdbook.FieldError{Field: "X-API-Key", Message: "send either Authorization or X-API-Key, not both"}))
				return
			case key != "":
				if !cfg.apiKeys {
					fail(w, r, herdbook.Errorf(herdbook.EFORBIDDEN, "legacy API keys are not accepted here: use an OAuth access token"))
					return
				}
				w.Header().Set("Deprecation", "true")
				v, err := iss.ResolveAPIKey(r.Context(), strings.TrimSpace(key))
				if err != nil {
					failed(err)
					return
				}
				next.ServeHTTP(w, r.WithContext(herdbook.WithViewer(r.Context(), v)))
				return
			case h == "":
				next.ServeHTTP(w, r)
				return
			}
			scheme, token, ok := strings.Cut(h, " ")
			token = strings.TrimSpace(token)
			if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
				w.Header().Set("WWW-Authenticate", `Bearer realm="herdbook"`)
				failed(herdbook.Errorf(herdbook.EUNAUTHORIZED, "the Authorization header must be \"Bearer <token>\""))
				return
			}
			if strings.HasPrefix(token, prefixAPIKey) {
				fail(w, r, herdbook.Errorf(herdbook.EFORBIDDEN, "a legacy API key is not a bearer token: send it as X-API-Key, or better, use an OAuth access token"))
				return
			}
			v, err := iss.Resolve(r.Context(), token)
			if err != nil {
				if herdbook.ErrorCode(err) == herdbook.EUNAUTHORIZED {
					w.Header().Set("WWW-Authenticate", `Bearer realm="herdbook", error="invalid_token"`)
				}
				failed(err)
				return
			}
			next.ServeHTTP(w, r.WithContext(herdbook.WithViewer(r.Context(), v)))
		})
	}
}

// overBudget reports whether the client has spent its failed-authentication budget, and then
// sets Retry-After and the RateLimit headers of that budget.
func (c *middlewareConfig) overBudget(w http.ResponseWriter, r *http.Request) bool {
	if c.failures == nil {
		return false
	}
	d, err := c.failures.Peek(r.Context(), "ip:"+c.clientIP.Of(r))
	if err != nil {
		slog.WarnContext(r.Context(), "failed-authentication limiter unavailable; request let through", "err", err,
			"request_id", httpapi.RequestID(r.Context()))
		return false
	}
	if d.Allowed {
		return false
	}
	d.SetHeaders(w.Header(), time.Now())
	return true
}

// countFailure spends one of the client's failed-authentication budget.
func (c *middlewareConfig) countFailure(r *http.Request) {
	if c.failures == nil {
		return
	}
	if _, err := c.failures.Allow(r.Context(), "ip:"+c.clientIP.Of(r)); err != nil {
		slog.WarnContext(r.Context(), "failed-authentication limiter unavailable; failure not counted", "err", err,
			"request_id", httpapi.RequestID(r.Context()))
	}
}
