package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestBreedingMoreInBrowser drives what the breeding screen gained after its first version
// (issue 23.3), in headless Chromium against a real server, on SQLite and PostgreSQL: edit an
// outside sire, delete an unused one, and see the delete of one a service names refused in the
// server's words; record a heat and find it on the server; ask for mating advice for a cow and
// read each bull's expected F as the server computes it (a half-brother: 12.5 %); page the due
// list past its first 200 females (Show more); page the notifications past their first 100.
// axe-core checks the new forms; with HERDBOOK_SCREENSHOT_DIR set the mating advice is saved
// (web-28-mating-advice).
func TestBreedingMoreInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t) // skips before any database is made when Chromium or axe-core is missing
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		runBreedingMore(t, d, newBrowser(t, d, 90*time.Second))
	})
}

// dueCows is how many females the seed scans in calf: more than the due list's page of 200.
const dueCows = 205

func runBreedingMore(t *testing.T, d *db.DB, b *browser) {
	s := seedBreeding(t, b) // COW-1 and the bull B-1 are half-sibs (both out of GD-1)
	farm := uuid.MustParse(s.farm)
	base := "/farms/" + s.farm
	vars := map[string]any{"f": s.farm, "c2": s.cow2}
	out := b.gql(t, `mutation($f: ID!) {
		a: outsideAnimalCreate(input: {farmID: $f, name: "Ice Storm", sex: "male", breed: "Angus", batch: "IS-1"}) { outsideAnimal { id } }
		b: outsideAnimalCreate(input: {farmID: $f, name: "Spare Bull", sex: "male", registry: "AHDB", registrationNumber: "UK-77"}) { outsideAnimal { id } }
	}`, vars)
	ice := out["a"].(map[string]any)["outsideAnimal"].(map[string]any)["id"].(string)
	spare := out["b"].(map[string]any)["outsideAnimal"].(map[string]any)["id"].(string)
	vars["ice"] = ice
	// A service names Ice Storm, so the server refuses to delete him.
	b.gql(t, `mutation($f: ID!, $c2: ID!, $ice: ID!) {
		factCreate(input: {farmID: $f, fact: {insemination: {damID: $c2, sireID: $ice, date: "2025-06-01"}}}) { record { id } }
	}`, vars)

	// More notifications than a page of 100.
	herdbooktest.InTx(t, d.Client, func(ctx context.Context, c *ent.Client) error {
		at := time.Date(2026, 3, 10, 6, 0, 0, 0, time.UTC)
		var bulk []*ent.NotificationCreate
		for i := 0; i < 105; i++ {
			when := at.Add(time.Duration(i) * time.Minute)
			bulk = append(bulk, c.Notification.Create().SetFarmID(farm).SetUserID(b.user.ID).SetScheduledEventID(uuid.New()).
				SetType(notification.TypeIN_APP).SetStatus(notification.StatusSENT).SetTitle(fmt.Sprintf("Note %03d", i)).
				SetBody("A test notification.").SetNextAttemptAt(when).SetCreatedAt(when))
		}
		return c.Notification.CreateBulk(bulk...).Exec(ctx)
	})
	b.signIn(t, nil, nil)
	outside := func(t *testing.T) string {
		t.Helper()
		out := b.gql(t, `query($f: ID!) { farm(id: $f) { outsideAnimals { edges { node { name sex breed batch registry registrationNumber } } } } }`, vars)
		return fmt.Sprint(out["farm"].(map[string]any)["outsideAnimals"].(map[string]any)["edges"])
	}

	t.Run("OutsideEditDelete", func(t *testing.T) {
		b.goTo(t, base+"/breeding", "Breeding")
		b.waitText(t, "#outside-list", "Spare Bull")
		// Edit the spare bull: a batch and a new name; his registry stays as it was.
		b.click(t, "#oa-"+spare+" summary")
		b.set(t, "#oa-name-"+spare, "Spare Bull II")
		b.set(t, "#oa-batch-"+spare, "SB-9")
		b.checkAxe(t, "breeding (editing an outside sire)")
		b.click(t, "#oa-save-"+spare)
		b.waitText(t, "#outside-list-status", "Outside animal changed")
		b.waitText(t, "#outside-list", "Spare Bull II")
		if got := outside(t); !strings.Contains(got, "batch:SB-9 breed:<nil> name:Spare Bull II registrationNumber:UK-77 registry:AHDB sex:male") {
			t.Fatalf("after the edit the outside animals are %s", got)
		}

		// Ice Storm is named by a service: the delete is refused in the server's words.
		b.click(t, "#oa-delete-"+ice)
		b.checkAxe(t, "breeding (confirming a delete)")
		b.click(t, "#oa-confirm-"+ice)
		b.waitText(t, "#outside-list-status", "Refused: ")
		refused := b.app.GraphQL(b.user.Token, `mutation($f: ID!, $ice: ID!) { outsideAnimalDelete(input: {farmID: $f, id: $ice}) { deletedOutsideAnimalID } }`, vars)
		errs, _ := refused["errors"].([]any)
		if len(errs) == 0 {
			t.Fatalf("the server deleted an outside sire a service names: %v", refused)
		}
		words := errs[0].(map[string]any)["message"].(string)
		b.waitText(t, "#outside-list-status", words)
		if code := errs[0].(map[string]any)["extensions"].(map[string]any)["code"]; code != "CONFLICT" {
			t.Fatalf("the refusal's code is %v", code)
		}

		// The spare bull, named by nothing, is deleted.
		b.click(t, "#oa-delete-"+spare)
		b.click(t, "#oa-confirm-"+spare)
		b.waitText(t, "#outside-list-status", "Outside animal deleted")
		b.poll(t, "the spare bull gone from the list", `!document.querySelector('#outside-list').innerText.includes('Spare Bull')`)
		if got := outside(t); strings.Contains(got, "Spare") || !strings.Contains(got, "Ice Storm") {
			t.Fatalf("after the deletes the outside animals are %s", got)
		}
	})

	t.Run("Heat", func(t *testing.T) {
		day := time.Now().AddDate(0, 0, -3).Format(time.DateOnly)
		b.set(t, "#heat-female", "COW-2")
		b.set(t, "#heat-date", day)
		b.click(t, "#heat-save")
		b.waitText(t, "#heat-status", "Heat recorded")
		out := b.gql(t, `query($c2: ID!) { node(id: $c2) { ... on Animal { timeline(first: 50) { edges { node { items { metadata } } } } } } }`, vars)
		var heats []string
		for _, e := range out["node"].(map[string]any)["timeline"].(map[string]any)["edges"].([]any) {
			for _, it := range e.(map[string]any)["node"].(map[string]any)["items"].([]any) {
				fact, _ := it.(map[string]any)["metadata"].(map[string]any)["birth_history"].(map[string]any)
				if fact != nil && fact["kind"] == "heat" {
					heats = append(heats, fmt.Sprint(fact["animal_id"], " ", fact["date"]))
				}
			}
		}
		if len(heats) != 1 || heats[0] != s.cow2+" "+day {
			t.Fatalf("the server's heats of COW-2 are %v", heats)
		}
	})

	t.Run("MatingAdvice", func(t *testing.T) {
		b.set(t, "#mating-female", "COW-1")
		b.click(t, "#mating-ask")
		b.waitText(t, "#mating-table", "Bulls for COW-1")
		out := b.gql(t, `query($f: ID!, $c1: ID!) { farm(id: $f) { matingAdvice(damID: $c1) { expectedInbreeding sire { tag } } } }`,
			map[string]any{"f": s.farm, "c1": s.cow1})
		advice := out["farm"].(map[string]any)["matingAdvice"].([]any)
		fs := map[string]float64{}
		for _, a := range advice {
			m := a.(map[string]any)
			fs[m["sire"].(map[string]any)["tag"].(string)] = m["expectedInbreeding"].(float64)
		}
		if fs["B-1"] != 0.125 {
			t.Fatalf("the server's advice for COW-1 is %v; want B-1 (her half-brother) at 0.125", fs)
		}
		rows := b.evalString(t, `[...document.querySelectorAll('#mating-table tbody tr')].map(r => r.innerText.replace(/\s+/g, ' ').trim()).join('|')`)
		var want []string
		for _, a := range advice {
			m := a.(map[string]any)
			want = append(want, fmt.Sprintf("%s %s", m["sire"].(map[string]any)["tag"], strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", m["expectedInbreeding"].(float64)*100), "0"), ".")+"%"))
		}
		if rows != strings.Join(want, "|") {
			t.Fatalf("the mating advice table reads %q; the server's is %q", rows, strings.Join(want, "|"))
		}
		b.shot(t, "28-mating-advice")
	})

	t.Run("DueShowMore", func(t *testing.T) {
		// The due list: dueCows females, each scanned in calf, in records of 50 items
		// (seeded here, so that the screenshots above show a short list).
		items := make([]any, 0, dueCows)
		ids := make([]string, 0, dueCows)
		for i := 1; i <= dueCows; i++ {
			id := b.app.MustAnimal(b.user, farm, fmt.Sprintf("D-%03d", i)).ID.String()
			ids = append(ids, id)
			items = append(items, map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
				"kind": "pregnancy_check", "animal_id": id, "date": "2025-09-01", "method": "scan", "result": "pregnant", "foetal_age_days": 30 + i%60}}})
		}
		for lo := 0; lo < len(items); lo += 50 {
			res := b.app.Do("POST", "/v1/farm/"+s.farm+"/records", b.user.Token, map[string]any{
				"animal_ids": ids[lo:min(lo+50, len(ids))], "name": "Scans", "type": "GENETIC", "applied_at": "2025-09-01T00:00:00Z", "record_items": items[lo:min(lo+50, len(items))]})
			if res.Status != 201 {
				t.Fatalf("seed the scans: %d %s", res.Status, res.Body)
			}
		}
		b.goTo(t, base+"/register", "Register")
		b.goTo(t, base+"/breeding", "Breeding")
		rows := func() string {
			return b.evalString(t, `String(document.querySelectorAll('#due-list tbody tr').length)`)
		}
		b.waitText(t, "#due-count", fmt.Sprintf("200 / %d", dueCows))
		if got := rows(); got != "200" {
			t.Fatalf("the due list's first page shows %s rows", got)
		}
		b.click(t, "#due-more")
		b.poll(t, "the due list's second page", fmt.Sprintf(`document.querySelectorAll('#due-list tbody tr').length === %d`, dueCows))
		b.waitText(t, "#due-count", fmt.Sprint(dueCows))
		if b.evalString(t, `String(!!document.querySelector('#due-more'))`) != "false" {
			t.Fatal("Show more stays after the last page")
		}
		// Every female once, by her tag: the second page follows the first.
		b.poll(t, "every due female named once", fmt.Sprintf(`new Set([...document.querySelectorAll('#due-list tbody th')].map(e => e.innerText)).size === %d
			&& [...document.querySelectorAll('#due-list tbody th')].every(e => /^D-\d{3}$/.test(e.innerText))`, dueCows))
	})

	t.Run("NotificationsShowMore", func(t *testing.T) {
		b.goTo(t, base+"/notifications", "Notifications")
		b.waitText(t, "#notes-more", "100 / 105")
		b.click(t, "#notes-more")
		b.poll(t, "the notifications' second page", `document.querySelectorAll('#notes-list > li').length === 105`)
		b.waitText(t, "#notes-list", "Note 000") // the oldest, last
		b.checkAxe(t, "notifications (two pages)")
		// Marking one of the second page read reads both pages again: it stays, read.
		b.eval(t, `[...document.querySelectorAll('#notes-list > li')].find(l => l.innerText.includes('Note 001')).querySelector('button').click()`)
		b.waitText(t, "#notes-status", "Marked read")
		b.poll(t, "Note 001 read, both pages kept", `document.querySelectorAll('#notes-list > li.read').length === 1 && document.querySelectorAll('#notes-list > li').length === 105`)
	})
}
