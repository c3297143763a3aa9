package graph_test

import (
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestStatutoryNoticesGraphQL (issues 29.1, 29.2): a farm's holding and its statutory notices
// read through the graph as REST answers them, under gb_cts on 20 March 2026: a calf born on
// 6 March, registered by 2 April (gov.uk, "What to do after a calf is born": 27 days), and a
// steer dead on 1 March, reported by the 8th (7 days, holding register guidance), overdue.
// The keeper records the death's report and the registry's acceptance; a reader may not; a
// farm on no holding has neither holding nor notices.
func TestStatutoryNoticesGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		now := time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{Clock: func() time.Time { return now }})
		owner, reader := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		res := app.Do("PUT", "/v1/farm/"+f.ID.String()+"/holding", owner.Token, map[string]any{"scheme": "uk.cph",
			"identifier": "34 123 1234", "herd_mark": "123456", "keeper_name": "Kari Nordmann", "rule_set": "gb_cts", "time_zone": "Europe/London"})
		if res.Status != 201 {
			t.Fatalf("holding: %d %s", res.Status, res.Body)
		}
		dam := app.MustAnimal(owner, f.ID, "DAM-1").ID.String()
		calf := app.MustAnimal(owner, f.ID, "CALF-1").ID.String()
		steer := app.MustAnimal(owner, f.ID, "STEER-1").ID.String()
		graphFact(t, app, owner, f.ID, dam, map[string]any{"kind": "profile", "animal_id": dam, "sex": "female", "birth_date": "2020-04-01"})
		graphFact(t, app, owner, f.ID, dam, map[string]any{"kind": "birth", "dam_id": dam, "date": "2026-03-06", "offspring_ids": []string{calf}})
		graphFact(t, app, owner, f.ID, steer, map[string]any{"kind": "death", "animal_id": steer, "date": "2026-03-01", "disposal": "approved_service"})

		v := map[string]any{"f": f.ID.String()}
		out := app.GraphQL(reader.Token, `query($f: ID!) { node(id: $f) { ... on Farm {
			holding { scheme identifier icarWellKnownScheme herdMark country ruleSet herdType farmIds }
			statutoryNotices { key kind animalId animalTag eventDate deadline daysLeft state ruleSet rule late submission { state } } } } }`, v)
		wantNoErrors(t, out)
		if dig(t, out, "data.node.holding.identifier") != "34/123/1234" || dig(t, out, "data.node.holding.icarWellKnownScheme") != true ||
			dig(t, out, "data.node.holding.country") != "GB" || dig(t, out, "data.node.holding.farmIds.0") != f.ID.String() {
			t.Fatalf("holding = %v", dig(t, out, "data.node.holding"))
		}
		got := map[string]map[string]any{}
		for _, n := range dig(t, out, "data.node.statutoryNotices").([]any) {
			m := n.(map[string]any)
			got[m["kind"].(string)+"/"+m["animalId"].(string)] = m
		}
		want := map[string][3]any{
			"birth/" + calf:   {"due", "2026-04-02", 13.0},
			"tagging/" + calf: {"due", "2026-03-26", 6.0},
			"death/" + steer:  {"overdue", "2026-03-08", -12.0},
		}
		for k, w := range want {
			g := got[k]
			if g == nil || g["state"] != w[0] || g["deadline"] != w[1] || g["daysLeft"] != w[2] || g["ruleSet"] != "gb_cts" || g["rule"] == "" {
				t.Errorf("%s = %v, want %v", k, g, w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("notices = %v", got)
		}
		v["key"] = got["death/"+steer]["key"]

		const submit = `mutation($f: ID!, $key: String!, $state: String!, $cause: String) { noticeSubmissionCreate(input: {farmID: $f, key: $key,
			state: $state, registryReference: "CTS-0002", cause: $cause, requestID: "g-1"}) { notice { key state submission { state channel registryReference } } } }`
		t.Run("Errors", func(t *testing.T) {
			v := map[string]any{"f": f.ID.String(), "key": v["key"], "state": "posted"}
			if out := app.GraphQL(owner.Token, submit, v); errorCode(out) != "BAD_USER_INPUT" {
				t.Fatalf("state posted: %v", out)
			}
			v["state"] = "rejected"
			if out := app.GraphQL(owner.Token, submit, v); errorCode(out) != "BAD_USER_INPUT" {
				t.Fatalf("rejected without a cause: %v", out)
			}
			v["state"] = "accepted"
			if out := app.GraphQL(reader.Token, submit, v); errorCode(out) != "UNAUTHENTICATED" {
				t.Fatalf("a reader records: %v", out)
			}
			v["key"] = "death:nope:" + steer
			if out := app.GraphQL(owner.Token, submit, v); errorCode(out) != "NOT_FOUND" {
				t.Fatalf("an unknown notice: %v", out)
			}
		})

		v["state"] = "accepted"
		out = app.GraphQL(owner.Token, submit, v)
		wantNoErrors(t, out)
		if dig(t, out, "data.noticeSubmissionCreate.notice.state") != "accepted" ||
			dig(t, out, "data.noticeSubmissionCreate.notice.submission.channel") != "manual" ||
			dig(t, out, "data.noticeSubmissionCreate.notice.submission.registryReference") != "CTS-0002" {
			t.Fatalf("noticeSubmissionCreate = %v", out)
		}
		out = app.GraphQL(reader.Token, `query($f: ID!) { node(id: $f) { ... on Farm { statutoryNotices(state: "accepted") { key } } } }`, v)
		wantNoErrors(t, out)
		if ns := dig(t, out, "data.node.statutoryNotices").([]any); len(ns) != 1 || ns[0].(map[string]any)["key"] != v["key"] {
			t.Fatalf("accepted = %v", ns)
		}
		if out := app.GraphQL(reader.Token, `query($f: ID!) { node(id: $f) { ... on Farm { statutoryNotices(kind: "calving") { key } } } }`, v); errorCode(out) != "BAD_USER_INPUT" {
			t.Fatalf("kind calving: %v", out)
		}

		// A farm on no holding: no holding, no notices.
		g := app.MustFarm(owner, "Unregistered")
		out = app.GraphQL(owner.Token, `query($f: ID!) { node(id: $f) { ... on Farm { holding { id } statutoryNotices { key } } } }`, map[string]any{"f": g.ID.String()})
		wantNoErrors(t, out)
		if dig(t, out, "data.node.holding") != nil || len(dig(t, out, "data.node.statutoryNotices").([]any)) != 0 {
			t.Fatalf("farm on no holding = %v", out)
		}
	})
}
