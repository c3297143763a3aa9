package rest_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// Outside sires and donors (issue 21.1): an AI sire recorded once, named by an insemination,
// a candidate of the review with the straw in its reason, the presumed sire once a scan
// dates conception, never on the register, and not deletable while a fact names it.
func TestOutsideAnimals(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app := b.app
		base := b.base + "/outside-animals"
		if res := app.Do("PUT", b.base+"/birth-history/settings", b.owner.Token, cattleSettings); res.Status != 200 {
			t.Fatalf("settings: %d %s", res.Status, res.Body)
		}
		res := app.Do("POST", base, b.owner.Token, map[string]any{"name": "Connealy Black Granite", "sex": "male", "breed": "Angus",
			"registry": "American Angus Association", "registration_number": "19000001", "batch": "7AN0123"})
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		sire := res.JSON(t)["id"].(string)

		t.Run("Errors", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", base, b.owner.Token, `{"name":`), 400, "ValidationError", "")
			herdbooktest.WantEnvelope(t, app.Do("POST", base, b.owner.Token, map[string]any{"name": 7, "sex": "male"}), 400, "ValidationError", "name")
			herdbooktest.WantEnvelope(t, app.Do("POST", base, b.owner.Token, map[string]any{"name": "X", "sex": "bull"}), 400, "ValidationError", "sex")
			herdbooktest.WantEnvelope(t, app.Do("POST", base, b.owner.Token, map[string]any{"sex": "male"}), 400, "ValidationError", "name")
			herdbooktest.WantEnvelope(t, app.Do("POST", base, b.owner.Token, map[string]any{"name": strings.Repeat("x", 201), "sex": "male"}), 400, "ValidationError", "name")
			herdbooktest.WantEnvelope(t, app.Do("POST", base, b.owner.Token, map[string]any{"name": "X", "sex": "male", "birth_date": "2025-02-29"}), 400, "ValidationError", "birth_date")
			herdbooktest.WantEnvelope(t, app.Do("POST", base, b.owner.Token, map[string]any{"name": "X", "sex": "male", "colour": "black"}), 400, "ValidationError", "")
			if res := app.Do("GET", base+"/"+uuid.NewString(), b.owner.Token, nil); res.Status != 404 {
				t.Fatalf("unknown id: %d", res.Status)
			}
			if res := app.Do("GET", base+"/nope", b.owner.Token, nil); res.Status != 400 {
				t.Fatalf("malformed id: %d", res.Status)
			}
			if res := app.Do("GET", base, "", nil); res.Status != 401 {
				t.Fatalf("no auth: %d", res.Status)
			}
			if res := app.Do("POST", base, b.reader.Token, map[string]any{"name": "X", "sex": "male"}); res.Status != 401 && res.Status != 403 {
				t.Fatalf("reader writes: %d", res.Status)
			}
			stranger := app.MustUser()
			sf := app.MustFarm(stranger, "Theirs")
			if res := app.Do("GET", "/v1/farm/"+sf.ID.String()+"/outside-animals/"+sire, stranger.Token, nil); res.Status != 404 {
				t.Fatalf("another farm's outside animal: %d", res.Status)
			}
			if res := app.Do("GET", base+"/"+sire, stranger.Token, nil); res.Status != 404 {
				t.Fatalf("a stranger reads: %d", res.Status)
			}
		})

		// Read, list, replace.
		if res := app.Do("GET", base+"/"+sire, b.reader.Token, nil); res.Status != 200 || res.JSON(t)["batch"] != "7AN0123" {
			t.Fatalf("read: %d %s", res.Status, res.Body)
		}
		if res := app.Do("GET", base+"?take=1", b.reader.Token, nil); res.Status != 200 || res.JSON(t)["total"] != float64(1) {
			t.Fatalf("list: %d %s", res.Status, res.Body)
		}
		res = app.Do("PUT", base+"/"+sire, b.owner.Token, map[string]any{"name": "Connealy Black Granite", "sex": "male", "breed": "Angus", "batch": "7AN0123"})
		if res.Status != 200 || res.JSON(t)["registry"] != nil {
			t.Fatalf("replace: %d %s", res.Status, res.Body)
		}

		// An insemination of the dam by the outside sire inside the conception window
		// (2025-07-02 to 2025-07-15 for a birth on 2026-04-20).
		cow := app.MustAnimal(b.owner, uuid.MustParse(b.farm), "COW-AI").ID.String()
		b.facts(t, map[string]any{"kind": "profile", "animal_id": cow, "sex": "female", "birth_date": "2020-04-01", "breed": "Angus"},
			map[string]any{"kind": "insemination", "dam_id": cow, "sire_id": sire, "date": "2025-07-08", "straw": "7AN0123-44"},
			map[string]any{"kind": "pregnancy_check", "animal_id": cow, "date": "2025-09-01", "method": "scan", "result": "pregnant", "foetal_age_days": 55})
		res = app.Do("GET", b.base+"/birth-history/evidence?dam_id="+cow+"&birth_date=2026-04-20", b.reader.Token, nil)
		if res.Status != 200 {
			t.Fatalf("review: %d %s", res.Status, res.Body)
		}
		s := res.JSON(t)["sire"].(map[string]any)
		if s["status"] != "presumed" || s["animal_id"] != sire || s["presumed_cross"] != "Angus × Angus" {
			t.Fatalf("sire: %v", s)
		}
		c := s["candidates"].([]any)[0].(map[string]any)
		if !strings.Contains(strings.Join(toStrings(c["reasons"]), "\n"), "insemination on 2025-07-08 (straw 7AN0123-44") {
			t.Fatalf("reasons: %v", c["reasons"])
		}

		// An outside animal is never a sire of the wrong sex, nor the served dam.
		donor := app.Do("POST", base, b.owner.Token, map[string]any{"name": "Donor Cow", "sex": "female"}).JSON(t)["id"].(string)
		res = app.Do("POST", b.base+"/records", b.owner.Token, map[string]any{"animal_ids": []string{cow}, "name": "fact", "type": "GENETIC",
			"applied_at": "2025-01-01T00:00:00Z", "record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
				"kind": "insemination", "dam_id": cow, "sire_id": donor, "date": "2025-07-09"}}}}})
		herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "record_items[0].metadata.birth_history.sire_id")
		res = app.Do("POST", b.base+"/records", b.owner.Token, map[string]any{"animal_ids": []string{cow}, "name": "fact", "type": "GENETIC",
			"applied_at": "2025-01-01T00:00:00Z", "record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
				"kind": "heat", "animal_id": donor, "date": "2025-07-09"}}}}})
		herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "record_items[0].metadata.birth_history")
		// An embryo transfer from the outside donor is accepted.
		b.facts(t, map[string]any{"kind": "embryo_transfer", "dam_id": donor, "sire_id": sire, "recipient_id": cow, "date": "2024-07-01", "embryo": "IVF-1"})

		// Never on the register.
		if res := app.Do("GET", b.base+"/animals/"+sire, b.owner.Token, nil); res.Status != 404 {
			t.Fatalf("an outside animal on the register: %d", res.Status)
		}
		// Named by facts: its deletion and a change of sex are refused.
		herdbooktest.WantEnvelope(t, app.Do("DELETE", base+"/"+sire, b.owner.Token, nil), 409, "ConflictError", "")
		herdbooktest.WantEnvelope(t, app.Do("PUT", base+"/"+sire, b.owner.Token, map[string]any{"name": "X", "sex": "female"}), 409, "ConflictError", "")
		spare := app.Do("POST", base, b.owner.Token, map[string]any{"name": "Spare", "sex": "male"}).JSON(t)["id"].(string)
		if res := app.Do("DELETE", base+"/"+spare, b.owner.Token, nil); res.Status != 204 {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		if res := app.Do("GET", base+"/"+spare, b.owner.Token, nil); res.Status != 404 {
			t.Fatalf("deleted: %d", res.Status)
		}
		_ = herdbook.RoleReader
	})
}
