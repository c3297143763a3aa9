package rest_test

import (
	"fmt"
	"math"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// calvingFarm is newBirthFarm with a farm time zone, a surrogate cow and a protocol whose
// steps depend on the calf's sex.
func calvingFarm(t *testing.T, d *db.DB) (*birthFarm, string) {
	b := newBirthFarm(t, d)
	f := b.farmID(t)
	putSettings(t, b.app, f, b.owner.Token, map[string]any{"time_zone": "Europe/London"})
	nurse := b.app.MustAnimal(b.owner, f, "NURSE-1").ID.String()
	b.facts(t, map[string]any{"kind": "profile", "animal_id": nurse, "sex": "female", "birth_date": "2019-03-01"})
	if res := b.app.Do("PUT", b.base+"/birth-history/settings", b.owner.Token, cattleSettings); res.Status != 200 {
		t.Fatalf("settings: %d %s", res.Status, res.Body)
	}
	res := b.app.Do("PUT", b.base+"/birth-history/protocol", b.owner.Token, map[string]any{"steps": []any{
		map[string]any{"name": "Check the dam", "offset_days": 1},
		map[string]any{"name": "Castrate", "offset_days": 30, "sex": "male"},
		map[string]any{"name": "Freemartin test", "offset_days": 14, "sex": "female"},
	}})
	if res.Status != 200 {
		t.Fatalf("protocol: %d %s", res.Status, res.Body)
	}
	return b, nurse
}

// TestCalvingTwinsWithSurrogate is issue 21's season scenario: twins, one fostered on a
// surrogate cow, through the calving operation: two calves created with their parents,
// tasks by the calves' sex, and a second call that changes nothing.
func TestCalvingTwinsWithSurrogate(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b, nurse := calvingFarm(t, d)
		body := map[string]any{
			"dam_id": b.dam, "date": "2026-04-20", "sire_id": b.bull, "sire_basis": "service",
			"calves": []any{
				map[string]any{"tag": "CALF-1", "sex": "male", "birth_weight": 38.5, "status": "alive", "twin": true},
				map[string]any{"tag": "CALF-2", "sex": "female", "birth_weight": 34, "status": "alive", "twin": true,
					"freemartin": true, "surrogate_dam_id": nurse},
			},
		}
		first := b.app.Do("POST", b.base+"/calvings", b.owner.Token, body)
		if first.Status != http.StatusCreated {
			t.Fatalf("calving: %d %s", first.Status, first.Body)
		}
		cv := first.JSON(t)
		calves := cv["calves"].([]any)
		if len(calves) != 2 {
			t.Fatalf("calves = %v", calves)
		}
		bull, cow := calves[0].(map[string]any), calves[1].(map[string]any)
		if cow["surrogate_dam_id"] != nurse || cow["freemartin"] != true {
			t.Fatalf("calf 2 = %v", cow)
		}
		sire := cv["sire"].(map[string]any)
		if sire["status"] != "recorded" || sire["basis"] != "service" {
			t.Fatalf("sire = %v", sire)
		}
		// Tasks: the dam's once, castration for the bull calf, the freemartin test for the heifer.
		want := map[string]string{"Check the dam": b.dam, "Castrate": bull["animal_id"].(string), "Freemartin test": cow["animal_id"].(string)}
		tasks := cv["tasks"].([]any)
		if len(tasks) != 3 {
			t.Fatalf("tasks = %v", tasks)
		}
		for _, tk := range tasks {
			tk := tk.(map[string]any)
			ids := tk["animals"].([]any)
			if len(ids) != 1 || ids[0].(map[string]any)["id"] != want[tk["name"].(string)] {
				t.Fatalf("task %v, want it for %s", tk, want[tk["name"].(string)])
			}
		}
		// Each calf is an animal with its parents and birth date.
		a := b.app.Do("GET", b.base+"/animals/"+bull["animal_id"].(string), b.owner.Token, nil).JSON(t)["profile"].(map[string]any)
		if a["dam_id"] != b.dam || a["sire_id"] != b.bull || a["birth_date"] != "2026-04-20" || a["sex"] != "male" {
			t.Fatalf("calf = %v", a)
		}
		// The second call answers the first calving and writes nothing.
		var again herdbooktest.Response
		writes := b.app.Queries(func() { again = b.app.Do("POST", b.base+"/calvings", b.owner.Token, body) })
		if again.Status != http.StatusOK || again.JSON(t)["id"] != cv["id"] {
			t.Fatalf("second call: %d %s", again.Status, again.Body)
		}
		list := b.app.Do("GET", b.base+"/calvings", b.owner.Token, nil).JSON(t)
		if list["total"] != 1.0 {
			t.Fatalf("list = %v", list)
		}
		animals := b.app.Do("GET", b.base+"/animals?take=100", b.owner.Token, nil).JSON(t)
		if n := animals["total"]; n != 6.0 { // dam, bull, steer, nurse, two calves
			t.Fatalf("animals total %v after the second call (%d statements)", n, writes)
		}
		tasksRes := b.app.Do("GET", b.base+"/farm-tasks", b.owner.Token, nil).JSON(t)
		if n := len(tasksRes["records"].([]any)); n != 3 {
			t.Fatalf("%d tasks after the second call", n)
		}
		got := b.app.Do("GET", b.base+"/calvings/"+cv["id"].(string), b.reader.Token, nil)
		if got.Status != 200 || got.JSON(t)["date"] != "2026-04-20" {
			t.Fatalf("get: %d %s", got.Status, got.Body)
		}
	})
}

