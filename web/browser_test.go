package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestAppInBrowser drives the web app in headless Chromium against a real server, on SQLite
// and PostgreSQL, as a farmer uses it (issue 23.6): sign in through Herdbook's OAuth pages
// (authorization code with PKCE for the first-party client herdbook-web); find a cow by the
// last 5 digits of her EID; weigh her with the network cut and see the weight synced when it
// returns; treat a group, then try to sell one of its animals and get the withdrawal guard's
// refusal as a warning that needs an explicit acknowledgement; review a birth's evidence and
// approve it; sign out. axe-core (pinned in web/app's package-lock) checks every screen for
// accessibility violations. With HERDBOOK_SCREENSHOT_DIR set, each screen is saved at phone
// (360 px) and desktop width.
func TestAppInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		runApp(t, d)
	})
}

type farmSeed struct {
	farm, cow, heifer, dam, bull, group, medicine string
}

// seed makes the farm the test works on, through the graph as any client would.
func seed(t *testing.T, app *herdbooktest.App, u herdbooktest.User) farmSeed {
	t.Helper()
	f := app.MustFarm(u, "Hillside Farm")
	s := farmSeed{farm: f.ID.String()}
	s.cow = app.MustAnimal(u, f.ID, "UK-1").ID.String()
	s.heifer = app.MustAnimal(u, f.ID, "UK-2").ID.String()
	s.dam = app.MustAnimal(u, f.ID, "D-7").ID.String()
	s.bull = app.MustAnimal(u, f.ID, "B-1").ID.String()
	for i := 0; i < 30; i++ {
		app.MustAnimal(u, f.ID, fmt.Sprintf("UK-%d", 100+i))
	}
	s.group = app.MustGroup(u, f.ID, "Milkers").ID.String()
	vars := map[string]any{"f": s.farm, "cow": s.cow, "heifer": s.heifer, "dam": s.dam, "bull": s.bull, "g": s.group}
	must := func(q string) map[string]any {
		t.Helper()
		out := app.GraphQL(u.Token, q, vars)
		if out["errors"] != nil {
			t.Fatalf("seed: %v", out["errors"])
		}
		return out
	}
	// Bare dates are the farm's local days: the zone is set before any treatment.
	must(`mutation($f: ID!) { farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename } }`)
	// An EID as ISO 11784 gives it (15 digits): the register finds it by its last 5, 34003.
	must(`mutation($f: ID!, $cow: ID!) { identifierAdd(input: {farmID: $f, animalID: $cow, scheme: EID, value: "826000301234003", startDate: "2025-02-01"}) { animal { id } } }`)
	must(`mutation($f: ID!, $cow: ID!, $heifer: ID!, $dam: ID!, $bull: ID!, $g: ID!) {
		a: recordProfile(farmID: $f, input: {animalID: $cow, sex: FEMALE, birthDate: "2022-03-01", breed: "Holstein"}) { id }
		b: recordProfile(farmID: $f, input: {animalID: $heifer, sex: FEMALE, birthDate: "2024-03-01", breed: "Holstein"}) { id }
		c: recordProfile(farmID: $f, input: {animalID: $dam, sex: FEMALE, birthDate: "2021-04-01", breed: "Angus"}) { id }
		d: recordProfile(farmID: $f, input: {animalID: $bull, sex: MALE, birthDate: "2022-03-10", breed: "Hereford"}) { id }
		e: recordMembership(farmID: $f, input: {animalID: $dam, groupID: $g, startDate: "2025-04-01"}) { id }
		h: recordMembership(farmID: $f, input: {animalID: $heifer, groupID: $g, startDate: "2025-04-01"}) { id }
		i: recordExposure(farmID: $f, input: {sireID: $bull, groupID: $g, startDate: "2025-06-15", endDate: "2025-08-01"}) { id }
		s: putBirthSettings(farmID: $f, input: {version: 1, species: "CATTLE", gestationDays: {min: 279, max: 292}, minimumSireAgeDays: 365}) { settingsVersion }
		p: putFollowUpProtocol(farmID: $f, steps: [{name: "Weigh the calf", offsetDays: 1}]) { version }
	}`)
	// The withdrawal period is the label's, as printed (a test value, not a default).
	out := must(`mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Oxytetracycline 200 LA", withdrawalMeatDays: 28, withdrawalMilkHours: 168}) { medicine { id } } }`)
	s.medicine = out["data"].(map[string]any)["medicineCreate"].(map[string]any)["medicine"].(map[string]any)["id"].(string)
	return s
}

