package notify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/notify"
)

func mustFact(tb testing.TB, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID, m map[string]any) {
	tb.Helper()
	b, _ := json.Marshal(m)
	f, errs := evidence.ParseFact(b)
	if errs != nil {
		tb.Fatal(errs)
	}
	if _, err := app.Service.RecordFactWith(app.Ctx(u), farmID, f, herdbook.FactOptions{AcknowledgeWithdrawal: true}); err != nil {
		tb.Fatal(err)
	}
}

func mustMedicine(tb testing.TB, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID, name string, meat, milk int) string {
	tb.Helper()
	m, err := app.Service.CreateMedicine(app.Ctx(u), farmID, herdbook.MedicineInput{Name: name, WithdrawalMeatDays: herdbook.LabelPeriod(meat), WithdrawalMilkHours: herdbook.LabelPeriod(milk)})
	if err != nil {
		tb.Fatal(err)
	}
	return m.ID.String()
}

// setSettings patches a farm's settings.
func setSettings(tb testing.TB, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID, p herdbook.FarmSettingsPatch) {
	tb.Helper()
	if _, err := app.Service.UpdateFarmSettings(app.Ctx(u), farmID, p); err != nil {
		tb.Fatal(err)
	}
}

func zone(name string) herdbook.Optional[string] {
	return herdbook.Optional[string]{Set: true, Value: &name}
}

// seedWithdrawals treats a group on 2026-03-01 with 7 meat days (clear on 2026-03-08) and
// one cow at 2026-03-09T12:00Z with 24 milk hours (clear at 2026-03-10T12:00Z). C-1 was in
// the group that day; C-2 joined the day after and C-3 left the day before: not treated.
// C-2 is a cow that calved in January: her milk is news. The farm keeps UTC.
func seedWithdrawals(tb testing.TB, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID) {
	tb.Helper()
	setSettings(tb, app, u, farmID, herdbook.FarmSettingsPatch{TimeZone: zone("UTC")})
	g := app.MustGroup(u, farmID, "Heifers")
	c1, c2, c3 := app.MustAnimal(u, farmID, "C-1"), app.MustAnimal(u, farmID, "C-2"), app.MustAnimal(u, farmID, "C-3")
	mustFact(tb, app, u, farmID, map[string]any{"kind": "profile", "animal_id": c2.ID.String(), "sex": "female"})
	mustFact(tb, app, u, farmID, map[string]any{"kind": "birth", "dam_id": c2.ID.String(), "date": "2026-01-20"})
	for _, m := range []map[string]any{
		{"animal_id": c1.ID.String(), "start_date": "2026-02-01"},
		{"animal_id": c2.ID.String(), "start_date": "2026-03-02"},
		{"animal_id": c3.ID.String(), "start_date": "2026-02-01", "end_date": "2026-02-28"},
	} {
		m["kind"], m["group_id"] = "membership", g.ID.String()
		mustFact(tb, app, u, farmID, m)
	}
	wormer := mustMedicine(tb, app, u, farmID, "Wormer", 7, 0)
	mastitis := mustMedicine(tb, app, u, farmID, "Mastitis tube", 0, 24)
	mustFact(tb, app, u, farmID, map[string]any{"kind": "treatment", "medicine_id": wormer, "group_id": g.ID.String(), "date": "2026-03-01"})
	mustFact(tb, app, u, farmID, map[string]any{"kind": "treatment", "medicine_id": mastitis, "animal_id": c2.ID.String(), "date": "2026-03-09T12:00:00Z"})
}

