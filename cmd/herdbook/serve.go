package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph"
	"github.com/herdbook/herdbook/internal/blob"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/metrics"
	"github.com/herdbook/herdbook/internal/notify"
	"github.com/herdbook/herdbook/internal/ratelimit"
	"github.com/herdbook/herdbook/internal/server"
	"github.com/herdbook/herdbook/internal/tracing"
	"github.com/herdbook/herdbook/internal/webhook"
	"github.com/herdbook/herdbook/oauth"
	"github.com/herdbook/herdbook/rest"
)

// serveGCPercent is the garbage collector's target of `serve` when GOGC is not set.
const serveGCPercent = 400

func (e env) serve(ctx context.Context, args []string) error {
	var c config
	fs := e.newFlags("serve")
	e.dbFlags(fs, &c)
	e.serviceFlags(fs, &c)
	fs.StringVar(&c.Addr, "addr", e.or("HERDBOOK_ADDR", "127.0.0.1:8080"), "listen address (HERDBOOK_ADDR)")
	fs.StringVar(&c.OTLPEndpoint, "otlp-endpoint", e.getenv("HERDBOOK_OTLP_ENDPOINT"), "OpenTelemetry collector (OTLP/HTTP) base URL such as http://127.0.0.1:4318; empty: no traces unless OTEL_EXPORTER_OTLP_ENDPOINT is set (HERDBOOK_OTLP_ENDPOINT)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", e.getenv("HERDBOOK_METRICS_ADDR"), "listen address of /metrics (Prometheus); empty: no metrics (HERDBOOK_METRICS_ADDR)")
	fs.StringVar(&c.BaseURL, "base-url", e.getenv("HERDBOOK_BASE_URL"), "public URL, issuer of tokens; default http://ADDR (HERDBOOK_BASE_URL)")
	fs.StringVar(&c.WebOrigin, "web-origin", e.getenv("HERDBOOK_WEB_ORIGIN"), "the one browser origin CORS admits (HERDBOOK_WEB_ORIGIN)")
	fs.StringVar(&c.RedisURL, "redis-url", e.getenv("HERDBOOK_REDIS_URL"), "Redis for shared rate-limit counters (HERDBOOK_REDIS_URL)")
	fs.StringVar(&c.TrustedProxies, "trusted-proxies", e.getenv("HERDBOOK_TRUSTED_PROXIES"), "comma-separated proxy addresses or CIDRs whose X-Forwarded-For is believed (HERDBOOK_TRUSTED_PROXIES)")
	fs.BoolVar(&c.NoMigrate, "no-migrate", e.getenv("HERDBOOK_NO_MIGRATE") != "", "do not apply migrations at start-up (HERDBOOK_NO_MIGRATE)")
	e.fileFlags(fs, &c)
	e.notifyFlags(fs, &c)
	c.NotifyInterval = time.Minute
	fs.Var(positiveDuration{&c.NotifyInterval}, "notify-interval", "how often the notification scheduler runs, such as 30s or 5m (HERDBOOK_NOTIFY_INTERVAL)")
	e.fromEnv(fs, "notify-interval", "HERDBOOK_NOTIFY_INTERVAL")
	fs.BoolVar(&c.NotifyWorker, "notify-worker", e.getenv("HERDBOOK_NOTIFY_WORKER") != "false", "run the notification scheduler and delivery worker in this process; HERDBOOK_NOTIFY_WORKER=false turns it off")
	e.rateLimitFlags(fs, &c)
	e.webhookFlags(fs, &c)
	e.registryFlags(fs, &c.Registry)
	fs.BoolVar(&c.WebhookWorker, "webhook-worker", e.getenv("HERDBOOK_WEBHOOK_WORKER") != "false", "run the webhook delivery worker in this process; HERDBOOK_WEBHOOK_WORKER=false turns it off")
	c.WebhookInterval = 5 * time.Second
	fs.Var(positiveDuration{&c.WebhookInterval}, "webhook-interval", "how often an idle webhook worker looks for due deliveries, such as 5s (HERDBOOK_WEBHOOK_INTERVAL)")
	e.fromEnv(fs, "webhook-interval", "HERDBOOK_WEBHOOK_INTERVAL")
	c.WebhookMaxAttempts = herdbook.DefaultWebhookRetry.MaxAttempts()
	fs.Var(intRange{&c.WebhookMaxAttempts, 1, herdbook.DefaultWebhookRetry.MaxAttempts()}, "webhook-max-attempts", "attempts of a webhook delivery before it is FAILED, at most 10 (HERDBOOK_WEBHOOK_MAX_ATTEMPTS)")
	e.fromEnv(fs, "webhook-max-attempts", "HERDBOOK_WEBHOOK_MAX_ATTEMPTS")
	c.PoolWait = db.DefaultPoolWait
	fs.Var(positiveDuration{&c.PoolWait}, "db-pool-wait", "how long a request waits for a free database connection when all are busy before it is answered 503 with Retry-After, such as 3s (HERDBOOK_DB_POOL_WAIT)")
	e.fromEnv(fs, "db-pool-wait", "HERDBOOK_DB_POOL_WAIT")
	c.GraphQLMaxAnswerBytes = graph.DefaultMaxAnswerBytes
	fs.Var(positiveInt{&c.GraphQLMaxAnswerBytes}, "graphql-max-answer-bytes", "the most bytes one GraphQL answer may have; a larger one is refused with ANSWER_TOO_LARGE before it is built (HERDBOOK_GRAPHQL_MAX_ANSWER_BYTES)")
	e.fromEnv(fs, "graphql-max-answer-bytes", "HERDBOOK_GRAPHQL_MAX_ANSWER_BYTES")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if c.GraphQLMaxAnswerBytes < 1<<10 {
		return fmt.Errorf("--graphql-max-answer-bytes must be at least 1024, not %d", c.GraphQLMaxAnswerBytes)
	}
	if e.getenv("GOGC") == "" {
		// The server's live heap is small (tens of MB) and every request allocates about as
		// much as its answer several times over, so with Go's default (collect when the heap
		// has doubled) it spent a tenth of its CPU collecting; collecting when it has grown
		// fivefold trades a few tens of MB for that. GOGC, when set, decides instead.
		debug.SetGCPercent(serveGCPercent)
	}
	retention, purgeEvery, err := c.purgeTimes()
	if err != nil {
		return err
	}
	blobs, err := blob.Open(c.blobConfig())
	if err != nil {
		return err
	}
	if c.WebhookMaxAttempts < 1 || c.WebhookMaxAttempts > herdbook.DefaultWebhookRetry.MaxAttempts() {
		return fmt.Errorf("--webhook-max-attempts must be between 1 and %d", herdbook.DefaultWebhookRetry.MaxAttempts())
	}
	c.serviceOptions = append(c.serviceOptions, herdbook.WithBlobStore(blobs), herdbook.WithWebhookPrivateAddresses(c.WebhookAllowPrivate))
	logger := c.logger(e.stderr)
	regs, err := c.Registry.registries(logger)
	if err != nil {
		return err
	}
	if regs != nil {
		c.serviceOptions = append(c.serviceOptions, herdbook.WithRegistries(regs))
	}
	// Whatever logs through the default logger (the REST recoverer, libraries using package
	// log) writes in the same format, so that JSON mode is JSON throughout.
	slog.SetDefault(logger)
	senders, err := c.senders()
	if err != nil {
		return err
	}
	proxies, err := ratelimit.ParseTrustedProxies(c.TrustedProxies)
	if err != nil {
		return err
	}
	// Rate-limit counters stay in memory unless Redis is configured; with Redis, every API
	// node pointed at it shares one budget per client.
	var limits ratelimit.Store
	if c.RedisURL != "" {
		rs, err := ratelimit.NewRedisStoreFromURL(c.RedisURL)
		if err != nil {
			return err
		}
		defer rs.Close()
		limits = rs
	}
	d, svc, err := e.open(ctx, &c, !c.NoMigrate)
	if err == nil {
		d.SetPoolWait(c.PoolWait)
	}
	if err != nil {
		return err
	}
	defer d.Close()
	logger.Info("file storage", "store", blob.Describe(c.blobConfig()), "retention", retention.String())

	// The purge of deleted files runs beside the server and stops, before the database
	// closes, when serve returns.
	purgeCtx, stopPurge := context.WithCancel(ctx)
	purgeDone := make(chan struct{})
	go func() {
		defer close(purgeDone)
		svc.RunFilePurge(purgeCtx, purgeEvery, retention, logger)
	}()
	defer func() { stopPurge(); <-purgeDone }()
	// SQLite has no statistics of its own: gather them at start-up and hourly, so its plans
	// for a large farm stay on the right indexes (docs/operations.md).
	optimizeDone := make(chan struct{})
	go func() {
		defer close(optimizeDone)
		d.RunOptimize(purgeCtx, db.OptimizeInterval, logger)
	}()
	defer func() { stopPurge(); <-optimizeDone }()

	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	base := c.BaseURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	base = strings.TrimRight(base, "/")
	// The web app's first-party OAuth client (herdbook-web) exists without set-up, its
	// redirect URIs following the base URL (docs/oauth.md).
	iss := oauth.NewIssuer(d.Client, nil)
	if _, err := iss.EnsureWebClient(ctx, base); err != nil {
		return fmt.Errorf("oauth client %s: %w", oauth.WebClientID, err)
	}
	// Traces go to an OTLP collector when one is configured; off otherwise.
	stopTracing, err := tracing.Setup(ctx, tracing.Config{Endpoint: c.OTLPEndpoint, Version: readBuildInfo().Version, Getenv: e.getenv})
	if err != nil {
		return fmt.Errorf("--otlp-endpoint: %w", err)
	}
	defer func() {
		flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = stopTracing(flush)
	}()
	// Metrics are served on a listener of their own, so they are never public by accident.
	var mx *metrics.Metrics
	if c.MetricsAddr != "" {
		bi := readBuildInfo()
		mx = metrics.New(d, svc, metrics.Build{Version: bi.Version, Commit: bi.Commit, Go: bi.Go})
		mln, err := net.Listen("tcp", c.MetricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		mmux := http.NewServeMux()
		mmux.Handle("GET /metrics", mx.Handler())
		msrv := server.NewHTTPServer(mmux)
		go func() { _ = msrv.Serve(mln) }()
		defer msrv.Close()
		logger.Info("metrics", "url", "http://"+mln.Addr().String()+"/metrics")
	}
	h := server.New(server.Config{BaseURL: base, WebOrigin: c.WebOrigin, Logger: logger, RateLimits: limits, TrustedProxies: proxies,
		APIRateLimit: c.APIRateLimit, APIRateWindow: c.APIRateWindow, Metrics: mx, GraphQLMaxAnswerBytes: c.GraphQLMaxAnswerBytes},
		server.Deps{DB: d, Service: svc, Issuer: iss})
	srv := server.NewHTTPServer(h)
	if c.jsonLogs() {
		logger.Info("listening", "url", base, "web", base+"/", "rest", base+"/v1", "graphql", base+"/graphql", "openapi", base+"/v1/openapi.json",
			"api_rate_limit", c.APIRateLimit, "api_rate_window", c.APIRateWindow)
	} else {
		fmt.Fprintf(e.stdout, "Herdbook is listening on %s\n", base)
		fmt.Fprintf(e.stdout, "  Web app: %s/ (sign in with a user made by admin user create)\n", base)
		fmt.Fprintf(e.stdout, "  REST:    %s/v1/farm   GraphQL: %s/graphql\n", base, base)
		fmt.Fprintf(e.stdout, "  Get a token: herdbook admin user create …, admin client create …, admin token issue … (see README)\n")
	}

	// The notification worker stops with the server: it finishes the messages it is
	// sending, hands back the rest of its batch, and the next start (here or on another
	// node) resumes whatever is left.
	workerCtx, stopWorker := context.WithCancel(context.Background())
	workerDone := make(chan struct{})
	if c.NotifyWorker {
		w := &notify.Worker{Service: svc, Senders: senders, Interval: c.NotifyInterval, Logger: logger,
			Retry: herdbook.RetryPolicy{MaxAttempts: c.NotifyMaxAttempts, Base: herdbook.DefaultRetryPolicy.Base, Max: herdbook.DefaultRetryPolicy.Max}}
		go func() { defer close(workerDone); _ = w.Run(workerCtx) }()
	} else {
		close(workerDone)
	}
	defer func() { stopWorker(); <-workerDone }()

	// The webhook worker stops the same way: attempts under way finish and are logged, the
	// rest of its batch goes back to the outbox for the next worker.
	hooksDone := make(chan struct{})
	if c.WebhookWorker {
		w := &webhook.Worker{Service: svc, Sender: &webhook.Sender{AllowPrivate: c.WebhookAllowPrivate}, Interval: c.WebhookInterval,
			Retry: herdbook.DefaultWebhookRetry.Limit(c.WebhookMaxAttempts), Logger: logger}
		go func() { defer close(hooksDone); _ = w.Run(workerCtx) }()
	} else {
		close(hooksDone)
	}
	defer func() { stopWorker(); <-hooksDone }()

	// The registry outbox sends the notices of holdings whose keeper turned sending on; it
	// stops with the server, and a batch cut short is taken over by the next pass (here or
	// on another node) after asking the registry what it already has.
	outboxDone := make(chan struct{})
	go func() {
		defer close(outboxDone)
		svc.RunOutbox(workerCtx, c.Registry.Interval, func(res herdbook.OutboxResult, err error) {
			if err != nil {
				logger.Warn("registry outbox", "error", err, "submitted", res.Submitted, "answered", res.Answered)
				return
			}
			logger.Info("registry outbox", "submitted", res.Submitted, "answered", res.Answered, "recovered", res.Recovered,
				"retried", res.Retried, "refused", res.Refused)
		})
	}()
	defer func() { stopWorker(); <-outboxDone }()

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stopWorker()
	shutdown, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// rateLimitFlags registers the REST API's budget: SPEC.md's 100 requests per 15 minutes
// unless the operator says otherwise.
func (e env) rateLimitFlags(fs *flag.FlagSet, c *config) {
	c.APIRateLimit, c.APIRateWindow = rest.DefaultAPIRateLimit, rest.DefaultAPIRateWindow
	fs.Var(positiveInt{&c.APIRateLimit}, "api-rate-limit", "REST requests one legacy key, or else one client address, may make per window (HERDBOOK_API_RATE_LIMIT)")
	e.fromEnv(fs, "api-rate-limit", "HERDBOOK_API_RATE_LIMIT")
	fs.Var(positiveDuration{&c.APIRateWindow}, "api-rate-window", "the window of the REST rate limit, such as 15m or 1h (HERDBOOK_API_RATE_WINDOW)")
	e.fromEnv(fs, "api-rate-window", "HERDBOOK_API_RATE_WINDOW")
}

// positiveInt is a flag holding a whole number above zero.
type positiveInt struct{ p *int64 }

func (v positiveInt) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v positiveInt) placeholder() string { return "N" }

func (v positiveInt) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a whole number above zero, such as 100")
	}
	*v.p = n
	return nil
}

