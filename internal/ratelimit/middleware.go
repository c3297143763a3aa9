package ratelimit

import "net/http"

// Middleware returns HTTP middleware that counts every request against the
// limiter under the key keyFunc returns, for example a ClientIP's Of method.
//
// Keys are stored verbatim (in Redis they become part of key names), so a
// keyFunc that limits by credential should return a hash of it, never the
// secret itself.
//
// The middleware sets the RateLimit-* headers (see [Decision.SetHeaders]) on
// every response. A request within the limit goes to the wrapped handler. A
// request over the limit gets Retry-After as well and goes to onLimited
// instead, which writes the API's own 429 response; a nil onLimited writes a
// plain-text 429.
//
// If the store fails, for example because Redis is down, the middleware
// fails open: it calls onError (if not nil) so the failure can be logged and
// alerted on, sets no rate-limit headers because the window's state is
// unknown, and passes the request to the wrapped handler. Rate limiting
// protects the API from abuse but is not what authenticates or authorises
// anyone, so an outage of the counter store should degrade that protection
// rather than take the whole API down with it: losing limits for the length
// of an outage, while onError raises the alarm, is the lesser harm. Each
// failed store call costs at most the store's own timeout (see
// RedisStore.Timeout). onError must not write a response.
//
// Middleware panics if keyFunc is nil.
func (l *Limiter) Middleware(keyFunc func(*http.Request) string, onLimited http.Handler, onError func(w http.ResponseWriter, r *http.Request, err error)) func(http.Handler) http.Handler {
	if keyFunc == nil {
		panic("ratelimit: nil keyFunc")
	}
	if onLimited == nil {
		onLimited = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
		})
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d, err := l.Allow(r.Context(), keyFunc(r))
			if err != nil {
				if onError != nil {
					onError(w, r, err)
				}
				next.ServeHTTP(w, r)
				return
			}
			d.SetHeaders(w.Header(), l.now())
			if !d.Allowed {
				onLimited.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
