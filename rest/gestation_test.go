package rest_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestGestationBySireBreed: a Charolais bull's calves are carried longer than the farm's
// range says (continental breeds about 289 days against Angus's 281: Torell, UNR Extension),
// so the farm gives Charolais sires 285 to 305 days. For a birth on 2026-04-20 the farm's
// window is 2025-07-02..2025-07-15 and a Charolais sire's 2025-06-19..2025-07-09: a Charolais
// bull that ran with the dam from 2025-06-20 to 2025-06-30 is a candidate, with an implied
// gestation of 294 to 304 days. The review keeps its budget of 4 statements.
func TestGestationBySireBreed(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		bh := b.base + "/birth-history"
		settings := `{"version":1,"species":"CATTLE","gestation_days":{"min":279,"max":292},"minimum_sire_age_days":365,
			"gestation_days_by_breed":{"Charolais":{"min":285,"max":305}}}`
		res := b.app.Do("PUT", bh+"/settings", b.owner.Token, settings)
		if res.Status != http.StatusOK {
			t.Fatalf("settings: %d %s", res.Status, res.Body)
		}
		if got := res.JSON(t)["settings"].(map[string]any)["gestation_days_by_breed"]; got == nil {
			t.Fatalf("settings answer %s", res.Body)
		}
		char := b.app.MustAnimal(b.owner, uuid.MustParse(b.farm), "CHAR-1").ID.String()
		b.facts(t,
			map[string]any{"kind": "profile", "animal_id": char, "sex": "male", "birth_date": "2021-03-01", "breed": "Charolais"},
			map[string]any{"kind": "exposure", "sire_id": char, "dam_id": b.dam, "start_date": "2025-06-20", "end_date": "2025-06-30"},
		)
		var ev map[string]any
		n := b.app.Queries(func() {
			ev = wantStatus(t, b.app.Do("GET", bh+"/evidence?birth_date=2026-04-20&dam_id="+b.dam, b.reader.Token, nil), http.StatusOK)
		})
		if n != 4 {
			t.Errorf("the review cost %d statements, want 4", n)
		}
		byID := map[string]map[string]any{}
		for _, c := range ev["sire"].(map[string]any)["candidates"].([]any) {
			byID[c.(map[string]any)["animal_id"].(string)] = c.(map[string]any)
		}
		c := byID[char]
		if c == nil || c["eligibility"] != "plausible" || c["gestation_breed"] != "Charolais" ||
			c["gestation_days"].(map[string]any)["max"] != 305.0 ||
			c["implied_gestation_days"].(map[string]any)["min"] != 294.0 || c["implied_gestation_days"].(map[string]any)["max"] != 304.0 {
			t.Fatalf("Charolais candidate %v", c)
		}
		// The Hereford bull keeps the farm's range: 2025-07-02..2025-07-15 from a birth on
		// 2026-04-20 is 279 to 292 days.
		if h := byID[b.bull]; h["gestation_breed"] != nil || h["gestation_days"].(map[string]any)["min"] != 279.0 ||
			h["implied_gestation_days"].(map[string]any)["max"] != 292.0 {
			t.Fatalf("Hereford candidate %v", h)
		}
		// Two plausible candidates now: no presumption, so no cross.
		if s := ev["sire"].(map[string]any); s["status"] != "candidates" || s["presumed_cross"] != nil {
			t.Fatalf("sire %v", s)
		}

		// The settings operation answers errors without a body (SPEC.md); the fields are
		// named in evidence.TestGestationByBreedValidate.
		for _, body := range []string{
			`{"version":1,"species":"CATTLE","gestation_days_by_breed":{"Charolais":{"min":285,"max":305}}}`,
			`{"version":1,"species":"CATTLE","gestation_days":{"min":279,"max":292},"gestation_days_by_breed":{"Charolais":{"min":305,"max":285}}}`,
			`{"version":1,"species":"CATTLE","gestation_days":{"min":279,"max":292},"gestation_days_by_breed":{"Charolais":{"min":"x","max":285}}}`,
			`{"version":1,"species":"CATTLE","gestation_days":{"min":279,"max":292},"gestation_days_by_breed":["Charolais"]}`,
		} {
			wantEmpty(t, b.app.Do("PUT", bh+"/settings", b.owner.Token, body), http.StatusBadRequest)
		}
	})
}