// positiveDuration is a flag holding a duration above zero, of at least a second.
type positiveDuration struct{ p *time.Duration }

func (v positiveDuration) String() string {
	if v.p == nil {
		return "0s"
	}
	return v.p.String()
}

func (v positiveDuration) placeholder() string { return "DURATION" }

func (v positiveDuration) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < time.Second {
		return fmt.Errorf("want a duration of at least a second, such as 15m or 1h")
	}
	*v.p = d
	return nil
}

func (e env) migrate(ctx context.Context, args []string) error {
	var c config
	fs := e.newFlags("migrate")
	e.dbFlags(fs, &c)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	d, _, err := e.open(ctx, &c, false)
	if err != nil {
		return err
	}
	defer d.Close()
	type applied struct {
		Version     string `json:"version"`
		Description string `json:"description"`
	}
	done := []applied{}
	n, err := d.Migrate(ctx, func(v, desc string) {
		done = append(done, applied{v, desc})
		if !c.JSON {
			fmt.Fprintf(e.stdout, "applied %s %s\n", v, desc)
		}
	})
	if err != nil {
		return err
	}
	// Values stored before the text rule sat where bodies are decoded may break it (issue
	// 33.1): say how many, so that the operator lists and corrects them. Migrating succeeds
	// either way: the server runs well with them, only the answers carrying them are off.
	_, bad, err := d.CheckText(ctx)
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(e.stdout, map[string]any{"applied": done, "count": n, "text_findings": bad})
	}
	fmt.Fprintf(e.stdout, "%d migration(s) applied; the database is up to date\n", n)
	if bad > 0 {
		fmt.Fprintf(e.stdout, "%d stored value(s) break the text rule (control characters); `herdbook admin text-check` lists them\n", bad)
	}
	return nil
}

// intRange is a flag holding a whole number from min to max.
type intRange struct {
	p        *int
	min, max int
}

func (v intRange) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v intRange) placeholder() string { return "N" }

func (v intRange) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < v.min || n > v.max {
		return fmt.Errorf("want a whole number from %d to %d", v.min, v.max)
	}
	*v.p = n
	return nil
}
