package server_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/herdbook/herdbook"

// TestTransportsArePeers fails when a transport (REST, OAuth, GraphQL) depends on another, or
// when the shared HTTP package depends on any of them: what they share lives in
// internal/httpapi, and only this package wires them together.
func TestTransportsArePeers(t *testing.T) {
	t.Parallel()
	transports := []string{module + "/rest", module + "/oauth", module + "/graph"}
	pkgs := append(slices.Clone(transports), module+"/internal/httpapi")
	out, err := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		seen++
		for _, other := range transports {
			if other == pkg {
				continue
			}
			for _, d := range deps {
				if d == other || strings.HasPrefix(d, other+"/") {
					t.Errorf("%s depends on %s: transports must stay peers (share through internal/httpapi)", pkg, d)
				}
			}
		}
	}
	if seen != len(pkgs) {
		t.Fatalf("go list described %d packages, want %d:\n%s", seen, len(pkgs), out)
	}
}
