package ratelimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/herdbook/herdbook/internal/ratelimit"
)

// This example limits POST /oauth/device to two requests per 15 minutes per
// client IP, behind a load balancer at 10.0.0.0/8.
func ExampleLimiter_Middleware() {
	proxies, err := ratelimit.ParseTrustedProxies("10.0.0.0/8")
	if err != nil {
		panic(err)
	}
	clientIP := ratelimit.ClientIP{TrustedProxies: proxies}
	limiter := ratelimit.New(ratelimit.NewMemoryStore(nil), "oauth-device", 2, 15*time.Minute)

	tooMany := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprintln(w, `{"error":"slow_down"}`)
	})
	logError := func(_ http.ResponseWriter, r *http.Request, err error) {
		fmt.Println("rate limiter unavailable:", err)
	}
	device := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, `{"device_code":"..."}`)
	})
	handler := limiter.Middleware(clientIP.Of, tooMany, logError)(device)

	for range 3 {
		r := httptest.NewRequest(http.MethodPost, "/oauth/device", nil)
		r.RemoteAddr = "10.1.2.3:40000"
		r.Header.Set("X-Forwarded-For", "203.0.113.5")
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get("RateLimit-Policy"), "remaining", w.Header().Get("RateLimit-Remaining"),
			"retry", w.Header().Get("Retry-After") != "")
	}
	// Output:
	// 200 2;w=900 remaining 1 retry false
	// 200 2;w=900 remaining 0 retry false
	// 429 2;w=900 remaining 0 retry true
}
