package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func TestExportMedicineBook(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			c.mustJSON("a very long password\n", "admin", "user", "create", "--phone", "+4790000021", "--password-stdin")
			seeded := c.mustJSON("", "admin", "seed", "--owner", "+4790000021", "--farms", "1", "--animals", "1", "--groups", "1", "--records", "1", "--items", "1")
			farm := seeded["farm_ids"].([]any)[0].(string)
			out, err := c.run("", "export", "medicine-book", "--farm", farm, "--from", "2025-01-01")
			if err != nil {
				t.Fatalf("export: %v\n%s", err, out)
			}
			if !strings.HasPrefix(out, "date,animal_id,animal_tag,group_id,group_name,medicine_id,") || strings.Count(out, "\n") != 1 {
				t.Fatalf("a farm without treatments: %q", out)
			}
			// Issue 22.6: --json printed CSV, and the file was --out where the other exports
			// say --output (kept as a deprecated alias).
			if _, err := c.run("", "export", "medicine-book", "--farm", farm, "--json"); err == nil || !strings.Contains(err.Error(), "--output") {
				t.Fatalf("--json without --output: %v", err)
			}
			file := filepath.Join(t.TempDir(), "book.csv")
			sum := c.mustJSON("", "export", "medicine-book", "--farm", farm, "--output", file)
			if sum["what"] != "medicine-book" || sum["rows"] != 0.0 || sum["output"] != file {
				t.Fatalf("summary %v", sum)
			}
			old := filepath.Join(t.TempDir(), "old.csv")
			if _, err := c.run("", "export", "medicine-book", "--farm", farm, "--out", old); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{file, old} {
				b, err := os.ReadFile(f)
				if err != nil || !strings.HasPrefix(string(b), "date,animal_id,") {
					t.Fatalf("%s: %v %q", f, err, b)
				}
			}
			if _, err := c.run("", "export", "medicine-book", "--farm", uuid.NewString()); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Fatalf("unknown farm: %v", err)
			}
			if _, err := c.run("", "export", "medicine-book", "--farm", farm, "--from", "2025-02-30"); err == nil || !strings.Contains(err.Error(), "from") {
				t.Fatalf("bad date: %v", err)
			}
		})
	}
}
