package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestLateMembershipCorrectionKeepsReach is issue 20's scenario: calves C12 and C13 are in
// the calf group when it is treated on 2026-05-02 (10 days' meat withdrawal). A membership
// entered late and backdated says C12 had moved to the weaned group on 2026-05-01. The
// treatment keeps its reach: C12's withdrawal stands, the guard refuses its sale, the book for
// that day is unchanged, and the treatment shows a conflict naming C12 until someone amends
// it. A correction may add an animal: C14, put into the group from 2026-04-01 afterwards, is
// reached too. Sources: VMR 2013 reg. 17–19 (GB), EU 2019/6 Art. 108: the record of a
// treatment names the animals treated, and a food-safety record does not shrink silently.
func TestLateMembershipCorrectionKeepsReach(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Suckler Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "UTC"}) // bare dates are the farm's local days
		app.MustMember(f.ID, reader, "READER")
		base := "/v1/farm/" + f.ID.String()
		c12, c13, c14 := app.MustAnimal(owner, f.ID, "C12"), app.MustAnimal(owner, f.ID, "C13"), app.MustAnimal(owner, f.ID, "C14")
		calves := mustCreate(t, app, base+"/groups", owner.Token, map[string]any{"name": "Calves",
			"animal_ids": []string{c12.ID.String(), c13.ID.String()}, "start_date": "2026-03-01"})["id"].(string)
		weaned := mustCreate(t, app, base+"/groups", owner.Token, map[string]any{"name": "Weaned"})["id"].(string)
		med := mustCreate(t, app, base+"/medicines", owner.Token, map[string]any{"name": "Closamectin", "withdrawal_meat_days": 10, "withdrawal_milk_hours": 0})
		res := fact(app, f.ID, owner.Token, []string{c12.ID.String()}, map[string]any{"kind": "treatment", "medicine_id": med["id"],
			"group_id": calves, "date": "2026-05-02", "batch": "B-1"}, false)
		if res.Status != http.StatusCreated {
			t.Fatalf("treatment: %d %s", res.Status, res.Body)
		}
		treatment := res.JSON(t)["id"].(string)
		book := func() string {
			res := app.Do("GET", base+"/medicine-book.csv?from=2026-05-02&to=2026-05-02", reader.Token, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("book: %d %s", res.Status, res.Body)
			}
			return string(res.Body)
		}
		before := book()
		if !strings.Contains(before, "C12") || !strings.Contains(before, "C13") {
			t.Fatalf("the book does not name the treated calves:\n%s", before)
		}
		conflicts := func() map[string]any {
			return wantStatus(t, app.Do("GET", base+"/treatment-conflicts", reader.Token, nil), 200)
		}
		if c := conflicts(); c["total"] != float64(0) {
			t.Fatalf("conflicts before the correction: %v", c)
		}

		// The late, backdated correction.
		if res := fact(app, f.ID, owner.Token, []string{c12.ID.String()}, map[string]any{"kind": "membership",
			"animal_id": c12.ID.String(), "group_id": weaned, "start_date": "2026-05-01"}, false); res.Status != http.StatusCreated {
			t.Fatalf("correction: %d %s", res.Status, res.Body)
		}
		held := func(day string) map[string]string {
			out := map[string]string{}
			for _, r := range wantStatus(t, app.Do("GET", base+"/withdrawals?as_of="+day, reader.Token, nil), 200)["records"].([]any) {
				out[r.(map[string]any)["tag"].(string)] = r.(map[string]any)["meat_clear_on"].(string)
			}
			return out
		}
		if h := held("2026-05-05"); h["C12"] != "2026-05-12" || h["C13"] != "2026-05-12" {
			t.Fatalf("after the correction: %v; C12 and C13 must stay under withdrawal until 2026-05-12", h)
		}
		sale := fact(app, f.ID, owner.Token, []string{c12.ID.String()}, map[string]any{"kind": "sale", "animal_id": c12.ID.String(), "date": "2026-05-08"}, false)
		herdbooktest.WantEnvelope(t, sale, http.StatusConflict, "WithdrawalError", "clears for slaughter on 2026-05-12")
		if after := book(); after != before {
			t.Fatalf("the book for 2026-05-02 changed:\nbefore\n%s\nafter\n%s", before, after)
		}
		c := conflicts()
		recs := c["records"].([]any)
		if c["total"] != float64(1) || len(recs) != 1 {
			t.Fatalf("conflicts: %v", c)
		}
		got := recs[0].(map[string]any)
		if got["record_id"] != treatment || got["animal_id"] != c12.ID.String() || got["group_id"] != calves ||
			!strings.Contains(got["message"].(string), "C12's membership now says it was not in the group on 2026-05-02") {
			t.Fatalf("conflict: %v", got)
		}

		// A correction adds C14 to the group before the treatment: it is reached too.
		if res := fact(app, f.ID, owner.Token, []string{c14.ID.String()}, map[string]any{"kind": "membership",
			"animal_id": c14.ID.String(), "group_id": calves, "start_date": "2026-04-01", "end_date": "2026-05-31"}, false); res.Status != http.StatusCreated {
			t.Fatalf("addition: %d %s", res.Status, res.Body)
		}
		var tags []string
		for tag := range held("2026-05-05") {
			tags = append(tags, tag)
		}
		slices.Sort(tags)
		if !slices.Equal(tags, []string{"C12", "C13", "C14"}) {
			t.Fatalf("under withdrawal after the addition: %v", tags)
		}

		t.Run("Errors", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/treatment-conflicts?take=-1", reader.Token, nil), 400, "ValidationError", "take")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/treatment-conflicts?skip=x", reader.Token, nil), 400, "ValidationError", "skip")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/treatment-conflicts", "", nil), 401, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/treatment-conflicts", stranger.Token, nil), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+uuid.NewString()+"/treatment-conflicts", owner.Token, nil), 404, "ServiceError", "")
			noScope := app.MustUser("read:animals")
			app.MustMember(f.ID, noScope, "READER")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/treatment-conflicts", noScope.Token, nil), 403, "ForbiddenError", "")
		})
	})
}
