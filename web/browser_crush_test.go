package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// fakeSerial is a simulated Web Serial API, put in the page before the app loads: every
// requestPort hands out a new port (as a person picking a reader, then a scale, in the
// browser's chooser would), and window.__serial.send(i, chunks) makes port i deliver those
// chunks, as bytes, one read each; unplug(i) ends its stream and fires its disconnect.
const fakeSerial = `(() => {
	const enc = new TextEncoder();
	const ports = [];
	class Port extends EventTarget {
		async open(o) { this.baudRate = o.baudRate; this.readable = new ReadableStream({ start: (c) => { this.c = c; } }); }
		async close() { this.closed = true; }
		getInfo() { return { usbVendorId: 0x0403, usbProductId: 0x6001 }; }
	}
	window.__serial = {
		ports,
		send(i, chunks) { for (const s of chunks) ports[i].c.enqueue(enc.encode(s)); },
		unplug(i) { ports[i].c.close(); ports[i].readable = null; ports[i].dispatchEvent(new Event('disconnect')); },
	};
	Object.defineProperty(navigator, 'serial', { configurable: true, value: {
		async requestPort() { const p = new Port(); ports.push(p); return p; },
		addEventListener() {}, removeEventListener() {},
	} });

	// Web Bluetooth: a device with the Nordic UART Service; notify(i, chunks) makes the TX
	// characteristic of device i notify those chunks (a BLE notification carries 20 bytes
	// at the default ATT MTU).
	const NUS = '6e400001-b5a3-f393-e0a9-e50e24dcca9e', TX = '6e400003-b5a3-f393-e0a9-e50e24dcca9e';
	const chars = [], devices = [];
	class Char extends EventTarget { async startNotifications() { this.notifying = true; return this; } }
	class Device extends EventTarget {
		constructor(n) {
			super();
			const dev = this;
			this.name = 'Crush head ' + n;
			this.gatt = {
				connected: false,
				async connect() { this.connected = true; return this; },
				disconnect() { this.connected = false; dev.dispatchEvent(new Event('gattserverdisconnected')); },
				async getPrimaryService(u) {
					if (u !== NUS) throw new DOMException('no such service', 'NotFoundError');
					return { async getCharacteristic(c) {
						if (c !== TX) throw new DOMException('no such characteristic', 'NotFoundError');
						const ch = new Char(); chars.push(ch); return ch;
					} };
				},
			};
		}
	}
	window.__ble = {
		chars, devices, asked: [],
		notify(i, chunks) { for (const s of chunks) { const b = enc.encode(s); chars[i].value = new DataView(b.buffer); chars[i].dispatchEvent(new Event('characteristicvaluechanged')); } },
	};
	Object.defineProperty(navigator, 'bluetooth', { configurable: true, value: {
		async requestDevice(o) { window.__ble.asked.push(o); const d = new Device(devices.length + 1); devices.push(d); return d; },
	} });
})()`

