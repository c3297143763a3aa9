package herdbooktest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// AppOperation is the document the web app sends for its operation op in the file
// web/app/src/graphql/file: the operation and the fragments it spreads, as graphql-codegen
// writes them into the app, so that the server parses, validates and runs what the app asks.
// root is the repository's root from the calling test's package.
func AppOperation(tb testing.TB, root, file, op string) string {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join(root, "web", "app", "src", "graphql", file))
	if err != nil {
		tb.Fatal(err)
	}
	doc, gerr := parser.ParseQuery(&ast.Source{Name: file, Input: string(src)})
	if gerr != nil {
		tb.Fatal(gerr)
	}
	o := doc.Operations.ForName(op)
	if o == nil {
		tb.Fatalf("%s has no operation %s", file, op)
	}
	out := src[o.Position.Start:operationEnd(src, o.Position.Start)]
	// A fragment may live in another of the app's files (graphql-codegen reads them all).
	fragments := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(root, "web", "app", "src", "graphql", "*.graphql"))
	for _, f := range files {
		other, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		d, gerr := parser.ParseQuery(&ast.Source{Name: f, Input: string(other)})
		if gerr != nil {
			tb.Fatal(gerr)
		}
		for _, fr := range d.Fragments {
			fragments[fr.Name] = other
			if filepath.Base(f) != file {
				doc.Fragments = append(doc.Fragments, fr)
			}
		}
	}
	// The fragments it spreads, and theirs.
	seen := map[string]bool{}
	var spreads func(set ast.SelectionSet)
	spreads = func(set ast.SelectionSet) {
		for _, s := range set {
			switch s := s.(type) {
			case *ast.Field:
				spreads(s.SelectionSet)
			case *ast.InlineFragment:
				spreads(s.SelectionSet)
			case *ast.FragmentSpread:
				if seen[s.Name] {
					continue
				}
				seen[s.Name] = true
				f := doc.Fragments.ForName(s.Name)
				if f == nil {
					tb.Fatalf("%s: no fragment %s", file, s.Name)
				}
				in := fragments[s.Name]
				out = append(append(out, '\n'), in[f.Position.Start:operationEnd(in, f.Position.Start)]...)
				spreads(f.SelectionSet)
			}
		}
	}
	spreads(o.SelectionSet)
	return string(out)
}

// operationEnd is where the definition starting at start ends: after the brace that closes
// its selection set (the app's documents have no braces in strings or comments inside one).
func operationEnd(src []byte, start int) int {
	depth := 0
	for i := start; i < len(src); i++ {
		switch src[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(src)
}
