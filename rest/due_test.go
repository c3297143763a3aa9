package rest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// The due list (issue 21.3): expected calving from the service that fits a positive scan
// (service date + gestation), else from the foetal age (check date − foetal age +
// gestation), ordered by expected date, paged, as CSV, in constant statements.
func TestDueList(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app := b.app
		if res := app.Do("PUT", b.base+"/birth-history/settings", b.owner.Token, cattleSettings); res.Status != 200 {
			t.Fatalf("settings: %d %s", res.Status, res.Body)
		}
		farm := uuid.MustParse(b.farm)
		cow := func(tag string) string {
			id := app.MustAnimal(b.owner, farm, tag).ID.String()
			b.facts(t, map[string]any{"kind": "profile", "animal_id": id, "sex": "female", "birth_date": "2020-04-01"})
			return id
		}
		served, aged, empty := cow("C-SERVED"), cow("C-AGED"), cow("C-EMPTY")
		b.facts(t,
			// Served 2025-07-08, scanned in calf: due 2025-07-08 + 279..292 = 2026-04-13..2026-04-26.
			map[string]any{"kind": "insemination", "dam_id": served, "sire_id": b.bull, "date": "2025-07-08", "straw": "S-1"},
			map[string]any{"kind": "pregnancy_check", "animal_id": served, "date": "2025-09-01", "method": "scan", "result": "pregnant"},
			// No service: a foetal age of 60 days on 2025-08-01 dates conception on 2025-06-02,
			// so due 2026-03-08..2026-03-21.
			map[string]any{"kind": "pregnancy_check", "animal_id": aged, "date": "2025-08-01", "method": "palpation", "result": "pregnant", "foetal_age_days": 60},
			map[string]any{"kind": "pregnancy_check", "animal_id": empty, "date": "2025-08-01", "method": "blood", "result": "empty"},
		)
		base := b.base + "/due"
		res := app.Do("GET", base, b.reader.Token, nil)
		if res.Status != 200 {
			t.Fatalf("due: %d %s", res.Status, res.Body)
		}
		body := res.JSON(t)
		rows := body["records"].([]any)
		if body["total"] != float64(2) || len(rows) != 2 {
			t.Fatalf("due = %s", res.Body)
		}
		first, second := rows[0].(map[string]any), rows[1].(map[string]any)
		if first["animal_id"] != aged || first["basis"] != "foetal_age" || first["expected_from"] != "2026-03-08" || first["expected_to"] != "2026-03-21" {
			t.Fatalf("first = %v", first)
		}
		if second["animal_id"] != served || second["basis"] != "service" || second["service_date"] != "2025-07-08" ||
			second["sire_id"] != b.bull || second["expected_from"] != "2026-04-13" || second["expected_to"] != "2026-04-26" || second["expected_date"] != "2026-04-19" {
			t.Fatalf("second = %v", second)
		}
		if res := app.Do("GET", base+"?skip=1&take=1", b.reader.Token, nil); res.Status != 200 || len(res.JSON(t)["records"].([]any)) != 1 {
			t.Fatalf("page: %d %s", res.Status, res.Body)
		}
		csv := app.Do("GET", b.base+"/due.csv", b.reader.Token, nil)
		if csv.Status != 200 || !strings.HasPrefix(string(csv.Body), "animal_id,expected_date") || strings.Count(string(csv.Body), "\n") != 3 {
			t.Fatalf("due.csv: %d %s", csv.Status, csv.Body)
		}
		// After the calving she is no longer due.
		b.facts(t, map[string]any{"kind": "birth", "dam_id": aged, "date": "2026-03-15"})
		if res := app.Do("GET", base, b.reader.Token, nil); res.JSON(t)["total"] != float64(1) {
			t.Fatalf("after calving: %s", res.Body)
		}

		t.Run("Errors", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"?skip=-1", b.reader.Token, nil), 400, "ValidationError", "skip")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"?take=x", b.reader.Token, nil), 400, "ValidationError", "take")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/nope/due", b.reader.Token, nil), 400, "ValidationError", "farm_id")
			if res := app.Do("GET", base, "", nil); res.Status != 401 {
				t.Fatalf("no auth: %d", res.Status)
			}
			stranger := app.MustUser()
			if res := app.Do("GET", base, stranger.Token, nil); res.Status != 404 {
				t.Fatalf("a stranger: %d", res.Status)
			}
			if res := app.Do("GET", "/v1/farm/"+uuid.NewString()+"/due.csv", b.owner.Token, nil); res.Status != 404 {
				t.Fatalf("unknown farm: %d", res.Status)
			}
		})

		t.Run("Statements", func(t *testing.T) {
			count := func() int64 {
				return app.Queries(func() {
					if res := app.Do("GET", base, b.reader.Token, nil); res.Status != 200 {
						t.Fatal(res.Status)
					}
				})
			}
			small := count()
			for i := 0; i < 15; i++ {
				c := cow(fmt.Sprintf("X-%d", i))
				b.facts(t, map[string]any{"kind": "hand_mating", "dam_id": c, "sire_id": b.bull, "date": "2025-07-10"},
					map[string]any{"kind": "pregnancy_check", "animal_id": c, "date": "2025-09-01", "method": "scan", "result": "pregnant"})
			}
			if big := count(); big != small {
				t.Fatalf("statements %d then %d: the due list queries per row", small, big)
			}
			t.Logf("due list: %d statements", small)
		})
	})
}
