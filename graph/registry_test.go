package graph_test

import (
	"maps"
	"slices"
	"strings"
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

// fieldsOf lists the fields a BAD_USER_INPUT answer names.
func fieldsOf(out map[string]any) []string {
	var names []string
	errs, _ := out["errors"].([]any)
	for _, e := range errs {
		ext, _ := e.(map[string]any)["extensions"].(map[string]any)
		fs, _ := ext["fields"].([]any)
		for _, f := range fs {
			if n, ok := f.(map[string]any)["field"].(string); ok {
				names = append(names, n)
			}
		}
	}
	return names
}

// inputCode answers the error code of a request whose input is wrong, refused by the schema
// (422) or by a scalar or resolver (200).
func inputCode(t *testing.T, app *herdbooktest.App, token, q string, vars map[string]any) string {
	t.Helper()
	return errorCode(app.Do("POST", "/graphql", token, query(q, vars)).JSON(t))
}

// TestRegistryAppGraphQL (issue 29.5): what the app's registry screen asks the graph for.
// holdingCreate and holdingUpdate keep REST's rules and errors (a CPH in any spelling, a GB
// herd mark of 6 digits, OWNER only, one holding a farm); statutoryNotices(animalID:) gives an
// animal's legal clocks and none for another farm's animal; reconciliation takes the
// registry's copy as animals or as a CTS herd list's text and finds a planted difference of
// each kind, null for a farm on no holding.
func TestRegistryAppGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		now := time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{Clock: func() time.Time { return now }})
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		other := app.MustFarm(stranger, "Other Farm")
		fid := f.ID.String()

		const create = `mutation($in: HoldingCreateInput!) { holdingCreate(input: $in) { holding { id identifier herdMark keeperName
			ruleSet herdType timeZone country farmIds } } }`
		in := func(farm string) map[string]any {
			return map[string]any{"farmID": farm, "scheme": "uk.cph", "identifier": "34 123 1234", "herdMark": "123456",
				"keeperName": "Kari Nordmann", "ruleSet": "gb_cts", "timeZone": "Europe/London"}
		}
		t.Run("HoldingCreateErrors", func(t *testing.T) {
			bad := in(fid)
			bad["identifier"], bad["herdMark"], bad["ruleSet"] = "34 123", "12345", "uk_bcms"
			out := app.GraphQL(owner.Token, create, map[string]any{"in": bad})
			if errorCode(out) != "BAD_USER_INPUT" || !slices.Contains(fieldsOf(out), "identifier") ||
				!slices.Contains(fieldsOf(out), "herd_mark") || !slices.Contains(fieldsOf(out), "rule_set") {
				t.Fatalf("bad fields: %v", out)
			}
			if out := app.GraphQL(reader.Token, create, map[string]any{"in": in(fid)}); errorCode(out) != "UNAUTHENTICATED" {
				t.Fatalf("a reader creates: %v", out)
			}
			if out := app.GraphQL("", create, map[string]any{"in": in(fid)}); errorCode(out) != "UNAUTHENTICATED" {
				t.Fatalf("no token: %v", out)
			}
			if out := app.GraphQL(owner.Token, create, map[string]any{"in": in(other.ID.String())}); errorCode(out) != "NOT_FOUND" {
				t.Fatalf("another's farm: %v", out)
			}
			wrong := in(fid)
			wrong["farmID"] = "not-a-uuid"
			if code := inputCode(t, app, owner.Token, create, map[string]any{"in": wrong}); code != "BAD_USER_INPUT" && code != "GRAPHQL_VALIDATION_FAILED" {
				t.Fatalf("farmID not-a-uuid: %s", code)
			}
			wrong = in(fid)
			wrong["keeperName"] = map[string]any{"name": "Kari"}
			if code := inputCode(t, app, owner.Token, create, map[string]any{"in": wrong}); code != "BAD_USER_INPUT" && code != "GRAPHQL_VALIDATION_FAILED" {
				t.Fatalf("keeperName an object: %s", code)
			}
		})
		out := app.GraphQL(owner.Token, create, map[string]any{"in": in(fid)})
		wantNoErrors(t, out)
		h := dig(t, out, "data.holdingCreate.holding").(map[string]any)
		if h["identifier"] != "34/123/1234" || h["herdType"] != "beef" || h["country"] != "GB" || dig(t, h, "farmIds.0") != fid {
			t.Fatalf("holdingCreate = %v", h)
		}
		if out := app.GraphQL(owner.Token, create, map[string]any{"in": in(fid)}); errorCode(out) != "CONFLICT" {
			t.Fatalf("a second holding: %v", out)
		}

		const update = `mutation($in: HoldingUpdateInput!) { holdingUpdate(input: $in) { holding { id identifier herdMark herdType name } } }`
		up := in(fid)
		delete(up, "farmID")
		up["id"], up["herdType"], up["herdMark"] = h["id"], "dairy", nil
		t.Run("HoldingUpdateErrors", func(t *testing.T) {
			if out := app.GraphQL(reader.Token, update, map[string]any{"in": up}); errorCode(out) != "UNAUTHENTICATED" {
				t.Fatalf("a reader updates: %v", out)
			}
			if out := app.GraphQL(stranger.Token, update, map[string]any{"in": up}); errorCode(out) != "NOT_FOUND" {
				t.Fatalf("a stranger updates: %v", out)
			}
			bad := maps.Clone(up)
			bad["timeZone"] = "Mars/Olympus"
			if out := app.GraphQL(owner.Token, update, map[string]any{"in": bad}); errorCode(out) != "BAD_USER_INPUT" || !slices.Contains(fieldsOf(out), "time_zone") {
				t.Fatalf("time zone Mars/Olympus: %v", out)
			}
		})
		out = app.GraphQL(owner.Token, update, map[string]any{"in": up})
		wantNoErrors(t, out)
		if dig(t, out, "data.holdingUpdate.holding.herdType") != "dairy" || dig(t, out, "data.holdingUpdate.holding.herdMark") != nil {
			t.Fatalf("holdingUpdate = %v", out)
		}
		up["herdType"], up["herdMark"] = "beef", "123456"
		wantNoErrors(t, app.GraphQL(owner.Token, update, map[string]any{"in": up}))

		// A calf born on the farm on 6 March 2026 (tag UK 123456 100001), its dam, and an
		// animal of another farm.
		dam := app.MustAnimal(owner, f.ID, "UK123456200002").ID.String()
		calf := app.MustAnimal(owner, f.ID, "UK123456100001").ID.String()
		graphFact(t, app, owner, f.ID, dam, map[string]any{"kind": "profile", "animal_id": dam, "sex": "female", "birth_date": "2020-04-01"})
		graphFact(t, app, owner, f.ID, dam, map[string]any{"kind": "birth", "dam_id": dam, "date": "2026-03-06", "offspring_ids": []string{calf}})
		graphFact(t, app, owner, f.ID, calf, map[string]any{"kind": "profile", "animal_id": calf, "sex": "male", "birth_date": "2026-03-06"})
		stray := app.MustAnimal(stranger, other.ID, "UK999999100001").ID.String()

		const clocks = `query($f: ID!, $a: ID) { node(id: $f) { ... on Farm { statutoryNotices(animalID: $a) { kind animalId deadline daysLeft state } } } }`
		out = app.GraphQL(reader.Token, clocks, map[string]any{"f": fid, "a": calf})
		wantNoErrors(t, out)
		ns := dig(t, out, "data.node.statutoryNotices").([]any)
		kinds := map[string]any{}
		for _, n := range ns {
			m := n.(map[string]any)
			if m["animalId"] != calf {
				t.Errorf("notice of %v in the calf's clocks", m["animalId"])
			}
			kinds[m["kind"].(string)] = m["daysLeft"]
		}
		if kinds["birth"] != 13.0 || kinds["tagging"] != 6.0 || len(kinds) != 2 {
			t.Fatalf("the calf's clocks = %v", ns)
		}
		for name, a := range map[string]string{"OtherFarmsAnimal": stray, "UnknownAnimal": "00000000-0000-4000-8000-000000000001"} {
			out := app.GraphQL(reader.Token, clocks, map[string]any{"f": fid, "a": a})
			wantNoErrors(t, out)
			if ns := dig(t, out, "data.node.statutoryNotices").([]any); len(ns) != 0 {
				t.Errorf("%s: %v", name, ns)
			}
		}
		if code := inputCode(t, app, reader.Token, clocks, map[string]any{"f": fid, "a": "calf"}); code != "BAD_USER_INPUT" && code != "GRAPHQL_VALIDATION_FAILED" {
			t.Errorf("animalID calf: %s", code)
		}
		if out := app.GraphQL(stranger.Token, clocks, map[string]any{"f": fid, "a": calf}); dig(t, out, "data.node") != nil {
			t.Errorf("a stranger reads the clocks: %v", out)
		}

		const reconcile = `query($f: ID!, $asOf: Date, $animals: [RegistryAnimalInput!], $list: String) { node(id: $f) { ... on Farm {
			reconciliation(asOf: $asOf, animals: $animals, herdList: $list) { holdingId asOf total differences { kind tag field registry book fix } } } } }`
		// The registry has the dam born in 2019, not 2020, lacks the calf and has a steer the
		// book does not.
		want := []string{
			"only_in_book UK123456100001    report_birth",
			"differs UK123456200002 birth_date 2019-04-01 2020-04-01 amend_book_or_correct_registry",
			"only_in_registry UK123456300003    record_in_book_or_report_departure",
		}
		check := func(t *testing.T, out map[string]any) {
			t.Helper()
			wantNoErrors(t, out)
			r := dig(t, out, "data.node.reconciliation").(map[string]any)
			var got []string
			for _, d := range r["differences"].([]any) {
				m := d.(map[string]any)
				s := func(k string) string { v, _ := m[k].(string); return v }
				got = append(got, strings.Join([]string{s("kind"), s("tag"), s("field"), s("registry"), s("book"), s("fix")}, " "))
			}
			if !slices.Equal(got, want) || r["total"] != 3.0 || r["asOf"] != "2026-03-20" || r["holdingId"] != h["id"] {
				t.Fatalf("reconciliation = %v\ngot  %q\nwant %q", r, got, want)
			}
		}
		t.Run("Animals", func(t *testing.T) {
			check(t, app.GraphQL(reader.Token, reconcile, map[string]any{"f": fid, "asOf": "2026-03-20", "animals": []any{
				map[string]any{"tag": "UK 123456 200002", "sex": "F", "birthDate": "2019-04-01"},
				map[string]any{"tag": "UK123456 300003", "sex": "M", "birthDate": "2025-01-02", "breed": "LIMX"}}}))
		})
		t.Run("HerdList", func(t *testing.T) {
			check(t, app.GraphQL(reader.Token, reconcile, map[string]any{"f": fid,
				"list": "UK123456200002 AA F 2019-04-01 ?\r\n\r\nUK123456300003\tLIMX M 2025-01-02 2025-06-01\r\n"}))
		})
		t.Run("Errors", func(t *testing.T) {
			for name, v := range map[string]map[string]any{
				"ErrBoth":         {"animals": []any{map[string]any{"tag": "UK123456200002"}}, "list": "UK123456200002 AA F ? ?"},
				"ErrNotAHerdList": {"list": "UK123456200002 AA F"},
				"ErrBadDate":      {"list": "UK123456200002 AA F 2019-13-01 ?"},
				"ErrSex":          {"animals": []any{map[string]any{"tag": "UK123456200002", "sex": "X"}}},
			} {
				v["f"] = fid
				if out := app.GraphQL(reader.Token, reconcile, v); errorCode(out) != "BAD_USER_INPUT" {
					t.Errorf("%s: %v", name, out)
				}
			}
			for name, v := range map[string]map[string]any{
				"ErrAsOf":      {"f": fid, "asOf": "20 March"},
				"ErrBirthDate": {"f": fid, "animals": []any{map[string]any{"tag": "UK123456200002", "birthDate": "2019-02-30"}}},
				"ErrTag":       {"f": fid, "animals": []any{map[string]any{"tag": []any{"UK"}}}},
				"ErrFarmID":    {"f": "not-a-uuid"},
			} {
				if code := inputCode(t, app, reader.Token, reconcile, v); code != "BAD_USER_INPUT" && code != "GRAPHQL_VALIDATION_FAILED" {
					t.Errorf("%s: %s", name, code)
				}
			}
			if out := app.GraphQL("", reconcile, map[string]any{"f": fid}); dig(t, out, "data.node") != nil || errorCode(out) == "" {
				t.Errorf("no token: %v", out)
			}
			if out := app.GraphQL(stranger.Token, reconcile, map[string]any{"f": fid}); dig(t, out, "data.node") != nil {
				t.Errorf("a stranger reconciles: %v", out)
			}
			// The other farm is on no holding: no reconciliation.
			out := app.GraphQL(stranger.Token, reconcile, map[string]any{"f": other.ID.String(), "animals": []any{}})
			wantNoErrors(t, out)
			if dig(t, out, "data.node.reconciliation") != nil {
				t.Errorf("a farm on no holding: %v", out)
			}
		})
	})
}
