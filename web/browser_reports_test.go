package web_test

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestReportsInBrowser drives the herd reports screen (issue 23.3, issue 21's reports) in
// headless Chromium against a real server, on SQLite and PostgreSQL: two calvings and a
// weighing seeded through GraphQL; the calving spread as bars and a table; a weaning recorded
// from the app, whose 205-day adjusted weight the app then shows as the server computes it,
// and the weaning report by sire and by the dam's age agreeing with the server's
// Farm.reports; a second weaning typed in pounds, queued offline and sent once back
// online (the server has it in kilograms); the daily gain
// by group; and the report's CSV, fetched with the token and saved from memory. axe-core
// checks the screen; with HERDBOOK_SCREENSHOT_DIR set it is saved as web-27-reports.
func TestReportsInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t) // skips before any database is made when Chromium or axe-core is missing
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		runReports(t, newBrowser(t, d, 120*time.Second))
	})
}

// reportsSeed is the farm of the reports test: two cows calved by the same bull, their
// calves W-1 (40 kg at birth, weighed 150 kg since) and W-2 (38 kg), and a group of both.
type reportsSeed struct {
	farm, cow1, cow2, bull, calf1, calf2, group string
}

func seedReports(t *testing.T, b *browser, day func(int) string) reportsSeed {
	t.Helper()
	u := b.user
	f := b.app.MustFarm(u, "Hill Farm")
	s := reportsSeed{farm: f.ID.String()}
	s.cow1 = b.app.MustAnimal(u, f.ID, "C-1").ID.String()
	s.cow2 = b.app.MustAnimal(u, f.ID, "C-2").ID.String()
	s.bull = b.app.MustAnimal(u, f.ID, "B-1").ID.String()
	vars := map[string]any{"f": s.farm, "c1": s.cow1, "c2": s.cow2, "b": s.bull}
	b.gql(t, `mutation($f: ID!, $c1: ID!, $c2: ID!, $b: ID!) {
		s: farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename }
		p1: recordProfile(farmID: $f, input: {animalID: $c1, sex: FEMALE, birthDate: "2020-03-01", breed: "Angus"}) { id }
		p2: recordProfile(farmID: $f, input: {animalID: $c2, sex: FEMALE, birthDate: "2022-04-01", breed: "Angus"}) { id }
		p3: recordProfile(farmID: $f, input: {animalID: $b, sex: MALE, birthDate: "2019-05-01", breed: "Angus"}) { id }
	}`, vars)
	calve := func(dam, date, tag string, kg float64) string {
		out := b.gql(t, `mutation($f: ID!, $d: ID!, $b: ID!, $date: Date!, $tag: String!, $kg: Float!) {
			calvingRecord(input: {farmID: $f, damID: $d, date: $date, sireID: $b, sireBasis: "dna", dnaLab: "Weatherbys",
				calves: [{tag: $tag, sex: "male", status: "alive", birthWeight: $kg}]}) { calving { calves { animalID } } }
		}`, map[string]any{"f": s.farm, "d": dam, "b": s.bull, "date": date, "tag": tag, "kg": kg})
		return out["calvingRecord"].(map[string]any)["calving"].(map[string]any)["calves"].([]any)[0].(map[string]any)["animalID"].(string)
	}
	s.calf1 = calve(s.cow1, day(220), "W-1", 40)
	s.calf2 = calve(s.cow2, day(215), "W-2", 38)
	// The group is theirs from day 150 on, and W-1 is weighed twice inside that stay: a group's
	// gain counts only weighings made while the animal was in it (issue 28.5).
	out := b.gql(t, `mutation($f: ID!, $w1: ID!, $w2: ID!, $day: Date!, $later: Date!, $since: Date!) {
		w: weightRecord(input: {farmID: $f, animalID: $w1, date: $day, kg: 150}) { __typename }
		w2: weightRecord(input: {farmID: $f, animalID: $w1, date: $later, kg: 190}) { __typename }
		g: groupCreate(input: {farmID: $f, name: "Spring calves", animalIDs: [$w1, $w2], startDate: $since}) { group { id } }
	}`, map[string]any{"f": s.farm, "w1": s.calf1, "w2": s.calf2, "day": day(100), "later": day(50), "since": day(150)})
	s.group = out["g"].(map[string]any)["group"].(map[string]any)["id"].(string)
	return s
}

// signedDecimals writes v as decimals does, with a minus sign when it is negative (a daily
// gain can be a loss).
func signedDecimals(v float64, d int) string {
	if v < 0 {
		return "-" + decimals(-v, d)
	}
	return decimals(v, d)
}

