package graph

import (
	"net/http"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/playground"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
)

// NewHandler serves the graph: POST executes operations (mutations in one transaction each),
// GET serves the GraphiQL explorer for developers. Every request is held to the limits of
// limits.go before any resolver runs.
func NewHandler(svc *herdbook.Service, client *ent.Client) http.Handler {
	schema := NewExecutableSchema(Config{Resolvers: NewResolver(svc)})
	srv := handler.New(schema)
	srv.AddTransport(postJSON{})
	validated := newDocumentCache()
	srv.SetQueryCache(validated)
	srv.SetParserTokenLimit(MaxTokens)
	srv.Use(extension.Introspection{})
	// The order matters: the size check comes before the persisted-query cache stores a
	// text, the shape check after it has looked one up, and both before gqlgen validates.
	srv.Use(documentSize{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	srv.Use(documentShape{validated: validated})
	srv.Use(newOperationLimits(schema.Schema()))
	srv.Use(entgql.Transactioner{TxOpener: client})
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(recoverPanic)
	explorer := playground.Handler("Herdbook GraphQL", "/graphql")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			explorer.ServeHTTP(w, r)
			return
		}
		srv.ServeHTTP(w, r)
	})
}
