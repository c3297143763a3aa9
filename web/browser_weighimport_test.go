package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestWeighImportInBrowser: issue 31.4's weigh-scale session files, imported in the app as
// over REST (docs/csv.md), on SQLite and PostgreSQL at 360 px with axe-core. From the weigh
// screen's link: a session naming an EID no animal of the farm has is refused line by line
// (its line and column in the problems table) and writes nothing; a session whose weights
// carry no unit is refused until the farmer says the unit (never assumed); then checked (a
// dry run: nothing written) and imported, each animal's weight recorded once, shown in the
// user's unit.
func TestWeighImportInBrowser(t *testing.T) {
	t.Parallel()
	browserTools(t)
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 120*time.Second)
		f := b.app.MustFarm(b.user, "Scale Farm")
		farm := f.ID.String()
		c1 := b.app.MustAnimal(b.user, f.ID, "W-1").ID.String()
		c2 := b.app.MustAnimal(b.user, f.ID, "W-2").ID.String()
		v := map[string]any{"f": farm, "a": c1, "b": c2}
		b.gql(t, `mutation($f: ID!, $a: ID!, $b: ID!) {
			s: farmSettingsUpdate(input: {farmID: $f, timeZone: "UTC"}) { __typename }
			a: identifierAdd(input: {farmID: $f, animalID: $a, scheme: EID, value: "982000123450011", startDate: "2024-01-01"}) { animal { id } }
			b: identifierAdd(input: {farmID: $f, animalID: $b, scheme: EID, value: "982000123450012", startDate: "2024-01-01"}) { animal { id } }
		}`, v)
		weights := func() string {
			out := b.gql(t, `query($a: ID!, $b: ID!) { a: node(id: $a) { ... on Animal { profile { weightKg weighedOn } } }
				b: node(id: $b) { ... on Animal { profile { weightKg weighedOn } } } }`, v)
			return fmt.Sprint(out["a"].(map[string]any)["profile"], " ", out["b"].(map[string]any)["profile"])
		}
		none := weights()
		upload := func(name, body string) {
			t.Helper()
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(b.ctx, chromedp.SetUploadFiles(chromedp.CSS("#wi-file"), []string{path})); err != nil {
				t.Fatal(err)
			}
		}
		fits := func(screen string) {
			t.Helper()
			b.checkAxe(t, screen)
			if o := b.overflow(t); o != "" {
				t.Errorf("%s overflows the phone: %s", screen, o)
			}
		}

		b.signIn(t, nil, nil)
		b.goTo(t, "/farms/"+farm+"/weigh", "Weigh")
		b.click(t, "#weigh-import")
		b.waitText(t, "h1", "Import a weigh scale session")
		fits("the session import")

		// A Tru-Test session (its EIDs with a leading 0, day-first dates) with a code no
		// animal of the farm has on line 3.
		upload("bad.csv", "EID,VID,Weight (kg),Date,Time\r\n"+
			"0982000123450011,W-1,452.5,13/03/2026,08:15:02\r\n"+
			"0982000999999999,,398,13/03/2026,08:16:40\r\n")
		b.click(t, "#wi-save")
		b.waitText(t, "#wi-problems", "eid")
		if row := b.evalString(t, `document.querySelector('#wi-problems tbody tr').cells[0].innerText`); row != "3" {
			t.Fatalf("the unknown EID's problem is on row %q, want 3", row)
		}
		fits("the session import with the server's line problems")
		if got := weights(); got != none {
			t.Fatalf("a refused session wrote weights: %s", got)
		}

		// Weights without a unit: refused until the farmer says which.
		session := "EID,Weight,Date\r\n982000123450011,452.5,13/03/2026\r\n982000123450012,398,13/03/2026\r\n"
		upload("session.csv", session)
		b.click(t, "#wi-check")
		b.waitText(t, "#wi-problems", "unit")
		b.set(t, "#wi-unit", "kg")
		b.click(t, "#wi-check")
		b.waitText(t, "#wi-status", "The file is good")
		b.waitText(t, "#wi-summary", "2")
		if got := weights(); got != none {
			t.Fatalf("a dry run wrote weights: %s", got)
		}
		b.click(t, "#wi-save")
		b.waitText(t, "#wi-status", "Imported.")
		b.waitText(t, "#wi-weighings", "452.5 kg")
		if got := b.evalString(t, `document.querySelector('#wi-weighings').innerText`); !strings.Contains(got, "W-2") || !strings.Contains(got, "2026-03-13") {
			t.Fatalf("the imported session lists %q", got)
		}
		fits("the imported session")
		if got := weights(); !strings.Contains(got, "weightKg:452.5") || !strings.Contains(got, "weightKg:398") || !strings.Contains(got, "2026-03-13") {
			t.Fatalf("after the import the weights are %s", got)
		}
	})
}
