package web_test

import (
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestEveryScreenFitsAPhone opens every screen of the app on a 360 px phone, on SQLite and
// PostgreSQL, with a farm that has something on each (a cow with a long name, EID, weights and
// a treatment; a group; a medicine), and fails when any is wider than the window (issue
// 31.6: "no layout overflow at 360 px on any screen"), naming the elements that reach past
// its edge. Each screen is measured once its heading is drawn and nothing in it still loads.
func TestEveryScreenFitsAPhone(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBrowser(t, d, 120*time.Second)
		f := b.app.MustFarm(b.user, "Narrow Pastures and Hill Grazing Partnership")
		cow := b.app.MustAnimal(b.user, f.ID, "UK123456700042").ID.String()
		group := b.app.MustGroup(b.user, f.ID, "First-calf heifers on the far hill").ID.String()
		v := map[string]any{"f": f.ID.String(), "cow": cow, "g": group}
		b.gql(t, `mutation($f: ID!, $cow: ID!, $g: ID!) {
			p: factCreate(input: {farmID: $f, fact: {profile: {animalID: $cow, sex: FEMALE, birthDate: "2022-03-01", breed: "Aberdeen Angus"}}}) { record { id } }
			m: factCreate(input: {farmID: $f, fact: {membership: {animalID: $cow, groupID: $g, startDate: "2024-04-01"}}}) { record { id } }
			w: weightRecord(input: {farmID: $f, animalID: $cow, date: "2025-05-01", kg: 512.5}) { animal { id } }
			x: weightRecord(input: {farmID: $f, animalID: $cow, date: "2025-06-01", kg: 530}) { animal { id } }
		}`, v)
		base := "/farms/" + f.ID.String()
		b.signIn(t, nil, nil)
		for _, path := range []string{
			"/farms", base, base + "/register", base + "/animals/" + cow,
			base + "/weigh", base + "/treat", base + "/move",
			base + "/breeding", base + "/calving", base + "/births",
			base + "/medicines", base + "/reports", base + "/registry", base + "/audit",
			base + "/tasks", base + "/notifications", base + "/settings", base + "/members",
			"/outbox", "/settings",
			// The set-up forms (issue 31.3): a new farm, an animal, a group, a medicine and its
			// purchase, a CSV import, the birth settings.
			"/farms/new", base + "/animals/new", base + "/groups/new", base + "/medicines/new", base + "/import", base + "/import/weighings", base + "/birth-settings",
		} {
			b.goTo(t, path, "")
			b.poll(t, path+" drawn", `location.pathname === `+jsString(path)+` && !!document.querySelector('main h1') && !document.querySelector('main [aria-busy=true]')`)
			if got := b.overflow(t); got != "" {
				t.Errorf("%s is %s on a 360 px phone", path, got)
			}
		}
	})
}
