// Package server wires the transports (REST facade, GraphQL graph, OAuth) and the HTTP
// hygiene around them into one http.Handler. cmd/herdbook and the end-to-end tests use it,
// so that tests exercise exactly what production serves.
package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/rs/cors"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/httpapi"
	"github.com/herdbook/herdbook/internal/idempotency"
	"github.com/herdbook/herdbook/internal/metrics"
	"github.com/herdbook/herdbook/internal/ratelimit"
	"github.com/herdbook/herdbook/internal/tracing"
	"github.com/herdbook/herdbook/oauth"
	"github.com/herdbook/herdbook/rest"
	"github.com/herdbook/herdbook/web"
)

// Config is what the wiring needs beyond its dependencies.
type Config struct {
	BaseURL   string
	WebOrigin string // the one browser origin CORS admits; empty admits none
	Logger    *slog.Logger
	// RateLimits holds the rate-limit counters: nil keeps them in this process's memory; a
	// Redis store lets several API nodes share one budget per client.
	RateLimits ratelimit.Store
	// TrustedProxies are the proxies whose X-Forwarded-For is believed when rate limits
	// key on the client address; empty means the socket's peer is the client.
	TrustedProxies []netip.Prefix
	// APIRateLimit is the REST budget per legacy key or client per APIRateWindow (0: 100).
	APIRateLimit int64
	// APIRateWindow is the window of the REST budget (0: 15 minutes).
	APIRateWindow time.Duration
	// BodyPace is how slowly a request body may arrive; zero fields take
	// httpapi.DefaultBodyPace's.
	BodyPace httpapi.BodyPace
	// Metrics, when set, measures every request (served on its own listener by the caller).
	Metrics *metrics.Metrics
	// GraphQLMaxAnswerBytes is the ceiling on one GraphQL answer's bytes (0:
	// graph.DefaultMaxAnswerBytes).
	GraphQLMaxAnswerBytes int64
}

// ReadHeaderTimeout is how long a client may take to send a request's headers. Bodies have
// no fixed timeout (a 100 MB upload on a slow link may take long); they must keep arriving
// instead (Config.BodyPace).
const ReadHeaderTimeout = 10 * time.Second

// NewHTTPServer returns the http.Server that serves h with Herdbook's connection limits:
// headers within ReadHeaderTimeout, at most 64 KiB of them, idle keep-alive connections
// closed after two minutes. The request bodies' pace is enforced by New's handler.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// Deps are the parts the handler is built from.
type Deps struct {
	DB      *db.DB
	Service *herdbook.Service
	Issuer  *oauth.Issuer
}

// New returns the whole HTTP surface.
func New(cfg Config, d Deps) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RateLimits == nil {
		// One store for every limiter, so that budgets meant to be shared (failed
		// authentication across REST, GraphQL and userinfo) are.
		cfg.RateLimits = ratelimit.NewMemoryStore(nil)
	}
	clientIP := ratelimit.ClientIP{TrustedProxies: cfg.TrustedProxies}
	failures := oauth.LimitFailures(oauth.NewFailureLimiter(cfg.RateLimits), clientIP)
	mux := http.NewServeMux()

	// REST admits the deprecated legacy keys (X-API-Key) beside bearer tokens; GraphQL is
	// newer than the keys and refuses them with 403.
	// A refused credential is answered the way the operation answers errors (without a body
	// on the birth-history paths), so REST's Bearer answers through the facade. Writes sent
	// with an Idempotency-Key run once per user and key; retries replay the answer.
	facade := rest.NewHandler(d.Service, rest.Config{
		BaseURL: cfg.BaseURL, Limits: cfg.RateLimits, APIRateLimit: cfg.APIRateLimit, APIRateWindow: cfg.APIRateWindow,
		ClientIP: clientIP,
	})
	api := oauth.Bearer(d.Issuer, facade.WriteError, oauth.AllowAPIKeys(), failures)(idempotency.Middleware(d.Service, facade.WriteError)(facade))
	for _, p := range rest.Prefixes {
		mux.Handle(p+"/", api)
	}
	mux.Handle("/graphql", oauth.Bearer(d.Issuer, graph.WriteError, failures)(
		idempotency.Middleware(d.Service, graph.WriteError)(graph.NewHandlerWith(d.Service, d.DB.Client, graph.Options{MaxAnswerBytes: cfg.GraphQLMaxAnswerBytes}))))
	mux.Handle("GET /graphql/assets/", graph.ExplorerAssets())

	authz := oauth.NewHandler(d.Issuer, d.Service, oauth.Config{
		BaseURL:  cfg.BaseURL,
		Limits:   cfg.RateLimits,
		ClientIP: clientIP,
		Logger:   cfg.Logger,
	})
	mux.Handle("/oauth/", authz)
	// RFC 8414 §3: the metadata of the issuer BASE/oauth is also found here.
	// Other methods get 405 with Allow, as its twin /oauth/.well-known/… does.
	mux.Handle("GET /.well-known/oauth-authorization-server/oauth", authz.Metadata())
	mux.HandleFunc("/.well-known/oauth-authorization-server/oauth", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", http.MethodGet)
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EMETHOD, "method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "application/json")
		if err := d.DB.SQL.PingContext(ctx); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":"database unreachable"}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"ready"}`))
	})
	noRoute := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.ENOTFOUND, "no route %s %s", r.Method, r.URL.Path))
	})
	// The web app (package web) answers browsers at / and its own routes; what is not the
	// app's (API paths, JSON clients, other methods) keeps the JSON 404.
	mux.Handle("/", web.Handler(noRoute))

	var h http.Handler = mux
	if cfg.Metrics != nil || tracing.On() {
		h = httpapi.NotingMux(mux) // label requests with the pattern that served them
	}
	// Each request loads its viewer's memberships at most once (herdbook.RequestScoped).
	h = herdbook.RequestScoped(h)
	h = httpapi.BodyDeadline(cfg.BodyPace, h)
	h = corsFor(cfg.WebOrigin).Handler(h)
	// Traces, when configured (internal/tracing), and metrics share the route note.
	h = tracing.Middleware(h)
	if cfg.Metrics != nil {
		h = cfg.Metrics.Middleware(h)
	}
	h = httpapi.AccessLog(cfg.Logger, h)
	h = httpapi.Recover(h)
	h = httpapi.WithRequestID(h)
	return h
}

// corsFor admits browser requests from the configured web origin only. Requests without an
// Origin header (server-side clients) are not affected by CORS at all.
func corsFor(origin string) *cors.Cors {
	var origins []string
	if o := strings.TrimRight(strings.TrimSpace(origin), "/"); o != "" {
		origins = []string{o}
	}
	return cors.New(cors.Options{
		AllowedOrigins:   origins,
		AllowedMethods:   []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions},
		AllowedHeaders:   []string{"Authorization", "Content-Type", "X-Request-Id", "Idempotency-Key", "X-Api-Key", "Range", "If-Range", "If-None-Match", "Herdbook-Farm"},
		ExposedHeaders:   []string{"X-Request-Id", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Deprecation", "Content-Range", "Content-Disposition", "Accept-Ranges", "ETag"},
		AllowCredentials: false,
		MaxAge:           600,
	})
}
