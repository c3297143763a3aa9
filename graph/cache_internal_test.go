package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
)

// TestDocumentCacheBudget wants the cache to forget the least recently used documents once
// their text exceeds the budget, and nothing before.
func TestDocumentCacheBudget(t *testing.T) {
	ctx := context.Background()
	c := newDocumentCache()
	text := func(name string) string { return name + strings.Repeat(" ", documentCacheBytes/4-len(name)) }
	for _, name := range []string{"a", "b", "c", "d"} {
		c.Add(ctx, text(name), &ast.QueryDocument{})
	}
	if _, ok := c.Get(ctx, text("a")); !ok { // a is now the most recently used
		t.Fatal("a document within the budget was forgotten")
	}
	c.Add(ctx, text("e"), &ast.QueryDocument{})
	for name, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true, "e": true} {
		if _, ok := c.Get(ctx, text(name)); ok != want {
			t.Errorf("%s kept: %v, want %v", name, ok, want)
		}
	}
	if c.bytes > documentCacheBytes || c.order.Len() != len(c.byKey) {
		t.Fatalf("%d bytes in %d entries (%d keys)", c.bytes, c.order.Len(), len(c.byKey))
	}
}
