package rest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func cphHolding() map[string]any {
	return map[string]any{"scheme": "uk.cph", "identifier": "34 123 1234", "herd_mark": "123456", "keeper_name": "Kari Nordmann",
		"address": "Home Farm, Little Snoring", "postcode": "NR21 0AA", "rule_set": "gb_cts", "herd_type": "beef", "time_zone": "Europe/London"}
}

// TestHoldingREST (issue 29.1): a farm's holding with its CPH checked and stored as
// CC/PPP/HHHH (ICAR uk.cph), a second farm of the same owner on it, the authorization of
// docs/registry.md, and bad input.
func TestHoldingREST(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		base := "/v1/farm/" + f.ID.String() + "/holding"

		if res := app.Do("GET", base, owner.Token, nil); res.Status != 404 {
			t.Fatalf("no holding yet: %d %s", res.Status, res.Body)
		}
		res := app.Do("PUT", base, owner.Token, cphHolding())
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		h := res.JSON(t)
		if h["identifier"] != "34/123/1234" || h["country"] != "GB" || h["icar_well_known_scheme"] != true || h["herd_type"] != "beef" {
			t.Fatalf("holding %v", h)
		}
		id := h["id"].(string)
		if res := app.Do("GET", base, reader.Token, nil); res.Status != 200 || res.JSON(t)["id"] != id {
			t.Fatalf("reader reads: %d %s", res.Status, res.Body)
		}
		if res := app.Do("PUT", base, owner.Token, cphHolding()); res.Status != 409 {
			t.Fatalf("a second holding for the farm: %d %s", res.Status, res.Body)
		}

		// A second farm of the same owner joins; a stranger's farm cannot.
		f2 := app.MustFarm(owner, "Sheep Farm")
		res = app.Do("PUT", "/v1/farm/"+f2.ID.String()+"/holding", owner.Token, map[string]any{"holding_id": id})
		if res.Status != 200 || len(res.JSON(t)["farm_ids"].([]any)) != 2 {
			t.Fatalf("join: %d %s", res.Status, res.Body)
		}
		if res := app.Do("PUT", "/v1/farm/"+f2.ID.String()+"/holding", owner.Token, map[string]any{"holding_id": id}); res.Status != 200 {
			t.Fatalf("join again: %d %s", res.Status, res.Body)
		}
		// The reader of the first farm sees only the farm they are on.
		if res := app.Do("GET", "/v1/holdings/"+id, reader.Token, nil); res.Status != 200 || len(res.JSON(t)["farm_ids"].([]any)) != 1 {
			t.Fatalf("reader's view: %d %s", res.Status, res.Body)
		}
		sf := app.MustFarm(stranger, "Theirs")
		if res := app.Do("PUT", "/v1/farm/"+sf.ID.String()+"/holding", stranger.Token, map[string]any{"holding_id": id}); res.Status != 404 {
			t.Fatalf("a stranger's farm joins: %d %s", res.Status, res.Body)
		}
		if res := app.Do("GET", "/v1/holdings/"+id, stranger.Token, nil); res.Status != 404 {
			t.Fatalf("a stranger reads: %d", res.Status)
		}
		if res := app.Do("PUT", "/v1/holdings/"+id, reader.Token, cphHolding()); res.Status != 401 {
			t.Fatalf("a reader replaces: %d %s", res.Status, res.Body)
		}
		if res := app.Do("PUT", "/v1/farm/"+f.ID.String()+"/holding", stranger.Token, cphHolding()); res.Status != 404 {
			t.Fatalf("a stranger creates on another's farm: %d", res.Status)
		}
		// Replace: the German number, 15 digits with 276, stored as 12.
		upd := cphHolding()
		upd["scheme"], upd["identifier"], upd["rule_set"], upd["time_zone"] = "de.hitier.bnr", "276 09 123 456 7890", "de_hitier", "Europe/Berlin"
		delete(upd, "herd_mark")
		res = app.Do("PUT", "/v1/holdings/"+id, owner.Token, upd)
		if res.Status != 200 || res.JSON(t)["identifier"] != "091234567890" || res.JSON(t)["herd_mark"] != nil || res.JSON(t)["country"] != "DE" {
			t.Fatalf("replace: %d %s", res.Status, res.Body)
		}

		t.Run("Errors", func(t *testing.T) {
			with := func(k string, v any) map[string]any {
				m := cphHolding()
				m[k] = v
				return m
			}
			f3 := app.MustFarm(owner, "Third")
			p := "/v1/farm/" + f3.ID.String() + "/holding"
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, `{"scheme":`), 400, "ValidationError", "")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, with("identifier", 341231234)), 400, "ValidationError", "identifier")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, with("identifier", "34/123/123")), 400, "ValidationError", "identifier")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, with("scheme", "uk.cts")), 400, "ValidationError", "scheme")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, with("rule_set", "gb_bcms")), 400, "ValidationError", "rule_set")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, with("time_zone", "Mars/Olympus")), 400, "ValidationError", "time_zone")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, with("herd_mark", "UK123456")), 400, "ValidationError", "herd_mark")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, with("herd_type", "suckler")), 400, "ValidationError", "herd_type")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, with("keeper_name", strings.Repeat("k", 201))), 400, "ValidationError", "keeper_name")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, with("colour", "red")), 400, "ValidationError", "")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, map[string]any{"holding_id": "nope"}), 400, "ValidationError", "holding_id")
			herdbooktest.WantEnvelope(t, app.Do("PUT", p, owner.Token, map[string]any{"holding_id": id, "keeper_name": "X"}), 400, "ValidationError", "holding_id")
			if res := app.Do("PUT", p, owner.Token, map[string]any{"holding_id": uuid.NewString()}); res.Status != 404 {
				t.Fatalf("unknown holding: %d", res.Status)
			}
			if res := app.Do("GET", "/v1/holdings/"+uuid.NewString(), owner.Token, nil); res.Status != 404 {
				t.Fatalf("unknown holding: %d", res.Status)
			}
			if res := app.Do("GET", "/v1/holdings/nope", owner.Token, nil); res.Status != 400 {
				t.Fatalf("malformed id: %d", res.Status)
			}
			if res := app.Do("GET", base, "", nil); res.Status != 401 {
				t.Fatalf("no auth: %d", res.Status)
			}
			if res := app.Do("PUT", p, reader.Token, cphHolding()); res.Status != 404 {
				t.Fatalf("not a member: %d", res.Status)
			}
		})

		// Taking the first farm off leaves the holding to the second.
		if res := app.Do("DELETE", base, owner.Token, nil); res.Status != 204 {
			t.Fatalf("unlink: %d %s", res.Status, res.Body)
		}
		if res := app.Do("GET", base, owner.Token, nil); res.Status != 404 {
			t.Fatalf("after unlink: %d", res.Status)
		}
		if res := app.Do("GET", "/v1/holdings/"+id, reader.Token, nil); res.Status != 404 {
			t.Fatalf("the reader of the unlinked farm still sees the holding: %d", res.Status)
		}
		if res := app.Do("GET", "/v1/holdings/"+id, owner.Token, nil); res.Status != 200 {
			t.Fatalf("the holding of the second farm: %d", res.Status)
		}
	})
}

