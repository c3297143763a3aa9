package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestBackdatedFactIntoWithdrawal is issue 28.8's first edge: calf S1 is sold on 2026-05-08,
// when no treatment had reached it; the calf group was treated on 2026-05-02 (10 days' meat
// withdrawal, clear on 2026-05-12). A membership entered late and dated back to 2026-04-01
// places S1 in that group on the treatment day, which would turn the recorded sale into a
// sale inside the withdrawal. It is refused (409, naming the sale and its record) on every
// path that writes a membership (a record, the group's members), and so is a late treatment
// of a sold animal dated before its sale; acknowledged, the membership is recorded, the
// record keeps the acknowledgement, and the later answers change: S1 is under withdrawal on
// 2026-05-05, and off the board once sold. VMR 2013 reg. 17–19 (GB) and EU 2019/6 Art. 108
// keep the treatment record whole; Regulation (EC) 470/2009 and the withdrawal periods of EU
// 2019/6 Art. 115 are what the sale would have broken.
func TestBackdatedFactIntoWithdrawal(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Backdated Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "UTC"})
		base := "/v1/farm/" + f.ID.String()
		s1, s2, s3 := app.MustAnimal(owner, f.ID, "S1"), app.MustAnimal(owner, f.ID, "S2"), app.MustAnimal(owner, f.ID, "S3")
		calves := mustCreate(t, app, base+"/groups", owner.Token, map[string]any{"name": "Calves",
			"animal_ids": []string{s2.ID.String()}, "start_date": "2026-03-01"})["id"].(string)
		med := mustCreate(t, app, base+"/medicines", owner.Token, map[string]any{"name": "Closamectin", "withdrawal_meat_days": 10, "withdrawal_milk_hours": 0})
		wantStatus(t, fact(app, f.ID, owner.Token, []string{s2.ID.String()}, map[string]any{"kind": "treatment", "medicine_id": med["id"],
			"group_id": calves, "date": "2026-05-02"}, false), 201)
		sale := wantStatus(t, fact(app, f.ID, owner.Token, []string{s1.ID.String()}, map[string]any{"kind": "sale",
			"animal_id": s1.ID.String(), "date": "2026-05-08"}, false), 201)["id"].(string)
		held := func(day string) []string {
			var tags []string
			for _, r := range wantStatus(t, app.Do("GET", base+"/withdrawals?as_of="+day, owner.Token, nil), 200)["records"].([]any) {
				tags = append(tags, r.(map[string]any)["tag"].(string))
			}
			slices.Sort(tags)
			return tags
		}
		if h := held("2026-05-05"); !slices.Equal(h, []string{"S2"}) {
			t.Fatalf("under withdrawal before the late membership: %v", h)
		}

		late := map[string]any{"kind": "membership", "animal_id": s1.ID.String(), "group_id": calves, "start_date": "2026-04-01"}
		res := fact(app, f.ID, owner.Token, []string{s1.ID.String()}, late, false)
		herdbooktest.WantEnvelope(t, res, http.StatusConflict, "WithdrawalError", "record_items[0].metadata.birth_history")
		for _, want := range []string{"the sale of animal " + s1.ID.String() + " (S1) on 2026-05-08, record " + sale, "Closamectin", "clears for slaughter on 2026-05-12", "acknowledge_withdrawal"} {
			if !strings.Contains(string(res.Body), want) {
				t.Fatalf("the refusal does not say %q: %s", want, res.Body)
			}
		}
		// The group's members, dated back, are held to the same rule.
		res = app.Do("PUT", base+"/groups/"+calves+"/animals", owner.Token, map[string]any{
			"animal_ids": []string{s1.ID.String(), s2.ID.String()}, "start_date": "2026-04-01"})
		herdbooktest.WantEnvelope(t, res, http.StatusConflict, "WithdrawalError", "start_date")
		// A late treatment of S3, dated before its recorded sale.
		wantStatus(t, fact(app, f.ID, owner.Token, []string{s3.ID.String()}, map[string]any{"kind": "sale",
			"animal_id": s3.ID.String(), "date": "2026-05-08"}, false), 201)
		res = fact(app, f.ID, owner.Token, []string{s3.ID.String()}, map[string]any{"kind": "treatment", "medicine_id": med["id"],
			"animal_id": s3.ID.String(), "date": "2026-05-06"}, false)
		herdbooktest.WantEnvelope(t, res, http.StatusConflict, "WithdrawalError", "the sale of animal "+s3.ID.String()+" (S3) on 2026-05-08")
		// Nothing of the refused writes stayed.
		if h := held("2026-05-05"); !slices.Equal(h, []string{"S2"}) {
			t.Fatalf("under withdrawal after the refusals: %v", h)
		}
		// A membership that does not reach the treatment (it starts after it) is no conflict.
		wantStatus(t, fact(app, f.ID, owner.Token, []string{s1.ID.String()}, map[string]any{"kind": "membership",
			"animal_id": s1.ID.String(), "group_id": calves, "start_date": "2026-05-03"}, false), 201)

		// Acknowledged, the late membership is recorded, and says so.
		rec := wantStatus(t, fact(app, f.ID, owner.Token, []string{s1.ID.String()}, late, true), 201)
		if rec["acknowledge_withdrawal"] != true {
			t.Fatalf("the acknowledged record does not keep its acknowledgement: %v", rec)
		}
		// The later answers change: S1 was under withdrawal on 2026-05-05 ...
		if h := held("2026-05-05"); !slices.Equal(h, []string{"S1", "S2"}) {
			t.Fatalf("under withdrawal on 2026-05-05 after the acknowledged membership: %v", h)
		}
		// ... and is off the board once sold, while S2 stays until its withdrawal clears.
		if h := held("2026-05-09"); !slices.Equal(h, []string{"S2"}) {
			t.Fatalf("under withdrawal on 2026-05-09: %v; S1 was sold on 2026-05-08", h)
		}
	})
}

