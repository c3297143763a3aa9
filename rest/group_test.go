package rest_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestGroupMembersAreDatedFacts: group writes record dated membership facts, and every read
// of membership (the group's members on a day, a group treatment's reach) derives it from
// them. Issue 20: a group whose members were set by the member list, not by facts, reached no
// animal when it was treated.
func TestGroupMembersAreDatedFacts(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Members Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "UTC"}) // bare dates are the farm's local days
		base := "/v1/farm/" + f.ID.String()
		a, b, c := app.MustAnimal(owner, f.ID, "A-1"), app.MustAnimal(owner, f.ID, "B-2"), app.MustAnimal(owner, f.ID, "C-3")
		herd := mustCreate(t, app, base+"/groups", owner.Token, map[string]any{"name": "Calves",
			"animal_ids": []string{a.ID.String(), b.ID.String()}, "start_date": "2026-04-01"})
		herdID := herd["id"].(string)
		put := app.Do("PUT", base+"/groups/"+herdID+"/animals", owner.Token, map[string]any{
			"animal_ids": []string{b.ID.String(), c.ID.String()}, "start_date": "2026-05-01"})
		if put.Status != http.StatusOK {
			t.Fatalf("PUT members: %d %s", put.Status, put.Body)
		}
		tags := func(v map[string]any) []string {
			var out []string
			for _, m := range v["members"].([]any) {
				out = append(out, m.(map[string]any)["tag"].(string))
			}
			slices.Sort(out)
			return out
		}
		if got := tags(put.JSON(t)); !slices.Equal(got, []string{"B-2", "C-3"}) || put.JSON(t)["as_of"] != "2026-05-01" {
			t.Fatalf("PUT answered %v", put.JSON(t))
		}
		for day, want := range map[string][]string{"2026-03-31": nil, "2026-04-15": {"A-1", "B-2"}, "2026-05-01": {"B-2", "C-3"}} {
			g := wantStatus(t, app.Do("GET", base+"/groups/"+herdID+"?as_of="+day, owner.Token, nil), 200)
			if got := tags(g); !slices.Equal(got, want) {
				t.Errorf("members on %s: %v, want %v", day, got, want)
			}
		}
		// The facts are records of the farm, kept as history: two memberships on create, one
		// membership (C) and one membership_end (A) on the change.
		if total := wantStatus(t, app.Do("GET", base+"/records", owner.Token, nil), 200)["total"]; total != float64(4) {
			t.Fatalf("%v fact records, want 4", total)
		}
		// A group treatment reaches the members of its day.
		med := mustCreate(t, app, base+"/medicines", owner.Token, map[string]any{"name": "Oxytetracycline", "withdrawal_meat_days": 28, "withdrawal_milk_hours": 168})
		if res := fact(app, f.ID, owner.Token, []string{a.ID.String()}, map[string]any{"kind": "treatment", "medicine_id": med["id"],
			"group_id": herdID, "date": "2026-04-15"}, false); res.Status != http.StatusCreated {
			t.Fatalf("treatment: %d %s", res.Status, res.Body)
		}
		w := wantStatus(t, app.Do("GET", base+"/withdrawals?as_of=2026-04-20", owner.Token, nil), 200)
		var held []string
		for _, r := range w["records"].([]any) {
			held = append(held, r.(map[string]any)["animal_id"].(string))
		}
		slices.Sort(held)
		want := []string{a.ID.String(), b.ID.String()}
		slices.Sort(want)
		if !slices.Equal(held, want) {
			t.Fatalf("under withdrawal: %v, want A-1 and B-2 (the members on 2026-04-15)", held)
		}
	})
}
