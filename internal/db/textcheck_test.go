package db_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/schema/field"

	"github.com/herdbook/herdbook/ent/migrate"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestCheckTextFindsStoredValues (issue 33.1) stores, as a database written before the
// text rule sat in the decoders holds them, a medicine label line whose dose unit carries a
// backspace and an escape, an animal tag with a line break, a farm name with a bell, a
// record name with a tab and record item metadata with a control character in a value and a
// line break in a key; and the values the rule allows (a description's paragraphs, a tab
// inside metadata prose). CheckText names each bad value by table, row, column and JSON
// path, and nothing else, on both databases.
func TestCheckTextFindsStoredValues(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		const (
			farm   = "f0000000-0000-4000-8000-000000000001"
			clean  = "f0000000-0000-4000-8000-000000000002"
			animal = "a0000000-0000-4000-8000-000000000001"
			med    = "e0000000-0000-4000-8000-000000000001"
			rec    = "c0000000-0000-4000-8000-000000000001"
			item   = "d0000000-0000-4000-8000-000000000001"
		)
		ph := func(n int) string {
			if d.Dialect == "postgres" {
				return fmt.Sprintf("$%d", n)
			}
			return "?"
		}
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('" + farm + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, " + ph(1) + ", 'CATTLE')", []any{"North\afield"}},
			{"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('" + clean + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'South', 'CATTLE')", nil},
			{"INSERT INTO animals (id, created_at, updated_at, is_active, tag, name, farm_id) VALUES ('" + animal + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, " + ph(1) + ", 'Daisy', '" + farm + "')", []any{"UK\n1"}},
			{"INSERT INTO medicines (id, created_at, updated_at, is_active, farm_id, name, version, withdrawal_meat_days, withdrawal_milk_hours, species_withdrawals) VALUES ('" + med + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, '" + farm + "', 'Pen', 1, 0, 0, " + ph(1) + ")",
				[]any{`[{"species":"CATTLE","withdrawal_meat_days":1,"withdrawal_milk_hours":1,"dose":{"unit":"ml","min":1,"max":2}},` +
					`{"species":"SHEEP","withdrawal_meat_days":1,"withdrawal_milk_hours":1,"dose":{"unit":"ml\u0008","min":1,"max":2}},` +
					`{"species":"GOAT","withdrawal_meat_days":1,"withdrawal_milk_hours":1,"dose":{"unit":"\u001b[31mml","min":1,"max":2}}]`}},
			{"INSERT INTO records (id, created_at, updated_at, is_active, type, name, description, applied_at, farm_id) VALUES ('" + rec + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'FEED', " + ph(1) + ", " + ph(2) + ", CURRENT_TIMESTAMP, '" + farm + "')",
				[]any{"Hay\tbale", "First paragraph.\r\n\r\nSecond\tparagraph."}},
			{"INSERT INTO record_items (id, created_at, updated_at, is_active, name, metadata, record_id, farm_id) VALUES ('" + item + "', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, true, 'Hay', " + ph(1) + ", '" + rec + "', '" + farm + "')",
				[]any{`{"note":"kept\tin\nprose","batch":"B\u00071","bad\nkey":"x","lines":[{"ok":"y"},{"z":"\u007f"}]}`}},
		} {
			if _, err := d.SQL.ExecContext(ctx, q.sql, q.args...); err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
		}
		found, total, err := d.CheckText(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range found {
			if f.Problem == "" {
				t.Errorf("finding without a problem: %+v", f)
			}
			got = append(got, strings.TrimSpace(f.Table+" "+f.ID+" "+f.Column+" "+f.Path))
		}
		want := []string{
			"animals " + animal + " tag",
			"farms " + farm + " name",
			"medicines " + med + " species_withdrawals [1].dose.unit",
			"medicines " + med + " species_withdrawals [2].dose.unit",
			"record_items " + item + " metadata",
			"record_items " + item + " metadata batch",
			"record_items " + item + " metadata lines[1].z",
			"records " + rec + " name",
		}
		if !slices.Equal(got, want) || total != len(want) {
			t.Fatalf("found (%d in all):\n  %s\nwant:\n  %s", total, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		for _, f := range found {
			if f.Table == "record_items" && f.Path == "" && !strings.Contains(f.Problem, "key") {
				t.Errorf("the metadata key's problem does not say it is a key: %q", f.Problem)
			}
			if f.Table == "animals" && !strings.Contains(f.Problem, "U+000A") {
				t.Errorf("the tag's problem does not name the line feed: %q", f.Problem)
			}
		}
	})
}

// TestTextColumnsClassified fails when a text or JSON column of the ent schema is neither
// checked by CheckText nor listed as written by the server: a new column must be judged.
func TestTextColumnsClassified(t *testing.T) {
	t.Parallel()
	var columns []string
	for _, tb := range migrate.Tables {
		for _, c := range tb.Columns {
			switch c.Type {
			case field.TypeString, field.TypeJSON, field.TypeEnum, field.TypeOther:
				columns = append(columns, tb.Name+"."+c.Name)
			}
		}
	}
	for _, problem := range db.TextColumnsUnclassified(columns) {
		t.Error(problem)
	}
}
