package web_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestVoidFromTrailInBrowser voids a record about no animal, a group's treatment, from the
// audit trail, on SQLite and PostgreSQL: an EDITOR opens the trail's void form on the
// treatment's creation (a reason is required, the form says the record stays in the book),
// voids it, and sees the trail show the void with who and why, while the server has the
// record voided with that reason. Made a READER, the trail offers no void. axe-core checks
// the open form.
func TestVoidFromTrailInBrowser(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 60*time.Second)
		owner := b.app.MustUser()
		f := b.app.MustFarm(owner, "Trail Farm")
		b.app.MustMember(f.ID, b.user, herdbook.RoleEditor)
		group := b.app.MustGroup(owner, f.ID, "Weaners").ID.String()
		seed := func(q string, vars map[string]any) map[string]any {
			t.Helper()
			out := b.app.GraphQL(owner.Token, q, vars)
			if out["errors"] != nil {
				t.Fatalf("%s: %v", q, out["errors"])
			}
			return out["data"].(map[string]any)
		}
		v := map[string]any{"f": f.ID.String(), "g": group}
		med := seed(`mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Ivermectin pour-on", withdrawalMeatDays: 14, withdrawalMilkHours: 0}) { medicine { id } } }`, v)
		v["m"] = med["medicineCreate"].(map[string]any)["medicine"].(map[string]any)["id"]
		tr := seed(`mutation($f: ID!, $g: ID!, $m: ID!) {
			factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, groupID: $g, at: "2025-09-01T08:00:00Z", dose: 5, unit: "ml"}}}) { record { id } } }`, v)
		rec := tr["factCreate"].(map[string]any)["record"].(map[string]any)["id"].(string)
		v["r"] = rec
		base := "/farms/" + f.ID.String()

		b.signIn(t, nil, nil)

		t.Run("Void", func(t *testing.T) {
			b.goTo(t, base+"/audit", "Audit trail")
			b.waitText(t, "#audit-list", "Created")
			fix := "#fix-" + rec
			b.waitText(t, fix+" summary", "Void")
			b.click(t, fix+" summary")
			b.waitText(t, fix+" form", "The record stays in the book, marked voided")
			// The reason is required: the browser keeps the form from being sent without one.
			if b.evalString(t, `String(document.querySelector(`+jsString(fix+" .fix-reason")+`).required)`) != "true" {
				t.Fatal("the void form's reason is not required")
			}
			b.set(t, fix+" .fix-reason", "Treated the wrong group.")
			b.checkAxe(t, "the trail's void form")
			b.click(t, fix+" .fix-save")
			b.waitText(t, "#audit-fix-status", "Voided")
			b.waitText(t, "#audit-list", "Voided")
			b.waitText(t, "#audit-list", "Treated the wrong group.")
			b.poll(t, "the voided record's form to leave the trail", `!document.querySelector(`+jsString(fix)+`)`)
			// The record stays in the book, voided by the user with the reason; no longer in force.
			r, err := d.Client.Record.Get(herdbook.IncludeInactive(context.Background()), uuid.MustParse(rec))
			if err != nil {
				t.Fatal(err)
			}
			if r.IsActive || r.VoidedAt == nil || r.VoidReason == nil || *r.VoidReason != "Treated the wrong group." ||
				r.VoidedByUserID == nil || *r.VoidedByUserID != b.user.ID {
				t.Fatalf("the server's record after the void: active %v, voided at %v by %v, reason %v", r.IsActive, r.VoidedAt, r.VoidedByUserID, r.VoidReason)
			}
			// The void's entry says who: the member's name.
			if got := b.evalString(t, `[...document.querySelectorAll('#audit-list li')].map((l) => l.textContent).find((s) => s.startsWith('Voided')) || ''`); !strings.Contains(got, "UTC") || strings.Contains(got, "operator") {
				t.Errorf("the void's entry = %q, want when and who", got)
			}
			b.checkAxe(t, "the trail after the void")
		})

		t.Run("ReaderGetsNoVoid", func(t *testing.T) {
			seed(`mutation($f: ID!, $g: ID!, $m: ID!) {
				factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, groupID: $g, at: "2025-09-02T08:00:00Z"}}}) { record { id } } }`, v)
			b.app.MustMember(f.ID, b.user, herdbook.RoleReader)
			b.goTo(t, "/settings", "")
			b.goTo(t, base+"/audit", "Audit trail")
			b.waitText(t, "#audit-list", "Created")
			b.poll(t, "the void forms to go", `!document.querySelector('#audit-list .fix')`)
			if got := b.evalString(t, `String(document.querySelectorAll('#audit-list .fix').length)`); got != "0" {
				t.Errorf("a READER is offered %s void forms on the trail", got)
			}
		})

		// Issue 31.6: after an import the trail's first page held the oldest 100 entries, so
		// today's entry and its Void were behind "Show more"; and at 360 px it was 440 px wide.
		t.Run("NewestFirstOnAPhone", func(t *testing.T) {
			// An import's hundred entries, an hour ago (written straight to the table: a
			// hundred writes through GraphQL take the browser's whole minute here).
			bulk := make([]*ent.AuditEntryCreate, 100)
			for i := range bulk {
				bulk[i] = d.Client.AuditEntry.Create().SetFarmID(f.ID).SetAt(time.Now().UTC().Add(time.Duration(i-3600) * time.Second)).
					SetUserID(owner.ID).SetAction("create").SetEntity("record").SetRecordID(uuid.MustParse(rec))
			}
			if err := d.Client.AuditEntry.CreateBulk(bulk...).Exec(context.Background()); err != nil {
				t.Fatal(err)
			}
			ends := seed(`query($f: ID!) { farm(id: $f) { newest: audit(last: 1) { totalCount edges { node { id } } } oldest: audit(first: 1) { edges { node { id } } } } }`, v)["farm"].(map[string]any)
			id := func(k string) string {
				return ends[k].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["id"].(string)
			}
			total := int(ends["newest"].(map[string]any)["totalCount"].(float64))
			if total <= 100 {
				t.Fatalf("the trail has %d entries, want more than a page", total)
			}
			order := `[...document.querySelectorAll('#audit-list > li')].map((l) => l.id).join(' ')`
			b.goTo(t, "/settings", "") // away, so the trail is read again
			b.goTo(t, base+"/audit", "Audit trail")
			b.waitText(t, "#audit-count", fmt.Sprintf("100 / %d", total))
			if got := strings.Fields(b.evalString(t, order)); got[0] != "audit-"+id("newest") {
				t.Errorf("the trail starts with %s, want the newest entry audit-%s", got[0], id("newest"))
			}
			// At 360 px nothing is wider than the screen, the filters included.
			if got := b.evalString(t, `(() => { const e = document.documentElement; return e.scrollWidth > e.clientWidth ? e.scrollWidth + ' px for ' + e.clientWidth : ''; })()`); got != "" {
				t.Errorf("the trail is %s on a 360 px phone", got)
			}
			for _, sel := range []string{"#audit-filter", "#audit-from", "#audit-to", "#audit-show", "#audit-list"} {
				if got, _ := strconv.Atoi(b.evalString(t, `String(Math.ceil(document.querySelector(`+jsString(sel)+`).getBoundingClientRect().right))`)); got > 360 {
					t.Errorf("%s ends at %d px on a 360 px phone", sel, got)
				}
			}
			b.shot(t, "audit-newest-first")
			b.click(t, "#audit-more")
			b.waitText(t, "#audit-count", fmt.Sprintf("%d / %d", total, total))
			got := strings.Fields(b.evalString(t, order))
			if len(got) != total || got[len(got)-1] != "audit-"+id("oldest") {
				t.Errorf("after Show more the trail has %d entries ending with %s, want %d ending with the oldest audit-%s", len(got), got[len(got)-1], total, id("oldest"))
			}
			seen := map[string]bool{}
			for _, g := range got {
				if seen[g] {
					t.Errorf("%s is listed twice", g)
				}
				seen[g] = true
			}
		})
	})
}
