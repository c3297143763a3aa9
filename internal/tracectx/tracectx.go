// Package tracectx finds the span a new span should hang under. GraphQL resolves a field's
// children with the context its resolver ran in, after that resolver's span has ended; a
// span started there would hang under an ended span and be dropped. The request's server
// span is kept aside in the context so that such spans hang under it instead.
package tracectx

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

type rootKey struct{}

// WithRoot keeps the request's server span in the context.
func WithRoot(ctx context.Context, s trace.Span) context.Context {
	return context.WithValue(ctx, rootKey{}, s)
}

// Parent returns a context whose span is recording, to start a child span in: ctx itself
// while its span records, the request's server span when that one ended, and false when
// nothing records (tracing is off, or the request is over).
func Parent(ctx context.Context) (context.Context, bool) {
	if trace.SpanFromContext(ctx).IsRecording() {
		return ctx, true
	}
	if root, ok := ctx.Value(rootKey{}).(trace.Span); ok && root.IsRecording() {
		return trace.ContextWithSpan(ctx, root), true
	}
	return ctx, false
}
