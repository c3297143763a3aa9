package main

import (
	"context"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestAdminTextCheck (issue 33.1): on a database that holds a value written before the text
// rule sat in the decoders (a medicine's dose unit with a backspace), `migrate` says how
// many stored values break the rule, and `admin text-check` lists each by table, row, column
// and path and fails; on a clean database it passes.
func TestAdminTextCheck(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			if v := c.mustJSON("", "migrate"); v["text_findings"] != float64(0) {
				t.Fatalf("a new database has text findings: %v", v)
			}
			if out, err := c.run("", "admin", "text-check"); err != nil || !strings.Contains(out, "every stored text value passes") {
				t.Fatalf("clean database: %v\n%s", err, out)
			}
			ctx := context.Background()
			d, err := db.Open(ctx, c.dbURL)
			if err != nil {
				t.Fatal(err)
			}
			const (
				farm = "f0000000-0000-4000-8000-000000000001"
				med  = "e0000000-0000-4000-8000-000000000001"
			)
			for _, q := range []string{
				"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('" + farm + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'North', 'CATTLE')",
				"INSERT INTO medicines (id, created_at, updated_at, is_active, farm_id, name, version, withdrawal_meat_days, withdrawal_milk_hours, species_withdrawals) VALUES ('" + med + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '" + farm + "', 'Pen', 1, 0, 0, " +
					`'[{"species":"CATTLE","withdrawal_meat_days":1,"withdrawal_milk_hours":1,"dose":{"unit":"ml\u0008","min":1,"max":2}}]')`,
			} {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			d.Close()
			if out, err := c.run("", "migrate"); err != nil || !strings.Contains(out, "1 stored value(s) break the text rule") {
				t.Fatalf("migrate: %v\n%s", err, out)
			}
			out, err := c.run("", "admin", "text-check")
			if err == nil || !strings.Contains(err.Error(), "1 stored value(s)") {
				t.Fatalf("text-check passed a bad value: %v\n%s", err, out)
			}
			if want := "medicines " + med + " species_withdrawals [0].dose.unit: must not contain control characters"; !strings.Contains(out, want) {
				t.Fatalf("text-check printed %q, want %q", out, want)
			}
		})
	}
}
