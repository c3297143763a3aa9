package graph

import (
	"net/http"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/tracing"
)

// APQCacheSize bounds the automatic persisted queries kept in memory (least recently used
// first out): a client that sends only a hash of an evicted query is told
// PERSISTED_QUERY_NOT_FOUND and sends the query again, so the bound costs a round trip,
// never an answer, and hash-only requests cannot grow the server's memory.
const APQCacheSize = 1000

// FarmHintHeader names the farm a GraphQL request is about, as the web app sends it from the
// page it is on: a node found by its global id is looked for on that farm first, which on a
// Citus cluster is one shard rather than all (docs/scaling.md). Optional and only a hint: a
// request without it, or with another farm, gets the same answers.
const FarmHintHeader = "Herdbook-Farm"

// NewHandler serves the graph: POST executes operations (mutations in one transaction each),
// GET executes queries sent as URL parameters (cacheable reads; mutations are refused) and,
// without an operation, serves the GraphiQL explorer from files inside the binary. Every
// request is held to the limits of limits.go before any resolver runs.
func NewHandler(svc *herdbook.Service, client *ent.Client) http.Handler {
	return NewHandlerWith(svc, client, Options{})
}

// Options tune NewHandlerWith; zero fields take the defaults.
type Options struct {
	// MaxAnswerBytes is the ceiling on the bytes of one answer (DefaultMaxAnswerBytes).
	MaxAnswerBytes int64
}

// NewHandlerWith is NewHandler with options.
func NewHandlerWith(svc *herdbook.Service, client *ent.Client, opts Options) http.Handler {
	if opts.MaxAnswerBytes <= 0 {
		opts.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	schema := NewExecutableSchema(Config{Resolvers: NewResolver(svc)})
	srv := handler.New(schema)
	srv.AddTransport(transport.GET{})
	srv.AddTransport(postJSON{})
	validated := newDocumentCache()
	srv.SetQueryCache(validated)
	srv.SetParserTokenLimit(MaxTokens)
	srv.Use(extension.Introspection{})
	// The order matters: the size check comes before the persisted-query cache stores a
	// text, the shape check after it has looked one up, and both before gqlgen validates.
	srv.Use(documentSize{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](APQCacheSize)})
	srv.Use(documentShape{validated: validated})
	srv.Use(newOperationLimits(schema.Schema()))
	srv.Use(entgql.Transactioner{TxOpener: client})
	srv.AroundOperations(withReferences)
	srv.AroundOperations(answerCeiling(opts.MaxAnswerBytes))
	srv.AroundFields(countAnswer)
	srv.AroundFields(textRule)
	if tracing.On() {
		// A span per resolver field, only when traces are configured: the middleware
		// would otherwise cost every field of every answer.
		srv.AroundFields(traceResolver)
	}
	srv.AroundOperations(asKnown(svc))
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(recoverPanic)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && !isOperationRequest(r) {
			explorerPage.ServeHTTP(w, r)
			return
		}
		// A withdrawal refusal names the argument the graph has.
		ctx := herdbook.WithAcknowledgeField(r.Context(), "acknowledgeWithdrawal: true")
		// The farm the request is about, when the client says (FarmHintHeader).
		if f, err := uuid.Parse(r.Header.Get(FarmHintHeader)); err == nil {
			ctx = herdbook.WithFarmHint(ctx, f)
		}
		srv.ServeHTTP(w, r.WithContext(ctx))
	})
}
