package graph

import (
	"context"
	"net/http"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
)

// Limits of one GraphQL operation.
const (
	MaxDepth      = 12
	MaxComplexity = 2000
)

// APQCacheSize bounds the automatic persisted queries kept in memory (least recently used
// first out): a client that sends only a hash of an evicted query is told
// PERSISTED_QUERY_NOT_FOUND and sends the query again, so the bound costs a round trip,
// never an answer, and hash-only requests cannot grow the server's memory.
const APQCacheSize = 1000

// NewHandler serves the graph: POST executes operations (mutations in one transaction each);
// GET executes queries sent as URL parameters (cacheable reads; mutations are refused) and,
// without an operation, serves the GraphiQL explorer from files inside the binary.
func NewHandler(svc *herdbook.Service, client *ent.Client) http.Handler {
	srv := handler.New(NewExecutableSchema(Config{Resolvers: NewResolver(svc)}))
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](APQCacheSize)})
	srv.Use(extension.FixedComplexityLimit(MaxComplexity))
	srv.Use(depthLimit{max: MaxDepth})
	srv.Use(entgql.Transactioner{TxOpener: client})
	srv.AroundOperations(withReferences)
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(recoverPanic)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && !isOperationRequest(r) {
			explorerPage.ServeHTTP(w, r)
			return
		}
		srv.ServeHTTP(w, r)
	})
}

// depthLimit refuses operations nested deeper than max fields, before any resolver runs.
type depthLimit struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if depth := selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0); depth > d.max {
		return gqlerror.Errorf("the operation is %d fields deep; at most %d are allowed", depth, d.max)
	}
	return nil
}

func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, seen int) int {
	if seen > 100 {
		return seen // fragment cycles are refused by validation; this is a backstop
	}
	max := 0
	for _, s := range set {
		var d int
		switch s := s.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = 1
			} else {
				d = 1 + selectionDepth(s.SelectionSet, frags, seen+1)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, seen+1)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				d = selectionDepth(f.SelectionSet, frags, seen+1)
			}
		}
		if d > max {
			max = d
		}
	}
	return max
}
