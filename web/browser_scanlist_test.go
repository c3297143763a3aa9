package web_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestScanListInBrowser drives the scanned list of the Treat and Move screens (issue 31.4:
// bulk treat and move by a scanned list) in headless Chromium at 360 px against a real
// server, on SQLite and PostgreSQL. A reader in keyboard mode ("keyboard wedge") types each
// code and Enter into the focused field in one burst; the codes are ISO 11784 animal codes
// in their 15-digit decimal form (country code 982, then the national number), as an
// ISO 11785 reader gives them. Three animals' codes are read, one of them twice (refused,
// said) and one code no animal has (said, not added); Enter never submits the form, so
// nothing reaches the server until Save, which then gives each animal of the list exactly
// one treatment. On Move, the same list moves its animals to a group, each animal's move
// said; offline, the codes are found in the kept register and each move is queued and reaches
// the server once online. A reader connected by cable (a simulated Web Serial port) feeds
// Treat's list too: its repeats of one code are ignored, a duplicate, an industrial code and
// an unknown code are said. axe-core checks both screens with a list, and neither overflows the phone's width.
func TestScanListInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 150*time.Second)
		f := b.app.MustFarm(b.user, "Scan Farm")
		farm := f.ID.String()
		ids := map[string]string{}
		for _, tag := range []string{"S-1", "S-2", "S-3", "S-4"} {
			ids[tag] = b.app.MustAnimal(b.user, f.ID, tag).ID.String()
		}
		pens := b.app.MustGroup(b.user, f.ID, "Pens").ID.String()
		eid := map[string]string{"S-1": "982000123450001", "S-2": "982000123450002", "S-3": "982000123450003"}
		const unknown = "982000999999999"
		v := map[string]any{"f": farm, "a": ids["S-1"], "b": ids["S-2"], "c": ids["S-3"], "d": ids["S-4"], "g": pens}
		b.gql(t, `mutation($f: ID!, $a: ID!, $b: ID!, $c: ID!, $d: ID!) {
			s: farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename }
			a: identifierAdd(input: {farmID: $f, animalID: $a, scheme: EID, value: "982000123450001", startDate: "2024-01-01"}) { animal { id } }
			b: identifierAdd(input: {farmID: $f, animalID: $b, scheme: EID, value: "982000123450002", startDate: "2024-01-01"}) { animal { id } }
			c: identifierAdd(input: {farmID: $f, animalID: $c, scheme: EID, value: "982000123450003", startDate: "2024-01-01"}) { animal { id } }
			d: identifierAdd(input: {farmID: $f, animalID: $d, scheme: EID, value: "982000123450004", startDate: "2024-01-01"}) { animal { id } }
		}`, v)
		b.gql(t, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Oxytetracycline 200 LA", withdrawalMeatDays: 28, withdrawalMilkHours: 168}) { medicine { id } } }`, v)

		// treatments answers how many treatments each animal under withdrawal has, by tag.
		treatments := func() map[string]int {
			out := b.gql(t, `query($f: ID!) { farm(id: $f) { withdrawalsConnection(first: 50) { edges { node { animalTag treatments { recordID } } } } } }`, v)
			got := map[string]int{}
			for _, e := range out["farm"].(map[string]any)["withdrawalsConnection"].(map[string]any)["edges"].([]any) {
				n := e.(map[string]any)["node"].(map[string]any)
				got[n["animalTag"].(string)] = len(n["treatments"].([]any))
			}
			return got
		}
		members := func() string {
			out := b.gql(t, `query($g: ID!) { node(id: $g) { ... on Group { animalsConnection(first: 50) { edges { node { tag } } } } } }`, v)
			var tags []string
			for _, e := range out["node"].(map[string]any)["animalsConnection"].(map[string]any)["edges"].([]any) {
				tags = append(tags, e.(map[string]any)["node"].(map[string]any)["tag"].(string))
			}
			sort.Strings(tags)
			return strings.Join(tags, " ")
		}
		listed := func(sel string) string {
			return b.evalString(t, `[...document.querySelectorAll(`+jsString(sel+" li span")+`)].map((e) => e.textContent).join(' ')`)
		}
		fits := func(screen string) {
			t.Helper()
			b.checkAxe(t, screen)
			if o := b.overflow(t); o != "" {
				t.Errorf("%s overflows the phone: %s", screen, o)
			}
		}

		// A simulated reader on Web Serial (browser_crush_test.go's fakeSerial), there before
		// the app's first script runs.
		if _, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fakeSerial}); err != nil {
			t.Fatal(err)
		}
		b.signIn(t, nil, nil)
		base := "/farms/" + farm

		t.Run("Treat", func(t *testing.T) {
			b.goTo(t, base+"/treat", "Treat")
			b.waitText(t, "#treat-medicine", "Oxytetracycline")
			b.click(t, "#treat-scanmode")
			b.poll(t, "the focus in the scan field", `document.activeElement.id === 'treat-scan'`)
			if p := b.evalString(t, `document.querySelector('#treat-scanmode').getAttribute('aria-pressed')`); p != "true" {
				t.Fatalf("the scan toggle is aria-pressed=%q once on", p)
			}
			if role := b.evalString(t, `document.querySelector('#treat-scan-status').getAttribute('role')`); role != "status" {
				t.Fatalf("the list's outcome has role %q, want status", role)
			}
			// Five reads in one burst, each code then Enter: S-1, S-2, S-1 again, a code of
			// no animal, S-3.
			b.press(t, eid["S-1"], kb.Enter, eid["S-2"], kb.Enter, eid["S-1"], kb.Enter, unknown, kb.Enter, eid["S-3"], kb.Enter)
			b.waitText(t, "#treat-scan-status", "3 animals in the list")
			b.waitText(t, "#treat-scan-status", eid["S-1"]+": already in the list")
			b.waitText(t, "#treat-scan-status", unknown+": no animal on the farm has this code")
			if got := listed("#treat-list"); got != "S-1 S-2 S-3" {
				t.Fatalf("the list shows %q, want S-1 S-2 S-3 in the order read", got)
			}
			// A tag typed by hand joins the list too, and its remove button takes it out.
			b.press(t, "S-4", kb.Enter)
			b.waitText(t, "#treat-scan-status", "4 animals in the list")
			b.click(t, `#treat-list li:nth-child(4) button`)
			b.waitText(t, "#treat-scan-status", "3 animals in the list")
			if got := b.evalString(t, `document.querySelector('#treat-list li button').getAttribute('aria-label')`); got != "Remove from the list: S-1" {
				t.Fatalf("the remove button is named %q", got)
			}
			// No Enter submitted the form.
			if got := treatments(); len(got) != 0 {
				t.Fatalf("before Save the server has treatments %v", got)
			}
			if got := b.evalString(t, `document.querySelector('#treat-status').innerText`); got != "" {
				t.Fatalf("before Save the form says %q", got)
			}
			fits("treat with a scanned list")
			b.shot(t, "49-treat-scanned-list")

			b.set(t, "#treat-dose", "10")
			b.click(t, "#treat-save")
			for _, tag := range []string{"S-1", "S-2", "S-3"} {
				b.waitText(t, "#treat-status", tag+": Treatment recorded")
			}
			b.waitText(t, "#treat-scan-status", "0 animals in the list")
			got := treatments()
			if fmt.Sprint(got) != "map[S-1:1 S-2:1 S-3:1]" {
				t.Fatalf("after treating the list the treatments by animal are %v, want one each for S-1, S-2 and S-3", got)
			}
		})

		t.Run("TreatByReader", func(t *testing.T) {
			// A reader connected by cable feeds the scanned list as a wedge reader does: a
			// panel reader's repeats of one code are ignored, a code read again after another
			// is said, an industrial transponder and a code of no animal are said, never added.
			b.goTo(t, base+"/move", "Move to a group")
			b.goTo(t, base+"/treat", "Treat")
			b.waitText(t, "#treat-medicine", "Oxytetracycline")
			if b.evalString(t, `String(!!document.querySelector('#device-reader-serial'))`) != "false" {
				t.Fatal("Treat offers the reader without a scanned list")
			}
			b.click(t, "#treat-scanmode")
			b.waitText(t, "#device-reader-status", "Reader: not connected")
			if b.evalString(t, `String(!!document.querySelector('#device-scale-status'))`) != "false" {
				t.Fatal("the scanned list offers a scale")
			}
			b.click(t, "#device-reader-serial")
			b.waitText(t, "#device-reader-status", "Reader: connected")
			b.eval(t, `window.__serial.send(0, ['LA 982 000123', '450004\r\n', 'LA 982 000123450004\r\n', 'LA 982 000123450004\r\n'])`)
			b.waitText(t, "#treat-scan-status", "1 animal in the list")
			b.eval(t, `window.__serial.send(0, ['982000123450001\r\n', 'A 00000 0 982 000123450004\r\n', 'R00060000000000123456\r\n', '982000999999999\r\n'])`)
			b.waitText(t, "#treat-scan-status", "2 animals in the list")
			b.waitText(t, "#treat-scan-status", "982000123450004: already in the list")
			b.waitText(t, "#treat-scan-status", "Not an animal’s code: R00060000000000123456")
			b.waitText(t, "#treat-scan-status", unknown+": no animal on the farm has this code")
			if got := listed("#treat-list"); got != "S-4 S-1" {
				t.Fatalf("the list shows %q, want S-4 S-1 in the order read", got)
			}
			if n := b.evalString(t, `String(document.querySelectorAll('#treat-scan-status li').length)`); n != "3" {
				t.Fatalf("%s notes under the list, want 3 (the reader's repeats of one code said nothing)", n)
			}
			fits("treat with a reader's scanned list")
			b.click(t, "#treat-save")
			b.waitText(t, "#treat-status", "S-4: Treatment recorded")
			b.waitText(t, "#treat-status", "S-1: Treatment recorded")
			if got := fmt.Sprint(treatments()); got != "map[S-1:2 S-2:1 S-3:1 S-4:1]" {
				t.Fatalf("after the reader's list the treatments by animal are %s, want one more for S-1 and S-4", got)
			}
			// Another screen: the reader stays connected, its lines go nowhere.
			b.click(t, "#treat-scanmode")
			b.eval(t, `window.__serial.send(0, ['982000123450002\r\n'])`)
			b.click(t, "#treat-scanmode")
			time.Sleep(300 * time.Millisecond)
			b.waitText(t, "#device-reader-status", "Reader: connected")
			b.waitText(t, "#treat-scan-status", "0 animals in the list")
		})

		t.Run("Move", func(t *testing.T) {
			b.goTo(t, base+"/move", "Move to a group")
			b.waitText(t, "#move-group", "Pens")
			b.click(t, "#move-scanmode")
			b.poll(t, "the focus in the scan field", `document.activeElement.id === 'move-scan'`)
			b.press(t, eid["S-3"], kb.Enter, eid["S-1"], kb.Enter, eid["S-3"], kb.Enter, unknown, kb.Enter, "S-2", kb.Enter)
			b.waitText(t, "#move-scan-status", "3 animals in the list")
			b.waitText(t, "#move-scan-status", eid["S-3"]+": already in the list")
			b.waitText(t, "#move-scan-status", unknown+": no animal on the farm has this code")
			if got := listed("#move-list"); got != "S-3 S-1 S-2" {
				t.Fatalf("the list shows %q, want S-3 S-1 S-2 in the order read", got)
			}
			// Scanned by its tag, the same animal is refused too.
			b.press(t, "S-1", kb.Enter)
			b.waitText(t, "#move-scan-status", "S-1: already in the list")
			// The reader connected on Treat feeds Move's list as well.
			b.waitText(t, "#device-reader-status", "Reader: connected")
			b.eval(t, `window.__serial.send(0, ['982000123450002\r\n'])`)
			b.waitText(t, "#move-scan-status", "S-2: already in the list")
			if got := members(); got != "" {
				t.Fatalf("before Save the group holds %q", got)
			}
			fits("move with a scanned list")

			b.click(t, "#move-save")
			for _, tag := range []string{"S-3", "S-1", "S-2"} {
				b.waitText(t, "#move-status", tag+": moved")
			}
			b.waitText(t, "#move-scan-status", "0 animals in the list")
			if got := members(); got != "S-1 S-2 S-3" {
				t.Fatalf("after moving the list the group holds %q, want S-1 S-2 S-3", got)
			}
			fits("move with its outcome")
		})

		t.Run("Offline", func(t *testing.T) {
			// The register kept on the device (its screen keeps it), then the network cut: a
			// tag typed and an EID read are found in the kept copy, and each animal's move is
			// saved on the device and reaches the server once online.
			keptCopy := `new Promise(ok => { const r = indexedDB.open('herdbook'); r.onsuccess = () => {
				const q = r.result.transaction('kv').objectStore('kv').get('register:` + farm + `');
				q.onsuccess = () => { r.result.close(); ok(q.result || {rows: []}); }; }; })`
			b.goTo(t, base+"/register", "Register")
			b.poll(t, "the kept register with S-4", keptCopy+`.then(k => k.rows.some(x => x.tag === 'S-4'))`)
			b.goTo(t, base+"/move", "Move to a group")
			b.waitText(t, "#move-group", "Pens")
			b.offline(t, true)
			b.click(t, "#move-scanmode")
			b.poll(t, "the focus in the scan field", `document.activeElement.id === 'move-scan'`)
			b.press(t, "S-4", kb.Enter, eid["S-1"], kb.Enter, unknown, kb.Enter)
			b.waitText(t, "#move-scan-status", "2 animals in the list")
			b.waitText(t, "#move-scan-status", unknown+": no animal on the farm has this code")
			b.click(t, "#move-save")
			b.waitText(t, "#move-status", "S-4: Saved on this device")
			b.waitText(t, "#move-status", "S-1: Saved on this device")
			b.offline(t, false)
			deadline := time.Now().Add(30 * time.Second)
			for members() != "S-1 S-2 S-3 S-4" {
				if time.Now().After(deadline) {
					t.Fatalf("once online the group holds %q, want S-1 S-2 S-3 S-4", members())
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	})
}