// decimals writes v (not negative) as the app's Intl.NumberFormat does in English: rounded
// half up to at most d decimals from its shortest decimal form (1.005 is 1.01 there).
func decimals(v float64, d int) string {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'f', -1, 64))
	if !ok {
		return fmt.Sprint(v)
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil)
	r.Mul(r, new(big.Rat).SetInt(scale)).Add(r, big.NewRat(1, 2))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	s := new(big.Rat).SetFrac(n, scale).FloatString(d)
	if d > 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// lbKG is the international avoirdupois pound in kilograms, as the app converts it.
const lbKG = 0.45359237

// kg writes a weight as the app does for a kg user: at most one decimal.
func kg(v float64) string { return decimals(v, 1) + " kg" }

func runReports(t *testing.T, b *browser) {
	day := func(daysAgo int) string { return time.Now().AddDate(0, 0, -daysAgo).Format(time.DateOnly) }
	s := seedReports(t, b, day)
	base := "/farms/" + s.farm
	from, to := day(365), day(0)
	period := map[string]any{"f": s.farm, "from": from, "to": to}
	b.signIn(t, nil, nil)

	t.Run("CalvingSpread", func(t *testing.T) {
		b.goTo(t, base+"/reports", "Reports")
		b.set(t, "#report-kind", "calving-spread")
		b.set(t, "#report-from", from)
		b.set(t, "#report-to", to)
		// Both calvings fall in the first 21-day period from the first one.
		b.waitText(t, "#report-figures", day(220))
		b.waitText(t, "#report-table", "100%")
		b.poll(t, "the spread's bars", `document.querySelectorAll('#spread-chart rect').length === 1`)
		if got := b.evalString(t, `document.querySelector('#spread-chart').getAttribute('aria-label')`); !strings.Contains(got, "Period 1 100%") {
			t.Fatalf("the spread chart's label is %q", got)
		}
		b.checkAxe(t, "reports (calving spread)")
	})

	// weaning answers the server's weaning report of the period.
	weaning := func(t *testing.T) map[string]any {
		out := b.gql(t, `query($f: ID!, $from: Date!, $to: Date!) { farm(id: $f) { reports { weaning(from: $from, to: $to) {
			calves missing bySire { sireID calves meanAdjustedKG } byDamAge { damAgeYears calves meanAdjustedKG } } } } }`, period)
		return out["farm"].(map[string]any)["reports"].(map[string]any)["weaning"].(map[string]any)
	}

	t.Run("WeaningAdjustedWeight", func(t *testing.T) {
		b.set(t, "#report-kind", "weaning")
		b.waitText(t, "#report-table", "No calf weaned")
		b.checkAxe(t, "reports (weaning, none yet)")
		// W-1, born at 40 kg 220 days ago, weaned at 200 days old at 250 kg:
		// (250 − 40) / 200 × 205 + 40 = 255.25 kg by the BIF formula.
		b.set(t, "#weaning-calf", "W-1")
		b.set(t, "#weaning-date", day(20))
		b.set(t, "#weaning-kg", "250")
		b.set(t, "#weaning-group", s.group)
		b.click(t, "#weaning-save")
		b.waitText(t, "#weaning-status", "Weaning recorded")
		out := b.gql(t, `query($id: ID!) { node(id: $id) { ... on Animal { adjustedWeaningWeight { adjustedKG ageDays } } } }`, map[string]any{"id": s.calf1})
		adj := out["node"].(map[string]any)["adjustedWeaningWeight"].(map[string]any)
		if adj["adjustedKG"] != 255.25 || adj["ageDays"] != 200.0 {
			t.Fatalf("the server's adjusted weaning weight of W-1 is %v", adj)
		}
		b.waitText(t, "#weaning-adjusted", "W-1: 205-day adjusted weight "+kg(255.25))
		b.waitText(t, "#weaning-adjusted", "weaned at 200 days, 250 kg")

		// The weaning report, by sire and by the dam's age, says what the server's does.
		w := weaning(t)
		if w["calves"] != 1.0 || w["missing"] != 0.0 {
			t.Fatalf("the server's weaning report is %v", w)
		}
		sire := w["bySire"].([]any)[0].(map[string]any)
		age := w["byDamAge"].([]any)[0].(map[string]any)
		if sire["sireID"] != s.bull || sire["meanAdjustedKG"] != 255.25 {
			t.Fatalf("the server's weaning report by sire is %v", sire)
		}
		b.waitText(t, "#report-figures", "Calves weaned with an adjusted weight\t1")
		b.waitText(t, "#report-table", "B-1\t1\t"+kg(sire["meanAdjustedKG"].(float64)))
		b.waitText(t, "#report-dam-age", fmt.Sprintf("%v years\t1\t%s", age["damAgeYears"], kg(age["meanAdjustedKG"].(float64))))
		b.shot(t, "27-reports")
	})

	t.Run("WeaningQueuedOfflineInPounds", func(t *testing.T) {
		// A user who weighs in pounds: the weaning weight is typed in lb and sent in kg.
		b.goTo(t, "/settings", "Settings")
		b.set(t, "#pref-unit", "lb")
		b.click(t, "#pref-save")
		// Offline, the calf is found in the kept register and the weaning waits in the outbox.
		b.goTo(t, base+"/register", "Register")
		b.poll(t, "the register kept on the device", `new Promise(ok => { const r = indexedDB.open('herdbook'); r.onsuccess = () => {
			const q = r.result.transaction('kv').objectStore('kv').get('register:`+s.farm+`');
			q.onsuccess = () => { r.result.close(); ok(!!q.result && q.result.rows.length === 5); }; }; })`)
		b.goTo(t, base+"/reports", "Reports")
		b.offline(t, true)
		b.waitText(t, "#offline", "")
		b.set(t, "#report-kind", "weaning")
		b.set(t, "#weaning-calf", "W-2")
		b.set(t, "#weaning-date", day(15))
		b.waitText(t, "#weaning-form", "Weaning weight (lb)")
		b.set(t, "#weaning-kg", "507.1")
		b.click(t, "#weaning-save")
		b.waitText(t, "#weaning-status", "sent when you are online")
		b.goTo(t, "/outbox", "Queued writes")
		b.waitText(t, "#outbox-list", "Record a weaning W-2")
		b.offline(t, false)
		b.waitText(t, "#outbox-list", "Sent")
		w := weaning(t)
		if w["calves"] != 2.0 {
			t.Fatalf("after the queued weaning was sent the server's weaning report is %v", w)
		}
		out := b.gql(t, `query($id: ID!) { node(id: $id) { ... on Animal { adjustedWeaningWeight { weaningKG } } } }`, map[string]any{"id": s.calf2})
		if got := out["node"].(map[string]any)["adjustedWeaningWeight"].(map[string]any)["weaningKG"].(float64); math.Abs(got-507.1*lbKG) > 0.001 {
			t.Fatalf("507.1 lb reached the server as %v kg, want %.3f", got, 507.1*lbKG)
		}
		sire := w["bySire"].([]any)[0].(map[string]any)
		b.goTo(t, base+"/reports", "Reports")
		b.set(t, "#report-kind", "weaning")
		b.set(t, "#report-from", from)
		b.set(t, "#report-to", to)
		b.waitText(t, "#report-table", "B-1\t2\t"+decimals(sire["meanAdjustedKG"].(float64)/lbKG, 1)+" lb")

		b.goTo(t, "/settings", "Settings")
		b.set(t, "#pref-unit", "kg")
		b.click(t, "#pref-save")
		b.goTo(t, base+"/reports", "Reports")
		b.set(t, "#report-from", from)
		b.set(t, "#report-to", to)
	})

	t.Run("GainAndCSV", func(t *testing.T) {
		out := b.gql(t, `query($f: ID!, $from: Date!, $to: Date!) { farm(id: $f) { reports { gain(from: $from, to: $to) { groups { groupID animals meanDailyGainKG } } } } }`, period)
		groups := out["farm"].(map[string]any)["reports"].(map[string]any)["gain"].(map[string]any)["groups"].([]any)
		if len(groups) != 1 {
			t.Fatalf("the server's gain report has %v", groups)
		}
		g := groups[0].(map[string]any)
		b.set(t, "#report-kind", "gain")
		want := fmt.Sprintf("Spring calves\t%v\t%s kg/day", g["animals"], decimals(g["meanDailyGainKG"].(float64), 2))
		b.waitText(t, "#report-table", want)

		// The weaning report's CSV: fetched with the token, then saved from memory (the link
		// to save it again holds the same bytes).
		dir := t.TempDir()
		yes := true
		if _, err := chromedp.CallBrowser(b.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &yes,
		}); err != nil {
			t.Fatal(err)
		}
		b.set(t, "#report-kind", "weaning")
		b.waitText(t, "#report-table", "B-1")
		b.click(t, "#report-csv")
		name := "weaning-" + from + "-" + to + ".csv"
		b.waitText(t, "#report-csv-file", name)
		var got string
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if body, err := os.ReadFile(filepath.Join(dir, name)); err == nil && len(body) > 0 {
				got = string(body)
				break
			}
			if time.Now().After(deadline) {
				entries, _ := os.ReadDir(dir)
				t.Fatalf("the CSV was not saved as %s in %s (it holds %v)", name, dir, entries)
			}
		}
		if !strings.HasPrefix(got, "by,sire_id,dam_age_years,calves,mean_adjusted_kg,min_adjusted_kg,max_adjusted_kg\n") ||
			!strings.Contains(got, "sire,"+s.bull+",,2,") {
			t.Fatalf("the weaning CSV is:\n%s", got)
		}
		b.checkAxe(t, "reports (CSV saved)")
	})
}
