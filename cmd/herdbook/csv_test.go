package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func TestImportExportCommands(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			c.mustJSON("", "admin", "user", "create", "--phone", "+4790000011")
			s := c.mustJSON("", "admin", "seed", "--owner", "+4790000011", "--farms", "1", "--animals", "0", "--groups", "0", "--records", "0")
			farmID := s["farm_ids"].([]any)[0].(string)
			file := filepath.Join(t.TempDir(), "herd.csv")
			if err := os.WriteFile(file, []byte("tag,name,sex,birth_date,dam,group\nC-1,Daisy,female,2020-04-02,,Cows\nC-2,Calf,male,2026-03-20,C-1,Calves\n"), 0o600); err != nil {
				t.Fatal(err)
			}

			dry := c.mustJSON("", "import", "animals", file, "--farm", farmID, "--dry-run")
			if dry["dry_run"] != true || dry["created"] != 2.0 {
				t.Fatalf("dry run = %v", dry)
			}
			res := c.mustJSON("", "import", "animals", "--farm", farmID, file)
			if res["dry_run"] != false || res["created"] != 2.0 || res["groups_created"] != 2.0 || len(res["animals"].([]any)) != 2 {
				t.Fatalf("import = %v", res)
			}
			out, err := c.run("", "import", "animals", "--farm", farmID, file)
			if err != nil || !strings.Contains(out, "imported 2 rows") || !strings.Contains(out, "2 unchanged") {
				t.Fatalf("second import: %v\n%s", err, out)
			}
			// Standard input, and a bad file: every problem on its own line, nothing written.
			_, err = c.run("tag,sex\n,cow\nC-9,male\n", "import", "animals", "--farm", farmID, "-")
			if err == nil || !strings.Contains(err.Error(), "nothing was written:\n  row 2, tag: is required\n  row 2, sex: must be male or female") {
				t.Fatalf("bad file: %v", err)
			}
			// Issue 22.6: with --json a failed import printed nothing on standard output.
			out, err = c.run("tag,sex\n,cow\n", "import", "animals", "--farm", farmID, "-", "--json")
			var failed struct {
				OK       bool `json:"ok"`
				Written  bool `json:"written"`
				Problems []struct {
					Field string `json:"field"`
					Row   int    `json:"row"`
				} `json:"problems"`
			}
			if err == nil || json.Unmarshal([]byte(out), &failed) != nil || failed.OK || failed.Written || len(failed.Problems) != 2 || failed.Problems[0].Row != 2 {
				t.Fatalf("failed import with --json: %v\n%s", err, out)
			}
			if _, err := c.run("", "import", "animals", "--farm", farmID); err == nil || !strings.Contains(err.Error(), "name one CSV file") {
				t.Fatalf("no file: %v", err)
			}
			if _, err := c.run("", "import", "animals", "--farm", "nope", file); err == nil || !strings.Contains(err.Error(), "--farm") {
				t.Fatalf("bad farm: %v", err)
			}

			records := filepath.Join(t.TempDir(), "records.csv")
			ex := c.mustJSON("", "export", "records", "--farm", farmID, "--output", records)
			if ex["what"] != "records" || ex["rows"] == nil {
				t.Fatalf("export records = %v", ex)
			}
			animals := filepath.Join(t.TempDir(), "animals.csv")
			ex = c.mustJSON("", "export", "animals", "--farm", farmID, "--output", animals)
			if ex["rows"] != 2.0 {
				t.Fatalf("export animals = %v", ex)
			}
			f, err := os.Open(animals)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil || len(rows) != 3 || rows[0][0] != "tag" || rows[1][0] != "C-1" || rows[2][1] != "Calf" {
				t.Fatalf("animals.csv = %v %v", rows, err)
			}
			stdout, err := c.run("", "export", "animals", "--farm", farmID)
			if err != nil || !strings.HasPrefix(stdout, "tag,name,") || strings.Count(stdout, "\n") != 3 {
				t.Fatalf("to standard output: %v\n%s", err, stdout)
			}
			if _, err := c.run("", "export", "animals", "--farm", farmID, "--json"); err == nil || !strings.Contains(err.Error(), "--output") {
				t.Fatalf("--json without --output: %v", err)
			}
			if _, err := c.run("", "export", "records", "--farm", farmID, "--from", "2026-02-30"); err == nil || !strings.Contains(err.Error(), "from") {
				t.Fatalf("bad from: %v", err)
			}
		})
	}
}

