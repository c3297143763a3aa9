package web_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestRegistryInBrowser drives the registry screen (issue 29.5) in headless Chromium at
// 360 px against a real server, on SQLite and PostgreSQL. A farm on no holding offers the
// holding form: a CPH of too few digits is refused with the server's words under its field,
// and the holding is then saved. A calf born 30 days ago and not registered shows overdue by
// 3 days under GB's Cattle Tracing System (27 days to register a birth), first in the list;
// its page shows the same legal clock. Recording the registry's reject (with its reason) and
// then the sending changes the notice's state on the screen and on the server. A herd list
// pasted with a planted difference (the dam's birth date), an animal the book lacks, and
// without the calf shows each difference with its fix. Offline and reloaded, the screen opens
// from the kept copy; in French the clock reads "4 jours de retard". No screen is wider than
// the phone, and axe-core finds no violation on any of them.
func TestRegistryInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 150*time.Second)
		day := func(daysAgo int) string { return time.Now().UTC().AddDate(0, 0, -daysAgo).Format(time.DateOnly) }
		f := b.app.MustFarm(b.user, "Registry Farm")
		farm := f.ID.String()
		// Valid UK tags of herd mark 123456 (the check digit is the 11 digits modulo 7, plus 1).
		dam := b.app.MustAnimal(b.user, f.ID, "UK123456200002").ID.String()
		b.gql(t, `mutation($f: ID!, $d: ID!) {
			s: farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename }
			p: recordProfile(farmID: $f, input: {animalID: $d, sex: FEMALE, birthDate: "2020-04-01", breed: "Angus"}) { id }
		}`, map[string]any{"f": farm, "d": dam})
		out := b.gql(t, `mutation($f: ID!, $d: ID!, $date: Date!) {
			calvingRecord(input: {farmID: $f, damID: $d, date: $date,
				calves: [{tag: "UK123456100001", sex: "male", status: "alive", birthWeight: 40}]}) { calving { calves { animalID } } }
		}`, map[string]any{"f": farm, "d": dam, "date": day(30)})
		calf := out["calvingRecord"].(map[string]any)["calving"].(map[string]any)["calves"].([]any)[0].(map[string]any)["animalID"].(string)
		base := "/farms/" + farm
		// As the offline test does: while cut, the server also drops Chromium's requests.
		var cut atomic.Bool
		serve := b.app.Server.Config.Handler
		b.app.Server.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if cut.Load() && strings.Contains(r.UserAgent(), "Chrome") {
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
		narrow := func(screen string) {
			t.Helper()
			if got := b.overflow(t); got != "" {
				t.Errorf("%s is %s on a 360 px phone", screen, got)
			}
		}
		notice := func(kind, animal string) map[string]any {
			t.Helper()
			out := b.gql(t, `query($f: ID!, $a: ID!) { farm(id: $f) { statutoryNotices(animalID: $a) { kind state daysLeft submission { state cause } } } }`,
				map[string]any{"f": farm, "a": animal})
			for _, n := range out["farm"].(map[string]any)["statutoryNotices"].([]any) {
				if m := n.(map[string]any); m["kind"] == kind {
					return m
				}
			}
			t.Fatalf("no %s notice of %s", kind, animal)
			return nil
		}

		b.signIn(t, nil, nil)
		b.poll(t, "the service worker to control the page", `!!navigator.serviceWorker.controller`)
		b.goTo(t, base+"/registry", "Registry")
		b.poll(t, "the menu marks the registry", `document.querySelector('nav a[aria-current=page]')?.getAttribute('href') === `+jsString(base+"/registry"))
		// Issue 31.6: the menu is grouped by what a farmer does, each group named; the registry
		// is one of the books.
		b.poll(t, "the menu's groups", `(() => { const gs = [...document.querySelectorAll('nav [role=group]')].map((g) => document.getElementById(g.getAttribute('aria-labelledby'))?.textContent);
			return gs.join('|') === 'Herd|Breeding|Health|Book|Farm|You' &&
				document.querySelector('nav a[aria-current=page]').closest('[role=group]').getAttribute('aria-labelledby') === 'ng-navBook'; })()`)

		// The holding form: the server's refusal is shown by field, then the holding saved.
		b.waitText(t, "#holding-form", "no holding")
		b.set(t, "#hf-identifier", "34 123")
		b.set(t, "#hf-herd_mark", "123456")
		b.set(t, "#hf-keeper_name", "Kari Nordmann")
		b.set(t, "#hf-time_zone", "UTC")
		b.click(t, "#holding-save")
		b.waitText(t, "#holding-status", "Check the fields")
		b.waitText(t, "#hf-identifier-error", "")
		b.poll(t, "the identifier marked invalid", `document.querySelector('#hf-identifier').getAttribute('aria-invalid') === 'true' &&
			document.querySelector('#hf-identifier').getAttribute('aria-describedby') === 'hf-identifier-error' && !document.querySelector('#hf-keeper_name-error')`)
		narrow("the holding form")
		b.shot(t, "41-registry-holding-form")
		b.set(t, "#hf-identifier", "34 123 1234")
		b.click(t, "#holding-save")
		b.waitText(t, "#holding-number", "34/123/1234")

		// The calf's birth registration: 27 days under gb_cts, born 30 days ago; its tagging
		// (21 days: no tag recorded as applied) is overdue longer and comes first.
		birth := `#notices-open li[data-kind=birth]`
		b.waitText(t, birth, "Birth registration · UK 123456 100001")
		b.waitText(t, birth, "Overdue")
		b.waitText(t, birth, "3 days overdue")
		b.waitText(t, "#notices-open li:first-child", "10 days overdue")
		b.poll(t, "the overdue notices first, then by deadline", `(() => { const ls = [...document.querySelectorAll('#notices-open li')];
			return ls.length === 2 && ls[0].dataset.kind === 'tagging' && ls[1].dataset.kind === 'birth'; })()`)
		if n := notice("birth", calf); n["state"] != "overdue" || n["daysLeft"] != -3.0 {
			t.Fatalf("the server's birth notice = %v", n)
		}
		narrow("the registry")
		b.checkAxe(t, "the registry's notices")

		// The animal page shows the same clock.
		b.goTo(t, base+"/animals/"+calf, "100001")
		b.waitText(t, "#animal-clocks", "Birth registration · Overdue")
		b.waitText(t, "#animal-clocks", "3 days overdue")
		narrow("the animal page")
		b.checkAxe(t, "the animal page's clocks")

		// The registry rejects the registration; then it is sent again.
		b.goTo(t, base+"/registry", "Registry")
		b.waitText(t, birth, "Overdue")
		b.eval(t, `document.querySelector('`+birth+` details').open = true`)
		b.click(t, birth+` input[value=rejected]`)
		b.set(t, birth+` input[id$=-cause]`, "Dam not on the holding")
		b.set(t, birth+` input[id$=-ref]`, "CTS-4711")
		narrow("the answer form")
		b.checkAxe(t, "the answer form")
		b.click(t, birth+` button[type=submit]`)
		b.waitText(t, "#notice-status", "Recorded.")
		b.waitText(t, birth, "Rejected")
		b.waitText(t, birth+" .reject", "Dam not on the holding")
		b.poll(t, "a link to the animal to correct", `[...document.querySelectorAll('`+birth+` .reject a')].some(a => a.getAttribute('href') === `+jsString(base+"/animals/"+calf)+`)`)
		if n := notice("birth", calf); n["state"] != "rejected" || n["submission"].(map[string]any)["cause"] != "Dam not on the holding" {
			t.Fatalf("after the reject the server's notice = %v", n)
		}
		b.checkAxe(t, "a rejected notice")
		b.eval(t, `document.querySelector('`+birth+` details').open = true`)
		b.click(t, birth+` input[value=sent]`)
		b.click(t, birth+` button[type=submit]`)
		b.waitText(t, "#notices-sent", "Birth registration")
		b.waitText(t, "#notices-sent li[data-kind=birth]", "Sent")
		if n := notice("birth", calf); n["state"] != "sent" {
			t.Fatalf("after the sending the server's notice = %v", n)
		}
		b.shot(t, "42-registry-notices")

		// The reconciliation: the registry has the dam born in 2019, a steer the book lacks,
		// and not the calf.
		b.set(t, "#rc-list", "UK123456200002 ABA F 2019-04-01 ?\nUK123456300003 LIMX M 2025-01-02 2025-06-01\n")
		b.click(t, "#rc-compare")
		b.waitText(t, "#rc-differences", "UK123456100001 In your herd book, not on the registry.")
		b.waitText(t, "#rc-differences li[data-tag=UK123456100001]", "Register its birth with the registry.")
		b.waitText(t, "#rc-differences li[data-tag=UK123456200002]", "Birth date differs: the registry says 2019-04-01, your herd book says 2020-04-01.")
		b.waitText(t, "#rc-differences li[data-tag=UK123456300003]", "On the registry, not in your herd book.")
		b.poll(t, "three differences", `document.querySelectorAll('#rc-differences li').length === 3`)
		narrow("the reconciliation")
		b.shot(t, "43-registry-reconciliation")
		b.set(t, "#rc-list", "UK123456200002 ABA F\n")
		b.click(t, "#rc-compare")
		b.waitText(t, "#rc-status", "line 1")

		// Offline and reloaded: the kept copy.
		b.goTo(t, base+"/animals/"+calf, "100001")
		b.waitText(t, "#animal-clocks", "Sent")
		b.goTo(t, base+"/registry", "Registry")
		b.waitText(t, "#notices-sent", "Birth registration")
		time.Sleep(time.Second) // Graphcache's kept copy is written half a second after a read
		offline(true)
		b.navigate(t, base+"/registry")
		b.waitText(t, "#offline", "")
		b.waitText(t, "h1", "Registry")
		b.waitText(t, "#holding-number", "34/123/1234")
		b.waitText(t, "#notices-sent", "Birth registration")
		b.waitText(t, "#reconcile", "needs the network")
		b.checkAxe(t, "the registry offline")
		offline(false)

		// In French.
		b.goTo(t, "/settings", "Settings")
		b.set(t, "#pref-lang", "fr")
		b.click(t, "#pref-save")
		b.goTo(t, base+"/registry", "Registre")
		b.waitText(t, "#notices-sent li[data-kind=birth]", "Déclaration de naissance")
		b.waitText(t, "#notices-sent li[data-kind=birth]", "Envoyée")
		b.set(t, "#rc-list", "UK123456200002 ABA F 2019-04-01 ?\n")
		b.click(t, "#rc-compare")
		b.waitText(t, "#rc-differences li[data-tag=UK123456100001]", "Dans votre livre, pas au registre.")
		b.waitText(t, "#rc-differences li[data-tag=UK123456200002]", "Date de naissance diffère")
		narrow("the registry in French")
		b.checkAxe(t, "the registry in French")
		// A second calf, born 31 days ago, unregistered: its clock in French.
		out = b.gql(t, `mutation($f: ID!, $d: ID!, $date: Date!) {
			calvingRecord(input: {farmID: $f, damID: $d, date: $date,
				calves: [{tag: "UK123456400004", sex: "female", status: "alive", birthWeight: 38}]}) { calving { calves { animalID } } }
		}`, map[string]any{"f": farm, "d": dam, "date": day(31)})
		calf2 := out["calvingRecord"].(map[string]any)["calving"].(map[string]any)["calves"].([]any)[0].(map[string]any)["animalID"].(string)
		b.goTo(t, base+"/animals/"+calf2, "400004")
		b.waitText(t, "#animal-clocks", "Déclaration de naissance · En retard")
		b.waitText(t, "#animal-clocks", "4 jours de retard")
		b.checkAxe(t, "the animal page's clocks in French")
	})
}
