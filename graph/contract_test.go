package graph_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/herdbook/herdbook/graph"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// contractDir holds the web app's operations and the pinned tools that compile them.
const contractDir = "../web/contract"

// TestContractSchemaIsCurrent: the schema file the web app's code generator reads is the
// schema the server executes (`go generate ./...` writes it).
func TestContractSchemaIsCurrent(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(contractDir, "schema.graphql"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, graph.SDL()) {
		t.Fatal("web/contract/schema.graphql is not the executable schema: run go generate ./...")
	}
}

// TestWebContractCompiles generates TypeScript for the web app's operations with the pinned
// @graphql-codegen/cli (which validates every operation against the schema) and compiles a
// client that uses the answers with tsc --strict. It needs Node.js and
// scripts/install-codegen.sh; without them it skips, unless HERDBOOK_REQUIRE_NODE=1 (as in
// CI) makes that a failure.
func TestWebContractCompiles(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(contractDir, "node_modules", ".bin")
	_, nodeErr := exec.LookPath("node")
	_, toolsErr := os.Stat(filepath.Join(bin, "graphql-codegen"))
	if nodeErr != nil || toolsErr != nil {
		if os.Getenv("HERDBOOK_REQUIRE_NODE") == "1" {
			t.Fatalf("Node.js or the contract's tools are missing (%v, %v) and HERDBOOK_REQUIRE_NODE=1: run scripts/install-codegen.sh", nodeErr, toolsErr)
		}
		herdbooktest.SkipMissing(t, "Node.js or web/contract/node_modules missing: run scripts/install-codegen.sh (HERDBOOK_REQUIRE_NODE=1 makes this a failure)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, step := range [][]string{
		{"graphql-codegen", "--config", "codegen.yml", "--silent"},
		{"tsc", "-p", "tsconfig.json"},
	} {
		start := time.Now()
		abs, err := filepath.Abs(filepath.Join(bin, step[0]))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(ctx, abs, step[1:]...)
		cmd.Dir = contractDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", step[0], err, out)
		}
		t.Logf("%s: %s", step[0], time.Since(start).Round(time.Millisecond))
	}
}
