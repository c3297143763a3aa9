package oauth

import (
	"net/http"
	"strings"

	herdbook "github.com/herdbook/herdbook"
)

// Bearer resolves `Authorization: Bearer <token>` into a herdbook.Viewer on the request
// context. A request without credentials goes on anonymously (the service answers 401 where
// authentication is needed); a request with a bad credential is answered by fail at once.
// Tokens in query strings are never read: they end up in logs and Referer headers.
func Bearer(iss *Issuer, fail func(http.ResponseWriter, *http.Request, error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := r.Header.Get("Authorization")
			if h == "" {
				next.ServeHTTP(w, r)
				return
			}
			scheme, token, ok := strings.Cut(h, " ")
			token = strings.TrimSpace(token)
			if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
				fail(w, r, herdbook.Errorf(herdbook.EUNAUTHORIZED, "the Authorization header must be \"Bearer <token>\""))
				return
			}
			v, err := iss.Resolve(r.Context(), token)
			if err != nil {
				fail(w, r, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(herdbook.WithViewer(r.Context(), v)))
		})
	}
}
