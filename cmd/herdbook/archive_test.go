package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestFarmArchiveCommands moves a seeded farm through export farm and import farm
// (docs/archive.md): the new farm's archive holds as many rows of each kind.
func TestFarmArchiveCommands(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			c.mustJSON("", "admin", "user", "create", "--phone", "+4790000021")
			s := c.mustJSON("", "admin", "seed", "--owner", "+4790000021", "--farms", "1", "--animals", "12", "--groups", "2", "--records", "20")
			farmID := s["farm_ids"].([]any)[0].(string)
			dir := t.TempDir()
			file := filepath.Join(dir, "farm.json")

			out := c.mustJSON("", "export", "farm", "--farm", farmID, "--output", file)
			if out["format"] != "herdbook.farm-archive" || out["animals"] != 12.0 || out["records"] == 0.0 || out["output"] != file {
				t.Fatalf("export farm = %v", out)
			}
			in := c.mustJSON("", "import", "farm", "--user", "+4790000021", file)
			newID, _ := in["farm_id"].(string)
			if in["ok"] != true || newID == "" || newID == farmID {
				t.Fatalf("import farm = %v", in)
			}
			again := c.mustJSON("", "export", "farm", "--farm", newID, "--output", filepath.Join(dir, "again.json"))
			for _, k := range []string{"animals", "outside_animals", "groups", "records", "events", "audit_entries", "births", "tasks", "medicines"} {
				if again[k] != out[k] {
					t.Fatalf("%s: %v exported, %v after the round trip", k, out[k], again[k])
				}
			}
			human, err := c.run("", "export", "farm", "--farm", farmID, "--output", filepath.Join(dir, "h.json"))
			if err != nil || !strings.Contains(human, "exported farm "+farmID) {
				t.Fatalf("export farm: %v\n%s", err, human)
			}

			bad := filepath.Join(dir, "bad.json")
			if err := os.WriteFile(bad, []byte(`{"format":"herdbook.farm-archive","formatVersion":7}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := c.run("", "import", "farm", "--user", "+4790000021", bad); err == nil || !strings.Contains(err.Error(), "formatVersion: is 7") {
				t.Fatalf("unknown version: %v", err)
			}
			if _, err := c.run("", "import", "farm", bad); err == nil || !strings.Contains(err.Error(), "--user is required") {
				t.Fatalf("no owner: %v", err)
			}
			if _, err := c.run("", "export", "farm", "--farm", farmID, "--json"); err == nil || !strings.Contains(err.Error(), "--output") {
				t.Fatalf("--json without --output: %v", err)
			}
		})
	}
}