// noticeFarm is a cattle farm on a gb_cts holding, with a clock at noon (UTC) on 20 March 2026.
type noticeFarm struct {
	app                   *herdbooktest.App
	owner, editor, reader herdbooktest.User
	farm                  uuid.UUID
	base                  string
	holding               string
}

var noticeNow = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

func newNoticeFarm(t *testing.T, d *db.DB) *noticeFarm {
	app := herdbooktest.NewApp(t, d, herdbooktest.Options{Clock: func() time.Time { return noticeNow }})
	n := &noticeFarm{app: app, owner: app.MustUser(), editor: app.MustUser(), reader: app.MustUser()}
	f := app.MustFarm(n.owner, "Home Farm")
	app.MustMember(f.ID, n.editor, herdbook.RoleEditor)
	app.MustMember(f.ID, n.reader, herdbook.RoleReader)
	n.farm, n.base = f.ID, "/v1/farm/"+f.ID.String()
	res := app.Do("PUT", n.base+"/holding", n.owner.Token, cphHolding())
	if res.Status != 201 {
		t.Fatalf("holding: %d %s", res.Status, res.Body)
	}
	n.holding = res.JSON(t)["id"].(string)
	return n
}

// fact records one fact as a record and returns the record's id.
func (n *noticeFarm) fact(t *testing.T, f map[string]any) string {
	t.Helper()
	var animals []string
	for _, k := range []string{"animal_id", "dam_id"} {
		if v, ok := f[k].(string); ok {
			animals = append(animals, v)
		}
	}
	res := n.app.Do("POST", n.base+"/records", n.owner.Token, map[string]any{
		"animal_ids": animals, "name": "fact", "type": "MOVEMENT", "applied_at": "2026-03-01T00:00:00Z",
		"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": f}}},
	})
	if res.Status != 201 {
		t.Fatalf("fact %v: %d %s", f, res.Status, res.Body)
	}
	return res.JSON(t)["id"].(string)
}

