package rest_test

import (
	"context"
	"encoding/csv"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// siresFarm is calvingFarm with the sires of a real breeding year (issue 28.1): an outside AI
// sire whose semen batch is recorded, an outside embryo donor, a second home bull that ran
// with a group, and the cows they served. Every calving is on 2026-04-20, whose conception
// window under the farm's gestation of 279 to 292 days is 2025-07-02 to 2025-07-15.
type siresFarm struct {
	*birthFarm
	aiSire, donor, bull2, bull3 string
	cows                        map[string]string
}

func newSiresFarm(t *testing.T, d *db.DB) *siresFarm {
	b, _ := calvingFarm(t, d)
	f := b.farmID(t)
	s := &siresFarm{birthFarm: b, cows: map[string]string{}}
	outside := func(body map[string]any) string {
		res := b.app.Do("POST", b.base+"/outside-animals", b.owner.Token, body)
		if res.Status != http.StatusCreated {
			t.Fatalf("outside animal: %d %s", res.Status, res.Body)
		}
		return res.JSON(t)["id"].(string)
	}
	s.aiSire = outside(map[string]any{"name": "Ampertaine Gigolo", "sex": "male", "breed": "Limousin", "batch": "LIM-2025-7"})
	s.donor = outside(map[string]any{"name": "Donor Rosette", "sex": "female", "breed": "Limousin", "registration_number": "UK 123456 700001"})
	for _, tag := range []string{"COW-AI", "COW-NS", "COW-HM", "COW-DNA", "COW-ET", "COW-TWO"} {
		s.cows[tag] = b.app.MustAnimal(b.owner, f, tag).ID.String()
		b.facts(t, map[string]any{"kind": "profile", "animal_id": s.cows[tag], "sex": "female", "birth_date": "2020-03-01", "breed": "Angus"})
	}
	s.bull2 = b.app.MustAnimal(b.owner, f, "BULL-2").ID.String()
	s.bull3 = b.app.MustAnimal(b.owner, f, "BULL-3").ID.String()
	bullGroup := b.app.MustGroup(b.owner, f, "Bull group").ID.String()
	twoBulls := b.app.MustGroup(b.owner, f, "Two bulls").ID.String()
	b.facts(t,
		map[string]any{"kind": "profile", "animal_id": s.bull2, "sex": "male", "birth_date": "2021-01-01", "breed": "Angus"},
		map[string]any{"kind": "profile", "animal_id": s.bull3, "sex": "male", "birth_date": "2021-02-01", "breed": "Angus"},
		// AI with the outside sire's straw.
		map[string]any{"kind": "insemination", "dam_id": s.cows["COW-AI"], "sire_id": s.aiSire, "date": "2025-07-08", "straw": "LIM-2025-7"},
		// Natural service: BULL-2 ran with the bull group from 15 June to 31 August; the cow
		// joined it on 1 June.
		map[string]any{"kind": "membership", "animal_id": s.bull2, "group_id": bullGroup, "start_date": "2025-06-15", "end_date": "2025-08-31"},
		map[string]any{"kind": "membership", "animal_id": s.cows["COW-NS"], "group_id": bullGroup, "start_date": "2025-06-01"},
		// A hand mating by the home bull.
		map[string]any{"kind": "hand_mating", "dam_id": s.cows["COW-HM"], "sire_id": b.bull, "date": "2025-07-10"},
		// An embryo of the outside donor by the AI sire, placed in COW-ET.
		map[string]any{"kind": "embryo_transfer", "dam_id": s.donor, "sire_id": s.aiSire, "recipient_id": s.cows["COW-ET"], "date": "2025-07-09", "embryo": "ET-2025-031"},
		// Two bulls ran with one cow: natural service cannot tell them apart.
		map[string]any{"kind": "membership", "animal_id": s.bull2, "group_id": twoBulls, "start_date": "2025-07-01", "end_date": "2025-07-20"},
		map[string]any{"kind": "membership", "animal_id": s.bull3, "group_id": twoBulls, "start_date": "2025-06-01"},
		map[string]any{"kind": "membership", "animal_id": s.cows["COW-TWO"], "group_id": twoBulls, "start_date": "2025-06-01"},
	)
	return s
}

func (s *siresFarm) calve(t *testing.T, cow string, extra map[string]any, calves ...map[string]any) herdbooktest.Response {
	t.Helper()
	body := map[string]any{"dam_id": s.cows[cow], "date": "2026-04-20"}
	for k, v := range extra {
		body[k] = v
	}
	list := make([]any, len(calves))
	for i, c := range calves {
		list[i] = c
	}
	body["calves"] = list
	return s.app.Do("POST", s.base+"/calvings", s.owner.Token, body)
}

func (s *siresFarm) profile(t *testing.T, id string) map[string]any {
	t.Helper()
	res := s.app.Do("GET", s.base+"/animals/"+id, s.owner.Token, nil)
	if res.Status != 200 {
		t.Fatalf("animal: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["profile"].(map[string]any)
}

func calfIDs(t *testing.T, res herdbooktest.Response) []string {
	t.Helper()
	if res.Status != http.StatusCreated {
		t.Fatalf("calving: %d %s", res.Status, res.Body)
	}
	var ids []string
	for _, c := range res.JSON(t)["calves"].([]any) {
		ids = append(ids, c.(map[string]any)["animal_id"].(string))
	}
	return ids
}

// TestCalvingSireBases is issue 28.1: the calving takes every sire the book can justify (an
// outside AI sire with his insemination, a home bull by natural service through his dated
// group membership, a hand mating, a DNA result naming an outside sire, an embryo transfer's
// outside donor as genetic dam) and a refusal says why in the farmer's words and what to
// choose instead. The weaning report's sire table then covers the AI, embryo-transfer and
// natural-service calves (205-day weights by the BIF Guidelines, hand-checked).
func TestCalvingSireBases(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newSiresFarm(t, d)
		calf := func(tag, sex string, kg float64) map[string]any {
			return map[string]any{"tag": tag, "sex": sex, "status": "alive", "birth_weight": kg}
		}
		// Refusals first, while no cow has calved.
		t.Run("Refusals", func(t *testing.T) {
			one := calf("R-1", "male", 40)
			for _, tc := range []struct {
				name, cow string
				body      map[string]any
				status    int
				kind      string
				want      string
			}{
				{"ErrServiceWhereHeRanWithHer", "COW-NS", map[string]any{"sire_id": s.bull2, "sire_basis": "service"}, 400, "ValidationError",
					"no service of COW-NS by BULL-2 is recorded in her conception window (2025-07-02 to 2025-07-15), but he ran with her in a group from 2025-07-02 to 2025-07-15: choose sire_basis natural_service"},
				{"ErrNaturalServiceWithoutRunning", "COW-AI", map[string]any{"sire_id": s.bull2, "sire_basis": "natural_service"}, 400, "ValidationError",
					"BULL-2 did not run with COW-AI in her conception window"},
				{"ErrNaturalServiceOfAnAISire", "COW-AI", map[string]any{"sire_id": s.aiSire, "sire_basis": "natural_service"}, 400, "ValidationError",
					"he is known there only by a recorded insemination. Choose sire_basis service"},
				{"ErrNaturalServiceTwoBulls", "COW-TWO", map[string]any{"sire_id": s.bull3, "sire_basis": "natural_service"}, 400, "ValidationError",
					"BULL-2 ran with COW-TWO in her conception window (2025-07-02 to 2025-07-15) as well, so natural service cannot tell which of them sired the calf"},
				{"ErrNoServiceRecorded", "COW-HM", map[string]any{"sire_id": s.aiSire, "sire_basis": "service"}, 400, "ValidationError",
					"no insemination, hand mating, embryo transfer or exposure of COW-HM by Ampertaine Gigolo is recorded"},
				{"ErrExcludedSteer", "COW-HM", map[string]any{"sire_id": s.steer, "sire_basis": "service"}, 400, "ValidationError", "leave the sire out for the birth review"},
				{"ErrReviewNotPresumed", "COW-TWO", map[string]any{"sire_id": s.bull3, "sire_basis": "review"}, 400, "ValidationError", "the birth review presumes no sire, not BULL-3"},
				{"ErrOutsideFemaleSire", "COW-AI", map[string]any{"sire_id": s.donor, "sire_basis": "dna", "dna_lab": "Weatherbys"}, 400, "ValidationError", "Donor Rosette is an outside animal recorded as female"},
				{"ErrUnknownSire", "COW-AI", map[string]any{"sire_id": "00000000-0000-4000-8000-000000000000", "sire_basis": "service"}, 404, "ServiceError", "add an AI sire under the outside animals first"},
				{"ErrBasis", "COW-AI", map[string]any{"sire_id": s.aiSire, "sire_basis": "natural"}, 400, "ValidationError", "natural_service"},
				{"ErrBasisType", "COW-AI", map[string]any{"sire_id": s.aiSire, "sire_basis": 3}, 400, "ValidationError", "sire_basis"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					herdbooktest.WantEnvelope(t, s.calve(t, tc.cow, tc.body, one), tc.status, tc.kind, tc.want)
				})
			}
			t.Run("ErrOtherFarmsOutsideSire", func(t *testing.T) {
				other := s.app.MustFarm(s.owner, "Elsewhere")
				res := s.app.Do("POST", "/v1/farm/"+other.ID.String()+"/outside-animals", s.owner.Token, map[string]any{"name": "Theirs", "sex": "male"})
				if res.Status != 201 {
					t.Fatalf("outside animal: %d %s", res.Status, res.Body)
				}
				theirs := res.JSON(t)["id"].(string)
				herdbooktest.WantEnvelope(t, s.calve(t, "COW-AI", map[string]any{"sire_id": theirs, "sire_basis": "dna", "dna_lab": "Weatherbys"}, one), 404, "ServiceError", "outside")
				herdbooktest.WantEnvelope(t, s.calve(t, "COW-AI", nil, map[string]any{"tag": "R-2", "sex": "male", "status": "alive", "genetic_dam_id": theirs}), 404, "ServiceError", "genetic_dam_id")
			})
			t.Run("ErrOutsideMaleGeneticDam", func(t *testing.T) {
				herdbooktest.WantEnvelope(t, s.calve(t, "COW-AI", nil, map[string]any{"tag": "R-3", "sex": "male", "status": "alive", "genetic_dam_id": s.aiSire}), 400, "ValidationError", "a genetic dam is female")
			})
			t.Run("ErrOutsideSurrogate", func(t *testing.T) {
				herdbooktest.WantEnvelope(t, s.calve(t, "COW-AI", nil, map[string]any{"tag": "R-4", "sex": "male", "status": "alive", "surrogate_dam_id": s.donor}), 404, "ServiceError", "surrogate_dam_id")
			})
			t.Run("ErrNoAuth", func(t *testing.T) {
				res := s.app.Do("POST", s.base+"/calvings", "", map[string]any{"dam_id": s.cows["COW-AI"], "date": "2026-04-20", "sire_id": s.aiSire, "sire_basis": "service", "calves": []any{one}})
				herdbooktest.WantEnvelope(t, res, 401, "Unauthorized", "")
			})
			// Nothing was recorded by the refusals.
			if list := s.app.Do("GET", s.base+"/calvings", s.owner.Token, nil).JSON(t); list["total"] != 0.0 {
				t.Fatalf("refusals recorded calvings: %v", list)
			}
		})

		// The outside AI sire with his insemination (straw LIM-2025-7): the calf's recorded sire.
		ai := calfIDs(t, s.calve(t, "COW-AI", map[string]any{"sire_id": s.aiSire, "sire_basis": "service"}, calf("AI-1", "male", 40)))
		if p := s.profile(t, ai[0]); p["sire_id"] != s.aiSire || p["dam_id"] != s.cows["COW-AI"] || p["genetic_dam_id"] != nil || p["surrogate_dam_id"] != nil {
			t.Fatalf("AI calf = %v", p)
		}
		// Natural service: BULL-2's dated membership overlaps the cow's in the window; twins.
		res := s.calve(t, "COW-NS", map[string]any{"sire_id": s.bull2, "sire_basis": "natural_service"},
			map[string]any{"tag": "NS-1", "sex": "male", "status": "alive", "birth_weight": 35, "twin": true},
			map[string]any{"tag": "NS-2", "sex": "female", "status": "alive", "birth_weight": 32, "twin": true, "freemartin": true})
		ns := calfIDs(t, res)
		sire := res.JSON(t)["sire"].(map[string]any)
		if sire["basis"] != "natural_service" || sire["status"] != "recorded" || len(sire["provenance"].([]any)) < 2 {
			t.Fatalf("natural-service sire = %v", sire)
		}
		for _, id := range ns {
			if p := s.profile(t, id); p["sire_id"] != s.bull2 {
				t.Fatalf("natural-service calf = %v", p)
			}
		}
		// A hand mating by the home bull.
		hm := calfIDs(t, s.calve(t, "COW-HM", map[string]any{"sire_id": s.bull, "sire_basis": "service"}, calf("HM-1", "female", 36)))
		if p := s.profile(t, hm[0]); p["sire_id"] != s.bull {
			t.Fatalf("hand-mated calf = %v", p)
		}
		// A DNA result naming the outside sire.
		dna := calfIDs(t, s.calve(t, "COW-DNA", map[string]any{"sire_id": s.aiSire, "sire_basis": "dna", "dna_lab": "Weatherbys"}, calf("DNA-1", "male", 39)))
		if p := s.profile(t, dna[0]); p["sire_id"] != s.aiSire {
			t.Fatalf("DNA calf = %v", p)
		}
		// Embryo transfer (issue 28.7): the fitting transfer names the outside donor, so the
		// calf carries the genetic dam (the donor) and the surrogate dam (the recipient that
		// calved); the register's dam stays the cow that gave birth.
		res = s.calve(t, "COW-ET", map[string]any{"sire_id": s.aiSire, "sire_basis": "service"}, calf("ET-1", "female", 42))
		et := calfIDs(t, res)
		if got := res.JSON(t)["calves"].([]any)[0].(map[string]any)["genetic_dam_id"]; got != s.donor {
			t.Fatalf("ET calving's genetic dam = %v, want the donor", got)
		}
		if p := s.profile(t, et[0]); p["dam_id"] != s.cows["COW-ET"] || p["genetic_dam_id"] != s.donor || p["surrogate_dam_id"] != s.cows["COW-ET"] || p["sire_id"] != s.aiSire {
			t.Fatalf("ET calf = %v", p)
		}
		t.Run("EmbryoTransferInCSV", func(t *testing.T) {
			res := s.app.Do("GET", s.base+"/animals.csv?as_of=2026-05-01", s.owner.Token, nil)
			if res.Status != 200 {
				t.Fatalf("csv: %d %s", res.Status, res.Body)
			}
			rows, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			col := map[string]int{}
			for i, h := range rows[0] {
				col[h] = i
			}
			found := false
			for _, r := range rows[1:] {
				switch r[col["tag"]] {
				case "ET-1":
					found = true
					if r[col["dam"]] != "COW-ET" || r[col["genetic_dam"]] != "UK 123456 700001" || r[col["genetic_dam_id"]] != s.donor ||
						r[col["surrogate_dam"]] != "COW-ET" || r[col["surrogate_dam_id"]] != s.cows["COW-ET"] {
						t.Fatalf("ET row = %v", r)
					}
				case "AI-1":
					if r[col["genetic_dam"]] != "" || r[col["surrogate_dam"]] != "" || r[col["sire_id"]] != s.aiSire {
						t.Fatalf("AI row = %v", r)
					}
				}
			}
			if !found {
				t.Fatalf("no ET-1 row in %s", res.Body)
			}
		})
		t.Run("EmbryoTransferInGraphQL", func(t *testing.T) {
			out := s.app.GraphQL(s.owner.Token, `query($id: ID!) { node(id: $id) { ... on Animal { profile { damID geneticDamID surrogateDamID sireID } } } }`,
				map[string]any{"id": et[0]})
			p := out["data"].(map[string]any)["node"].(map[string]any)["profile"].(map[string]any)
			if p["damID"] != s.cows["COW-ET"] || p["geneticDamID"] != s.donor || p["surrogateDamID"] != s.cows["COW-ET"] || p["sireID"] != s.aiSire {
				t.Fatalf("graphql profile = %v (%v)", p, out)
			}
		})

		// The weaning report's sire table (docs/breeding.md): every calf weaned on 2026-10-27,
		// 190 days old. By BIF's (weaning − birth) / age × 205 + birth, rounded to grams:
		// AI-1 (250 − 40) / 190 × 205 + 40 = 266.579; ET-1 (260 − 42) / 190 × 205 + 42 = 277.211;
		// NS-1 (230 − 35) / 190 × 205 + 35 = 245.395; NS-2 (221 − 32) / 190 × 205 + 32 = 235.921;
		// HM-1 (200 − 36) / 190 × 205 + 36 = 212.947; DNA-1 (240 − 39) / 190 × 205 + 39 = 255.868.
		// The outside sire: AI-1, ET-1, DNA-1, mean 266.553 (799.658 / 3); BULL-2: 240.658;
		// BULL-1: 212.947. No calf without a sire.
		for id, kg := range map[string]float64{ai[0]: 250, et[0]: 260, ns[0]: 230, ns[1]: 221, hm[0]: 200, dna[0]: 240} {
			s.facts(t, map[string]any{"kind": "weaning", "animal_id": id, "date": "2026-10-27", "kg": kg})
		}
		w := s.app.Do("GET", s.base+"/reports/weaning?from=2026-10-01&to=2026-10-31", s.reader.Token, nil).JSON(t)
		if w["calves"] != 6.0 || w["missing"] != 0.0 || w["unknown"].(map[string]any)["sire"] != 0.0 {
			t.Fatalf("weaning = %v", w)
		}
		want := map[string]struct {
			n              float64
			mean, min, max float64
		}{
			s.aiSire: {3, 266.553, 255.868, 277.211},
			s.bull2:  {2, 240.658, 235.921, 245.395},
			s.bull:   {1, 212.947, 212.947, 212.947},
		}
		bySire := w["by_sire"].([]any)
		if len(bySire) != len(want) {
			t.Fatalf("by sire = %v", bySire)
		}
		for _, g := range bySire {
			g := g.(map[string]any)
			x, ok := want[g["sire_id"].(string)]
			if !ok || g["calves"] != x.n || math.Abs(g["mean_adjusted_kg"].(float64)-x.mean) > 1e-9 ||
				g["min_adjusted_kg"] != x.min || g["max_adjusted_kg"] != x.max {
				t.Fatalf("sire group %v, want %+v", g, x)
			}
		}
	})
}