func runApp(t *testing.T, d *db.DB) {
	b := newBrowser(t, d, 90*time.Second) // the whole scenario; generous for a loaded CI machine
	app, u, ctx := b.app, b.user, b.ctx
	s := seed(t, app, u)
	base := "/farms/" + s.farm
	js := jsString
	eval, waitText, click, set, goTo := b.eval, b.waitText, b.click, b.set, b.goTo
	checkAxe, shot, offline := b.checkAxe, b.shot, b.offline
	profile := func(t *testing.T, id string) map[string]any {
		t.Helper()
		out := app.GraphQL(u.Token, `query($id: ID!) { node(id: $id) { ... on Animal { profile { status weightKg weighedOn } } } }`, map[string]any{"id": id})
		return out["data"].(map[string]any)["node"].(map[string]any)["profile"].(map[string]any)
	}

	t.Run("SignIn", func(t *testing.T) {
		b.signIn(t, func() { shot(t, "1-welcome") }, nil)
		waitText(t, ".tiles", "Hillside Farm")
		shot(t, "2-farms")
		click(t, ".tile")
		waitText(t, "#count-on-farm", "34")
		shot(t, "3-dashboard")
	})

	t.Run("FindByLastDigitsOfEID", func(t *testing.T) {
		goTo(t, base+"/register", "Register")
		waitText(t, "#register-count", "34")
		waitText(t, ".register", "UK-100")
		// The whole register is kept on the device for offline use.
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`new Promise(ok => { const r = indexedDB.open('herdbook'); r.onsuccess = () => {
			const q = r.result.transaction('kv').objectStore('kv').get('register:`+s.farm+`');
			q.onsuccess = () => { r.result.close(); ok(!!q.result && q.result.rows.length === 34); }; }; })`,
			chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			t.Fatalf("the register is not kept on the device: %v", err)
		}
		set(t, "#search", "34003")
		waitText(t, "#register-count", "1 ")
		waitText(t, ".register", "826000301234003")
		shot(t, "4-register-search")
		click(t, ".register a.row")
		waitText(t, "h1", "UK-1")
		waitText(t, "main", "Holstein")
		shot(t, "5-animal")
	})

	t.Run("WeighOfflineThenSync", func(t *testing.T) {
		goTo(t, base+"/weigh", "Weigh")
		offline(t, true)
		waitText(t, "#offline", "")
		set(t, "#weigh-eid", "34003")
		click(t, "#weigh-find")
		waitText(t, "#weigh-animal", "UK-1")
		set(t, "#weigh-kg", "412.5")
		click(t, "#weigh-save")
		waitText(t, "#weigh-status", "sent when you are online")
		shot(t, "6-weigh-offline")
		if p := profile(t, s.cow); p["weightKg"] != nil {
			t.Fatalf("weighed while offline, yet the server has %v", p)
		}
		goTo(t, "/outbox", "Queued writes")
		waitText(t, "#outbox-list", "UK-1")
		offline(t, false)
		waitText(t, "#outbox-list", "Sent")
		shot(t, "7-outbox-synced")
		if p := profile(t, s.cow); p["weightKg"] != 412.5 {
			t.Fatalf("after reconnecting the cow's profile is %v, want 412.5 kg", p)
		}
	})

	t.Run("GroupTreatmentThenRefusedSale", func(t *testing.T) {
		goTo(t, base+"/treat", "Treat")
		waitText(t, "#treat-medicine", "Oxytetracycline")
		set(t, "#treat-group", s.group)
		set(t, "#treat-dose", "10")
		// The clear dates show before saving: the label's 28 days from today.
		waitText(t, "#treat-clear", time.Now().AddDate(0, 0, 28).Format(time.DateOnly))
		click(t, "#treat-save")
		waitText(t, "#treat-status", "Treatment recorded")
		shot(t, "8-treat")
		goTo(t, base+"/animals/"+s.heifer, "UK-2")
		waitText(t, "#animal-withdrawal", "meat clear on")
		// Her timeline names the group's treatment's medicine and dose (issue 31.5), not only
		// its day.
		waitText(t, "#timeline", "Oxytetracycline 200 LA · Dose 10 ml")
		click(t, "#record-departure")
		waitText(t, "#withdrawal-warning", "withdrawal")
		shot(t, "9-sale-refused")
		if p := profile(t, s.heifer); p["status"] != "ON_FARM" {
			t.Fatalf("after the refused sale the heifer is %v", p)
		}
		click(t, "#acknowledge")
		click(t, "#record-departure")
		waitText(t, "#departure-status", "Saved")
		if p := profile(t, s.heifer); p["status"] != "SOLD" {
			t.Fatalf("after the acknowledged sale the heifer is %v", p)
		}
	})

	t.Run("ReviewAndApproveBirth", func(t *testing.T) {
		goTo(t, base+"/births", "Births")
		set(t, "#birth-dam", "D-7")
		set(t, "#birth-date", "2026-04-20")
		click(t, "#birth-review")
		waitText(t, "#evidence", "B-1")
		click(t, "#birth-preview")
		waitText(t, "main", "Weigh the calf")
		shot(t, "10-birth-review")
		// Approval records the calving: the calf joins the register (issue 28.9).
		set(t, "#birth-calf-tag", "D-7-CALF")
		click(t, "#birth-approve")
		waitText(t, "#birth-status", "Approved")
	})

	t.Run("TaskBoardAndMedicines", func(t *testing.T) {
		goTo(t, base+"/tasks", "Tasks")
		waitText(t, "#task-list", "Weigh the calf")
		shot(t, "13-tasks")
		click(t, "#task-list .actions button")
		waitText(t, "#task-status", "Saved")
		waitText(t, "main", "None")
		goTo(t, base+"/medicines", "Medicines")
		waitText(t, "#medicine-list", "Oxytetracycline 200 LA")
		shot(t, "14-medicines")
	})

	t.Run("FarmSettingsMembersMoveAuditCalving", func(t *testing.T) {
		// Farm settings: the OWNER edits them (docs/settings.md); an empty limit stays unset.
		goTo(t, base+"/settings", "Farm settings")
		waitText(t, "#fs-form", "")
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('#fs-zone').value === 'UTC'`, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			t.Fatalf("the settings screen does not show the farm's time zone: %v", err)
		}
		set(t, "#fs-interval", "300")
		click(t, "#fs-save")
		waitText(t, "#fs-status", "Saved")
		shot(t, "15-farm-settings")
		out := app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { settings { timeZone minimumCalvingIntervalDays minimumBreedingAgeDays { female } } } }`, map[string]any{"f": s.farm})
		got := out["data"].(map[string]any)["farm"].(map[string]any)["settings"].(map[string]any)
		if got["timeZone"] != "UTC" || got["minimumCalvingIntervalDays"] != 300.0 || got["minimumBreedingAgeDays"].(map[string]any)["female"] != nil {
			t.Fatalf("after saving the settings the server has %v", got)
		}

		// Members and roles: the OWNER adds a reader by phone number, then makes them an editor.
		other := app.MustUser()
		goTo(t, base+"/members", "Members")
		waitText(t, "#member-list", u.Phone)
		set(t, "#member-phone", other.Phone)
		set(t, "#member-role", "READER")
		click(t, "#member-save")
		waitText(t, "#member-list", other.Phone)
		shot(t, "16-members")
		eval(t, `(() => { const row = [...document.querySelectorAll('#member-list tbody tr')].find(r => r.innerText.includes(`+js(other.Phone)+`));
			const e = row.querySelector('select'); e.value = 'EDITOR'; e.dispatchEvent(new Event('change', {bubbles: true})); })()`)
		// The role change is sent at once; the server shows it within a moment.
		roles := map[string]any{}
		for i := 0; i < 50; i++ {
			out = app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { members { role user { phoneNumberLocal } } } }`, map[string]any{"f": s.farm})
			roles = map[string]any{}
			for _, m := range out["data"].(map[string]any)["farm"].(map[string]any)["members"].([]any) {
				m := m.(map[string]any)
				roles[m["user"].(map[string]any)["phoneNumberLocal"].(string)] = m["role"]
			}
			if len(roles) == 2 && roles[other.Phone] == "EDITOR" && roles[u.Phone] == "OWNER" {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(roles) != 2 || roles[other.Phone] != "EDITOR" || roles[u.Phone] != "OWNER" {
			t.Fatalf("after adding a reader and making them an editor the members are %v", roles)
		}

		// Move to a group, by keyboard alone: Enter on the skip link, Tab to the tags, type
		// them, Enter submits (the group and today's date are the form's first values).
		goTo(t, base+"/move", "Move to a group")
		waitText(t, "#move-group", "Milkers")
		checkAxe(t, "move")
		// The focus starts where a page's first Tab puts it, on the skip link.
		eval(t, `document.querySelector('a.skip').focus()`)
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		if id, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`)); id != "move-tags" {
			t.Fatalf("Enter on the skip link, Tab: the focus is on %q, want the tags field", id)
		}
		if err := chromedp.Do(ctx, chromedp.KeyEvent("UK-100, UK-101"), chromedp.KeyEvent(kb.Enter)); err != nil {
			t.Fatal(err)
		}
		waitText(t, "#move-status", "UK-100: moved")
		waitText(t, "#move-status", "UK-101: moved")
		shot(t, "17-move")
		out = app.GraphQL(u.Token, `query($g: ID!) { node(id: $g) { ... on Group { animalsConnection(first: 50) { edges { node { tag } } } } } }`, map[string]any{"g": s.group})
		tags := fmt.Sprint(out["data"])
		if !strings.Contains(tags, "UK-100") || !strings.Contains(tags, "UK-101") {
			t.Fatalf("after the move the group holds %s", tags)
		}

		// The audit trail lists the book's changes, the move's included, with who made them.
		goTo(t, base+"/audit", "Audit trail")
		waitText(t, "#audit-list", "Created")
		waitText(t, "#audit-list", "Test User")
		shot(t, "18-audit")

		// A calving: the cow UK-1 has a heifer calf; the calf is an animal of the farm.
		goTo(t, base+"/calving", "Calving")
		waitText(t, "#calving-form", "no calving-ease scale")
		set(t, "#calving-dam", "UK-1")
		set(t, "#calf-tag", "UK-900")
		set(t, "#calf-weight", "38")
		click(t, "#calving-save")
		waitText(t, "#calving-status", "Calving recorded")
		waitText(t, "#calving-list", "UK-900")
		shot(t, "19-calving")
		out = app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { calvings(first: 5) { edges { node { damID calves { tag sex status birthWeight } } } } } }`, map[string]any{"f": s.farm})
		if c := fmt.Sprint(out["data"]); !strings.Contains(c, s.cow) || !strings.Contains(c, "UK-900") || !strings.Contains(c, "female") || !strings.Contains(c, "38") {
			t.Fatalf("after the calving form the farm's calvings are %s", c)
		}
	})

	t.Run("ReloadOfflineShowsKeptRegister", func(t *testing.T) {
		// Back on the register, the kept copy syncs through the change feeds without a full
		// read: the weight and the sale recorded since arrive by the records feed, and an
		// animal made without any record (UK-777) and a deleted one (UK-129) by the animals feed.
		keptCopy := `new Promise(ok => { const r = indexedDB.open('herdbook'); r.onsuccess = () => {
			const q = r.result.transaction('kv').objectStore('kv').get('register:` + s.farm + `');
			q.onsuccess = () => { r.result.close(); ok(q.result || {rows: []}); }; }; })`
		readAt := b.evalString(t, keptCopy+`.then(k => k.readAt || '')`)
		if readAt == "" {
			t.Fatal("the kept register has no full read's time")
		}
		app.MustAnimal(u, uuid.MustParse(s.farm), "UK-777")
		gone := b.gql(t, `query($f: ID!) { farm(id: $f) { animals(first: 1, where: {tag: "UK-129"}) { edges { node { id } } } } }`, map[string]any{"f": s.farm})
		goneID := gone["farm"].(map[string]any)["animals"].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["id"]
		b.gql(t, `mutation($id: ID!) { animalDelete(input: {id: $id}) { __typename } }`, map[string]any{"id": goneID})
		goTo(t, base+"/register", "Register")
		b.poll(t, "the kept register to sync", keptCopy+`.then(k => k.rows.some(x => x.tag === 'UK-1' && x.profile.weightKg === 412.5) &&
			k.rows.some(x => x.tag === 'UK-2' && x.profile.status === 'SOLD') && k.rows.some(x => x.tag === 'UK-777') && !k.rows.some(x => x.tag === 'UK-129'))`)
		if again := b.evalString(t, keptCopy+`.then(k => k.readAt || '')`); again != readAt {
			t.Fatalf("the kept register was read again in full (%s, then %s), not synced by the feeds", readAt, again)
		}
		// The service worker keeps the shell; the register comes from IndexedDB.
		offline(t, true)
		b.navigate(t, base+"/register")
		waitText(t, "#register-count", "(offline)")
		waitText(t, ".register", "UK-100")
		set(t, "#search", "34003")
		waitText(t, ".register", "412.5 kg")
		shot(t, "12-register-offline")
		// The session was kept on the device (its refresh token, encrypted), so back online
		// it resumes by itself: no sign-in card, no password.
		offline(t, false)
		goTo(t, "/", "")
		waitText(t, "#farms-title", "")
	})

	t.Run("SettingsAndSignOut", func(t *testing.T) {
		goTo(t, "/settings", "Settings")
		shot(t, "11-settings")
		click(t, "#sign-out")
		waitText(t, "#sign-in", "")
		// Every cache and queue on the device is gone, but the app's shell (its code: no farm data).
		left := ""
		for i := 0; i < 50; i++ {
			var err error
			left, err = chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => (await caches.keys()).filter(k => !k.startsWith('herdbook-shell-')).join(',') + '|' + (await indexedDB.databases()).map(d => d.name).join(','))()`, chromedp.EvalAwaitPromise))
			if err == nil && left == "|" {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if left != "|" {
			t.Fatalf("after sign-out the device keeps %q (caches|databases)", left)
		}
		// Signing out revoked the tokens and ended the pages' session: the password is asked again.
		click(t, "#sign-in")
		waitText(t, "#password", "")
	})
}
