package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestBookCorrectionsInBrowser corrects the herd book from the web app, on SQLite and
// PostgreSQL (issue 23, item 3): an EDITOR weighs a cow, amends the weight with a reason on
// her timeline and sees the server's profile change and the audit trail show the amendment;
// voids another record with a reason; corrects a third one's weight offline (queued in the
// outbox, sent when the network returns), then its day (the corrected record carries it); ends her group membership from a day (the group holds her the
// day before, not that day); marks a notification read and changes a channel. Made a
// READER, the same forms are refused with the server's words, and then no longer offered.
// axe-core checks every screen and every open form.
func TestBookCorrectionsInBrowser(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 60*time.Second)
		owner := b.app.MustUser()
		f := b.app.MustFarm(owner, "Book Farm")
		b.app.MustMember(f.ID, b.user, herdbook.RoleEditor)
		cow := b.app.MustAnimal(owner, f.ID, "BK-1").ID.String()
		group := b.app.MustGroup(owner, f.ID, "Heifers").ID.String()
		v := map[string]any{"f": f.ID.String(), "cow": cow, "g": group}
		b.gql(t, `mutation($f: ID!, $cow: ID!, $g: ID!) {
			p: factCreate(input: {farmID: $f, fact: {profile: {animalID: $cow, sex: FEMALE, birthDate: "2023-03-01", breed: "Angus"}}}) { record { id } }
			m: factCreate(input: {farmID: $f, fact: {membership: {animalID: $cow, groupID: $g, startDate: "2025-04-01"}}}) { record { id } }
			w: weightRecord(input: {farmID: $f, animalID: $cow, date: "2025-05-01", kg: 350}) { animal { id } }
			x: weightRecord(input: {farmID: $f, animalID: $cow, date: "2025-06-01", kg: 360}) { animal { id } }
		}`, v)
		herdbooktest.InTx(t, d.Client, func(ctx context.Context, c *ent.Client) error {
			at := time.Date(2026, 3, 10, 6, 0, 0, 0, time.UTC)
			_, err := c.Notification.Create().SetFarmID(f.ID).SetUserID(b.user.ID).SetScheduledEventID(uuid.New()).
				SetType(notification.TypeIN_APP).SetStatus(notification.StatusSENT).SetTitle("Pregnancy check due").
				SetBody("BK-1: scan from today.").SetNextAttemptAt(at).SetCreatedAt(at).Save(ctx)
			return err
		})
		base := "/farms/" + f.ID.String()
		// weightRecord answers where the weight facts of the cow's timeline are: the newest one
		// at or before today, and the record holding the one of 2025-05-01.
		weights := func(t *testing.T) map[string]string {
			t.Helper()
			out := b.gql(t, `query($cow: ID!) { node(id: $cow) { ... on Animal { timeline(first: 50) { edges { node { id items { metadata } } } } } } }`, v)
			got := map[string]string{}
			for _, e := range out["node"].(map[string]any)["timeline"].(map[string]any)["edges"].([]any) {
				n := e.(map[string]any)["node"].(map[string]any)
				for _, it := range n["items"].([]any) {
					fact, _ := it.(map[string]any)["metadata"].(map[string]any)["birth_history"].(map[string]any)
					if fact != nil && fact["kind"] == "weight" {
						got[fact["date"].(string)] = n["id"].(string)
					}
				}
			}
			return got
		}
		profile := func(t *testing.T) map[string]any {
			t.Helper()
			return b.gql(t, `query($cow: ID!) { node(id: $cow) { ... on Animal { profile { weightKg weighedOn groupIDs } } } }`, v)["node"].(map[string]any)["profile"].(map[string]any)
		}
		var today string

		b.signIn(t, nil, nil)

		t.Run("WeighThenAmend", func(t *testing.T) {
			b.goTo(t, base+"/weigh", "Weigh")
			today = b.evalString(t, `document.querySelector('#weigh-date').value`)
			b.set(t, "#weigh-eid", "BK-1")
			b.click(t, "#weigh-find")
			b.waitText(t, "#weigh-animal", "BK-1")
			b.set(t, "#weigh-kg", "400")
			b.click(t, "#weigh-save")
			b.waitText(t, "#weigh-status", "Saved")
			rec := weights(t)[today]
			if rec == "" {
				t.Fatalf("no weight record of %s on the server: %v", today, weights(t))
			}

			b.goTo(t, base+"/animals/"+cow, "BK-1")
			b.waitText(t, "#animal-weight", "400 kg")
			fix := "#fix-" + rec
			b.click(t, fix+" summary")
			b.waitText(t, fix+" form", "Correct the values")
			b.set(t, fix+" .fix-kg", "412.5")
			b.set(t, fix+" .fix-reason", "The scale was read wrong.")
			b.shot(t, "24-amend")
			b.click(t, fix+" .fix-save")
			b.waitText(t, "#fix-status", "Corrected")
			b.waitText(t, "#animal-weight", "412.5 kg")
			// The daily gain shows to hundredths with its period (issue 31.5: 0.975 kg/day
			// read "1 kg").
			adg, ok := b.gql(t, `query($cow: ID!) { node(id: $cow) { ... on Animal { profile { adgKg } } } }`, v)["node"].(map[string]any)["profile"].(map[string]any)["adgKg"].(float64)
			if !ok {
				t.Fatal("the server gives no daily gain for a cow weighed three times")
			}
			b.waitText(t, "#animal-adg", signedDecimals(adg, 2)+" kg/day")
			if p := profile(t); p["weightKg"] != 412.5 || p["weighedOn"] != today {
				t.Fatalf("the server's profile after the amendment = %v", p)
			}

			b.goTo(t, base+"/audit", "Audit trail")
			b.waitText(t, "#audit-list", "Amended")
			b.waitText(t, "#audit-list", "The scale was read wrong.")
			// An entry about the cow leads to her page, where it is corrected.
			b.waitText(t, `#audit-list a[href$="/animals/`+cow+`"]`, "Correct it on the animal’s page")
			b.checkAxe(t, "audit after the amendment")
		})

		t.Run("VoidRecord", func(t *testing.T) {
			rec := weights(t)["2025-05-01"]
			b.goTo(t, base+"/animals/"+cow, "BK-1")
			fix := "#fix-" + rec
			b.click(t, fix+" summary")
			b.click(t, fix+" input[value=voidRecord]")
			b.waitText(t, fix+" form", "stays in the book, marked voided")
			b.set(t, fix+" .fix-reason", "Weighed the wrong cow.")
			b.checkAxe(t, "the void form")
			b.click(t, fix+" .fix-save")
			b.waitText(t, "#fix-status", "Voided")
			b.poll(t, "the voided record to leave the timeline", `!document.querySelector(`+jsString(fix)+`)`)
			if _, ok := weights(t)["2025-05-01"]; ok {
				t.Fatal("the voided weight is still in force on the server")
			}
			b.goTo(t, base+"/audit", "Audit trail")
			b.waitText(t, "#audit-list", "Voided")
			b.waitText(t, "#audit-list", "Weighed the wrong cow.")
		})

		t.Run("AmendOfflineThenSent", func(t *testing.T) {
			rec := weights(t)["2025-06-01"]
			b.goTo(t, base+"/animals/"+cow, "BK-1")
			fix := "#fix-" + rec
			b.click(t, fix+" summary")
			b.set(t, fix+" .fix-kg", "365")
			b.set(t, fix+" .fix-reason", "Typed 360 for 365.")
			b.offline(t, true)
			b.click(t, fix+" .fix-save")
			b.waitText(t, "#fix-status", "sent when you are online")
			b.offline(t, false)
			b.goTo(t, "/outbox", "Queued writes")
			b.waitText(t, "#outbox-list", "Sent")
			out := b.gql(t, `query($r: ID!) { node(id: $r) { ... on Record { items { metadata } } } }`, map[string]any{"r": rec})
			items := out["node"].(map[string]any)["items"].([]any)
			fact := items[len(items)-1].(map[string]any)["metadata"].(map[string]any)["birth_history"].(map[string]any)
			if len(items) != 1 || fact["kg"] != float64(365) || fact["date"] != "2025-06-01" {
				t.Fatalf("the record's items in force after the queued amendment = %v", items)
			}
		})

		t.Run("CorrectDay", func(t *testing.T) {
			rec := weights(t)["2025-06-01"]
			b.goTo(t, base+"/animals/"+cow, "BK-1")
			// The page shows what it kept first, then the server's answer with the corrected item.
			b.waitText(t, "#timeline", "365 kg")
			fix := "#fix-" + rec
			b.click(t, fix+" summary")
			b.set(t, fix+" .fix-date", "2025-06-02")
			b.set(t, fix+" .fix-reason", "Weighed on the 2nd.")
			b.click(t, fix+" .fix-save")
			b.waitText(t, "#fix-status", "Corrected")
			b.waitText(t, "#timeline", "2025-06-02")
			// The record was dated by its one fact, so the corrected record carries the new day
			// and names the old one, which is superseded and leaves the answers.
			w := weights(t)
			if _, ok := w["2025-06-01"]; ok || w["2025-06-02"] == "" || w["2025-06-02"] == rec {
				t.Fatalf("the weights in force after the correction = %v", w)
			}
			out := b.gql(t, `query($f: ID!, $r: ID!, $old: ID!) {
				r: node(id: $r) { ... on Record { appliedAt amendsID items { metadata } } }
				farm(id: $f) { audit(recordID: $old, first: 50) { edges { node { action entity reason } } } } }`, map[string]any{"f": v["f"], "r": w["2025-06-02"], "old": rec})
			r := out["r"].(map[string]any)
			items := r["items"].([]any)
			fact := items[0].(map[string]any)["metadata"].(map[string]any)["birth_history"].(map[string]any)
			if r["appliedAt"] != "2025-06-02T00:00:00Z" || r["amendsID"] != rec || len(items) != 1 || fact["kg"] != float64(365) {
				t.Errorf("the corrected record = %v", r)
			}
			// The old record stays in the book: the trail lists its amendment with the reason.
			amended := false
			for _, e := range out["farm"].(map[string]any)["audit"].(map[string]any)["edges"].([]any) {
				n := e.(map[string]any)["node"].(map[string]any)
				amended = amended || n["action"] == "amend" && n["entity"] == "record" && n["reason"] == "Weighed on the 2nd."
			}
			if !amended {
				t.Errorf("the old record's trail = %v", out["farm"])
			}
		})

		t.Run("EndMembership", func(t *testing.T) {
			b.goTo(t, base+"/animals/"+cow, "BK-1")
			b.waitText(t, "#animal-groups", "Heifers")
			end := "#end-" + group
			b.click(t, end+" summary")
			b.waitText(t, end+" form", "nothing is deleted")
			if got := b.evalString(t, `document.querySelector(`+jsString(end+" .end-date")+`).value`); got != today {
				t.Errorf("the day it leaves is %q, want the page's day %s", got, today)
			}
			b.shot(t, "25-membership-end")
			b.click(t, end+" .end-save")
			b.waitText(t, "#groups-status", "Membership ended.")
			b.poll(t, "the group to leave the animal's page", `!document.querySelector('#animal-groups')`)
			day, _ := time.Parse(time.DateOnly, today)
			q := `query($g: ID!, $d: Date) { node(id: $g) { ... on Group { members(asOf: $d) { edges { node { id } } } } } }`
			for d, want := range map[string]int{today: 0, day.AddDate(0, 0, -1).Format(time.DateOnly): 1} {
				out := b.gql(t, q, map[string]any{"g": group, "d": d})
				if got := len(out["node"].(map[string]any)["members"].(map[string]any)["edges"].([]any)); got != want {
					t.Errorf("Heifers hold %d animals on %s, want %d", got, d, want)
				}
			}
		})

		t.Run("Notifications", func(t *testing.T) {
			b.goTo(t, base+"/notifications", "Notifications")
			b.waitText(t, "#notes-list", "Pregnancy check due")
			b.waitText(t, "#notes-list", "Unread")
			b.click(t, "#notes-list button")
			b.waitText(t, "#notes-list", "Read on")
			before := b.gql(t, `query($f: ID!) { notificationPreferences(farmID: $f) { sms email inApp source } }`, v)["notificationPreferences"].(map[string]any)
			b.click(t, "#ch-farm .ch-sms")
			b.click(t, "#ch-farm .ch-save")
			b.waitText(t, "#ch-farm .ch-status", "Saved")
			after := b.gql(t, `query($f: ID!) { notificationPreferences(farmID: $f) { sms email inApp source } }`, v)["notificationPreferences"].(map[string]any)
			if after["sms"] == before["sms"] || after["source"] != "FARM" || after["email"] != before["email"] || after["inApp"] != before["inApp"] {
				t.Fatalf("the farm's channels were %v and are %v: want SMS turned over, as the farm's choice", before, after)
			}
			b.waitText(t, "#ch-farm", "Your choice for this farm.")
			b.shot(t, "26-notifications")
			out := b.gql(t, `query($f: ID!) { farm(id: $f) { notifications(first: 5, unread: true) { totalCount } } }`, v)
			if got := out["farm"].(map[string]any)["notifications"].(map[string]any)["totalCount"]; got != float64(0) {
				t.Errorf("%v notifications unread on the server, want 0", got)
			}
		})

		t.Run("ReaderIsRefusedThenNotOffered", func(t *testing.T) {
			b.goTo(t, base+"/animals/"+cow, "BK-1")
			rec := weights(t)[today]
			fix := "#fix-" + rec
			b.click(t, fix+" summary")
			b.click(t, fix+" input[value=voidRecord]")
			b.set(t, fix+" .fix-reason", "Made a reader meanwhile.")
			b.app.MustMember(f.ID, b.user, herdbook.RoleReader)
			b.click(t, fix+" .fix-save")
			b.waitText(t, "#fix-status", "Refused: ")
			b.waitText(t, "#fix-status", "EDITOR")
			if w := weights(t); w[today] != rec {
				t.Fatalf("a READER's void went through: %v", w)
			}
			b.goTo(t, base+"/audit", "Audit trail")
			b.goTo(t, base+"/animals/"+cow, "BK-1")
			b.waitText(t, "#timeline", "")
			b.poll(t, "the correction forms to go", `!document.querySelector('.fix')`)
			if got := b.evalString(t, `String(document.querySelectorAll('.fix').length)`); got != "0" {
				t.Errorf("a READER is offered %s correction forms", got)
			}
			b.checkAxe(t, "the animal page of a READER")
		})
	})
}
