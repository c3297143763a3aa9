package tracing_test

import (
	"net/http"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/tracing"
)

// TestTracesSpanHTTPGraphQLAndSQL installs an SDK provider with an in-memory exporter (as
// Setup installs one with the OTLP exporter) and follows a REST and a GraphQL request: a
// server span named for the route, continuing the caller's traceparent, with SQL statement
// spans under it, and a span per GraphQL resolver. Not parallel: it sets the global provider.
func TestTracesSpanHTTPGraphQLAndSQL(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	if !tracing.On() {
		t.Fatal("an SDK provider is installed but tracing says off")
	}
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	u := app.MustUser()
	f := app.MustFarm(u, "Traced Farm")
	exp.Reset()

	const parent = "4bf92f3577b34da6a3ce929d0e0e4736"
	res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/records", u.Token, nil, "traceparent", "00-"+parent+"-00f067aa0ba902b7-01")
	if res.Status != http.StatusOK {
		t.Fatalf("records: %d", res.Status)
	}
	if out := app.GraphQL(u.Token, `query Herd { farms(first: 5) { edges { node { name settings { organic } } } } }`, nil); out["errors"] != nil {
		t.Fatalf("GraphQL: %v", out)
	}

	spans := exp.GetSpans()
	byName := map[string]tracetest.SpanStub{}
	sql := 0
	for _, s := range spans {
		byName[s.Name] = s
		if s.Name == "sql" {
			sql++
		}
	}
	rest, ok := byName["GET /v1/farm/{farm_id}/records"]
	if !ok {
		t.Fatalf("no span for the records route; spans: %v", names(spans))
	}
	if rest.SpanContext.TraceID().String() != parent {
		t.Errorf("the server span did not continue the caller's trace: %s", rest.SpanContext.TraceID())
	}
	if sql < 4 {
		t.Errorf("%d SQL spans, want the records list's 4 statements and GraphQL's", sql)
	}
	gql, ok := byName["/graphql"]
	if !ok {
		t.Fatalf("no span for /graphql; spans: %v", names(spans))
	}
	if _, ok := byName["Farm.settings"]; !ok {
		t.Errorf("no resolver span Farm.settings; spans: %v", names(spans))
	}
	found := false
	for _, a := range gql.Attributes {
		if a.Key == "graphql.operation.name" && a.Value.AsString() == "Herd" {
			found = true
		}
	}
	if !found {
		t.Errorf("the GraphQL span does not name its operation: %v", gql.Attributes)
	}
}

func names(spans tracetest.SpanStubs) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}
