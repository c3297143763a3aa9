package rest_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// oneCalf is the calves of an approval or a calving with one live heifer calf.
func oneCalf(tag string) []map[string]any {
	return []map[string]any{{"tag": tag, "sex": "female", "status": "alive"}}
}

// TestApprovedBirthIsACalving is issue 28.9: approving a reviewed birth on the Births screen
// recorded no calf and was not counted in the calving report, yet made the calf's follow-up
// tasks. Approval is now the calving operation (docs/breeding.md, one birth path): it takes
// the calves, each becomes an animal of the register with its birth facts, the calving is
// listed and counted in the calving report, the calf steps' tasks name the calves, and a
// calving of the same dam and day, before or after, is the same birth.
func TestApprovedBirthIsACalving(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b, _ := calvingFarm(t, d)
		bh := b.base + "/birth-history"
		preview := func(day string) string {
			return wantStatus(t, b.app.Do("POST", bh+"/previews", b.owner.Token, map[string]any{"dam_id": b.dam, "birth_date": day}), 201)["id"].(string)
		}
		p := preview("2026-04-20")
		approve := func(id string, body any) herdbooktest.Response {
			return b.app.Do("POST", bh+"/previews/"+id+"/approve", b.owner.Token, body)
		}
		// Without calves the approval is refused, saying what to give.
		herdbooktest.WantEnvelope(t, approve(p, map[string]any{"request_id": "r-1"}), 400, "ValidationError", "calves: approving a birth records its calves")

		body := map[string]any{"request_id": "r-1", "calves": []map[string]any{
			{"tag": "BULL-CALF", "sex": "male", "status": "alive", "birth_weight": 41},
			{"tag": "STILL-CALF", "sex": "female", "status": "stillborn"}}}
		approved := wantStatus(t, approve(p, body), 201)
		event := approved["birth_event"].(map[string]any)["id"].(string)

		// The calving is listed, with its calves in the register.
		cv := wantStatus(t, b.app.Do("GET", b.base+"/calvings/"+event, b.reader.Token, nil), 200)
		calves := cv["calves"].([]any)
		if cv["dam_id"] != b.dam || cv["date"] != "2026-04-20" || len(calves) != 2 {
			t.Fatalf("calving = %v", cv)
		}
		bull := calves[0].(map[string]any)["animal_id"].(string)
		if a := wantStatus(t, b.app.Do("GET", b.base+"/animals/"+bull, b.reader.Token, nil), 200); a["tag"] != "BULL-CALF" {
			t.Fatalf("the calf in the register: %v", a)
		}
		if l := wantStatus(t, b.app.Do("GET", b.base+"/calvings?from=2026-04-01&to=2026-04-30", b.reader.Token, nil), 200); l["total"] != float64(1) {
			t.Fatalf("calvings = %v", l)
		}
		// The tasks: the dam's step names the dam, the bull calf's step the calf; the
		// stillborn heifer gets none.
		want := map[string]string{"Check the dam": b.dam, "Castrate": bull}
		tasks := approved["tasks"].([]any)
		if len(tasks) != 2 {
			t.Fatalf("tasks = %v", tasks)
		}
		for _, tk := range tasks {
			tk := tk.(map[string]any)
			if ids := tk["animals"].([]any); len(ids) != 1 || ids[0].(map[string]any)["id"] != want[tk["name"].(string)] {
				t.Fatalf("task %v, want it for %s", tk, want[tk["name"].(string)])
			}
		}
		// Counted in the calving report (calves born, alive, stillborn).
		rep := wantStatus(t, b.app.Do("GET", b.base+"/reports/calving?from=2026-04-01&to=2026-04-30&exposure_from=2025-05-01&exposure_to=2025-07-31", b.reader.Token, nil), 200)
		if rep["calvings"] != float64(1) || rep["calves_born"] != float64(2) || rep["calves_born_alive"] != float64(1) || rep["stillborn"] != float64(1) {
			t.Fatalf("calving report = %v", rep)
		}
		// A retry replays; a calving of the same dam and day is the same birth.
		if again := wantStatus(t, approve(p, body), 201); again["birth_event"].(map[string]any)["id"] != event {
			t.Fatalf("replay = %v", again)
		}
		same := b.app.Do("POST", b.base+"/calvings", b.owner.Token, map[string]any{"dam_id": b.dam, "date": "2026-04-20", "calves": oneCalf("OTHER")})
		if same.Status != http.StatusOK || same.JSON(t)["id"] != event {
			t.Fatalf("calving of the approved birth: %d %s", same.Status, same.Body)
		}
		// And the other way: a calving recorded first, then a preview of it approved.
		cow := b.app.MustAnimal(b.owner, uuid.MustParse(b.farm), "COW-2").ID.String()
		b.facts(t, map[string]any{"kind": "profile", "animal_id": cow, "sex": "female", "birth_date": "2019-03-01"})
		first := wantStatus(t, b.app.Do("POST", b.base+"/calvings", b.owner.Token, map[string]any{"dam_id": cow, "date": "2026-04-22", "calves": oneCalf("COW2-CALF")}), 201)
		p2 := wantStatus(t, b.app.Do("POST", bh+"/previews", b.owner.Token, map[string]any{"dam_id": cow, "birth_date": "2026-04-22"}), 201)["id"].(string)
		if got := wantStatus(t, approve(p2, map[string]any{"request_id": "r-2", "calves": oneCalf("COW2-CALF-AGAIN")}), 201); got["birth_event"].(map[string]any)["id"] != first["id"] {
			t.Fatalf("approval of a recorded calving = %v, want %v", got, first["id"])
		}

		t.Run("Errors", func(t *testing.T) {
			p := preview("2026-04-25")
			cases := []struct {
				name   string
				token  string
				path   string
				body   any
				status int
				want   string
			}{
				{"MalformedJSON", b.owner.Token, p, `{"request_id":`, 400, ""},
				{"CalvesWrongType", b.owner.Token, p, `{"request_id":"e-1","calves":"one"}`, 400, "calves"},
				{"TooManyCalves", b.owner.Token, p, map[string]any{"request_id": "e-2", "calves": append(append(append(oneCalf("A"), oneCalf("B")...), append(oneCalf("C"), oneCalf("D")...)...), append(append(oneCalf("E"), oneCalf("F")...), append(oneCalf("G"), append(oneCalf("H"), oneCalf("I")...)...)...)...)}, 400, "calves"},
				{"BirthWeightOutOfRange", b.owner.Token, p, map[string]any{"request_id": "e-3", "calves": []map[string]any{{"tag": "W", "sex": "male", "status": "alive", "birth_weight": -1}}}, 400, "calves[0].birth_weight"},
				{"SexUnknown", b.owner.Token, p, map[string]any{"request_id": "e-4", "calves": []map[string]any{{"tag": "S", "sex": "x", "status": "alive"}}}, 400, "calves[0].sex"},
				{"SireWithoutBasis", b.owner.Token, p, map[string]any{"request_id": "e-5", "sire_id": b.bull, "calves": oneCalf("N")}, 400, "sire_basis"},
				{"SireOfNoFarm", b.owner.Token, p, map[string]any{"request_id": "e-6", "sire_id": uuid.NewString(), "sire_basis": "dna", "dna_lab": "Lab", "calves": oneCalf("U")}, 404, ""},
				{"UnknownPreview", b.owner.Token, uuid.NewString(), map[string]any{"request_id": "e-7", "calves": oneCalf("P")}, 404, ""},
				{"NoAuth", "", p, map[string]any{"request_id": "e-8", "calves": oneCalf("Q")}, 401, ""},
				{"Reader", b.reader.Token, p, map[string]any{"request_id": "e-9", "calves": oneCalf("R")}, 401, ""}, // a READER is refused as on every write
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					res := b.app.Do("POST", bh+"/previews/"+c.path+"/approve", c.token, c.body)
					if res.Status != c.status {
						t.Fatalf("status %d, want %d: %s", res.Status, c.status, res.Body)
					}
					if c.want != "" {
						herdbooktest.WantEnvelope(t, res, c.status, "ValidationError", c.want)
					}
				})
			}
			// Another farm's preview is not found; a token without write:animals is forbidden.
			other := b.app.MustUser()
			of := b.app.MustFarm(other, "Other Farm")
			herdbooktest.WantEnvelope(t, b.app.Do("POST", "/v1/farm/"+of.ID.String()+"/birth-history/previews/"+p+"/approve", other.Token,
				map[string]any{"request_id": "e-10", "calves": oneCalf("O")}), 404, "ServiceError", "")
			noAnimals := b.app.MustUser("read:records", "write:records", "read:animals")
			b.app.MustMember(uuid.MustParse(b.farm), noAnimals, "EDITOR")
			herdbooktest.WantEnvelope(t, b.app.Do("POST", bh+"/previews/"+p+"/approve", noAnimals.Token,
				map[string]any{"request_id": "e-11", "calves": oneCalf("Z")}), 403, "ForbiddenError", "")
			// Nothing of the refused approvals was recorded.
			if l := wantStatus(t, b.app.Do("GET", b.base+"/calvings?from=2026-04-25&to=2026-04-25", b.reader.Token, nil), 200); l["total"] != float64(0) {
				t.Fatalf("calvings after the refusals = %v", l)
			}
		})
	})
}
