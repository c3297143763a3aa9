package main

import (
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
			if _, err := c.run("", "export", "medicine-book", "--farm", uuid.NewString()); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Fatalf("unknown farm: %v", err)
			}
			if _, err := c.run("", "export", "medicine-book", "--farm", farm, "--from", "2025-02-30"); err == nil || !strings.Contains(err.Error(), "from") {
				t.Fatalf("bad date: %v", err)
			}
		})
	}
}