func TestCalvingRefusals(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b, _ := calvingFarm(t, d)
		other := b.app.MustFarm(b.owner, "Elsewhere")
		stranger := b.app.MustAnimal(b.owner, other.ID, "ELSE-1").ID.String()
		calf := func(extra map[string]any) map[string]any {
			c := map[string]any{"tag": "C-9", "sex": "female", "status": "alive"}
			for k, v := range extra {
				c[k] = v
			}
			return c
		}
		body := func(extra map[string]any, calves ...any) map[string]any {
			if len(calves) == 0 {
				calves = []any{calf(nil)}
			}
			m := map[string]any{"dam_id": b.dam, "date": "2026-04-20", "calves": calves}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
		path := b.base + "/calvings"
		for _, tc := range []struct {
			name   string
			body   any
			status int
			kind   string
			want   string
		}{
			{"ErrMalformedJSON", `{"dam_id": `, 400, "ValidationError", ""},
			{"ErrWrongType", `{"dam_id": 5, "date": "2026-04-20", "calves": []}`, 400, "ValidationError", "dam_id"},
			{"ErrCalvesWrongType", `{"dam_id": "` + b.dam + `", "date": "2026-04-20", "calves": [{"sex": "male", "status": "alive", "tag": "X", "twin": "yes"}]}`, 400, "ValidationError", "twin"},
			{"ErrMissingFields", map[string]any{}, 400, "ValidationError", "dam_id: is required"},
			{"ErrNoCalves", map[string]any{"dam_id": b.dam, "date": "2026-04-20", "calves": []any{}}, 400, "ValidationError", "calves"},
			{"ErrBadDate", body(map[string]any{"date": "2026-02-30"}), 400, "ValidationError", "date"},
			{"ErrWeightOutOfRange", body(nil, calf(map[string]any{"birth_weight": 0})), 400, "ValidationError", "calves[0].birth_weight"},
			{"ErrWeightTooHeavy", body(nil, calf(map[string]any{"birth_weight": 5000})), 400, "ValidationError", "calves[0].birth_weight"},
			{"ErrSex", body(nil, calf(map[string]any{"sex": "steer"})), 400, "ValidationError", "calves[0].sex"},
			{"ErrStatus", body(nil, calf(map[string]any{"status": "dead"})), 400, "ValidationError", "calves[0].status"},
			{"ErrEaseWithoutScale", body(nil, calf(map[string]any{"calving_ease": "1"})), 400, "ValidationError", "calving_ease_scale"},
			{"ErrLoneTwin", body(nil, calf(map[string]any{"twin": true})), 400, "ValidationError", "calves[0].twin"},
			{"ErrMaleFreemartin", body(nil, calf(map[string]any{"sex": "male", "freemartin": true})), 400, "ValidationError", "freemartin"},
			{"ErrSireWithoutBasis", body(map[string]any{"sire_id": b.bull}), 400, "ValidationError", "sire_basis"},
			{"ErrBasis", body(map[string]any{"sire_id": b.bull, "sire_basis": "guess"}), 400, "ValidationError", "sire_basis"},
			{"ErrDNAWithoutLab", body(map[string]any{"sire_id": b.bull, "sire_basis": "dna"}), 400, "ValidationError", "dna_lab"},
			{"ErrServiceThatDoesNotFit", body(map[string]any{"sire_id": b.steer, "sire_basis": "service"}), 400, "ValidationError", "sire_id"},
			{"ErrReviewNotPresumed", body(map[string]any{"sire_id": b.steer, "sire_basis": "review"}), 400, "ValidationError", "sire_id"},
			{"ErrUnknownDam", body(map[string]any{"dam_id": "00000000-0000-4000-8000-000000000000"}), 404, "ServiceError", ""},
			{"ErrOtherFarmsDam", body(map[string]any{"dam_id": stranger}), 404, "ServiceError", ""},
			{"ErrOtherFarmsSurrogate", body(nil, calf(map[string]any{"surrogate_dam_id": stranger})), 404, "ServiceError", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, b.app.Do("POST", path, b.owner.Token, tc.body), tc.status, tc.kind, tc.want)
			})
		}
		t.Run("ErrNoAuth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, b.app.Do("POST", path, "", body(nil)), 401, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, b.app.Do("GET", path, "", nil), 401, "Unauthorized", "")
		})
		t.Run("ErrReaderCannotRecord", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, b.app.Do("POST", path, b.reader.Token, body(nil)), 401, "Unauthorized", "EDITOR")
		})
		t.Run("ErrUnknownCalving", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, b.app.Do("GET", path+"/00000000-0000-4000-8000-000000000000", b.owner.Token, nil), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, b.app.Do("GET", path+"/nope", b.owner.Token, nil), 400, "ValidationError", "")
		})
		t.Run("ErrListParams", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, b.app.Do("GET", path+"?take=0", b.owner.Token, nil), 400, "ValidationError", "take")
			herdbooktest.WantEnvelope(t, b.app.Do("GET", path+"?from=2026-13-01", b.owner.Token, nil), 400, "ValidationError", "from")
		})
		t.Run("EaseOnTheFarmsScale", func(t *testing.T) {
			// BIF Guidelines' calving-ease score: 1 no difficulty ... 5 abnormal presentation.
			putSettings(t, b.app, b.farmID(t), b.owner.Token, map[string]any{"calving_ease_scale": []any{
				map[string]any{"code": "1", "label": "No difficulty"}, map[string]any{"code": "2", "label": "Minor difficulty"},
				map[string]any{"code": "3", "label": "Major difficulty"}, map[string]any{"code": "4", "label": "Caesarean section"},
				map[string]any{"code": "5", "label": "Abnormal presentation"}}})
			herdbooktest.WantEnvelope(t, b.app.Do("POST", path, b.owner.Token, body(nil, calf(map[string]any{"calving_ease": "9"}))), 400, "ValidationError", "1, 2, 3, 4, 5")
			res := b.app.Do("POST", path, b.owner.Token, body(map[string]any{"sire_id": b.bull, "sire_basis": "review"},
				calf(map[string]any{"calving_ease": "2"})))
			if res.Status != 201 {
				t.Fatalf("calving: %d %s", res.Status, res.Body)
			}
			cv := res.JSON(t)
			if s := cv["sire"].(map[string]any); s["status"] != "presumed" {
				t.Fatalf("a reviewed sire is presumed, got %v", s)
			}
			// A presumed sire is never the calf's parent.
			kid := cv["calves"].([]any)[0].(map[string]any)["animal_id"].(string)
			if a := b.app.Do("GET", b.base+"/animals/"+kid, b.owner.Token, nil).JSON(t)["profile"].(map[string]any); a["sire_id"] != nil {
				t.Fatalf("calf's sire = %v, want none", a["sire_id"])
			}
		})
	})
}

