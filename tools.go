//go:build tools

package herdbook

// Tools that `go generate` runs, pinned in go.mod.
import (
	_ "entgo.io/contrib/entgql"
	_ "github.com/99designs/gqlgen"
)
