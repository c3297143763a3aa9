// Package rest is the REST compatibility facade of SPEC.md. Handlers decode, call the
// service layer and encode the documented shapes; no business rule lives here.
package rest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
	"github.com/herdbook/herdbook/internal/ratelimit"
)

// Config configures the facade.
type Config struct {
	// BaseURL is the public address of the service, for absolute URLs such as File.url.
	BaseURL string
	// Limits holds the API rate-limit counters: nil keeps them in this process's memory;
	// the OAuth endpoints' store (Redis when configured) lets API nodes share budgets.
	Limits ratelimit.Store
	// ClientIP finds the client address that budgets are kept by.
	ClientIP ratelimit.ClientIP
	// APIRateLimit is how many requests one legacy key, or else one client address, may
	// make per APIRateWindow to the farms, records, notifications and files operations.
	// Zero means DefaultAPIRateLimit.
	APIRateLimit int64
	// APIRateWindow is the window of that budget. Zero means DefaultAPIRateWindow.
	APIRateWindow time.Duration
}

// DefaultAPIRateLimit is SPEC.md's budget: 100 requests per 15-minute window.
const DefaultAPIRateLimit = 100

// DefaultAPIRateWindow is SPEC.md's window of the API rate limit.
const DefaultAPIRateWindow = 15 * time.Minute

// Handler serves the REST facade.
type Handler struct {
	svc   *herdbook.Service
	cfg   Config
	mux   *http.ServeMux
	limit func(http.Handler) http.Handler
	// bodiless holds the mux patterns of the operations that answer errors without a body.
	bodiless map[string]bool
	// methods lists each path's methods, in the order registered.
	methods map[string][]string
	// fixed routes the methods a path ending in a fixed segment does not have, so that GET
	// …/animals/import is a 405 rather than the animal "import" of GET …/animals/{animal_id}.
	fixed *http.ServeMux
}

// Prefixes are the path prefixes the facade is mounted under: /v1 is canonical.
var Prefixes = []string{"/v1", "/api/v1"}

// NewHandler returns the facade over svc, serving every route under both prefixes.
func NewHandler(svc *herdbook.Service, cfg Config) *Handler {
	h := &Handler{svc: svc, cfg: cfg, mux: http.NewServeMux(), bodiless: map[string]bool{}, methods: map[string][]string{}}
	h.limit = h.rateLimiter()
	h.routes()
	h.birthRoutes()
	h.fixedPaths()
	return h
}

// fixedPaths fills h.fixed: for every path whose last segment is fixed (…/animals/import,
// …/records.csv), each method it lacks is a pattern there, more specific than a wildcard
// route (…/animals/{animal_id}) that would otherwise take the segment for an id.
func (h *Handler) fixedPaths() {
	h.fixed = http.NewServeMux()
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for path, have := range h.methods {
		if strings.HasSuffix(path, "}") {
			continue
		}
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if slices.Contains(have, m) {
				continue
			}
			for _, p := range Prefixes {
				h.fixed.Handle(m+" "+p+path, noop)
			}
		}
	}
}

// allowed is the Allow header of a path: its methods, and HEAD where it has GET, sorted as
// ServeMux writes them for its own 405s.
func (h *Handler) allowed(r *http.Request) string {
	_, pattern := h.fixed.Handler(r)
	_, path, _ := strings.Cut(pattern, " ")
	for _, p := range Prefixes {
		if rest, ok := strings.CutPrefix(path, p+"/"); ok {
			path = "/" + rest
			break
		}
	}
	list := slices.Clone(h.methods[path])
	if slices.Contains(list, "GET") {
		list = append(list, "HEAD")
	}
	slices.Sort(list)
	return strings.Join(list, ", ")
}

// handle registers one operation under every prefix: behind the API rate limit when the
// operation is one SPEC.md limits (farms, records, notifications, files), and behind the
// authentication gate unless it is public.
func (h *Handler) handle(method, path string, fn http.HandlerFunc) {
	h.register(method, path, fn, httpapi.WriteError)
}

// handleBodiless registers an operation that answers every error with its status and no
// body, as SPEC.md asks of the birth-history settings and evidence operations.
func (h *Handler) handleBodiless(method, path string, fn http.HandlerFunc) {
	for _, p := range Prefixes {
		h.bodiless[method+" "+p+path] = true
	}
	h.register(method, path, fn, httpapi.WriteEmpty)
}