// TestRecordFactsNameAnimals is issue 28.9: a record whose facts already name its animals
// needs no repeated animal_ids (the record is then about the farm's animals and groups its
// facts name; an outside sire is not one), while a record with nothing to be about is still
// refused. A duplicate EID names the other animal by its tag.
func TestRecordFactsNameAnimals(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newSiresFarm(t, d)
		post := func(body map[string]any) herdbooktest.Response {
			base := map[string]any{"name": "Service", "type": "GENETIC", "applied_at": "2025-07-08T09:00:00Z"}
			for k, v := range body {
				base[k] = v
			}
			return s.app.Do("POST", s.base+"/records", s.owner.Token, base)
		}
		fact := func(f map[string]any) []any {
			return []any{map[string]any{"metadata": map[string]any{"birth_history": f}}}
		}
		res := post(map[string]any{"record_items": fact(map[string]any{"kind": "insemination", "dam_id": s.cows["COW-HM"], "sire_id": s.aiSire, "date": "2025-07-20", "straw": "LIM-2025-7"})})
		if res.Status != http.StatusCreated {
			t.Fatalf("insemination without animal_ids: %d %s", res.Status, res.Body)
		}
		ids, err := d.Client.Record.Query().Where(record.ID(uuid.MustParse(res.JSON(t)["id"].(string)))).QueryAnimals().IDs(context.Background())
		if err != nil || len(ids) != 1 || ids[0].String() != s.cows["COW-HM"] {
			t.Fatalf("record animals = %v (%v), want the served cow only (the outside sire is no animal of the farm)", ids, err)
		}
		// A weaning in a group: the calf and the group.
		res = post(map[string]any{"record_items": fact(map[string]any{"kind": "weight", "animal_id": s.bull2, "date": "2025-08-01", "kg": 700})})
		if res.Status != http.StatusCreated {
			t.Fatalf("weight without animal_ids: %d %s", res.Status, res.Body)
		}
		t.Run("ErrNothingNamed", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, post(map[string]any{"record_items": []any{map[string]any{"name": "note"}}}), 400, "ValidationError", "unless the record's facts name them")
			herdbooktest.WantEnvelope(t, post(nil), 400, "ValidationError", "animal_ids")
			herdbooktest.WantEnvelope(t, post(map[string]any{"record_items": fact(map[string]any{"kind": "weight", "animal_id": "00000000-0000-4000-8000-000000000000", "date": "2025-08-01", "kg": 700})}), 400, "ValidationError", "not an animal of this farm")
			herdbooktest.WantEnvelope(t, post(map[string]any{"record_items": "x"}), 400, "ValidationError", "record_items")
		})
		t.Run("ErrNoAuth", func(t *testing.T) {
			res := s.app.Do("POST", s.base+"/records", "", map[string]any{"name": "x", "type": "GENETIC", "applied_at": "2025-07-08T09:00:00Z",
				"record_items": fact(map[string]any{"kind": "weight", "animal_id": s.bull2, "date": "2025-08-01", "kg": 700})})
			herdbooktest.WantEnvelope(t, res, 401, "Unauthorized", "")
		})
		t.Run("DuplicateEIDNamesTheOtherAnimal", func(t *testing.T) {
			// ISO 11784: country code 826 (United Kingdom) and a 12-digit national number.
			eid := map[string]any{"kind": "identifier", "animal_id": s.bull2, "scheme": "eid", "value": "826000000000042", "start_date": "2025-01-01"}
			if res := post(map[string]any{"record_items": fact(eid)}); res.Status != http.StatusCreated {
				t.Fatalf("eid: %d %s", res.Status, res.Body)
			}
			eid["animal_id"] = s.bull3
			herdbooktest.WantEnvelope(t, post(map[string]any{"record_items": fact(eid)}), 400, "ValidationError",
				"eid 826000000000042 already names animal BULL-2 ("+s.bull2+") from 2025-01-01")
			res := s.app.Do("POST", s.base+"/animals", s.owner.Token, map[string]any{"tag": "NEW-1", "eid": "826 000000000042"})
			herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "already names animal BULL-2")
		})
	})
}
