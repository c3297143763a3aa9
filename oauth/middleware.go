package oauth

import (
	"net/http"
	"strings"

	herdbook "github.com/herdbook/herdbook"
)

// MiddlewareOption tunes Bearer.
type MiddlewareOption func(*middlewareConfig)

type middlewareConfig struct {
	apiKeys bool
}

// AllowAPIKeys admits deprecated legacy keys sent as `X-API-Key: <key>`. Answers to such
// requests carry `Deprecation: true`. Where keys are not admitted, a request that sends one
// is refused with 403 (a credential type that is not allowed), not treated as anonymous.
func AllowAPIKeys() MiddlewareOption { return func(c *middlewareConfig) { c.apiKeys = true } }

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
					fail(w, r, err)
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
				fail(w, r, herdbook.Errorf(herdbook.EUNAUTHORIZED, "the Authorization header must be \"Bearer <token>\""))
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
				fail(w, r, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(herdbook.WithViewer(r.Context(), v)))
		})
	}
}
