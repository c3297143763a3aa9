package rest_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// The breeding season through the API (issue 21.2, 21.3), on both databases: a bull whose
// only record is his dated membership of the cows' group, an insemination, and a positive
// scan that narrows the conception window. Settings: gestation 279 to 292 days, so a birth
// on 2026-04-20 was conceived between 2025-07-02 and 2025-07-15.
func TestBreedingSeasonReview(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app := b.app
		if res := app.Do("PUT", b.base+"/birth-history/settings", b.owner.Token, cattleSettings); res.Status != 200 {
			t.Fatalf("settings: %d %s", res.Status, res.Body)
		}
		farm := uuid.MustParse(b.farm)
		cow := app.MustAnimal(b.owner, farm, "COW-7").ID.String()
		walker := app.MustAnimal(b.owner, farm, "BULL-W").ID.String()
		ai := app.MustAnimal(b.owner, farm, "AI-SIRE").ID.String()
		cows := app.MustGroup(b.owner, farm, "Cows").ID.String()
		b.facts(t,
			map[string]any{"kind": "profile", "animal_id": cow, "sex": "female", "birth_date": "2020-04-01", "breed": "Angus"},
			map[string]any{"kind": "profile", "animal_id": walker, "sex": "male", "birth_date": "2021-03-10", "breed": "Hereford"},
			map[string]any{"kind": "profile", "animal_id": ai, "sex": "male", "birth_date": "2019-03-10", "breed": "Angus"},
			map[string]any{"kind": "membership", "animal_id": cow, "group_id": cows, "start_date": "2025-04-01"},
			// The bull is moved in and out of the cows' group: his only record of them.
			map[string]any{"kind": "membership", "animal_id": walker, "group_id": cows, "start_date": "2025-06-20"},
			map[string]any{"kind": "membership_end", "animal_id": walker, "group_id": cows, "date": "2025-07-10"},
		)
		review := func() map[string]any {
			t.Helper()
			res := app.Do("GET", b.base+"/birth-history/evidence?dam_id="+cow+"&birth_date=2026-04-20", b.reader.Token, nil)
			if res.Status != 200 {
				t.Fatalf("review: %d %s", res.Status, res.Body)
			}
			return res.JSON(t)["sire"].(map[string]any)
		}
		candidate := func(sire map[string]any, id string) map[string]any {
			for _, c := range sire["candidates"].([]any) {
				if c := c.(map[string]any); c["animal_id"] == id {
					return c
				}
			}
			t.Fatalf("no candidate %s in %v", id, sire)
			return nil
		}
		sire := review()
		c := candidate(sire, walker)
		iv := c["overlap_intervals"].([]any)
		if sire["status"] != "presumed" || sire["animal_id"] != walker || len(iv) != 1 ||
			iv[0].(map[string]any)["end_date"] != "2025-07-09" {
			t.Fatalf("natural service: %v", sire)
		}
		if !strings.Contains(strings.Join(toStrings(c["reasons"]), "\n"), "Natural service: a member of group "+cows+" with the dam from 2025-07-02 to 2025-07-09") {
			t.Fatalf("reasons: %v", c["reasons"])
		}
		// The review still costs its 4 statements.
		if n := app.Queries(func() { review() }); n != 4 {
			t.Fatalf("the review cost %d statements, want 4", n)
		}

		// An insemination on 2025-07-12 makes the AI sire a candidate too.
		b.facts(t, map[string]any{"kind": "insemination", "dam_id": cow, "sire_id": ai, "date": "2025-07-12", "straw": "7AN0123-44", "technician": "J. Byrne"})
		sire = review()
		if sire["status"] != "candidates" || len(sire["candidates"].([]any)) != 2 {
			t.Fatalf("with the insemination: %v", sire)
		}
		if got := strings.Join(toStrings(candidate(sire, ai)["reasons"]), "\n"); !strings.Contains(got, "insemination on 2025-07-12 (straw 7AN0123-44, technician J. Byrne") {
			t.Fatalf("AI reasons: %s", got)
		}
		// A scan on 2025-09-05 with a foetal age of 55 days dates conception on 2025-07-12.
		b.facts(t, map[string]any{"kind": "pregnancy_check", "animal_id": cow, "date": "2025-09-05", "method": "scan", "result": "pregnant", "foetal_age_days": 55})
		if sire = review(); sire["status"] != "presumed" || sire["animal_id"] != ai {
			t.Fatalf("with the scan: %v", sire)
		}

		// Services are held to the histories: a male cannot be the served female.
		res := app.Do("POST", b.base+"/records", b.owner.Token, map[string]any{
			"animal_ids": []string{walker}, "name": "fact", "type": "GENETIC", "applied_at": "2025-01-01T00:00:00Z",
			"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
				"kind": "hand_mating", "dam_id": walker, "sire_id": ai, "date": "2025-07-01"}}}},
		})
		herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "record_items[0].metadata.birth_history.dam_id")
	})
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}