func (h *Handler) register(method, path string, fn http.HandlerFunc, fail func(http.ResponseWriter, *http.Request, error)) {
	h.methods[path] = append(h.methods[path], method)
	route := method + " /v1" + path // one label for /v1 and /api/v1 in the metrics
	strict := strictQuery(method, path, fn, fail)
	var handler http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.NoteRoute(r.Context(), route)
		strict.ServeHTTP(w, r)
	})
	if !public(path) {
		handler = authenticated(handler, fail)
	}
	if rateLimited(path) {
		handler = h.limit(handler)
	}
	for _, p := range Prefixes {
		h.mux.Handle(method+" "+p+path, handler)
	}
}

// public tells the operations anyone may call: only the OpenAPI document.
func public(path string) bool { return path == "/openapi.json" }

// authenticated answers anonymous requests 401 before the operation reads anything: the
// check order is authentication first, so an anonymous caller learns nothing from how its
// body, path or paging would have been judged.
func authenticated(next http.Handler, fail func(http.ResponseWriter, *http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := herdbook.RequireViewer(r.Context()); err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="herdbook"`)
			fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// rateLimited tells the operations with SPEC.md's API budget. The birth-history and
// farm-task operations have none published, and the OpenAPI document is free.
func rateLimited(path string) bool {
	switch {
	case strings.Contains(path, "/birth-history/"), strings.Contains(path, "/farm-tasks"), path == "/openapi.json":
		return false
	}
	return strings.HasPrefix(path, "/farm") || strings.HasPrefix(path, "/file")
}

// rateLimiter counts requests per legacy key when one is sent (hashed: a key never
// becomes a counter name), otherwise per client address.
func (h *Handler) rateLimiter() func(http.Handler) http.Handler {
	store := h.cfg.Limits
	if store == nil {
		store = ratelimit.NewMemoryStore(nil)
	}
	limit := h.cfg.APIRateLimit
	if limit <= 0 {
		limit = DefaultAPIRateLimit
	}
	window := h.cfg.APIRateWindow
	if window <= 0 {
		window = DefaultAPIRateWindow
	}
	l := ratelimit.New(store, "api", limit, window)
	key := func(r *http.Request) string {
		if k := r.Header.Get("X-API-Key"); k != "" {
			sum := sha256.Sum256([]byte(k))
			return "key:" + hex.EncodeToString(sum[:])
		}
		return "ip:" + h.cfg.ClientIP.Of(r)
	}
	limited := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.ERATELIMITED,
			"rate limit exceeded: at most %d requests per %s; retry after %s seconds", limit, windowText(window), w.Header().Get("Retry-After")))
	})
	failed := func(w http.ResponseWriter, r *http.Request, err error) {
		slog.WarnContext(r.Context(), "rate limiter unavailable; request let through", "err", err, "request_id", httpapi.RequestID(r.Context()))
	}
	return l.Middleware(key, limited, failed)
}

// windowText says a rate-limit window as people do: "15 minutes", "1 hour", "90s".
func windowText(d time.Duration) string {
	switch {
	case d == time.Hour:
		return "hour"
	case d == time.Minute:
		return "minute"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + " hours"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + " minutes"
	}
	return d.String()
}

// ServeHTTP dispatches to the operation, answering unknown paths (404) and wrong methods
// (405, with Allow) with the error envelope instead of plain text.
// Routable reports whether r names an operation of the API (a path with its method): the
// idempotency middleware in front answers only for those, so that a reused
// Idempotency-Key on an unknown path or method still gets its 404 or 405.
func (h *Handler) Routable(r *http.Request) bool {
	if _, wrong := h.fixed.Handler(r); wrong != "" {
		return false
	}
	_, pattern := h.mux.Handler(r)
	return pattern != ""
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, wrong := h.fixed.Handler(r); wrong != "" {
		w.Header().Set("Allow", h.allowed(r))
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EMETHOD, "method %s is not allowed on %s", r.Method, r.URL.Path))
		return
	}
	if _, pattern := h.mux.Handler(r); pattern == "" {
		rec := &statusOnly{header: w.Header()}
		h.mux.ServeHTTP(rec, r)
		if rec.status == http.StatusMethodNotAllowed {
			httpapi.WriteError(w, r, herdbook.Errorf(herdbook.EMETHOD, "method %s is not allowed on %s", r.Method, r.URL.Path))
			return
		}
		httpapi.WriteError(w, r, herdbook.Errorf(herdbook.ENOTFOUND, "no route %s %s", r.Method, r.URL.Path))
		return
	}
	h.mux.ServeHTTP(w, r)
}

// statusOnly captures the status ServeMux would write for an unmatched request.
type statusOnly struct {
	header http.Header
	status int
}

func (s *statusOnly) Header() http.Header         { return s.header }
func (s *statusOnly) Write(b []byte) (int, error) { return len(b), nil }
func (s *statusOnly) WriteHeader(code int)        { s.status = code }

// pathID parses a uuid path parameter. A malformed id is a 400 naming the parameter; the
// authentication gate has answered anonymous callers before.
func (h *Handler) pathID(r *http.Request, name string) (uuid.UUID, error) {
	raw := r.PathValue(name)
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return uuid.Nil, herdbook.Invalid(herdbook.FieldError{Field: name, Message: "must be a UUID"})
	}
	return id, nil
}

// pathIDs parses a farm-scoped path's two ids: the farm's and the resource's.
func (h *Handler) pathIDs(r *http.Request, farm, child string) (farmID, childID uuid.UUID, err error) {
	if farmID, err = h.pathID(r, farm); err != nil {
		return
	}
	childID, err = h.pathID(r, child)
	return
}

// page reads skip and take. Absent values are nil; anything but a whole number is a 400.
// farmList answers GET on a farm's paged list: the farm id from the path, skip/take, the
// service's page, and each element in its REST shape, as {total, records}.
func farmList[T any, J any](h *Handler, load func(context.Context, uuid.UUID, herdbook.Page) ([]T, int, error), shape func(T) J) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		farmID, err := h.pathID(r, "farm_id")
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		p, err := page(r)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		items, total, err := load(r.Context(), farmID, p)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		out := make([]J, len(items))
		for i, it := range items {
			out[i] = shape(it)
		}
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": out})
	}
}

func page(r *http.Request) (herdbook.Page, error) {
	var (
		p  herdbook.Page
		fe []herdbook.FieldError
	)
	q := r.URL.Query()
	// A parameter given empty (?take=) is refused as any other non-number: it was read as
	// absent, and the client got every row.
	if q.Has("skip") {
		s := q.Get("skip")
		n, err := strconv.Atoi(s)
		if err != nil {
			fe = append(fe, herdbook.FieldError{Field: "skip", Message: "must be a whole number"})
		}
		p.Skip = n
	}
	if q.Has("take") {
		s := q.Get("take")
		n, err := strconv.Atoi(s)
		if err != nil {
			fe = append(fe, herdbook.FieldError{Field: "take", Message: "must be a whole number"})
		}
		p.Take = &n
	}
	return p, herdbook.Invalid(fe...)
}

// updatedSince reads the change-feed cursor of a list (docs/api.md#change-feed); absent is
// nil, and an empty value is a cursor the service refuses.
func updatedSince(r *http.Request) *string {
	q := r.URL.Query()
	if !q.Has("updated_since") {
		return nil
	}
	s := q.Get("updated_since")
	return &s
}

// nullable tells an absent JSON field (Set false) from null (Null true) and a value.
type nullable[T any] struct {
	Set  bool
	Null bool
	V    T
}

func (n *nullable[T]) UnmarshalJSON(b []byte) error {
	n.Set = true
	if string(b) == "null" {
		n.Null = true
		return nil
	}
	return json.Unmarshal(b, &n.V)
}

// JSONShape tells httpapi.Unmarshal to check the value behind the wrapper as a T (or null)
// before UnmarshalJSON decodes it: unknown keys, missing numbers and the text rule inside a
// nullable are judged like anywhere else.
func (nullable[T]) JSONShape() any { return (*T)(nil) }

// ptr returns the value, or nil when absent or null.
func (n nullable[T]) ptr() *T {
	if !n.Set || n.Null {
		return nil
	}
	v := n.V
	return &v
}

// optional converts to the service's patch value.
func (n nullable[T]) optional() herdbook.Optional[T] {
	return herdbook.Optional[T]{Set: n.Set, Value: n.ptr()}
}

// notNull returns the value of an optional field that may be absent but not null.
func notNull[T any](f *fieldList, field string, n nullable[T]) *T {
	if n.Set && n.Null {
		f.add(field, "may be left out but not null")
	}
	return n.ptr()
}

type fieldList []herdbook.FieldError

func (f *fieldList) add(field, msg string) {
	*f = append(*f, herdbook.FieldError{Field: field, Message: msg})
}

// uuids parses a list of uuid strings, naming each bad entry.
func (f *fieldList) uuids(field string, raw []string) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(raw))
	for i, s := range raw {
		id, err := uuid.Parse(s)
		if err != nil || len(s) != 36 {
			f.add(field+"["+strconv.Itoa(i)+"]", "must be a UUID")
			continue
		}
		out = append(out, id)
	}
	return out
}

// dateTime parses an ISO 8601 date-time with a time zone.
func (f *fieldList) dateTime(field string, raw *string) *time.Time {
	if raw == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*raw))
	if err != nil {
		f.add(field, "must be an ISO 8601 date-time with a time zone, e.g. 2026-03-01T08:00:00Z")
		return nil
	}
	return &t
}

func (f fieldList) err() error { return herdbook.Invalid(f...) }
