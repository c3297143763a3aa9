// Command schemagen writes the GraphQL schema, as the server executes it, in SDL: the file a
// client's code generator reads (web/contract/schema.graphql), so that no server needs to run
// for it. `go generate ./...` runs it after gqlgen.
//
//	go run ./internal/schemagen web/contract/schema.graphql
package main

import (
	"fmt"
	"os"

	"github.com/herdbook/herdbook/graph"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: schemagen FILE")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], graph.SDL(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}