func inApp(t *testing.T, c *ent.Client) map[string]int {
	t.Helper()
	ns, err := c.Notification.Query().Where(notification.TypeEQ(notification.TypeIN_APP)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, n := range ns {
		out[n.Title+" | "+n.Body]++
	}
	return out
}

// TestWithdrawalEnds announces the end of each withdrawal on its clear date (the meat one
// on its day, the milk one at its moment), to every member on their channels, once.
func TestWithdrawalEnds(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newFarmSetup(t, d)
		seedWithdrawals(t, s.app, s.owner, s.farm.ID)
		w := s.worker(t, herdbook.DefaultRetryPolicy)
		if err := w.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
		meat := "Meat withdrawal of Wormer ends since Sunday 8 March 2026 at Hill Farm | Wormer given Sunday 1 March 2026 at Hill Farm: C-1 may go for slaughter from Sunday 8 March 2026."
		if got := inApp(t, d.Client); fmt.Sprint(got) != fmt.Sprint(map[string]int{meat: 3}) {
			t.Fatalf("in-app at 06:00 (the milk clears at 12:00):\n%v", got)
		}
		want := map[string]int{"IN_APP SENT": 3, "EMAIL SENT": 2, "SMS SENT": 1}
		if got := byStatus(t, d.Client, s.farm.ID); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("notifications %v, want %v", got, want)
		}
		if sms := s.sms.calls(); len(sms) != 1 || !strings.Contains(sms[0].Body, "C-1 may go for slaughter") {
			t.Fatalf("sms %+v", sms)
		}

		s.clk.Add(6 * time.Hour)
		for range 2 {
			if err := w.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		milk := "Milk withdrawal of Mastitis tube ends today at Hill Farm | Mastitis tube given Monday 9 March 2026 at 12:00 (UTC) at Hill Farm: the milk of C-2 may go into the tank from Tuesday 10 March 2026 at 12:00 (UTC)."
		if got := inApp(t, d.Client); fmt.Sprint(got) != fmt.Sprint(map[string]int{meat: 3, milk: 3}) {
			t.Fatalf("in-app at 12:00:\n%v", got)
		}
		want = map[string]int{"IN_APP SENT": 6, "EMAIL SENT": 4, "SMS SENT": 2}
		if got := byStatus(t, d.Client, s.farm.ID); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after re-runs %v, want %v", got, want)
		}
		if n := d.Client.ScheduledEvent.Query().CountX(context.Background()); n != 2 {
			t.Fatalf("%d events, want 2", n)
		}
	})
}

