package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupCommands runs herdbook backup and herdbook restore as an operator would on the
// embedded default: the restored data directory serves the same users. The consistency of a
// backup taken under load is internal/backup's test.
func TestBackupCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	c.dbURL = "" // the embedded default inside the data directory
	if _, err := c.run("a long password", "admin", "user", "create", "--phone", "+4791234567", "--name", "Kari", "--password-stdin"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(c.dataDr, "blobs", "x"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dataDr, "blobs", "x", "y"), []byte("bytes"), 0o640); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "b1")
	out := c.mustJSON("", "backup", "--output", dir)
	if m := out["manifest"].(map[string]any); m["blobs"] != 1.0 || m["dialect"] != "sqlite3" {
		t.Fatalf("backup: %v", out)
	}
	if _, err := c.run("", "backup", "--output", dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("a backup over a backup: %v", err)
	}
	if _, err := c.run("", "backup"); err == nil || !strings.Contains(err.Error(), "--output") {
		t.Fatalf("backup without --output: %v", err)
	}

	fresh := &cli{t: t, dataDr: t.TempDir()}
	if _, err := fresh.run("", "restore"); err == nil || !strings.Contains(err.Error(), "--from") {
		t.Fatalf("restore without --from: %v", err)
	}
	text, err := fresh.run("", "restore", "--from", dir)
	if err != nil || !strings.Contains(text, "restored") {
		t.Fatalf("restore: %v\n%s", err, text)
	}
	if b, err := os.ReadFile(filepath.Join(fresh.dataDr, "blobs", "x", "y")); err != nil || string(b) != "bytes" {
		t.Fatalf("restored blob: %q %v", b, err)
	}
	// The restored installation knows the user: a second one with the same phone is refused.
	if _, err := fresh.run("another password", "admin", "user", "create", "--phone", "+4791234567", "--name", "Kari", "--password-stdin"); err == nil {
		t.Fatal("the restored database lost its user")
	}
	// Restoring over a live data directory is refused.
	if _, err := fresh.run("", "restore", "--from", dir); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("restore over data: %v", err)
	}
}
