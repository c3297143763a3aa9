package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/metrics"
)

// TestMetricsScrape drives real requests through the production wiring, scrapes /metrics and
// reads it with Prometheus's own text parser: requests are labelled by route pattern (never
// the raw path), GraphQL operations by name, and the pool, queue and build series are there.
func TestMetricsScrape(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		mx := metrics.New(d, herdbook.New(d.Client), metrics.Build{Version: "test", Commit: "abc", Go: "go"})
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{Metrics: mx})
		u := app.MustUser()
		f := app.MustFarm(u, "Metric Farm")
		for i := 0; i < 3; i++ {
			if res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/records", u.Token, nil); res.Status != http.StatusOK {
				t.Fatalf("records: %d", res.Status)
			}
		}
		app.Do("GET", "/api/v1/farm/"+f.ID.String()+"/records", u.Token, nil)
		app.Do("GET", "/no/such/path/"+f.ID.String(), u.Token, nil)
		app.GraphQL(u.Token, `query HerdPage { farms(first: 1) { totalCount } }`, nil)

		srv := httptest.NewServer(mx.Handler())
		defer srv.Close()
		res, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(res.Body)
		if err != nil {
			t.Fatalf("not the Prometheus text format: %v", err)
		}
		counter := func(name string, labels map[string]string) float64 {
			t.Helper()
			fam := fams[name]
			if fam == nil {
				t.Fatalf("no %s", name)
			}
			for _, m := range fam.Metric {
				if matches(m, labels) {
					if m.Counter != nil {
						return m.Counter.GetValue()
					}
					if m.Histogram != nil {
						return float64(m.Histogram.GetSampleCount())
					}
					return m.Gauge.GetValue()
				}
			}
			return 0
		}
		route := "GET /v1/farm/{farm_id}/records"
		if got := counter("herdbook_http_requests_total", map[string]string{"route": route, "method": "GET", "status": "200"}); got != 4 {
			t.Errorf("records requests = %v, want 4 (/v1 and /api/v1 share the route)", got)
		}
		if got := counter("herdbook_http_requests_total", map[string]string{"route": "unmatched", "status": "404"}); got != 1 {
			t.Errorf("unmatched 404s = %v, want 1", got)
		}
		if got := counter("herdbook_http_request_duration_seconds", map[string]string{"route": route}); got != 4 {
			t.Errorf("latency samples = %v", got)
		}
		if got := counter("herdbook_db_statements_per_request", map[string]string{"route": route}); got != 4 {
			t.Errorf("statement samples = %v", got)
		}
		if got := counter("herdbook_graphql_operations_total", map[string]string{"operation": "HerdPage", "status": "200"}); got != 1 {
			t.Errorf("GraphQL HerdPage = %v", got)
		}
		if got := counter("herdbook_build_info", map[string]string{"version": "test", "commit": "abc"}); got != 1 {
			t.Errorf("build info = %v", got)
		}
		if got := counter("herdbook_queue_scrape_ok", nil); got != 1 {
			t.Errorf("queues not read: %v", got)
		}
		for _, name := range []string{"herdbook_queue_due", "herdbook_queue_lag_seconds", "go_sql_max_open_connections", "go_goroutines"} {
			if fams[name] == nil {
				t.Errorf("no %s", name)
			}
		}
		for name, fam := range fams {
			for _, m := range fam.Metric {
				for _, l := range m.Label {
					if strings.Contains(l.GetValue(), f.ID.String()) {
						t.Fatalf("%s has a raw path label %q", name, l.GetValue())
					}
				}
			}
		}
	})
}

func matches(m *dto.Metric, want map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.Label {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}
