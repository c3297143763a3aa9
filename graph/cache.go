package graph

import (
	"container/list"
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// documentCacheBytes bounds the query text of the documents kept in the cache. A parsed and
// validated document takes about 30 times its text in memory, so this keeps the cache
// near 60 MB, however large the documents clients send.
const documentCacheBytes = 2 << 20

// documentCache keeps validated documents, so that a document seen before is neither
// parsed nor validated again. It forgets the least recently used ones when their text
// exceeds documentCacheBytes: a cache bounded by count alone (gqlgen's lru) lets a client
// fill it with a thousand of the largest documents the limits admit, each under a new
// comment, for about 750 MB.
type documentCache struct {
	mu    sync.Mutex
	order *list.List // of *cached, most recently used first
	byKey map[string]*list.Element
	bytes int
}

type cached struct {
	query string
	doc   *ast.QueryDocument
}

var _ graphql.Cache[*ast.QueryDocument] = (*documentCache)(nil)

func newDocumentCache() *documentCache {
	return &documentCache{order: list.New(), byKey: map[string]*list.Element{}}
}

// Get returns the document validated for query, if it is kept.
func (c *documentCache) Get(_ context.Context, query string) (*ast.QueryDocument, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[query]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).doc, true
}

// Add keeps doc, validated from query, and forgets the least recently used documents beyond
// the budget.
func (c *documentCache) Add(_ context.Context, query string, doc *ast.QueryDocument) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[query]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.byKey[query] = c.order.PushFront(&cached{query: query, doc: doc})
	c.bytes += len(query)
	for c.bytes > documentCacheBytes {
		oldest := c.order.Remove(c.order.Back()).(*cached)
		delete(c.byKey, oldest.query)
		c.bytes -= len(oldest.query)
	}
}
