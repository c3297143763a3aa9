// Package metrics exposes Herdbook's operational metrics in the Prometheus exposition format
// (docs/operations.md): HTTP requests by route, status and latency, GraphQL operations by
// name, statements per request, the database pool, the background queues, rate-limit
// refusals and the build. They are served on a listener of their own (--metrics-addr), so
// they are never public by accident.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// Build describes the running binary for herdbook_build_info.
type Build struct {
	Version, Commit, Go string
}

// Metrics is one server's registry and the instruments its middleware feeds.
type Metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	statements *prometheus.HistogramVec
	operations *prometheus.CounterVec
	refusals   *prometheus.CounterVec

	mu      sync.Mutex
	seenOps map[string]bool
}

// New makes the registry: the process and Go runtime collectors, the database pool's
// statistics, the queues (read at each scrape, bounded by a timeout) and build info.
func New(d *db.DB, svc *herdbook.Service, b Build) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), seenOps: map[string]bool{}}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "herdbook_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
	}, []string{"route", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "herdbook_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route pattern and method.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"route", "method"})
	m.statements = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "herdbook_db_statements_per_request", Help: "SQL statements one HTTP request sent, by route pattern.",
		Buckets: []float64{0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 50, 100},
	}, []string{"route"})
	m.operations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "herdbook_graphql_operations_total", Help: "GraphQL operations by operation name (or type when unnamed) and status.",
	}, []string{"operation", "status"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "herdbook_rate_limit_refusals_total", Help: "Requests refused with 429 by a rate limit, by route pattern.",
	}, []string{"route"})
	info := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "herdbook_build_info", Help: "The running build: always 1, with its version, commit and Go toolchain as labels.",
	}, []string{"version", "commit", "goversion"})
	info.WithLabelValues(b.Version, b.Commit, b.Go).Set(1)
	m.reg.MustRegister(m.requests, m.latency, m.statements, m.operations, m.refusals, info,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(d.SQL, "herdbook"), &queueCollector{svc: svc})
	return m
}

// Handler serves the registry in the exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Middleware measures each request. It sits outside the routers, which note their route
// pattern (httpapi.NoteRoute) and GraphQL operation on the request; a request no router
// claimed is labelled "unmatched", so a scan of random paths cannot grow the label set.
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		r, note := httpapi.WithRouteNote(r)
		ctx, count := db.CountStatements(r.Context())
		sw := httpapi.NewStatusWriter(w)
		next.ServeHTTP(sw, r.WithContext(ctx))
		route := note.Route()
		if route == "" || route == "/" {
			route = "unmatched"
		}
		status := sw.Status()
		m.requests.WithLabelValues(route, r.Method, strconv.Itoa(status)).Inc()
		m.latency.WithLabelValues(route, r.Method).Observe(time.Since(start).Seconds())
		m.statements.WithLabelValues(route).Observe(float64(count()))
		if status == http.StatusTooManyRequests {
			m.refusals.WithLabelValues(route).Inc()
		}
		if op := note.Operation(); op != "" {
			m.operations.WithLabelValues(m.operationLabel(op), strconv.Itoa(status)).Inc()
		}
	})
}

// maxOperations bounds the operation label's values: names come from clients, and a client
// that names every request anew must not grow the registry without end.
const maxOperations = 500

func (m *Metrics) operationLabel(op string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seenOps[op] {
		return op
	}
	if len(m.seenOps) >= maxOperations {
		return "other"
	}
	m.seenOps[op] = true
	return op
}

// queueCollector reads the background queues at scrape time.
type queueCollector struct{ svc *herdbook.Service }

var (
	queueDue    = prometheus.NewDesc("herdbook_queue_due", "Entries whose time has come, waiting for a worker.", []string{"queue"}, nil)
	queueFailed = prometheus.NewDesc("herdbook_queue_failed", "Entries that ran out of attempts.", []string{"queue"}, nil)
	queueLag    = prometheus.NewDesc("herdbook_queue_lag_seconds", "How long the oldest due entry has waited.", []string{"queue"}, nil)
	queueUp     = prometheus.NewDesc("herdbook_queue_scrape_ok", "1 when the queues could be read at this scrape.", nil, nil)
)

func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDue
	ch <- queueFailed
	ch <- queueLag
	ch <- queueUp
}

func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := q.svc.QueueStats(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(queueUp, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(queueUp, prometheus.GaugeValue, 1)
	for name, v := range map[string]herdbook.Queue{"scheduled_events": st.ScheduledEvents, "notifications": st.Notifications, "webhooks": st.Webhooks} {
		ch <- prometheus.MustNewConstMetric(queueDue, prometheus.GaugeValue, float64(v.Due), name)
		if name != "scheduled_events" {
			ch <- prometheus.MustNewConstMetric(queueFailed, prometheus.GaugeValue, float64(v.Failed), name)
		}
		ch <- prometheus.MustNewConstMetric(queueLag, prometheus.GaugeValue, v.Lag.Seconds(), name)
	}
}
