package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestOfflineDaysInBrowser drives issue 31's offline promises in headless Chromium against a
// real server, on SQLite and PostgreSQL. Load the app and read the screens once online; cut
// the network and reload: the screens open from the kept copy (the session kept on the
// device, no sign-in card), the animal page with its timeline, the medicines; record on five
// screens (weigh, treat a group, move, calving, a sale on the animal page), each queued with
// its Idempotency-Key; close the tab and open another, still offline: the five wait in the
// outbox; give the network back: the session resumes without a password and the server has
// each write exactly once. Then a sign-out with a queued write: the sign-out screen says so,
// the write is kept locked (AES-GCM, nothing readable in the kept database), and the same
// user's next sign-in sends it, once. Last, a sale the server refuses on sync (the withdrawal
// guard, Regulation (EU) 2019/6 Art. 115 and GB VMR 2013 Sch. 4: food from a treated animal
// only after its withdrawal period) lands in the review list with the server's reason; ticked
// as acknowledged and sent again, it is recorded. axe-core on the offline screens, the
// sign-out screen and the review list.
func TestOfflineDaysInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 180*time.Second)
		f := b.app.MustFarm(b.user, "Offline Farm")
		farm := f.ID.String()
		cow := b.app.MustAnimal(b.user, f.ID, "C-1").ID.String()
		heifer := b.app.MustAnimal(b.user, f.ID, "H-2").ID.String()
		steer := b.app.MustAnimal(b.user, f.ID, "S-3").ID.String()
		group := b.app.MustGroup(b.user, f.ID, "Milkers").ID.String()
		pens := b.app.MustGroup(b.user, f.ID, "Pens").ID.String()
		b.gql(t, `mutation($f: ID!, $c: ID!, $h: ID!, $s: ID!, $g: ID!) {
			z: farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename }
			a: recordProfile(farmID: $f, input: {animalID: $c, sex: FEMALE, birthDate: "2021-03-01", breed: "Angus"}) { id }
			b: recordProfile(farmID: $f, input: {animalID: $h, sex: FEMALE, birthDate: "2024-03-01", breed: "Angus"}) { id }
			c: recordProfile(farmID: $f, input: {animalID: $s, sex: MALE, birthDate: "2024-04-01", breed: "Angus"}) { id }
			m: recordMembership(farmID: $f, input: {animalID: $h, groupID: $g, startDate: "2025-04-01"}) { id }
			w: weightRecord(input: {farmID: $f, animalID: $c, date: "2025-05-01", kg: 500}) { animal { id } }
		}`, map[string]any{"f": farm, "c": cow, "h": heifer, "s": steer, "g": group})
		b.gql(t, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Oxytetracycline 200 LA", withdrawalMeatDays: 28, withdrawalMilkHours: 168}) { medicine { id } } }`,
			map[string]any{"f": farm})
		base := "/farms/" + farm
		// The network is cut in Chromium (navigator.onLine, the page's and the service
		// worker's requests) and, since Chromium lets a request of a document being loaded
		// slip through now and then, at the server too: while cut, it drops the browser's
		// every connection without an answer, as a lost signal does.
		var cut atomic.Bool
		serve := b.app.Server.Config.Handler
		b.app.Server.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if cut.Load() && strings.Contains(r.UserAgent(), "Chrome") { // the test's own checks pass
				if hj, ok := w.(http.Hijacker); ok {
					if conn, _, err := hj.Hijack(); err == nil {
						conn.Close()
						return
					}
				}
			}
			serve.ServeHTTP(w, r)
		})
		offline := func(off bool) { cut.Store(off); b.offline(t, off) }
		// kinds counts an animal's timeline items on the server by their kind.
		kinds := func(id string) map[string]int {
			out := b.gql(t, `query($id: ID!) { node(id: $id) { ... on Animal { timeline(first: 100) { edges { node { items { metadata } } } } } } }`, map[string]any{"id": id})
			n := map[string]int{}
			for _, e := range out["node"].(map[string]any)["timeline"].(map[string]any)["edges"].([]any) {
				for _, it := range e.(map[string]any)["node"].(map[string]any)["items"].([]any) {
					md, _ := it.(map[string]any)["metadata"].(map[string]any)
					bh, _ := md["birth_history"].(map[string]any)
					k, _ := bh["kind"].(string)
					if a, ok := bh["animal_id"].(string); ok && a != id {
						continue // a calf's birth weight on its dam's calving record
					}
					n[k]++
				}
			}
			return n
		}
		status := func(id string) string {
			out := b.gql(t, `query($id: ID!) { node(id: $id) { ... on Animal { profile { status } } } }`, map[string]any{"id": id})
			return fmt.Sprint(out["node"].(map[string]any)["profile"].(map[string]any)["status"])
		}
		before := map[string]map[string]int{"cow": kinds(cow), "heifer": kinds(heifer), "steer": kinds(steer)}

		// Online: sign in and open the screens once; the service worker keeps the shell,
		// Graphcache and the register keep what they read.
		b.signIn(t, nil, nil)
		b.poll(t, "the service worker to control the page", `!!navigator.serviceWorker.controller`)
		b.goTo(t, base+"/register", "Register")
		b.poll(t, "the kept register", `(async () => { const db = await new Promise(r => { const q = indexedDB.open('herdbook'); q.onsuccess = () => r(q.result); });
			const k = await new Promise(r => { const q = db.transaction('kv').objectStore('kv').get('register:`+farm+`'); q.onsuccess = () => r(q.result); });
			db.close(); return !!k && k.rows.length === 3; })()`)
		b.goTo(t, base+"/animals/"+cow, "C-1")
		b.waitText(t, "#timeline", "")
		for _, s := range []struct{ path, h1, sel, want string }{
			{"/weigh", "Weigh", "#weigh-eid", ""}, {"/treat", "Treat", "#treat-medicine", "Oxytetracycline"},
			{"/move", "Move", "#move-group", "Pens"}, {"/calving", "Calving", "#calving-form", ""},
			{"/medicines", "Medicines", "#medicine-list", "Oxytetracycline"}, {"", "Offline Farm", "h1", ""},
		} {
			b.goTo(t, base+s.path, s.h1)
			b.waitText(t, s.sel, s.want)
		}
		time.Sleep(time.Second) // Graphcache's kept copy is written half a second after a read

		// Offline, reloaded: the kept session and copy, no sign-in card.
		offline(true)
		b.navigate(t, base+"/animals/"+cow)
		b.waitText(t, "#offline", "")
		b.waitText(t, "h1", "C-1")
		b.waitText(t, "#timeline", "")
		b.waitText(t, "#animal-weight", "500 kg")
		b.checkAxe(t, "animal page offline after a reload")
		b.goTo(t, base+"/medicines", "Medicines")
		b.waitText(t, "#medicine-list", "Oxytetracycline 200 LA")

		// Five screens, five writes, each queued.
		b.goTo(t, base+"/weigh", "Weigh")
		b.set(t, "#weigh-eid", "C-1")
		b.click(t, "#weigh-find")
		b.waitText(t, "#weigh-animal", "C-1")
		b.set(t, "#weigh-kg", "512")
		b.click(t, "#weigh-save")
		b.waitText(t, "#weigh-status", "sent when you are online")

		b.goTo(t, base+"/treat", "Treat")
		b.waitText(t, "#treat-medicine", "Oxytetracycline")
		b.set(t, "#treat-group", group)
		b.set(t, "#treat-dose", "10")
		b.click(t, "#treat-save")
		b.waitText(t, "#treat-status", "sent when you are online")
		b.checkAxe(t, "treat offline after a reload")

		b.goTo(t, base+"/move", "Move")
		b.waitText(t, "#move-group", "Pens")
		b.set(t, "#move-tags", "S-3")
		b.set(t, "#move-group", pens)
		b.click(t, "#move-save")
		b.waitText(t, "#move-status", "S-3: Saved on this device")

		b.goTo(t, base+"/calving", "Calving")
		b.set(t, "#calving-dam", "C-1")
		b.set(t, "#calf-tag", "CALF-9")
		b.set(t, "#calf-weight", "36")
		b.click(t, "#calving-save")
		b.waitText(t, "#calving-status", "sent when you are online")

		b.goTo(t, base+"/animals/"+steer, "S-3")
		b.set(t, "#buyer", "Mart")
		b.click(t, "#record-departure")
		b.waitText(t, "#departure-status", "sent when you are online")

		// Close the app and open it again, still offline (a new document: nothing of the app
		// stays in memory; as a phone restoring a tab does). The network stays cut: the page
		// cannot reach the server.
		b.navigate(t, "/outbox")
		if got := b.evalString(t, `fetch('/healthz').then(r => 'reached ' + r.status, () => 'cut')`); got != "cut" {
			t.Fatalf("the network is not cut after reopening: %s", got)
		}
		b.waitText(t, "#waiting-title", "(5)")
		for _, w := range []string{"Weigh C-1", "Treat Milkers", "Move S-3 → Pens", "Calving C-1", "Sale"} {
			b.waitText(t, "#outbox-list", w)
		}
		b.checkAxe(t, "outbox offline")
		for who, id := range map[string]string{"cow": cow, "heifer": heifer, "steer": steer} {
			if got := kinds(id); fmt.Sprint(got) != fmt.Sprint(before[who]) {
				t.Fatalf("offline, yet the server's %s has %v (before: %v)", who, got, before[who])
			}
		}

		// Back online: the session resumes by itself and the outbox is sent, once each.
		offline(false)
		b.poll(t, "every write sent", `(() => { const l = document.querySelector('#outbox-list'); return !!l && l.querySelectorAll('li.sent').length === 5 && !l.querySelector('li.queued'); })()`)
		if b.evalString(t, `String(!!document.querySelector('#sign-out') && !document.querySelector('#session-ended') && !document.querySelector('#sign-in'))`) != "true" {
			t.Fatal("back online the session did not resume")
		}
		cowNow, heiferNow, steerNow := kinds(cow), kinds(heifer), kinds(steer)
		for _, c := range []struct {
			who  string
			got  map[string]int
			was  map[string]int
			kind string
		}{
			{"cow's weight", cowNow, before["cow"], "weight"}, {"heifer's treatment", heiferNow, before["heifer"], "treatment"},
			{"steer's membership", steerNow, before["steer"], "membership"},
		} {
			if c.got[c.kind] != c.was[c.kind]+1 {
				t.Errorf("the %s: %d on the server, want %d (each write exactly once): %v", c.who, c.got[c.kind], c.was[c.kind]+1, c.got)
			}
		}
		calv := b.gql(t, `query($f: ID!) { farm(id: $f) { calvings(first: 10) { edges { node { calves { tag } } } } } }`, map[string]any{"f": farm})
		if n := strings.Count(fmt.Sprint(calv), "CALF-9"); n != 1 {
			t.Errorf("the calving is %d times on the server: %v", n, calv)
		}
		if s := status(steer); s != "SOLD" {
			t.Errorf("the steer is %s, want SOLD", s)
		}

		// A sign-out with a queued write: said, kept locked, sent at the same user's next sign-in.
		offline(true)
		b.goTo(t, base+"/weigh", "Weigh")
		b.set(t, "#weigh-eid", "H-2")
		b.click(t, "#weigh-find")
		b.waitText(t, "#weigh-animal", "H-2")
		b.set(t, "#weigh-kg", "321")
		b.click(t, "#weigh-save")
		b.waitText(t, "#weigh-status", "sent when you are online")
		b.click(t, "#sign-out")
		b.waitText(t, "#signout-count", "Not on the server yet: 1")
		b.waitText(t, "main", "Weigh H-2")
		b.checkAxe(t, "sign-out with a queued write")
		b.poll(t, "sending first disabled offline", `document.querySelector('#signout-send').disabled`)
		b.click(t, "#signout-keep")
		b.waitText(t, "#sign-in", "")
		kept := b.evalString(t, `(async () => { const db = await new Promise(r => { const q = indexedDB.open('herdbook-kept'); q.onsuccess = () => r(q.result); });
			const all = await new Promise(r => { const q = db.transaction('kept').objectStore('kept').getAll(); q.onsuccess = () => r(q.result); });
			db.close(); return JSON.stringify(all.map(k => ({count: k.count, bytes: k.data.byteLength, text: new TextDecoder().decode(k.data)}))); })()`)
		if !strings.Contains(kept, `"count":1`) || strings.Contains(kept, "H-2") || strings.Contains(kept, "321") {
			t.Fatalf("the kept write is not there, or readable: %s", kept)
		}
		left := b.evalString(t, `(async () => (await indexedDB.databases()).map(d => d.name).sort().join(','))()`)
		if left != "herdbook-kept" {
			t.Fatalf("after sign-out the device keeps the databases %q, want only herdbook-kept", left)
		}
		if got := kinds(heifer)["weight"]; got != heiferNow["weight"] {
			t.Fatalf("the kept write reached the server before the next sign-in: %d weights", got)
		}
		offline(false)
		// The revocation could not reach the server offline, so the OAuth pages' own session
		// is still there: Sign in passes without the password (docs/web.md says so).
		b.navigate(t, "/")
		b.click(t, "#sign-in")
		b.waitText(t, "#farms-title", "")
		b.goTo(t, "/outbox", "Queued writes")
		b.waitText(t, "#writes-back", "1")
		b.poll(t, "the kept weighing sent", `(() => { const l = document.querySelector('#outbox-list'); return !!l && l.innerText.includes('Weigh H-2') && !l.querySelector('li.queued'); })()`)
		if got := kinds(heifer)["weight"]; got != heiferNow["weight"]+1 {
			t.Errorf("the kept weighing: %d weights on the server, want %d", got, heiferNow["weight"]+1)
		}
		b.poll(t, "the kept database dropped once opened", `indexedDB.databases().then(l => !l.some(d => d.name === 'herdbook-kept'))`)

		// A write the server refuses on sync goes to the review list with its reason.
		b.goTo(t, base+"/animals/"+heifer, "H-2")
		offline(true)
		b.set(t, "#buyer", "Mart")
		b.click(t, "#record-departure")
		b.waitText(t, "#departure-status", "sent when you are online")
		b.goTo(t, "/outbox", "Queued writes")
		offline(false)
		b.waitText(t, "#review", "WITHDRAWAL")
		b.waitText(t, "#review .reason", "withdrawal")
		b.checkAxe(t, "review list")
		if s := status(heifer); s == "SOLD" {
			t.Fatal("the refused sale is on the server")
		}
		b.click(t, `#review input[type=checkbox]:not(.discard-sure)`)
		b.click(t, "#review .resend")
		b.poll(t, "the review list empty", `!document.querySelector('#review')`)
		// The list empties as the write is queued again, before the outbox has sent it: the
		// server is asked until it has it (a single look lost the race on a loaded machine).
		for end := time.Now().Add(10 * time.Second); status(heifer) != "SOLD" && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
		if s := status(heifer); s != "SOLD" {
			t.Errorf("after the acknowledged resend the heifer is %s, want SOLD", s)
		}
	})
}