// TestCalvingListStatements: the calving list costs the same statements for one calving as
// for a page of them.
func TestCalvingListStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b, _ := calvingFarm(t, d)
		f := b.farmID(t)
		count := func() int64 {
			return b.app.Queries(func() {
				if res := b.app.Do("GET", b.base+"/calvings", b.owner.Token, nil); res.Status != 200 {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
			})
		}
		add := func(i int) {
			dam := b.app.MustAnimal(b.owner, f, fmt.Sprintf("COW-%d", i)).ID.String()
			b.facts(t, map[string]any{"kind": "profile", "animal_id": dam, "sex": "female", "birth_date": "2020-01-01"})
			res := b.app.Do("POST", b.base+"/calvings", b.owner.Token, map[string]any{"dam_id": dam, "date": "2026-04-01",
				"calves": []any{map[string]any{"tag": fmt.Sprintf("K-%d", i), "sex": "male", "status": "alive"}}})
			if res.Status != 201 {
				t.Fatalf("calving: %d %s", res.Status, res.Body)
			}
		}
		add(0)
		one := count()
		for i := 1; i < 6; i++ {
			add(i)
		}
		if many := count(); many != one {
			t.Fatalf("the list costs %d statements for 1 calving, %d for 6", one, many)
		}
	})
}

