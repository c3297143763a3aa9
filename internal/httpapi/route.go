package httpapi

import (
	"context"
	"net/http"
	"sync"
)

// RouteNote is where the handlers of one request write down which route served it and,
// for GraphQL, which operation: the access log and the metrics label requests with it, so
// that a label is the route's pattern (a few dozen values), never the raw path.
type RouteNote struct {
	mu        sync.Mutex
	route     string
	operation string
}

type routeNoteKey struct{}

// WithRouteNote gives the request a note for its handlers to fill, or returns the one an
// outer middleware gave it already (metrics and tracing read the same note).
func WithRouteNote(r *http.Request) (*http.Request, *RouteNote) {
	if n, ok := r.Context().Value(routeNoteKey{}).(*RouteNote); ok {
		return r, n
	}
	n := &RouteNote{}
	return r.WithContext(context.WithValue(r.Context(), routeNoteKey{}, n)), n
}

// NoteRoute records the route pattern that serves the request; the outer mux's coarser
// pattern ("/v1/") fills in only where no router noted one (NotingMux).
func NoteRoute(ctx context.Context, route string) {
	if n, ok := ctx.Value(routeNoteKey{}).(*RouteNote); ok {
		n.mu.Lock()
		n.route = route
		n.mu.Unlock()
	}
}

// NoteOperation records the GraphQL operation's name (or its type when it has none).
func NoteOperation(ctx context.Context, op string) {
	if n, ok := ctx.Value(routeNoteKey{}).(*RouteNote); ok {
		n.mu.Lock()
		n.operation = op
		n.mu.Unlock()
	}
}

// Route is the noted route, "" when none was.
func (n *RouteNote) Route() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.route
}

// Operation is the noted GraphQL operation, "" when none was.
func (n *RouteNote) Operation() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.operation
}

// NotingMux notes the pattern of mux's route for each request it serves, unless a deeper
// router (the REST facade) noted a finer one. ServeMux sets Request.Pattern on the request it
// was given, so it is read after the handler returns, without a second route lookup.
func NotingMux(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		if n, ok := r.Context().Value(routeNoteKey{}).(*RouteNote); ok {
			n.mu.Lock()
			if n.route == "" {
				n.route = r.Pattern
			}
			n.mu.Unlock()
		}
	})
}
