package web_test

import (
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestAnimalAdjustedWeaningInBrowser drives the animal page's 205-day adjusted weaning
// weight in headless Chromium against a real server, on SQLite and PostgreSQL: a calf born
// at 40 kg and weaned at 250 kg shows the weight the server computes and its parts, in kg or
// in lb as the user chose; a calf
// not yet weaned says that a weaning is missing; an animal with no part at all (a bull with no
// birth record) gets no such card. axe-core checks the page; with HERDBOOK_SCREENSHOT_DIR set
// it is saved as web-40-animal-adjusted.
func TestAnimalAdjustedWeaningInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t) // skips before any database is made when Chromium or axe-core is missing
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 120*time.Second)
		day := func(daysAgo int) string { return time.Now().AddDate(0, 0, -daysAgo).Format(time.DateOnly) }
		f := b.app.MustFarm(b.user, "Hill Farm")
		farm := f.ID.String()
		cow := b.app.MustAnimal(b.user, f.ID, "C-1").ID.String()
		bull := b.app.MustAnimal(b.user, f.ID, "B-1").ID.String()
		b.gql(t, `mutation($f: ID!, $c: ID!) {
			s: farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename }
			p: recordProfile(farmID: $f, input: {animalID: $c, sex: FEMALE, birthDate: "2020-03-01", breed: "Angus"}) { id }
		}`, map[string]any{"f": farm, "c": cow})
		calve := func(date, tag string, kg float64) string {
			out := b.gql(t, `mutation($f: ID!, $d: ID!, $date: Date!, $tag: String!, $kg: Float!) {
				calvingRecord(input: {farmID: $f, damID: $d, date: $date,
					calves: [{tag: $tag, sex: "male", status: "alive", birthWeight: $kg}]}) { calving { calves { animalID } } }
			}`, map[string]any{"f": farm, "d": cow, "date": date, "tag": tag, "kg": kg})
			return out["calvingRecord"].(map[string]any)["calving"].(map[string]any)["calves"].([]any)[0].(map[string]any)["animalID"].(string)
		}
		weaned := calve(day(220), "W-1", 40)
		unweaned := calve(day(100), "W-2", 38)
		b.gql(t, `mutation($f: ID!, $a: ID!, $day: Date!) {
			factCreate(input: {farmID: $f, fact: {weaning: {animalID: $a, date: $day, kg: 250}}}) { record { id } }
		}`, map[string]any{"f": farm, "a": weaned, "day": day(20)})
		b.signIn(t, nil, nil)
		base := "/farms/" + farm + "/animals/"

		// Born at 40 kg 220 days ago, weaned at 200 days old at 250 kg:
		// (250 − 40) / 200 × 205 + 40 = 255.25 kg by the BIF formula.
		b.goTo(t, base+weaned, "W-1")
		b.waitText(t, "#animal-adjusted", "205-day adjusted weight "+kg(255.25))
		b.waitText(t, "#animal-adjusted", "weaned at 200 days (")
		b.waitText(t, "#animal-adjusted", "250 kg")
		b.waitText(t, "#animal-adjusted", "40 kg")
		b.shot(t, "40-animal-adjusted")

		// A user who weighs in pounds reads the same weight in lb.
		b.goTo(t, "/settings", "Settings")
		b.set(t, "#pref-unit", "lb")
		b.click(t, "#pref-save")
		b.goTo(t, base+weaned, "W-1")
		b.waitText(t, "#animal-adjusted", "205-day adjusted weight "+decimals(255.25/lbKG, 1)+" lb")
		b.goTo(t, "/settings", "Settings")
		b.set(t, "#pref-unit", "kg")
		b.click(t, "#pref-save")

		b.goTo(t, base+unweaned, "W-2")
		b.waitText(t, "#animal-adjusted", "no adjusted weight yet; it lacks: a weaning")
		b.checkAxe(t, "animal (adjusted weight missing)")

		b.goTo(t, base+bull, "B-1")
		b.waitText(t, "#animal-status", "")
		b.poll(t, "the page without an adjusted-weight card", `!document.querySelector('#animal-adjusted')`)
	})
}