// TestCrushInBrowser drives the crush screen (issue 31.4) with a simulated reader and scale
// head on Web Serial, in headless Chromium at 360 px against a real server, on SQLite and
// PostgreSQL. The reader sends an Allflex panel-reader line ("LA 982 000123456789", an
// ISO 11784 code in the ISO 24631-6 representation: code 982, national number 123456789) cut
// into chunks mid-line; the cow is found and her card shows her last weight, her withdrawal
// and when she is due. The scale head sends the Dini Argeo "standard" lines (US unstable,
// ST stable) split across chunks and CR LF endings: only the stable weight fills the field;
// the reader sending her code again (a panel reader does, while she stands in its field)
// changes nothing; saved, the server has it, and her code read again does not open her
// weighing twice. The same stable weight still on the scale does not fill the next
// animal's field. A keyboard-wedge reader typing a code and Enter into the EID field finds the
// next cow; typed into the weight field, it is read as a tag, never saved as a weight.
// Unplugging the reader says so. Then the same over Web Bluetooth: a simulated reader and
// scale head with the Nordic UART Service notify their lines in 20-byte pieces. The devices stay
// connected on another screen and back. Last, with the network cut: the reader's code finds a steer in the kept register, his card has his last
// weight from it, and the scale's weight and a note are queued, each on its own, and reach the server once online. In lb,
// the scale's kg shows in lb and reaches the server unrounded. Last, the crush treats, drafts
// and keeps notes: the card shows the cow's latest three notes, a save writes her weight,
// treatment, draft and note each once (a refused draft keeps her on screen; saved again, only
// the draft is sent), and the treatment stays chosen for the next animal. axe-core checks the
// screen with the devices and the card, and with the treatment, draft and note.
func TestCrushInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 150*time.Second)
		day := func(days int) string { return time.Now().AddDate(0, 0, days).Format(time.DateOnly) }
		f := b.app.MustFarm(b.user, "Crush Farm")
		farm := f.ID.String()
		cow := b.app.MustAnimal(b.user, f.ID, "C-1").ID.String()
		heifer := b.app.MustAnimal(b.user, f.ID, "C-2").ID.String()
		steer := b.app.MustAnimal(b.user, f.ID, "C-3").ID.String()
		v := map[string]any{"f": farm, "c": cow, "h": heifer, "s": steer, "old": day(-30), "treated": day(-1), "check": day(-60), "due": day(120)}
		b.gql(t, `mutation($f: ID!, $c: ID!, $h: ID!, $s: ID!, $old: Date!) {
			s: farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename }
			p: recordProfile(farmID: $f, input: {animalID: $c, sex: FEMALE, birthDate: "2020-03-01"}) { id }
			q: recordProfile(farmID: $f, input: {animalID: $h, sex: FEMALE, birthDate: "2023-04-01"}) { id }
			e: identifierAdd(input: {farmID: $f, animalID: $c, scheme: EID, value: "982000123456789", startDate: "2024-01-01"}) { animal { id } }
			g: identifierAdd(input: {farmID: $f, animalID: $h, scheme: EID, value: "982000123456790", startDate: "2024-01-01"}) { animal { id } }
			w: weightRecord(input: {farmID: $f, animalID: $c, date: $old, kg: 400}) { animal { id } }
			k: identifierAdd(input: {farmID: $f, animalID: $s, scheme: EID, value: "982000123456791", startDate: "2024-01-01"}) { animal { id } }
			x: weightRecord(input: {farmID: $f, animalID: $s, date: $old, kg: 350}) { animal { id } }
		}`, v)
		med := b.gql(t, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Oxytetracycline 200 LA", withdrawalMeatDays: 28, withdrawalMilkHours: 168}) { medicine { id } } }`, v)
		v["m"] = med["medicineCreate"].(map[string]any)["medicine"].(map[string]any)["id"]
		b.gql(t, `mutation($f: ID!, $c: ID!, $m: ID!, $treated: Date!, $check: Date!, $due: Date!) {
			t: factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $c, day: $treated, dose: 10, unit: "ml"}}}) { record { id } }
			p: factCreate(input: {farmID: $f, fact: {pregnancyCheck: {animalID: $c, date: $check, method: SCAN, result: PREGNANT, expectedCalvingDate: $due}}}) { record { id } }
		}`, v)
		weightOf := func(id string) any {
			out := b.gql(t, `query($id: ID!) { node(id: $id) { ... on Animal { profile { weightKg } } } }`, map[string]any{"id": id})
			return out["node"].(map[string]any)["profile"].(map[string]any)["weightKg"]
		}

		// The simulated port exists before the app's first script runs.
		if _, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fakeSerial}); err != nil {
			t.Fatal(err)
		}
		b.signIn(t, nil, nil)
		b.goTo(t, "/farms/"+farm+"/weigh", "Weigh")
		b.poll(t, "the focus in the EID field", `document.activeElement.id === 'weigh-eid'`)
		// Connect buttons for the APIs the browser has (both simulated here).
		b.waitText(t, "#device-reader-serial", "Connect by cable")
		b.waitText(t, "#device-reader-bluetooth", "Connect by Bluetooth")
		b.waitText(t, "#device-reader-status", "Reader: not connected")
		if role := b.evalString(t, `document.querySelector('#device-reader-status').getAttribute('role')`); role != "status" {
			t.Fatalf("the reader's status has role %q, want status", role)
		}
		b.set(t, "#device-baud", "9600")
		b.click(t, "#device-reader-serial")
		b.waitText(t, "#device-reader-status", "Reader: connected (USB 0403:6001 · 9600)")
		b.click(t, "#device-scale-serial")
		b.waitText(t, "#device-scale-status", "Scale: connected")
		if n := b.evalString(t, `String(window.__serial.ports.filter((p) => p.baudRate === 9600).length)`); n != "2" {
			t.Fatalf("%s ports opened at 9600 baud, want 2", n)
		}
		b.checkAxe(t, "crush with a reader and a scale connected")

		t.Run("ReaderAndScale", func(t *testing.T) {
			// An Allflex panel reader's line, cut mid-line and between CR and LF.
			b.eval(t, `window.__serial.send(0, ['LA 982 0001', '23456789\r', '\n'])`)
			b.waitText(t, "#weigh-animal", "C-1")
			b.waitText(t, "#card-weight", "400 kg")
			b.waitText(t, "#card-withdrawal", "meat clear on")
			b.waitText(t, "#card-due", v["due"].(string)[:4])
			b.poll(t, "the focus on the weight", `document.activeElement.id === 'weigh-kg'`)
			// Unstable lines show the scale is live but fill nothing.
			b.eval(t, `window.__serial.send(1, ['US,GS,+0041', '0.0kg\r\nUS,GS,+00', '412.0kg\r'])`)
			b.waitText(t, "#weigh-scale", "moving")
			if got := b.evalString(t, `document.querySelector('#weigh-kg').value`); got != "" {
				t.Fatalf("an unstable weight filled the field: %q", got)
			}
			b.eval(t, `window.__serial.send(1, ['\nST,GS,+00412.5kg\r', '\n'])`)
			b.poll(t, "the stable weight in the field", `document.querySelector('#weigh-kg').value === '412.5'`)
			b.waitText(t, "#weigh-scale", "412.5 kg · stable")
			b.shot(t, "48-crush-devices")
			// A panel reader sends the code again while she stands in its field: nothing
			// changes, the weight stays.
			b.eval(t, `window.__serial.send(0, ['LA 982 000123456789\r\n'])`)
			b.set(t, "#weigh-kg", "412.5")
			b.eval(t, `window.__serial.send(0, ['LA 982 000123456789\r\n'])`)
			time.Sleep(300 * time.Millisecond)
			if got := b.evalString(t, `document.querySelector('#weigh-kg').value + ' ' + document.activeElement.id`); got != "412.5 weigh-kg" {
				t.Fatalf("the same code read again changed the form: weight and focus %q", got)
			}
			b.click(t, "#weigh-save")
			b.waitText(t, "#weigh-session", "C-1: 412.5 kg · Saved")
			// And after the save she is not weighed twice.
			b.eval(t, `window.__serial.send(0, ['LA 982 000123456789\r\n'])`)
			time.Sleep(300 * time.Millisecond)
			if b.evalString(t, `String(!!document.querySelector('#weigh-animal'))`) != "false" {
				t.Fatal("the code of the animal just weighed, read again, opened her weighing again")
			}
			if got := weightOf(cow); got != 412.5 {
				t.Fatalf("the server has C-1 at %v kg, want 412.5", got)
			}
		})

		t.Run("KeyboardWedge", func(t *testing.T) {
			// C-1 is still on the scale: her weight is not the next animal's.
			b.eval(t, `window.__serial.send(1, ['ST,GS,+00412.5kg\r\n'])`)
			b.poll(t, "the focus back in the EID field", `document.activeElement.id === 'weigh-eid'`)
			// A reader in keyboard mode: the 15 digits and Enter, one burst.
			b.press(t, "982000123456790", kb.Enter)
			b.waitText(t, "#weigh-animal", "C-2")
			b.waitText(t, "#card-weight", "Not weighed yet")
			b.waitText(t, "#card-withdrawal", "No withdrawal running.")
			if got := b.evalString(t, `document.querySelector('#weigh-kg').value`); got != "" {
				t.Fatalf("the weight of the animal before filled C-2's field: %q", got)
			}
			b.eval(t, `window.__serial.send(1, ['US,GS,+00200.0kg\r\n', 'ST,GS,+00380.0kg\r\n'])`)
			b.poll(t, "C-2's stable weight in the field", `document.querySelector('#weigh-kg').value === '380'`)
			b.click(t, "#weigh-save")
			b.waitText(t, "#weigh-session", "C-2: 380 kg · Saved")
			if got := weightOf(heifer); got != 380.0 {
				t.Fatalf("the server has C-2 at %v kg, want 380", got)
			}

			// The reader types into the weight field (the focus is there once an animal is
			// shown): read as the next tag, not saved as a weight.
			b.eval(t, `window.__serial.send(0, ['982000123456789\r\n'])`)
			b.waitText(t, "#weigh-animal", "C-1")
			b.poll(t, "the focus on the weight", `document.activeElement.id === 'weigh-kg'`)
			b.press(t, "982000123456790", kb.Enter)
			b.waitText(t, "#weigh-status", "That was a tag read, not a weight")
			b.waitText(t, "#weigh-animal", "C-2")
			if got := weightOf(cow); got != 412.5 {
				t.Fatalf("the server has C-1 at %v kg after a tag typed into the weight field, want 412.5", got)
			}
		})

		t.Run("NotAnAnimalAndUnplug", func(t *testing.T) {
			// Two codes in one read: the later one's animal is shown, whichever answer comes first.
			b.click(t, "#weigh-animal button")
			b.waitText(t, "#weigh-eid", "")
			b.eval(t, `window.__serial.send(0, ['982000123456790\r\n982000123456789\r\n'])`)
			b.waitText(t, "#weigh-animal", "C-1")
			time.Sleep(300 * time.Millisecond)
			b.waitText(t, "#weigh-animal", "C-1")
			b.click(t, "#weigh-animal button")
			// An industrial (R) transponder: said, and nothing looked up.
			b.eval(t, `window.__serial.send(0, ['R00060000000000123456\r\n'])`)
			b.waitText(t, "#weigh-status", "Not an animal’s code: R00060000000000123456")
			b.eval(t, `window.__serial.unplug(0)`)
			b.waitText(t, "#device-reader-status", "Reader: not connected")
			b.waitText(t, "#device-reader-serial", "Connect by cable")
			b.click(t, "#device-scale-disconnect")
			b.waitText(t, "#device-scale-status", "Scale: not connected")
			if got := b.evalString(t, `String(window.__serial.ports[1].closed)`); got != "true" {
				t.Fatal("Disconnect did not close the scale's port")
			}
		})

		t.Run("Bluetooth", func(t *testing.T) {
			b.click(t, "#device-reader-bluetooth")
			b.waitText(t, "#device-reader-status", "Reader: connected (Crush head 1)")
			b.click(t, "#device-scale-bluetooth")
			b.waitText(t, "#device-scale-status", "Scale: connected (Crush head 2)")
			if got := b.evalString(t, `JSON.stringify(window.__ble.asked[0].optionalServices)`); got != `["6e400001-b5a3-f393-e0a9-e50e24dcca9e"]` {
				t.Fatalf("requestDevice asked for the services %s, want the Nordic UART Service", got)
			}
			// A Datamars TIRIS line and the scale's lines in 20-byte notifications.
			b.eval(t, `window.__ble.notify(0, ['A 00000 0 982 00012', '3456789\r\n'])`)
			b.waitText(t, "#weigh-animal", "C-1")
			b.eval(t, `window.__ble.notify(1, ['US,NT,+00414.0kg\r\nST', ',NT,+00415.0kg\r\n'])`)
			b.poll(t, "the stable weight in the field", `document.querySelector('#weigh-kg').value === '415'`)
			b.click(t, "#weigh-save")
			b.waitText(t, "#weigh-session", "C-1: 415 kg · Saved")
			if got := weightOf(cow); got != 415.0 {
				t.Fatalf("the server has C-1 at %v kg, want 415", got)
			}
			b.click(t, "#device-reader-disconnect")
			b.waitText(t, "#device-reader-status", "Reader: not connected")
			if got := b.evalString(t, `String(window.__ble.devices[0].gatt.connected)`); got != "false" {
				t.Fatal("Disconnect left the reader's GATT connection open")
			}
			// The scale head switched off: its link drops.
			b.eval(t, `window.__ble.devices[1].gatt.disconnect()`)
			b.waitText(t, "#device-scale-status", "Scale: not connected")
		})

		t.Run("Offline", func(t *testing.T) {
			// The register kept on the device (its screen keeps it), the devices still connected
			// after it, then the crush with the network cut: the reader's code finds C-3 in the kept copy, her card has her
			// weight from it, the scale's weight is saved on the device and sent once online.
			keptCopy := `new Promise(ok => { const r = indexedDB.open('herdbook'); r.onsuccess = () => {
				const q = r.result.transaction('kv').objectStore('kv').get('register:` + farm + `');
				q.onsuccess = () => { r.result.close(); ok(q.result || {rows: []}); }; }; })`
			// Connected here, the devices stay connected on another screen and back.
			b.click(t, "#device-reader-serial")
			b.waitText(t, "#device-reader-status", "Reader: connected")
			b.click(t, "#device-scale-serial")
			b.waitText(t, "#device-scale-status", "Scale: connected")
			b.goTo(t, "/farms/"+farm+"/register", "Register")
			b.poll(t, "the kept register with C-3", keptCopy+`.then(k => k.rows.some(x => x.tag === 'C-3' && x.profile.weightKg === 350))`)
			// A line while the register is shown goes nowhere.
			b.eval(t, `window.__serial.send(window.__serial.ports.length - 2, ['982 000123456789\r\n'])`)
			b.goTo(t, "/farms/"+farm+"/weigh", "Weigh")
			b.waitText(t, "#device-reader-status", "Reader: connected")
			b.waitText(t, "#device-scale-status", "Scale: connected")
			if got := b.evalString(t, `String(window.__serial.ports.some((p) => p.closed && p === window.__serial.ports.at(-1)))`); got != "false" {
				t.Fatal("leaving the weigh screen closed the scale's port")
			}
			if b.evalString(t, `String(!!document.querySelector('#weigh-animal'))`) != "false" {
				t.Fatal("a code read while the register was shown opened a weighing")
			}
			b.offline(t, true)
			b.eval(t, `window.__serial.send(window.__serial.ports.length - 2, ['982 000123456791\r\n'])`)
			b.waitText(t, "#weigh-animal", "C-3")
			b.waitText(t, "#card-weight", "350 kg")
			b.eval(t, `window.__serial.send(window.__serial.ports.length - 1, ['ST,GS,+00355.0kg\r\n'])`)
			b.poll(t, "C-3's stable weight in the field", `document.querySelector('#weigh-kg').value === '355'`)
			// A note too: queued on its own, with its own key.
			b.set(t, "#crush-note", "Weighed offline")
			b.click(t, "#weigh-save")
			b.waitText(t, "#weigh-status", "sent when you are online")
			b.waitText(t, "#weigh-session", "C-3: 355 kg · Saved on this device; it will be sent when you are online.; Note: Saved on this device")
			b.checkAxe(t, "crush offline")
			b.offline(t, false)
			notesOf := func(id string) string {
				out := b.gql(t, `query($id: ID!) { node(id: $id) { ... on Animal { notes(first: 50) { description } } } }`, map[string]any{"id": id})
				return fmt.Sprint(out["node"].(map[string]any)["notes"])
			}
			deadline := time.Now().Add(30 * time.Second)
			for weightOf(steer) != 355.0 || notesOf(steer) != "[map[description:Weighed offline]]" {
				if time.Now().After(deadline) {
					t.Fatalf("the server has C-3 at %v kg with the notes %s once online, want 355 and the note once", weightOf(steer), notesOf(steer))
				}
				time.Sleep(200 * time.Millisecond)
			}
		})

		t.Run("Pounds", func(t *testing.T) {
			// A user who weighs in lb sees the scale's kg in lb; the server gets the scale's
			// weight as it gave it, not the field's rounding (381 kg shows as 840 lb, which
			// would be 381.02 kg).
			b.goTo(t, "/settings", "Settings")
			b.set(t, "#pref-unit", "lb")
			b.click(t, "#pref-save")
			defer func() {
				b.goTo(t, "/settings", "Settings")
				b.set(t, "#pref-unit", "kg")
				b.click(t, "#pref-save")
			}()
			b.goTo(t, "/farms/"+farm+"/weigh", "Weigh")
			b.waitText(t, "#device-scale-status", "Scale: connected")
			b.eval(t, `window.__serial.send(window.__serial.ports.length - 2, ['982000123456790\r\n'])`)
			b.waitText(t, "#weigh-animal", "C-2")
			b.eval(t, `window.__serial.send(window.__serial.ports.length - 1, ['ST,GS,+00381.0kg\r\n'])`)
			b.poll(t, "the scale's kg in lb in the field", `document.querySelector('#weigh-kg').value === '840'`)
			b.click(t, "#weigh-save")
			b.waitText(t, "#weigh-session", "C-2: 840 lb")
			if got := weightOf(heifer); got != 381.0 {
				t.Fatalf("the server has C-2 at %v kg, want the scale's 381", got)
			}
			if o := b.overflow(t); o != "" {
				t.Fatalf("the crush screen overflows at 360 px: %s", o)
			}
			if !strings.Contains(b.evalString(t, `document.body.innerText`), "This session") {
				t.Fatal("the session's list is missing")
			}
		})

		t.Run("TreatDraftAndNotes", func(t *testing.T) {
			// The crush also treats, drafts to a group and keeps notes: C-1 has four notes
			// (the card shows the latest three, newest first), is weighed, treated with a
			// medicine deleted meanwhile (refused: she stays on screen with the server's
			// reason), drafted and given a note; Save again, with another medicine, sends the
			// treatment only.
			pens := b.app.MustGroup(b.user, f.ID, "Pens").ID.String()
			gone := b.gql(t, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Gone drench", withdrawalMeatDays: 7, withdrawalMilkHours: 48}) { medicine { id } } }`, v)["medicineCreate"].(map[string]any)["medicine"].(map[string]any)["id"].(string)
			for i, text := range []string{"Oldest note", "Lame, left hind", "Quiet in the crush", "Kicks: mind the right side"} {
				b.gql(t, `mutation($f: ID!, $c: ID!, $at: Time!, $d: String!) { recordCreate(input: {farmID: $f, animalIDs: [$c], name: "Note", type: OTHER, appliedAt: $at, description: $d}) { record { id } } }`,
					map[string]any{"f": farm, "c": cow, "at": day(-40+i) + "T00:00:00Z", "d": text})
			}
			count := func(q string, pick func(map[string]any) int) int {
				return pick(b.gql(t, q, map[string]any{"c": cow, "f": farm}))
			}
			weighedToday := func() int {
				return count(`query($c: ID!) { node(id: $c) { ... on Animal { timeline(first: 100) { edges { node { name appliedAt } } } } } }`, func(m map[string]any) int {
					n := 0
					for _, e := range m["node"].(map[string]any)["timeline"].(map[string]any)["edges"].([]any) {
						r := e.(map[string]any)["node"].(map[string]any)
						if r["name"] == "Birth history: weight" && strings.HasPrefix(r["appliedAt"].(string), day(0)) {
							n++
						}
					}
					return n
				})
			}
			treatedC1 := func() int {
				return count(`query($f: ID!) { farm(id: $f) { withdrawalsConnection(first: 50) { edges { node { animalTag treatments { recordID } } } } } }`, func(m map[string]any) int {
					for _, e := range m["farm"].(map[string]any)["withdrawalsConnection"].(map[string]any)["edges"].([]any) {
						if n := e.(map[string]any)["node"].(map[string]any); n["animalTag"] == "C-1" {
							return len(n["treatments"].([]any))
						}
					}
					return 0
				})
			}
			notes := func() string {
				m := b.gql(t, `query($c: ID!) { node(id: $c) { ... on Animal { notes(first: 50) { description } } } }`, map[string]any{"c": cow})
				var out []string
				for _, n := range m["node"].(map[string]any)["notes"].([]any) {
					out = append(out, n.(map[string]any)["description"].(string))
				}
				return strings.Join(out, " | ")
			}
			members := func(g string) int {
				m := b.gql(t, `query($g: ID!) { node(id: $g) { ... on Group { animalsConnection(first: 50) { totalCount } } } }`, map[string]any{"g": g})
				return int(m["node"].(map[string]any)["animalsConnection"].(map[string]any)["totalCount"].(float64))
			}
			before, weighed := treatedC1(), weighedToday()

			b.goTo(t, "/farms/"+farm+"/weigh", "Weigh")
			b.waitText(t, "#device-reader-status", "Reader: connected")
			b.eval(t, `window.__serial.send(window.__serial.ports.length - 2, ['982000123456789\r\n'])`)
			b.waitText(t, "#weigh-animal", "C-1")
			b.waitText(t, "#card-notes", "Kicks: mind the right side")
			if got := b.evalString(t, `[...document.querySelectorAll('#card-notes li span')].map((e) => e.textContent).join(' | ')`); got != "Kicks: mind the right side | Quiet in the crush | Lame, left hind" {
				t.Fatalf("the card's notes are %q, want the latest three, newest first", got)
			}
			b.waitText(t, "#crush-medicine", "Gone drench")
			b.waitText(t, "#crush-group", "Pens")
			b.set(t, "#weigh-kg", "420")
			b.set(t, "#crush-medicine", gone)
			b.set(t, "#crush-dose", "5")
			b.waitText(t, "#crush-clear", "meat clear on")
			b.set(t, "#crush-group", pens)
			b.set(t, "#crush-note", "Swollen knee")
			b.checkAxe(t, "crush with a treatment, a draft and a note")
			if o := b.overflow(t); o != "" {
				t.Fatalf("the crush screen with its treatment overflows at 360 px: %s", o)
			}
			b.shot(t, "50-crush-treat-draft-note")
			b.gql(t, `mutation($f: ID!, $g: ID!) { medicineDelete(input: {farmID: $f, id: $g}) { __typename } }`, map[string]any{"f": farm, "g": gone})
			b.click(t, "#weigh-save")
			b.waitText(t, "#weigh-status", "Refused")
			b.waitText(t, "#weigh-session", "C-1: 420 kg · Saved.; Gone drench 5 ml: Refused")
			b.waitText(t, "#weigh-session", "→ Pens: moved.; Note: note saved.")
			b.waitText(t, "#weigh-animal", "C-1")
			// Fixed and saved again: the treatment alone is sent.
			b.set(t, "#crush-medicine", v["m"].(string))
			b.click(t, "#weigh-save")
			b.waitText(t, "#weigh-session", "C-1: Oxytetracycline 200 LA 5 ml: Treatment recorded.")
			b.poll(t, "the next animal's EID field", `!document.querySelector('#weigh-animal')`)
			if got := weighedToday(); got != weighed+1 {
				t.Fatalf("C-1 has %d weighings today, want %d (a retry wrote none again)", got, weighed+1)
			}
			if got := treatedC1(); got != before+1 {
				t.Fatalf("C-1 has %d treatments, want %d", got, before+1)
			}
			if got := members(pens); got != 1 {
				t.Fatalf("Pens holds %d animals, want C-1", got)
			}
			if got := notes(); got != "Swollen knee | Kicks: mind the right side | Quiet in the crush | Lame, left hind | Oldest note" {
				t.Fatalf("C-1's notes are %q, want the new one first and once", got)
			}

			// The next animal: the treatment stays chosen, the draft and the note are cleared;
			// with nothing filled in, nothing is saved.
			b.press(t, "982000123456790", kb.Enter)
			b.waitText(t, "#weigh-animal", "C-2")
			if got := b.evalString(t, `[document.querySelector('#crush-medicine').value === `+jsString(v["m"].(string))+`, document.querySelector('#crush-dose').value, document.querySelector('#crush-group').value, document.querySelector('#crush-note').value].join(',')`); got != "true,5,," {
				t.Fatalf("the next animal's form is %q, want the treatment kept and no draft or note", got)
			}
			b.set(t, "#crush-medicine", "")
			b.set(t, "#weigh-kg", "")
			b.click(t, "#weigh-save")
			b.waitText(t, "#weigh-status", "Nothing to save")
			b.waitText(t, "#weigh-animal", "C-2")
			// Her card again: the note written at the crush is the newest.
			// Cancelled, the EID field has her code selected: a wedge reader's next code
			// replaces it.
			b.click(t, "#weigh-animal button")
			b.poll(t, "the focus in the EID field, its code selected", `document.activeElement.id === 'weigh-eid' && document.activeElement.selectionEnd - document.activeElement.selectionStart === 15`)
			b.press(t, "982000123456789", kb.Enter)
			b.waitText(t, "#weigh-animal", "C-1")
			b.waitText(t, "#card-notes li:first-child", "Swollen knee")
			// Her page's timeline has the note, named and with its text.
			b.goTo(t, "/farms/"+farm+"/animals/"+cow, "C-1")
			b.waitText(t, "#timeline", "Swollen knee")
			b.poll(t, "the note on the timeline", `[...document.querySelectorAll('#timeline > li')].some((li) => li.querySelector('span')?.textContent === 'Note' && li.querySelector('.timeline-text')?.textContent === 'Swollen knee')`)
		})
	})
}