// TestWithdrawalBoardLeavesDeparted: the withdrawal board (and the dashboard's "Under
// withdrawal", which counts it) lists the animals whose meat or milk the farm must still hold
// back as of the day asked; an animal sold, moved off or dead by then is off it, and one that
// came back is on it again.
func TestWithdrawalBoardLeavesDeparted(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Board Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "UTC"})
		base := "/v1/farm/" + f.ID.String()
		med := mustCreate(t, app, base+"/medicines", owner.Token, map[string]any{"name": "Pen & Strep", "withdrawal_meat_days": 30, "withdrawal_milk_hours": 0})
		tags := []string{"SOLD", "DEAD", "MOVED", "BACK", "HOME"}
		ids := map[string]string{}
		for _, tag := range tags {
			id := app.MustAnimal(owner, f.ID, tag).ID.String()
			ids[tag] = id
			wantStatus(t, fact(app, f.ID, owner.Token, []string{id}, map[string]any{"kind": "treatment", "medicine_id": med["id"],
				"animal_id": id, "date": "2026-05-01"}, false), 201)
		}
		for _, l := range []struct {
			tag string
			f   map[string]any
		}{
			{"SOLD", map[string]any{"kind": "sale", "date": "2026-05-10"}},
			{"DEAD", map[string]any{"kind": "death", "date": "2026-05-10", "cause": "bloat"}},
			{"MOVED", map[string]any{"kind": "movement_out", "date": "2026-05-10"}},
			{"BACK", map[string]any{"kind": "movement_out", "date": "2026-05-10"}},
			{"BACK", map[string]any{"kind": "movement_in", "date": "2026-05-15"}},
		} {
			l.f["animal_id"] = ids[l.tag]
			wantStatus(t, fact(app, f.ID, owner.Token, []string{ids[l.tag]}, l.f, true), 201)
		}
		held := func(day string) []string {
			out := wantStatus(t, app.Do("GET", base+"/withdrawals?as_of="+day, owner.Token, nil), 200)
			var got []string
			for _, r := range out["records"].([]any) {
				got = append(got, r.(map[string]any)["tag"].(string))
			}
			slices.Sort(got)
			if out["total"] != float64(len(got)) {
				t.Fatalf("total %v for %d records", out["total"], len(got))
			}
			return got
		}
		for _, c := range []struct {
			day  string
			want []string
		}{
			{"2026-05-09", []string{"BACK", "DEAD", "HOME", "MOVED", "SOLD"}},
			{"2026-05-10", []string{"HOME"}},
			{"2026-05-12", []string{"HOME"}},
			{"2026-05-15", []string{"BACK", "HOME"}},
			{"2026-06-01", nil},
		} {
			if got := held(c.day); !slices.Equal(got, c.want) {
				t.Errorf("under withdrawal on %s: %v, want %v", c.day, got, c.want)
			}
		}
	})
}

// TestDeathCauseReadsAsSlaughter: a death whose cause reads as a slaughter (in English or
// French) with its slaughter flag unset is refused, naming slaughter: recorded as a plain
// death it would pass the meat withdrawal guard, which holds a slaughter for food to the
// withdrawal (EU 2019/6 Art. 115, Regulation (EC) 470/2009). The flag set, or a cause that
// does not read as slaughter, is recorded.
func TestDeathCauseReadsAsSlaughter(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Cause Farm")
		for i, c := range []struct {
			cause     string
			slaughter bool
			status    int
		}{
			{"slaughter", false, 400},
			{"Slaughtered at Dunbia", false, 400},
			{"sent to the abattoir", false, 400},
			{"killed for meat", false, 400},
			{"abattue à la ferme", false, 400},
			{"abattage d'urgence", false, 400},
			{"slaughtered", true, 201},
			{"pneumonia", false, 201},
			{"", false, 201},
		} {
			id := app.MustAnimal(owner, f.ID, "D"+string(rune('A'+i))).ID.String()
			death := map[string]any{"kind": "death", "animal_id": id, "date": "2026-05-10", "cause": c.cause}
			if c.slaughter {
				death["slaughter"] = true
			}
			res := fact(app, f.ID, owner.Token, []string{id}, death, false)
			if c.status == 400 {
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", "record_items[0].metadata.birth_history.slaughter")
				if !strings.Contains(string(res.Body), "set slaughter to true") {
					t.Errorf("%q: the refusal does not say what to do: %s", c.cause, res.Body)
				}
				continue
			}
			if res.Status != c.status {
				t.Errorf("%q (slaughter %v): %d %s", c.cause, c.slaughter, res.Status, res.Body)
			}
		}
	})
}