func (n *noticeFarm) notices(t *testing.T, query string) map[string]map[string]any {
	t.Helper()
	res := n.app.Do("GET", n.base+"/notices"+query, n.reader.Token, nil)
	if res.Status != 200 {
		t.Fatalf("notices: %d %s", res.Status, res.Body)
	}
	out := map[string]map[string]any{}
	for _, r := range res.JSON(t)["records"].([]any) {
		m := r.(map[string]any)
		out[m["kind"].(string)+"/"+m["animal_id"].(string)] = m
	}
	return out
}

// TestNoticesREST (issue 29.2) runs a GB season as of 20 March 2026 under gb_cts: a calf born
// on 6 March (tags by the 26th, birth registered by 2 April: gov.uk, What to do after a calf
// is born), tagged on the 10th; a cow bought on 16 March from CPH 12/345/6789 (reported by the
// 19th: gov.uk, Report and record cattle movements) and reported; a steer dead on 1 March (7
// days: overdue since the 8th). Then the purchase is voided after it was reported: the move on
// is superseded and its correction due within 3 days of the void.
func TestNoticesREST(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		n := newNoticeFarm(t, d)
		app := n.app
		dam := app.MustAnimal(n.owner, n.farm, "DAM-1").ID.String()
		calf := app.MustAnimal(n.owner, n.farm, "CALF-1").ID.String()
		cow := app.MustAnimal(n.owner, n.farm, "COW-1").ID.String()
		steer := app.MustAnimal(n.owner, n.farm, "STEER-1").ID.String()
		n.fact(t, map[string]any{"kind": "profile", "animal_id": dam, "sex": "female", "birth_date": "2020-04-01"})
		n.fact(t, map[string]any{"kind": "profile", "animal_id": steer, "sex": "male", "birth_date": "2024-04-01"})
		n.fact(t, map[string]any{"kind": "birth", "dam_id": dam, "date": "2026-03-06", "offspring_ids": []string{calf}})
		n.fact(t, map[string]any{"kind": "identifier", "animal_id": calf, "scheme": "visual", "value": "UK123456100001", "start_date": "2026-03-10"})
		buy := n.fact(t, map[string]any{"kind": "purchase", "animal_id": cow, "date": "2026-03-16", "holding_scheme": "uk.cph", "holding_number": "123456789"})
		n.fact(t, map[string]any{"kind": "death", "animal_id": steer, "date": "2026-03-01", "disposal": "approved_service"})

		// A webhook endpoint that hears of notices.
		if res := app.Do("POST", n.base+"/webhooks", n.owner.Token, map[string]any{"url": "https://hooks.example/notices", "event_types": []string{"notice.state_changed"}}); res.Status != 201 {
			t.Fatalf("webhook: %d %s", res.Status, res.Body)
		}

		got := n.notices(t, "")
		want := map[string][2]string{
			"birth/" + calf:   {"due", "2026-04-02"},
			"tagging/" + calf: {"done", "2026-03-26"},
			"move_on/" + cow:  {"due", "2026-03-19"},
			"death/" + steer:  {"overdue", "2026-03-08"},
		}
		// The purchase on the 16th is due by the 19th: overdue on the 20th.
		want["move_on/"+cow] = [2]string{"overdue", "2026-03-19"}
		for k, w := range want {
			g := got[k]
			if g == nil || g["state"] != w[0] || g["deadline"] != w[1] || g["rule_set"] != "gb_cts" || g["rule"] == "" {
				t.Errorf("%s: %v; want %v", k, g, w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("notices %v", got)
		}
		if got["death/"+steer]["days_left"] != float64(-12) || got["birth/"+calf]["animal_tag"] != "CALF-1" {
			t.Errorf("death %v, birth %v", got["death/"+steer], got["birth/"+calf])
		}
		// The holding lists the same notices (its one farm), filtered alike.
		res := app.Do("GET", "/v1/holdings/"+n.holding+"/notices?kind=death", n.reader.Token, nil)
		if res.Status != 200 {
			t.Fatalf("holding notices: %d %s", res.Status, res.Body)
		}
		if recs := res.JSON(t)["records"].([]any); len(recs) != 1 || recs[0].(map[string]any)["key"] != got["death/"+steer]["key"] {
			t.Fatalf("holding notices: %s", res.Body)
		}

		// Reported and accepted.
		key := got["move_on/"+cow]["key"].(string)
		sub := n.base + "/notices/" + key + "/submissions"
		res = app.Do("POST", sub, n.editor.Token, map[string]any{"state": "accepted", "registry_reference": "CTS-0001", "request_id": "r-1"})
		if res.Status != 201 || res.JSON(t)["state"] != "accepted" {
			t.Fatalf("submission: %d %s", res.Status, res.Body)
		}
		if res := app.Do("POST", sub, n.editor.Token, map[string]any{"state": "accepted", "request_id": "r-1"}); res.Status != 201 {
			t.Fatalf("a retry: %d %s", res.Status, res.Body)
		}
		if g := n.notices(t, "?state=accepted"); len(g) != 1 || g["move_on/"+cow]["submission"].(map[string]any)["registry_reference"] != "CTS-0001" {
			t.Fatalf("accepted: %v", g)
		}

		t.Run("Errors", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", sub, n.editor.Token, `{"state":`), 400, "ValidationError", "")
			herdbooktest.WantEnvelope(t, app.Do("POST", sub, n.editor.Token, map[string]any{"state": 1}), 400, "ValidationError", "state")
			herdbooktest.WantEnvelope(t, app.Do("POST", sub, n.editor.Token, map[string]any{"state": "posted"}), 400, "ValidationError", "state")
			herdbooktest.WantEnvelope(t, app.Do("POST", sub, n.editor.Token, map[string]any{}), 400, "ValidationError", "state")
			herdbooktest.WantEnvelope(t, app.Do("POST", sub, n.editor.Token, map[string]any{"state": "rejected"}), 400, "ValidationError", "cause")
			herdbooktest.WantEnvelope(t, app.Do("POST", sub, n.editor.Token, map[string]any{"state": "sent", "extra": 1}), 400, "ValidationError", "")
			herdbooktest.WantEnvelope(t, app.Do("POST", sub, n.editor.Token, map[string]any{"state": "sent", "request_id": "r-1", "registry_reference": strings.Repeat("r", 201)}), 400, "ValidationError", "registry_reference")
			// The same request id for another notice.
			death := got["death/"+steer]["key"].(string)
			herdbooktest.WantEnvelope(t, app.Do("POST", n.base+"/notices/"+death+"/submissions", n.editor.Token, map[string]any{"state": "sent", "request_id": "r-1"}), 409, "ConflictError", "")
			if res := app.Do("POST", n.base+"/notices/birth:"+uuid.NewString()+":"+calf+"/submissions", n.editor.Token, map[string]any{"state": "sent"}); res.Status != 404 {
				t.Fatalf("unknown notice: %d %s", res.Status, res.Body)
			}
			if res := app.Do("POST", sub, n.reader.Token, map[string]any{"state": "sent"}); res.Status != 401 {
				t.Fatalf("a reader records: %d", res.Status)
			}
			if res := app.Do("POST", sub, "", map[string]any{"state": "sent"}); res.Status != 401 {
				t.Fatalf("no auth: %d", res.Status)
			}
			stranger := app.MustUser()
			sf := app.MustFarm(stranger, "Theirs")
			if res := app.Do("POST", "/v1/farm/"+sf.ID.String()+"/notices/"+key+"/submissions", stranger.Token, map[string]any{"state": "sent"}); res.Status != 404 {
				t.Fatalf("another farm's notice: %d %s", res.Status, res.Body)
			}
			if res := app.Do("GET", n.base+"/notices", stranger.Token, nil); res.Status != 404 {
				t.Fatalf("a stranger lists: %d", res.Status)
			}
			if res := app.Do("GET", "/v1/farm/"+sf.ID.String()+"/notices", stranger.Token, nil); res.Status != 404 {
				t.Fatalf("a farm on no holding: %d", res.Status)
			}
			for _, q := range []string{"?state=late", "?kind=calving", "?animal_id=nope", "?state=", "?stat=due"} {
				if res := app.Do("GET", n.base+"/notices"+q, n.reader.Token, nil); res.Status != 400 {
					t.Fatalf("%s: %d %s", q, res.Status, res.Body)
				}
			}
		})

		// The purchase is voided after it was reported: superseded, and a correction due.
		if res := app.Do("POST", n.base+"/records/"+buy+"/void", n.owner.Token, map[string]any{"reason": "wrong animal"}); res.Status != 200 {
			t.Fatalf("void: %d %s", res.Status, res.Body)
		}
		got = n.notices(t, "")
		if g := got["move_on/"+cow]; g == nil || g["state"] != "superseded" {
			t.Fatalf("voided reported move: %v", g)
		}
		// The book stamps a void with the real time (the service's test clock does not reach
		// the audit trail), so the correction runs from that day: 3 calendar days.
		g := got["correction/"+cow]
		if g == nil || g["state"] != "due" || g["corrects"] != key || g["corrects_kind"] != "move_on" {
			t.Fatalf("correction: %v", g)
		}
		voided, _ := time.Parse(time.DateOnly, g["event_date"].(string))
		if g["deadline"] != voided.AddDate(0, 0, 3).Format(time.DateOnly) || len(g["sources"].([]any)) != 1 {
			t.Fatalf("correction: %v", g)
		}
		if res := app.Do("POST", sub, n.editor.Token, map[string]any{"state": "sent"}); res.Status != 409 {
			t.Fatalf("a superseded notice re-sent: %d %s", res.Status, res.Body)
		}
		// The accepted submission wrote one notice.state_changed event (the retry none).
		res = app.Do("GET", n.base+"/webhooks", n.owner.Token, nil)
		wh := res.JSON(t)["records"].([]any)[0].(map[string]any)["id"].(string)
		res = app.Do("GET", n.base+"/webhooks/"+wh+"/deliveries", n.owner.Token, nil)
		if res.Status != 200 || res.JSON(t)["total"] != float64(1) {
			t.Fatalf("deliveries: %d %s", res.Status, res.Body)
		}
	})
}