// TestBreedingCommands: import breeding and export breeding (docs/csv.md) on both databases.
func TestBreedingCommands(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			c.mustJSON("", "admin", "user", "create", "--phone", "+4790000012")
			s := c.mustJSON("", "admin", "seed", "--owner", "+4790000012", "--farms", "1", "--animals", "0", "--groups", "0", "--records", "0")
			farmID := s["farm_ids"].([]any)[0].(string)
			c.mustJSON("tag,sex,birth_date\nC-1,female,2020-04-02\n", "import", "animals", "--farm", farmID, "-")
			file := "kind,date,animal_tag\nheat,2025-06-01,C-1\n"
			if dry := c.mustJSON(file, "import", "breeding", "--farm", farmID, "-", "--dry-run"); dry["dry_run"] != true || dry["created"] != 1.0 {
				t.Fatalf("dry run = %v", dry)
			}
			if res := c.mustJSON(file, "import", "breeding", "--farm", farmID, "-"); res["created"] != 1.0 {
				t.Fatalf("import = %v", res)
			}
			if res := c.mustJSON(file, "import", "breeding", "--farm", farmID, "-"); res["created"] != 0.0 || res["skipped"] != 1.0 {
				t.Fatalf("again = %v", res)
			}
			if _, err := c.run("kind,date,animal_tag\nheat,2025-06-01,NOPE\n", "import", "breeding", "--farm", farmID, "-"); err == nil ||
				!strings.Contains(err.Error(), "nothing was written:\n  row 2, animal_tag: NOPE is neither") {
				t.Fatalf("bad file: %v", err)
			}
			out := filepath.Join(t.TempDir(), "breeding.csv")
			if ex := c.mustJSON("", "export", "breeding", "--farm", farmID, "--output", out); ex["rows"] != 1.0 {
				t.Fatalf("export = %v", ex)
			}
			b, err := os.ReadFile(out)
			if err != nil || !strings.Contains(string(b), "\nheat,2025-06-01,C-1,") {
				t.Fatalf("breeding.csv: %v\n%s", err, b)
			}
		})
	}
}

// TestImportWeighingsCommand: import weighings (docs/csv.md, weigh-scale session files) on
// both databases: a Tru-Test-style file, its repeat, a bad line.
func TestImportWeighingsCommand(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			c.mustJSON("", "admin", "user", "create", "--phone", "+4790000013")
			s := c.mustJSON("", "admin", "seed", "--owner", "+4790000013", "--farms", "1", "--animals", "0", "--groups", "0", "--records", "0")
			farmID := s["farm_ids"].([]any)[0].(string)
			c.mustJSON("tag,sex,birth_date,eid\nC-1,female,2020-04-02,982000001088420\n", "import", "animals", "--farm", farmID, "-")
			file := "EID,VID,Weight,Date,Time,Note\n0982000001088420,C-1,452.5,13/03/2026,08:15,lame\n"
			if dry := c.mustJSON(file, "import", "weighings", "--farm", farmID, "--unit", "kg", "-", "--dry-run"); dry["dry_run"] != true || dry["recorded"] != 1.0 {
				t.Fatalf("dry run = %v", dry)
			}
			if res := c.mustJSON(file, "import", "weighings", "--farm", farmID, "--unit", "kg", "-"); res["recorded"] != 1.0 || res["layout"] != "header" {
				t.Fatalf("import = %v", res)
			}
			if res := c.mustJSON(file, "import", "weighings", "--farm", farmID, "--unit", "kg", "-"); res["recorded"] != 0.0 || res["unchanged"] != 1.0 {
				t.Fatalf("again = %v", res)
			}
			if _, err := c.run(file, "import", "weighings", "--farm", farmID, "-"); err == nil ||
				!strings.Contains(err.Error(), "nothing was written:\n  row 2, weight: the file does not say whether weights are in kg or lb") {
				t.Fatalf("no unit: %v", err)
			}
		})
	}
}
