package rest_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestReconciliationBreeds (issue 29.6): the reconciliation compares breeds through
// registry/breed now that the book's breed can be coded: a cow the book records as Limousin
// (CTS's LIM) that CTS holds as LIMX differs; a calf recorded as "limousin cross" that CTS
// holds as limx does not; a steer recorded as "Angus", a name CTS's list does not give, has no
// code, and so does not differ from CTS's AA (a detail one side lacks never differs).
func TestReconciliationBreeds(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		n := newNoticeFarm(t, d)
		app := n.app
		cow := app.MustAnimal(n.owner, n.farm, "UK 123456 100001").ID.String()
		calf := app.MustAnimal(n.owner, n.farm, "UK 123456 200002").ID.String()
		steer := app.MustAnimal(n.owner, n.farm, "UK 123456 300003").ID.String()
		n.fact(t, map[string]any{"kind": "profile", "animal_id": cow, "sex": "female", "birth_date": "2020-04-01", "breed": "Limousin"})
		n.fact(t, map[string]any{"kind": "birth", "dam_id": cow, "date": "2026-03-06", "offspring_ids": []string{calf}})
		n.fact(t, map[string]any{"kind": "profile", "animal_id": calf, "sex": "male", "breed": "limousin cross"})
		n.fact(t, map[string]any{"kind": "profile", "animal_id": steer, "sex": "male", "birth_date": "2024-04-01", "breed": "Angus"})
		res := app.Do("POST", n.base+"/reconciliation?as_of=2026-03-20", n.reader.Token, map[string]any{"animals": []map[string]any{
			{"tag": "UK123456100001", "breed": "LIMX"},
			{"tag": "UK123456200002", "breed": "limx"},
			{"tag": "UK123456300003", "breed": "AA"},
		}})
		if res.Status != 200 {
			t.Fatalf("reconciliation: %d %s", res.Status, res.Body)
		}
		var got []string
		for _, x := range res.JSON(t)["differences"].([]any) {
			m := x.(map[string]any)
			got = append(got, fmt.Sprintf("%s %s %v %v|%v", m["tag"], m["kind"], m["field"], m["registry"], m["book"]))
		}
		sort.Strings(got)
		if want := "UK123456100001 differs breed LIMX|LIM"; strings.Join(got, "\n") != want {
			t.Fatalf("differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
		}
	})
}