// TestWeaningWeight checks the 205-day adjusted weaning weight against a hand calculation
// by the formula of the BIF Guidelines for Uniform Beef Improvement Programs (weaning
// weight): (weaning weight − birth weight) / age in days × 205 + birth weight, plus the
// farm's age-of-dam adjustment.
func TestWeaningWeight(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b, _ := calvingFarm(t, d)
		res := b.app.Do("POST", b.base+"/calvings", b.owner.Token, map[string]any{"dam_id": b.dam, "date": "2026-03-01",
			"calves": []any{map[string]any{"tag": "W-1", "sex": "male", "status": "alive", "birth_weight": 40}}})
		if res.Status != 201 {
			t.Fatalf("calving: %d %s", res.Status, res.Body)
		}
		calf := res.JSON(t)["calves"].([]any)[0].(map[string]any)["animal_id"].(string)
		herd := b.herd
		b.facts(t,
			map[string]any{"kind": "weight", "animal_id": calf, "date": "2026-06-09", "kg": 130},
			map[string]any{"kind": "weaning", "animal_id": calf, "date": "2026-09-17", "kg": 250, "group_id": herd},
		)
		path := b.base + "/animals/" + calf + "/weights"
		w := b.app.Do("GET", path, b.owner.Token, nil).JSON(t)
		adj := w["adjusted_weaning_weight"].(map[string]any)
		// Born 2026-03-01, weaned 2026-09-17: 200 days. (250 − 40) / 200 × 205 + 40 = 255.25.
		if adj["age_days"] != 200.0 || adj["adjusted_kg"] != 255.25 || adj["age_of_dam_adjustment_kg"] != 0.0 {
			t.Fatalf("adjusted = %v", adj)
		}
		// Gains: 40 → 130 kg over 100 days (0.9 kg/day); 130 → 250 over 100 days (1.2).
		gains := w["gains"].([]any)
		if len(gains) != 2 || gains[0].(map[string]any)["daily_gain_kg"] != 0.9 || gains[1].(map[string]any)["daily_gain_kg"] != 1.2 {
			t.Fatalf("gains = %v", gains)
		}
		g := b.app.Do("GET", path+"?from=2026-03-01&to=2026-09-17", b.owner.Token, nil).JSON(t)["gain"].(map[string]any)
		if g["days"] != 200.0 || g["daily_gain_kg"] != 1.05 {
			t.Fatalf("gain = %v", g)
		}
		// The dam (born 2021-04-01) was 1795 days old at calving; the farm adds 15 kg to a
		// bull calf of a dam aged 3 to 5 years (its own table; BIF publishes breed tables).
		putSettings(t, b.app, b.farmID(t), b.owner.Token, map[string]any{"weaning_age_of_dam": []any{
			map[string]any{"min_days": 700, "max_days": 1094, "male_kg": 27, "female_kg": 25},
			map[string]any{"min_days": 1095, "max_days": 1825, "male_kg": 15, "female_kg": 13}}})
		adj = b.app.Do("GET", path, b.owner.Token, nil).JSON(t)["adjusted_weaning_weight"].(map[string]any)
		if adj["age_of_dam_days"] != 1795.0 || adj["age_of_dam_adjustment_kg"] != 15.0 || math.Abs(adj["adjusted_kg"].(float64)-270.25) > 1e-9 {
			t.Fatalf("adjusted with age of dam = %v", adj)
		}
		t.Run("ErrGainDatesWithoutWeighing", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, b.app.Do("GET", path+"?from=2026-03-02&to=2026-09-17", b.owner.Token, nil), 400, "ValidationError", "from")
			herdbooktest.WantEnvelope(t, b.app.Do("GET", path+"?from=2026-03-01", b.owner.Token, nil), 400, "ValidationError", "to")
		})
		t.Run("ErrUnknownAnimal", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, b.app.Do("GET", b.base+"/animals/00000000-0000-4000-8000-000000000000/weights", b.owner.Token, nil), 404, "ServiceError", "")
		})
		t.Run("MissingBirthWeight", func(t *testing.T) {
			w := b.app.Do("GET", b.base+"/animals/"+b.bull+"/weights", b.owner.Token, nil).JSON(t)
			if w["adjusted_weaning_weight"] != nil || len(w["adjusted_weaning_missing"].([]any)) != 2 {
				t.Fatalf("weights = %v", w)
			}
		})
	})
}

func (b *birthFarm) farmID(t *testing.T) uuid.UUID {
	t.Helper()
	return uuid.MustParse(b.farm)
}
