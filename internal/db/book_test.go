package db_test

import (
	"context"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestBookMigrationBackfill migrates a database with records and items from before the book
// kept its authors (migration book_audit_trail): every existing entry gets a null author and
// recorded_at = created_at, and an entry already deleted is voided at its last change, so
// that the book as known at any past moment still holds it until then.
func TestBookMigrationBackfill(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			ctx := context.Background()
			d := migratedBefore(t, dia, "_book_audit_trail.sql")
			for _, q := range []string{
				"INSERT INTO farms (id, created_at, updated_at, is_active, name, species) VALUES ('f0000000-0000-4000-8000-000000000001', '2025-01-01 10:00:00', '2025-01-01 10:00:00', true, 'F', 'CATTLE')",
				"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('c0000000-0000-4000-8000-000000000001', '2025-02-01 08:00:00', '2025-02-01 08:00:00', true, 'HEALTH', 'kept', '2025-01-20 00:00:00', 'f0000000-0000-4000-8000-000000000001')",
				"INSERT INTO records (id, created_at, updated_at, is_active, type, name, applied_at, farm_id) VALUES ('c0000000-0000-4000-8000-000000000002', '2025-02-02 08:00:00', '2025-03-05 09:30:00', false, 'HEALTH', 'deleted', '2025-01-21 00:00:00', 'f0000000-0000-4000-8000-000000000001')",
				"INSERT INTO record_items (id, created_at, updated_at, is_active, metadata, record_id) VALUES ('a1000000-0000-4000-8000-000000000001', '2025-02-01 08:00:01', '2025-02-01 08:00:01', true, '{\"note\":\"x\"}', 'c0000000-0000-4000-8000-000000000001')",
			} {
				if _, err := d.SQL.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := d.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct{ name, query string }{
				{"RecordsRecordedWhenCreated", "SELECT COUNT(*) FROM records WHERE recorded_at = created_at AND recorded_by_user_id IS NULL AND recorded_by_client_id IS NULL"},
				{"ItemsRecordedWhenCreated", "SELECT COUNT(*) FROM record_items WHERE recorded_at = created_at AND recorded_by_user_id IS NULL"},
				{"DeletedRecordVoidedAtLastChange", "SELECT COUNT(*) FROM records WHERE voided_at = updated_at AND is_active = false AND voided_by_user_id IS NULL"},
				{"ActiveRecordNotVoided", "SELECT COUNT(*) FROM records WHERE voided_at IS NULL AND is_active = true"},
			} {
				var n int
				if err := d.SQL.QueryRowContext(ctx, tc.query).Scan(&n); err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				want := 1
				if tc.name == "RecordsRecordedWhenCreated" {
					want = 2
				}
				if n != want {
					t.Errorf("%s: %d rows, want %d", tc.name, n, want)
				}
			}
		})
	}
}
