package rest_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestReconciliationREST (issue 29.4) plants the differences a BCMS difference report lists
// (FarmWizard, herdmanagement.co.uk) between a registry copy of the holding and the book on
// 20 March 2026: twins born on 6 March, one registered with the wrong genetic dam and one
// not registered (a birth to report); a cow bought on 16 March and not reported (a move on to
// report); a steer CTS has on the holding that the book does not; the dam's birth date one day
// off. As of 10 March the cow is not yet on the register, so it makes no difference.
func TestReconciliationREST(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		n := newNoticeFarm(t, d)
		app := n.app
		dam := app.MustAnimal(n.owner, n.farm, "UK 123456 100001").ID.String()
		calf := app.MustAnimal(n.owner, n.farm, "UK 123456 200002").ID.String()
		calf2 := app.MustAnimal(n.owner, n.farm, "UK 123456 500005").ID.String()
		cow := app.MustAnimal(n.owner, n.farm, "UK 654321 300001").ID.String()
		n.fact(t, map[string]any{"kind": "profile", "animal_id": dam, "sex": "female", "birth_date": "2020-04-01"})
		n.fact(t, map[string]any{"kind": "birth", "dam_id": dam, "date": "2026-03-06", "offspring_ids": []string{calf, calf2}})
		n.fact(t, map[string]any{"kind": "profile", "animal_id": calf, "sex": "male"})
		n.fact(t, map[string]any{"kind": "purchase", "animal_id": cow, "date": "2026-03-16", "holding_scheme": "uk.cph", "holding_number": "12/345/6789"})

		registry := map[string]any{"animals": []map[string]any{
			{"tag": "UK123456100001", "sex": "F", "birth_date": "2020-04-02", "on_date": "2020-04-02", "breed": "LIMX"},
			{"tag": "UK123456200002", "sex": "M", "birth_date": "2026-03-06", "on_date": "2026-03-06", "breed": "LIMX", "dam": "UK123456400004"},
			{"tag": "UK123456300003", "sex": "M", "birth_date": "2024-04-01", "on_date": "2024-04-01", "breed": "LIMX"},
		}}
		diffs := func(query string) []string {
			t.Helper()
			res := app.Do("POST", n.base+"/reconciliation"+query, n.reader.Token, registry)
			if res.Status != 200 {
				t.Fatalf("reconciliation%s: %d %s", query, res.Status, res.Body)
			}
			var out []string
			for _, x := range res.JSON(t)["differences"].([]any) {
				m := x.(map[string]any)
				out = append(out, fmt.Sprintf("%s %s %v %v|%v %s", m["tag"], m["kind"], m["field"], m["registry"], m["book"], m["fix"]))
			}
			sort.Strings(out)
			return out
		}
		want := []string{
			"UK123456100001 differs birth_date 2020-04-02|2020-04-01 amend_book_or_correct_registry",
			"UK123456200002 differs dam UK123456400004|UK123456100001 amend_book_or_correct_registry",
			"UK123456300003 only_in_registry <nil> <nil>|<nil> record_in_book_or_report_departure",
			"UK123456500005 only_in_book <nil> <nil>|<nil> report_birth",
			"UK654321300001 only_in_book <nil> <nil>|<nil> report_move_on",
		}
		if got := diffs("?as_of=2026-03-20"); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("differences on 20 March:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got := diffs("?as_of=2026-03-10&known_at=2030-01-01T00:00:00Z"); strings.Join(got, "\n") != strings.Join(want[:4], "\n") {
			t.Fatalf("differences on 10 March:\n%s", strings.Join(got, "\n"))
		}

		t.Run("Errors", func(t *testing.T) {
			p := n.base + "/reconciliation"
			herdbooktest.WantEnvelope(t, app.Do("POST", p, n.reader.Token, map[string]any{}), 400, "ValidationError", "animals")
			herdbooktest.WantEnvelope(t, app.Do("POST", p, n.reader.Token, map[string]any{"animals": []any{map[string]any{"tag": "UK123456100001", "sex": "X"}}}), 400, "ValidationError", "animals[0].sex")
			herdbooktest.WantEnvelope(t, app.Do("POST", p, n.reader.Token, map[string]any{"animals": []any{map[string]any{"tag": ""}}}), 400, "ValidationError", "")
			herdbooktest.WantEnvelope(t, app.Do("POST", p, n.reader.Token, map[string]any{"animals": []any{map[string]any{"tag": "T", "birth_date": "2026-02-30"}}}), 400, "ValidationError", "animals[0].birth_date")
			herdbooktest.WantEnvelope(t, app.Do("POST", p+"?as_of=20-03-2026", n.reader.Token, registry), 400, "ValidationError", "as_of")
			if res := app.Do("POST", p, "", registry); res.Status != 401 {
				t.Fatalf("no auth: %d", res.Status)
			}
			stranger := app.MustUser()
			if res := app.Do("POST", p, stranger.Token, registry); res.Status != 404 {
				t.Fatalf("a stranger: %d", res.Status)
			}
			sf := app.MustFarm(stranger, "Theirs")
			if res := app.Do("POST", "/v1/farm/"+sf.ID.String()+"/reconciliation", stranger.Token, registry); res.Status != 404 {
				t.Fatalf("a farm on no holding: %d %s", res.Status, res.Body)
			}
		})
	})
}

// TestReconciliationStatements (issue 29.4): comparing a registry copy with the register
// costs the same number of statements whatever the herd (30 calves or 600): against an
// empty copy every animal on the farm on 20 March is a difference.
func TestReconciliationStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		nf := newNoticeFarm(t, d)
		count := func(n int) (int64, int) {
			f := nf.app.MustFarm(nf.owner, fmt.Sprintf("Farm of %d", n))
			nf.app.MustMember(f.ID, nf.reader, herdbook.RoleReader)
			base := "/v1/farm/" + f.ID.String()
			h := cphHolding()
			h["identifier"] = fmt.Sprintf("34/123/%04d", n)
			if res := nf.app.Do("PUT", base+"/holding", nf.owner.Token, h); res.Status != 201 {
				t.Fatalf("holding: %d %s", res.Status, res.Body)
			}
			seedNoticeHerd(t, d, f.ID, n)
			var total int
			q := nf.app.Queries(func() {
				res := nf.app.Do("POST", base+"/reconciliation?as_of=2026-03-20", nf.reader.Token, map[string]any{"animals": []any{}})
				if res.Status != 200 {
					t.Fatalf("reconciliation: %d %s", res.Status, res.Body)
				}
				total = int(res.JSON(t)["total"].(float64))
			})
			return q, total
		}
		small, ns := count(30)
		large, nl := count(600)
		// Every calf born by the 20th (days 1 to 20 of March, i%20+1) and the dam.
		if ns != 30+1 || nl != 600+1 {
			t.Errorf("differences: %d and %d", ns, nl)
		}
		if small != large {
			t.Errorf("statements: %d for 30 calves, %d for 600", small, large)
		}
		t.Logf("statements per reconciliation: %d", small)
	})
}
