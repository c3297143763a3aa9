package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestDateFieldsInBrowser checks that the app's date fields follow the app's date setting
// (issue 31.5: "dates follow the app's setting"), not the browser's locale as a browser's own
// date input does: in French with "as my language writes it", the move form's day reads and
// takes 20/04/2026 (JJ/MM/AAAA); a day that is not one (31 February) stops the form with the
// field's own message and writes nothing; a day typed loosely (1.4.2026) is written in the
// style once the field is left; the calendar button beside the field is named for it and
// its picker's day fills the field; in English the same setting writes MM/DD/YYYY, and year
// first writes YYYY-MM-DD. The day the server gets is the one typed, on SQLite and
// PostgreSQL, at 360 px with axe-core's check.
func TestDateFieldsInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	_, fr := catalogue(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 120*time.Second)
		f := b.app.MustFarm(b.user, "Date Farm")
		farm := f.ID.String()
		cow := b.app.MustAnimal(b.user, f.ID, "D-1").ID.String()
		pens := b.app.MustGroup(b.user, f.ID, "Pens").ID.String()
		v := map[string]any{"f": farm, "a": cow}
		b.gql(t, `mutation($f: ID!) { farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename } }`, v)
		// inPens answers whether the cow is in Pens on a day.
		inPens := func(day string) bool {
			out := b.gql(t, `query($a: ID!) { node(id: $a) { ... on Animal { profile(asOf: "`+day+`") { groupIDs } } } }`, v)
			return strings.Contains(fmt.Sprint(out), pens)
		}
		b.signIn(t, nil, nil)
		base := "/farms/" + farm
		settings := func(lang, dates string) {
			t.Helper()
			b.goTo(t, "/settings", map[string]string{"en": "Settings", "fr": fr["settings"]}[b.evalString(t, `document.documentElement.lang`)])
			b.set(t, "#pref-lang", lang)
			b.set(t, "#pref-dates", dates)
			b.click(t, "#pref-save")
			b.poll(t, "the language set", `document.documentElement.lang === `+jsString(lang))
		}
		field := func(prop string) string { return b.evalString(t, `document.querySelector('#move-date').`+prop) }
		today := time.Now().UTC()

		settings("fr", "local")
		b.goTo(t, base+"/move", fr["moveToGroup"])
		b.waitText(t, "#move-group", "Pens")
		if got := field("placeholder"); got != "JJ/MM/AAAA" {
			t.Fatalf("the French field's placeholder is %q, want JJ/MM/AAAA", got)
		}
		if got, want := field("value"), today.Format("02/01/2006"); got != want && got != time.Now().Format("02/01/2006") {
			t.Fatalf("the French field shows today as %q, want %q", got, want)
		}
		pick := b.evalString(t, `document.querySelector('#move-date').parentElement.querySelector('.date-pick').getAttribute('aria-label')`)
		if !strings.HasPrefix(pick, fr["pickDate"]+": ") {
			t.Fatalf("the calendar button is named %q, want %q and the field's label", pick, fr["pickDate"])
		}
		b.shot(t, "60-move-french-dates")
		if o := b.overflow(t); o != "" {
			t.Errorf("the move form with its date field overflows the phone: %s", o)
		}

		// Not a day: the form says so on the field and writes nothing.
		b.set(t, "#move-tags", "D-1")
		b.set(t, "#move-date", "31/02/2026")
		if got := field("validationMessage"); !strings.Contains(got, "JJ/MM/AAAA") {
			t.Fatalf("31/02/2026 leaves the field's message %q, want it to give the form JJ/MM/AAAA", got)
		}
		b.click(t, "#move-save")
		time.Sleep(300 * time.Millisecond)
		if got := b.evalString(t, `document.querySelector('#move-status').innerText`); got != "" {
			t.Fatalf("a form with 31/02/2026 was sent: %q", got)
		}

		// The French day reaches the server as the day it is.
		b.set(t, "#move-date", "20/04/2026")
		if got := field("validationMessage"); got != "" {
			t.Fatalf("20/04/2026 is refused: %q", got)
		}
		b.click(t, "#move-save")
		b.waitText(t, "#move-status", "D-1")
		if inPens("2026-04-19") || !inPens("2026-04-20") {
			t.Fatalf("the move typed 20/04/2026 did not start on 2026-04-20 (in Pens on the 19th: %v, on the 20th: %v)", inPens("2026-04-19"), inPens("2026-04-20"))
		}

		// A day typed loosely is written in the style once the field is left.
		b.set(t, "#move-date", "1.4.2026")
		if got := field("value"); got != "01/04/2026" {
			t.Fatalf("1.4.2026 is shown as %q once left, want 01/04/2026", got)
		}
		// The browser's calendar (the input under the button) fills the field.
		b.set(t, "#move-form .date-native", "2026-05-03")
		if got := field("value"); got != "03/05/2026" {
			t.Fatalf("the calendar's 2026-05-03 is shown as %q, want 03/05/2026", got)
		}

		settings("en", "local")
		b.goTo(t, base+"/move", "Move to a group")
		if got := field("placeholder"); got != "MM/DD/YYYY" {
			t.Fatalf("the English field's placeholder is %q, want MM/DD/YYYY", got)
		}
		b.set(t, "#move-date", "04/20/2026")
		if got := field("validationMessage"); got != "" {
			t.Fatalf("04/20/2026 is refused in English: %q", got)
		}
		b.set(t, "#move-date", "20/04/2026")
		if got := field("validationMessage"); !strings.Contains(got, "MM/DD/YYYY") {
			t.Fatalf("20/04/2026 in English leaves the message %q, want it to give MM/DD/YYYY", got)
		}

		settings("en", "iso")
		b.goTo(t, base+"/move", "Move to a group")
		if got := field("placeholder"); got != "YYYY-MM-DD" {
			t.Fatalf("the year-first field's placeholder is %q", got)
		}
		if got := field("value"); got != today.Format(time.DateOnly) && got != time.Now().Format(time.DateOnly) {
			t.Fatalf("the year-first field shows today as %q", got)
		}
	})
}
