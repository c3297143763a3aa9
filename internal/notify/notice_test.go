package notify_test

import (
	"context"
	"fmt"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestNoticeDue (issue 29.2): on 10 March 2026 under gb_cts, a cow bought on the 9th must be
// reported by the 12th (gov.uk, "Report and record cattle movements": within 3 days), two days
// away, so every member hears it is due; a beef calf born on 20 February must carry its tags
// by 12 March (before it is 21 days old: gov.uk, "What to do after a calf is born"); a steer dead on 1 March was due by the 8th (7 days,
// gov.uk "Keep a holding register for cattle"), so every member hears it is overdue. A calf
// born on the 6th is not announced yet (tags by the 26th, registration by 2 April). A second
// run announces nothing again.
func TestNoticeDue(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newFarmSetup(t, d)
		app, u, f := s.app, s.owner, s.farm.ID
		if _, err := app.Service.CreateHolding(app.Ctx(u), f, herdbook.HoldingInput{Scheme: strp("uk.cph"), Identifier: strp("34/123/1234"),
			KeeperName: strp("Kari Nordmann"), RuleSet: strp("gb_cts"), TimeZone: strp("Europe/London")}); err != nil {
			t.Fatal(err)
		}
		dam, calf := app.MustAnimal(u, f, "DAM-1"), app.MustAnimal(u, f, "CALF-1")
		cow, steer := app.MustAnimal(u, f, "COW-1"), app.MustAnimal(u, f, "STEER-1")
		mustFact(t, app, u, f, map[string]any{"kind": "profile", "animal_id": dam.ID.String(), "sex": "female", "birth_date": "2020-04-01"})
		mustFact(t, app, u, f, map[string]any{"kind": "birth", "dam_id": dam.ID.String(), "date": "2026-03-06", "offspring_ids": []string{calf.ID.String()}})
		dam2, calf2 := app.MustAnimal(u, f, "DAM-2"), app.MustAnimal(u, f, "CALF-2")
		mustFact(t, app, u, f, map[string]any{"kind": "profile", "animal_id": dam2.ID.String(), "sex": "female", "birth_date": "2020-04-01"})
		mustFact(t, app, u, f, map[string]any{"kind": "birth", "dam_id": dam2.ID.String(), "date": "2026-02-20", "offspring_ids": []string{calf2.ID.String()}})
		mustFact(t, app, u, f, map[string]any{"kind": "purchase", "animal_id": cow.ID.String(), "date": "2026-03-09", "holding_scheme": "uk.cph", "holding_number": "12/345/6789"})
		mustFact(t, app, u, f, map[string]any{"kind": "death", "animal_id": steer.ID.String(), "date": "2026-03-01", "disposal": "approved_service"})

		w := s.worker(t, herdbook.DefaultRetryPolicy)
		for range 2 {
			if err := w.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		due := "Due by Thursday 12 March 2026: movement-on report for COW-1 at Hill Farm | The movement-on report for COW-1 at Hill Farm must reach the registry by Thursday 12 March 2026."
		overdue := "Overdue: death report for STEER-1 at Hill Farm | The death report for STEER-1 at Hill Farm was due at the registry by Sunday 8 March 2026 and has not been reported."
		tagging := "Due by Thursday 12 March 2026: ear tagging for CALF-2 at Hill Farm | The ear tagging of CALF-2 at Hill Farm is due by Thursday 12 March 2026."
		if got := inApp(t, d.Client); fmt.Sprint(got) != fmt.Sprint(map[string]int{due: 3, overdue: 3, tagging: 3}) {
			t.Fatalf("in-app:\n%v", got)
		}
		if n := d.Client.ScheduledEvent.Query().CountX(context.Background()); n != 3 {
			t.Fatalf("%d events, want 3", n)
		}
	})
}

func strp(s string) *string { return &s }
