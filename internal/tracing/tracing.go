// Package tracing sends OpenTelemetry traces of HTTP requests, GraphQL resolvers and SQL
// statements to an OTLP collector (docs/operations.md). It is off unless configured: with no
// endpoint, the global tracer provider stays OpenTelemetry's no-op one, and the
// instrumentation below checks IsRecording before it builds anything.
package tracing

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/herdbook/herdbook/internal/httpapi"
	"github.com/herdbook/herdbook/internal/tracectx"
)

// Name is the instrumentation scope of Herdbook's spans.
const Name = "github.com/herdbook/herdbook"

// Config says where traces go.
type Config struct {
	// Endpoint is the OTLP/HTTP collector's base URL (http://HOST:4318); "" leaves tracing
	// off unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set,
	// which the exporter reads itself.
	Endpoint string
	// Version is the running build's version, for the resource.
	Version string
	// Getenv reads the environment (the standard OTEL_* variables).
	Getenv func(string) string
}

// Enabled tells whether the configuration asks for traces.
func (c Config) Enabled() bool {
	return c.Endpoint != "" || c.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || c.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs the global tracer provider and the W3C trace-context propagator when
// tracing is enabled. The returned function flushes and stops it.
func Setup(ctx context.Context, c Config) (func(context.Context) error, error) {
	if !c.Enabled() {
		return func(context.Context) error { return nil }, nil
	}
	var opts []otlptracehttp.Option
	if c.Endpoint != "" {
		opts = append(opts, otlptracehttp.WithEndpointURL(c.Endpoint+"/v1/traces"))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, err
	}
	res := resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName("herdbook"), semconv.ServiceVersion(c.Version))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(5*time.Second)), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, nil
}

// Middleware starts a server span per request, continuing the caller's trace when it sends
// traceparent. The span is named for the route pattern that served it, noted by the routers
// (httpapi.NoteRoute), never the raw path.
func Middleware(next http.Handler) http.Handler {
	tracer := otel.Tracer(Name)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !On() {
			next.ServeHTTP(w, r)
			return
		}
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method)))
		defer span.End()
		r, note := httpapi.WithRouteNote(r.WithContext(tracectx.WithRoot(ctx, span)))
		sw := httpapi.NewStatusWriter(w)
		next.ServeHTTP(sw, r)
		if route := note.Route(); route != "" {
			span.SetName(route)
			span.SetAttributes(semconv.HTTPRoute(route))
		}
		if op := note.Operation(); op != "" {
			span.SetAttributes(attribute.String("graphql.operation.name", op))
		}
		span.SetAttributes(semconv.HTTPResponseStatusCode(sw.Status()))
		if sw.Status() >= 500 {
			span.SetStatus(2, http.StatusText(sw.Status())) // codes.Error
		}
	})
}

// On tells whether a real tracer provider is installed: the no-op one records nothing.
func On() bool {
	_, sdk := otel.GetTracerProvider().(*sdktrace.TracerProvider)
	return sdk
}

// Start starts a child span when the context's trace is recording, and otherwise returns
// the context as it is with a span that does nothing: the SQL and resolver instrumentation
// cost nothing while tracing is off.
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	pctx, ok := tracectx.Parent(ctx)
	if !ok {
		return ctx, trace.SpanFromContext(ctx)
	}
	return otel.Tracer(Name).Start(pctx, name, trace.WithAttributes(attrs...))
}