// TestWithdrawalEndsOnceTwoWorkers runs two nodes, each scheduling and delivering, at the
// same moment: every member hears of each ending withdrawal once per channel.
func TestWithdrawalEndsOnceTwoWorkers(t *testing.T) {
	t.Parallel()
	if !strings.Contains(strings.Join(herdbooktest.Dialects(), " "), "postgres") {
		t.Skip("needs PostgreSQL (set HERDBOOK_TEST_DATABASE_URL): SQLite runs a single in-process worker")
	}
	url := herdbooktest.ScratchURL(t, "postgres")
	ctx := context.Background()
	open := func() *db.DB {
		d, err := db.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	d1, d2 := open(), open()
	if _, err := d1.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	clk := newClock("2026-03-10T13:00:00Z")
	app := herdbooktest.NewApp(t, d1, herdbooktest.Options{Clock: clk.Now})
	owner, editor := app.MustUser(), app.MustUser()
	const farms = 20
	var farmIDs []uuid.UUID
	for i := range farms {
		f := app.MustFarm(owner, fmt.Sprint("Farm ", i))
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		seedWithdrawals(t, app, owner, f.ID)
		farmIDs = append(farmIDs, f.ID)
	}
	for _, u := range []herdbooktest.User{owner, editor} {
		if _, err := app.Service.SetNotificationPreferences(app.Ctx(u), nil, herdbook.NotificationPreferencesInput{SMS: true, InApp: true}); err != nil {
			t.Fatal(err)
		}
	}
	sms := newSMSProvider(t)
	var (
		mu    sync.Mutex
		perID = map[string]int{}
	)
	counting := senderFunc(func(ctx context.Context, m notify.Message) error {
		mu.Lock()
		perID[m.ID.String()]++
		mu.Unlock()
		return sms.sender(t).Send(ctx, m)
	})
	var wg sync.WaitGroup
	for i, d := range []*db.DB{d1, d2} {
		w := &notify.Worker{ID: fmt.Sprint("node-", i+1), Service: herdbook.New(d.Client, herdbook.WithClock(clk.Now), herdbook.WithCitus(d.Citus)), Logger: quiet,
			Batch: 5, Parallel: 2, Senders: map[notification.Type]notify.Sender{notification.TypeSMS: counting}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Tick(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// Two withdrawals per farm, two members, SMS each.
	want := farms * 2 * 2
	if len(perID) != want {
		t.Fatalf("%d SMS notifications delivered, want %d", len(perID), want)
	}
	for id, n := range perID {
		if n != 1 {
			t.Fatalf("notification %s delivered %d times", id, n)
		}
	}
	for _, id := range farmIDs {
		if got := byStatus(t, d1.Client, id); got["SMS SENT"] != 4 || got["IN_APP SENT"] != 4 || len(got) != 2 {
			t.Fatalf("farm %s: %v", id, got)
		}
	}
	if n := d1.Client.ScheduledEvent.Query().CountX(ctx); n != farms*2 {
		t.Fatalf("%d events, want %d", n, farms*2)
	}
}

// TestWithdrawalEndsMakeFarmingSense: the end of a meat withdrawal is news only for animals
// still on the farm (not sold, not slaughtered); the end of a milk withdrawal only for cows
// that give milk: females on the farm that have calved, or of the farm's minimum breeding age
// for females when the farm has set one (no default). A group of calves and cows is treated
// on 2026-03-01 with 7 meat days (clear on 2026-03-08) and 24 milk hours (clear at the end of
// 1 March plus 24 hours, 2026-03-03T00:00Z); the worker runs on 2026-03-10.
func TestWithdrawalEndsMakeFarmingSense(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newFarmSetup(t, d)
		app, u := s.app, s.owner
		second := app.MustFarm(u, "Low Farm")
		for _, farmID := range []uuid.UUID{s.farm.ID, second.ID} {
			setSettings(t, app, u, farmID, herdbook.FarmSettingsPatch{TimeZone: zone("UTC")})
			g := app.MustGroup(u, farmID, "Suckler group")
			animal := func(tag, sex, born string) string {
				a := app.MustAnimal(u, farmID, tag)
				mustFact(t, app, u, farmID, map[string]any{"kind": "profile", "animal_id": a.ID.String(), "sex": sex, "birth_date": born})
				mustFact(t, app, u, farmID, map[string]any{"kind": "membership", "animal_id": a.ID.String(), "group_id": g.ID.String(), "start_date": "2026-01-01"})
				return a.ID.String()
			}
			animal("B-1", "male", "2025-10-01") // bull calves
			animal("B-2", "male", "2025-10-02")
			animal("H-1", "female", "2025-01-01") // a heifer that has not calved
			sold := animal("S-1", "female", "2025-10-03")
			slaughtered := animal("K-1", "female", "2020-04-01")
			cow := animal("K-2", "female", "2020-04-02")
			for _, dam := range []string{slaughtered, cow} {
				mustFact(t, app, u, farmID, map[string]any{"kind": "birth", "dam_id": dam, "date": "2025-10-01"})
			}
			med := mustMedicine(t, app, u, farmID, "Pour-on", 7, 24)
			mustFact(t, app, u, farmID, map[string]any{"kind": "treatment", "medicine_id": med, "group_id": g.ID.String(), "date": "2026-03-01"})
			// The calf is sold on 5 March; the cow dies on 4 March, four days before the meat
			// clear date. (Slaughtering her then is refused whatever the acknowledgement: the
			// departure guard; a death off the farm must end her notices all the same.)
			mustFact(t, app, u, farmID, map[string]any{"kind": "sale", "animal_id": sold, "date": "2026-03-05"})
			mustFact(t, app, u, farmID, map[string]any{"kind": "death", "animal_id": slaughtered, "date": "2026-03-04"})
		}
		// Low Farm names a minimum breeding age for females: the heifer, 433 days old on
		// 2026-03-10, is of age.
		age := 365
		setSettings(t, app, u, second.ID, herdbook.FarmSettingsPatch{MinimumBreedingAgeFemaleDays: herdbook.Optional[int]{Set: true, Value: &age}})
		if err := s.worker(t, herdbook.DefaultRetryPolicy).Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
		events := d.Client.ScheduledEvent.Query().AllX(context.Background())
		got := map[string]string{}
		for _, e := range events {
			got[e.FarmID.String()+" "+e.Payload.Withdrawal] = strings.Join(e.Payload.AnimalTags, ",")
		}
		want := map[string]string{
			s.farm.ID.String() + " meat": "B-1,B-2,H-1,K-2",
			s.farm.ID.String() + " milk": "K-2",
			second.ID.String() + " meat": "B-1,B-2,H-1,K-2",
			second.ID.String() + " milk": "H-1,K-2",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events:\n%v\nwant\n%v", got, want)
		}
		for title := range inApp(t, d.Client) {
			for _, gone := range []string{"S-1", "K-1", "B-1 may go into"} {
				if strings.Contains(title, gone) {
					t.Errorf("notification %q names %s", title, gone)
				}
			}
		}
	})
}
