package notify_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/ent/scheduledevent"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/notify"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// farmSetup is a farm with an OWNER and an EDITOR who have email addresses and a READER
// who chose SMS and the app, all on a service whose clock the test moves.
type farmSetup struct {
	app                   *herdbooktest.App
	clk                   *clock
	owner, editor, reader herdbooktest.User
	farm                  *ent.Farm
	smtp                  *smtpServer
	sms                   *smsProvider
}

func newFarmSetup(t *testing.T, d *db.DB) *farmSetup {
	t.Helper()
	s := &farmSetup{clk: newClock("2026-03-10T06:00:00Z")}
	s.app = herdbooktest.NewApp(t, d, herdbooktest.Options{Clock: s.clk.Now})
	s.owner, s.editor, s.reader = s.app.MustUser(), s.app.MustUser(), s.app.MustUser()
	s.farm = s.app.MustFarm(s.owner, "Hill Farm")
	s.app.MustMember(s.farm.ID, s.editor, herdbook.RoleEditor)
	s.app.MustMember(s.farm.ID, s.reader, herdbook.RoleReader)
	ctx := context.Background()
	for _, u := range []herdbooktest.User{s.owner, s.editor, s.reader} {
		if err := s.app.Service.SetUserEmail(ctx, u.ID, "u"+u.ID.String()[:8]+"@example.test"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.app.Service.SetNotificationPreferences(s.app.Ctx(s.reader), &s.farm.ID,
		herdbook.NotificationPreferencesInput{SMS: true, InApp: true}); err != nil {
		t.Fatal(err)
	}
	s.smtp, s.sms = newSMTPServer(t), newSMSProvider(t)
	return s
}

func (s *farmSetup) worker(t *testing.T, retry herdbook.RetryPolicy) *notify.Worker {
	return &notify.Worker{Service: s.app.Service, Logger: quiet, Retry: retry, Lease: time.Minute,
		Senders: map[notification.Type]notify.Sender{notification.TypeEMAIL: s.smtp.sender(t), notification.TypeSMS: s.sms.sender(t)}}
}

func (s *farmSetup) list(t *testing.T, u herdbooktest.User, query string) (int, []map[string]any) {
	t.Helper()
	res := s.app.Do("GET", "/v1/farm/"+s.farm.ID.String()+"/notifications"+query, u.Token, nil)
	if res.Status != 200 {
		t.Fatalf("list %s: %d %s", query, res.Status, res.Body)
	}
	body := res.JSON(t)
	var out []map[string]any
	for _, n := range body["notifications"].([]any) {
		out = append(out, n.(map[string]any))
	}
	return int(body["total"].(float64)), out
}

// TestCalvingCheckDueToday follows a birth's follow-up task from approval to the farmer's
// inbox, mailbox and phone, and reads the result through the REST list.
func TestCalvingCheckDueToday(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newFarmSetup(t, d)
		ctx := s.app.Ctx(s.owner)
		dam := s.app.MustAnimal(s.owner, s.farm.ID, "C-17")
		if _, err := s.app.Service.PutFollowUpProtocol(ctx, s.farm.ID, []schematype.ProtocolStep{{Name: "Calving check", OffsetDays: 0}, {Name: "Weigh calf", OffsetDays: 3}}); err != nil {
			t.Fatal(err)
		}
		p, err := s.app.Service.CreateBirthPreview(ctx, s.farm.ID, dam.ID.String(), "2026-03-10")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.app.Service.ApproveBirthPreview(ctx, s.farm.ID, p.ID, herdbook.BirthApproval{RequestID: "birth-1",
			Calves: []herdbook.CalfInput{{Tag: "C-17-CALF", Sex: "female", Status: "alive"}}}); err != nil {
			t.Fatal(err)
		}
		w := s.worker(t, herdbook.DefaultRetryPolicy)
		if err := w.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}

		// OWNER and EDITOR: app and email (role defaults); READER: app and SMS (preference).
		want := map[string]int{"IN_APP SENT": 3, "EMAIL SENT": 2, "SMS SENT": 1}
		if got := byStatus(t, d.Client, s.farm.ID); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("notifications %v, want %v", got, want)
		}
		mails := s.smtp.received()
		if len(mails) != 2 {
			t.Fatalf("%d mails, want 2", len(mails))
		}
		for _, m := range mails {
			if !strings.Contains(m.Data, "Subject: Calving check due today at Hill Farm") || !strings.Contains(m.Data, "for C-17.") {
				t.Fatalf("mail does not name task, farm and animal:\n%s", m.Data)
			}
		}
		if sms := s.sms.calls(); len(sms) != 1 || sms[0].Body != "Calving check is due today at Hill Farm for C-17." {
			t.Fatalf("sms %+v", sms)
		}

		t.Run("RESTOwnerSeesAll", func(t *testing.T) {
			total, items := s.list(t, s.owner, "?status=SENT")
			if total != 6 || len(items) != 6 {
				t.Fatalf("total %d items %d, want 6", total, len(items))
			}
			for _, n := range items {
				if n["sent_at"] == nil || n["error_message"] != nil || n["farm_id"] != s.farm.ID.String() {
					t.Fatalf("notification %v", n)
				}
			}
			if total, _ := s.list(t, s.owner, "?status=PENDING"); total != 0 {
				t.Fatalf("%d PENDING", total)
			}
		})
		t.Run("RESTReaderSeesOwn", func(t *testing.T) {
			total, items := s.list(t, s.reader, "?skip=1&take=5")
			if total != 2 || len(items) != 1 || items[0]["user_id"] != s.reader.ID.String() {
				t.Fatalf("total %d items %v", total, items)
			}
		})
		t.Run("NoDuplicatesOnRerun", func(t *testing.T) {
			for range 3 {
				if err := w.Tick(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if got := byStatus(t, d.Client, s.farm.ID); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("after re-runs %v", got)
			}
			if n := len(s.smtp.received()); n != 2 {
				t.Fatalf("%d mails after re-runs", n)
			}
		})
		t.Run("LaterTaskFallsDueLater", func(t *testing.T) {
			s.clk.Add(3 * 24 * time.Hour)
			if err := w.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
			if total, _ := s.list(t, s.owner, ""); total != 12 {
				t.Fatalf("total %d, want 12 after the weigh-calf task fell due", total)
			}
		})
	})
}

func TestRetriesThenFailed(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newFarmSetup(t, d)
		s.sms.Status = func(int) int { return 503 }
		s.smtp.Reply = func(string) string { return "550 5.1.1 no such mailbox" }
		mustTasks(t, d.Client, s.farm.ID, "Calving check", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), 1)
		policy := herdbook.RetryPolicy{MaxAttempts: 3, Base: time.Minute, Max: 10 * time.Minute}
		w := s.worker(t, policy)
		smsRow := func() *ent.Notification {
			n, err := d.Client.Notification.Query().Where(notification.TypeEQ(notification.TypeSMS)).Only(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		steps := []struct {
			advance  time.Duration
			attempts int
			status   notification.Status
			calls    int
		}{
			{0, 1, notification.StatusPENDING, 1},
			{30 * time.Second, 1, notification.StatusPENDING, 1}, // back-off not over: no attempt
			{31 * time.Second, 2, notification.StatusPENDING, 2},
			{time.Minute, 2, notification.StatusPENDING, 2}, // the second wait is two minutes
			{time.Minute + time.Second, 3, notification.StatusFAILED, 3},
			{time.Hour, 3, notification.StatusFAILED, 3}, // FAILED is final
		}
		for i, st := range steps {
			s.clk.Add(st.advance)
			if err := w.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
			n := smsRow()
			if n.Attempts != st.attempts || n.Status != st.status || len(s.sms.calls()) != st.calls ||
				n.ErrorMessage == nil || !strings.Contains(*n.ErrorMessage, "503") {
				t.Fatalf("step %d: attempts %d status %s calls %d error %v", i, n.Attempts, n.Status, len(s.sms.calls()), n.ErrorMessage)
			}
		}
		// A refused mailbox is permanent: FAILED after one attempt.
		total, items := s.list(t, s.owner, "?status=FAILED")
		if total != 3 {
			t.Fatalf("%d FAILED, want 3 (two refused mails, one SMS): %v", total, items)
		}
		for _, n := range items {
			msg, _ := n["error_message"].(string)
			if n["sent_at"] != nil || !(strings.Contains(msg, "503") || strings.Contains(msg, "550")) {
				t.Fatalf("failed notification %v", n)
			}
		}
	})
}

func TestRetryThenSent(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newFarmSetup(t, d)
		s.sms.Status = func(call int) int { return map[bool]int{true: 502, false: 200}[call == 1] }
		mustTasks(t, d.Client, s.farm.ID, "Calving check", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), 1)
		w := s.worker(t, herdbook.RetryPolicy{MaxAttempts: 3, Base: time.Minute, Max: time.Hour})
		for _, adv := range []time.Duration{0, time.Minute} {
			s.clk.Add(adv)
			if err := w.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		n, err := d.Client.Notification.Query().Where(notification.TypeEQ(notification.TypeSMS)).Only(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n.Status != notification.StatusSENT || n.SentAt == nil || n.ErrorMessage != nil || n.Attempts != 2 {
			t.Fatalf("notification %+v", n)
		}
	})
}

func TestSchedule(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newFarmSetup(t, d)
		ctx := context.Background()
		day := func(n int) time.Time { return time.Date(2026, 3, 10+n, 0, 0, 0, 0, time.UTC) }
		cow, calf := s.app.MustAnimal(s.owner, s.farm.ID, "C-1"), s.app.MustAnimal(s.owner, s.farm.ID, "C-2")
		mustTasks(t, d.Client, s.farm.ID, "Due today", day(0), 1, cow.ID, calf.ID)
		mustTasks(t, d.Client, s.farm.ID, "Overdue", day(-2), 1)
		mustTasks(t, d.Client, s.farm.ID, "Long ago", day(-30), 1)
		mustTasks(t, d.Client, s.farm.ID, "Tomorrow", day(1), 1)
		mustTasks(t, d.Client, s.farm.ID, "Done", day(0), 1)
		herdbooktest.InTx(t, d.Client, func(ctx context.Context, c *ent.Client) error {
			return c.FarmTask.Update().Where(farmtask.Name("Done")).SetStatus(farmtask.StatusDONE).Exec(ctx)
		})
		if _, err := s.app.Service.PutBirthSettings(s.app.Ctx(s.owner), s.farm.ID, evidence.Settings{Version: 1, Species: "CATTLE",
			BirthWindows: []evidence.Window{{Label: "Spring calving", StartDate: "2026-03-10", EndDate: "2026-04-30"}, {Label: "Autumn", StartDate: "2026-09-01", EndDate: "2026-10-01"}}}); err != nil {
			t.Fatal(err)
		}
		// Two nodes race to schedule the same day; the unique keys keep one of everything.
		// SQLite runs one in-process worker, so there the passes run one after the other.
		racers := 1
		if d.Dialect == dialect.Postgres {
			racers = 2
		}
		var wg sync.WaitGroup
		for range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.app.Service.ScheduleDue(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if _, err := s.app.Service.ScheduleDue(ctx); err != nil {
			t.Fatal(err)
		}
		titles := map[string]int{}
		ns, err := d.Client.Notification.Query().Where(notification.TypeEQ(notification.TypeIN_APP)).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			titles[n.Title+" | "+n.Body]++
		}
		want := map[string]int{
			"Due today due today at Hill Farm | Due today is due today at Hill Farm for C-1, C-2.":                                                                                                       3,
			"Overdue due since Sunday 8 March 2026 at Hill Farm | Overdue is due since Sunday 8 March 2026 at Hill Farm.":                                                                                3,
			`Birth window "Spring calving" opens today at Hill Farm | The birth window "Spring calving" at Hill Farm runs from Tuesday 10 March 2026 to Thursday 30 April 2026: time to check the dams.`: 3,
		}
		if fmt.Sprint(titles) != fmt.Sprint(want) {
			t.Fatalf("in-app notifications:\n%v\nwant\n%v", titles, want)
		}
		if n := d.Client.ScheduledEvent.Query().CountX(ctx); n != 3 {
			t.Fatalf("%d events, want 3", n)
		}
	})
}

// TestResumeAfterCrash leases a batch as a worker that then dies: its rows are delivered by
// another worker once the lease runs out, and not before.
func TestResumeAfterCrash(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newFarmSetup(t, d)
		ctx := context.Background()
		mustTasks(t, d.Client, s.farm.ID, "Calving check", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), 1)
		if _, err := s.app.Service.ScheduleDue(ctx); err != nil {
			t.Fatal(err)
		}
		leased, err := s.app.Service.LeaseNotifications(ctx, herdbook.Lease{Worker: "crashed", Batch: 10, Duration: time.Minute,
			Types: []notification.Type{notification.TypeEMAIL, notification.TypeSMS}})
		if err != nil || len(leased) != 3 {
			t.Fatalf("leased %d, %v", len(leased), err)
		}
		w := s.worker(t, herdbook.DefaultRetryPolicy)
		if err := w.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		if n := len(s.smtp.received()) + len(s.sms.calls()); n != 0 {
			t.Fatalf("%d leased messages were sent while the lease held", n)
		}
		s.clk.Add(time.Minute)
		if err := w.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		if m, p := len(s.smtp.received()), len(s.sms.calls()); m != 2 || p != 1 {
			t.Fatalf("after the lease ran out: %d mails, %d sms", m, p)
		}
		if err := s.app.Service.RecordDelivery(ctx, leased[0], nil, herdbook.DefaultRetryPolicy); err != herdbook.ErrLeaseLost {
			t.Fatalf("the crashed worker recorded an outcome over another's: %v", err)
		}
	})
}

func TestWorkerStops(t *testing.T) {
	t.Parallel()
	d := herdbooktest.MustDB(t, "sqlite")
	w := &notify.Worker{Service: herdbook.New(d.Client), Logger: quiet, Interval: 10 * time.Millisecond,
		Senders: map[notification.Type]notify.Sender{notification.TypeSMS: senderFunc(func(context.Context, notify.Message) error { return nil })}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the worker did not stop")
	}
}

// TestExactlyOnceTwoWorkers runs two workers, each with its own connection pool as two
// `herdbook serve` nodes would have, over 1,000 due events on one PostgreSQL database.
func TestExactlyOnceTwoWorkers(t *testing.T) {
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
	clk := newClock("2026-03-10T06:00:00Z")
	app := herdbooktest.NewApp(t, d1, herdbooktest.Options{Clock: clk.Now})
	owner, editor := app.MustUser(), app.MustUser()
	f := app.MustFarm(owner, "Big Farm")
	app.MustMember(f.ID, editor, herdbook.RoleEditor)
	for _, u := range []herdbooktest.User{owner, editor} {
		if _, err := app.Service.SetNotificationPreferences(app.Ctx(u), nil, herdbook.NotificationPreferencesInput{SMS: true, InApp: true}); err != nil {
			t.Fatal(err)
		}
	}
	const events = 1000
	mustTasks(t, d1.Client, f.ID, "Calving check", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), events)

	sms := newSMSProvider(t)
	var (
		mu       sync.Mutex
		perID    = map[string]int{}
		byWorker = map[string]int{}
	)
	counting := func(name string, next notify.Sender) notify.Sender {
		return senderFunc(func(ctx context.Context, m notify.Message) error {
			mu.Lock()
			perID[m.ID.String()]++
			byWorker[name]++
			mu.Unlock()
			return next.Send(ctx, m)
		})
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i, d := range []*db.DB{d1, d2} {
		name := fmt.Sprintf("node-%d", i+1)
		w := &notify.Worker{ID: name, Service: herdbook.New(d.Client, herdbook.WithClock(clk.Now), herdbook.WithCitus(d.Citus)), Logger: quiet, Batch: 25, Parallel: 4,
			Senders: map[notification.Type]notify.Sender{notification.TypeSMS: counting(name, sms.sender(t))}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Tick(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	want := 2 * events
	if len(perID) != want {
		t.Fatalf("%d SMS notifications delivered, want %d", len(perID), want)
	}
	for id, n := range perID {
		if n != 1 {
			t.Fatalf("notification %s delivered %d times", id, n)
		}
	}
	if got := byStatus(t, d1.Client, f.ID); got["SMS SENT"] != want || got["IN_APP SENT"] != want || len(got) != 2 {
		t.Fatalf("statuses %v", got)
	}
	if n := len(sms.calls()); n != want {
		t.Fatalf("provider received %d messages, want %d", n, want)
	}
	t.Logf("%d events → %d SMS delivered exactly once in %s; split %v", events, want, elapsed.Round(time.Millisecond), byWorker)
}

// TestFanOutOnceTwoNodes runs two nodes' schedulers at once over the due tasks of several
// farms (on a Citus cluster, farms on several shards): every event is fanned out by exactly
// one of them. The notifications' unique key would hide an event fanned out twice, so the
// test counts the events each node claims. On plain PostgreSQL the events are skipped while
// another node holds them; on a cluster they are claimed by UPDATE … RETURNING
// (herdbook.WithCitus).
func TestFanOutOnceTwoNodes(t *testing.T) {
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
	clk := newClock("2026-03-10T06:00:00Z")
	app := herdbooktest.NewApp(t, d1, herdbooktest.Options{Clock: clk.Now})
	owner := app.MustUser()
	const farms, perFarm = 6, 150
	for i := range farms {
		f := app.MustFarm(owner, fmt.Sprint("Farm ", i+1))
		mustTasks(t, d1.Client, f.ID, "Calving check", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), perFarm)
	}
	results := make([]herdbook.ScheduleResult, 2)
	var wg sync.WaitGroup
	for i, d := range []*db.DB{d1, d2} {
		svc := herdbook.New(d.Client, herdbook.WithClock(clk.Now), herdbook.WithCitus(d.Citus))
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := svc.ScheduleDue(ctx)
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	const want = farms * perFarm
	if got := results[0].FannedOut + results[1].FannedOut; got != want {
		t.Fatalf("events fanned out: %d + %d, want %d in all", results[0].FannedOut, results[1].FannedOut, want)
	}
	if n := d1.Client.ScheduledEvent.Query().Where(scheduledevent.ProcessedAtIsNil()).CountX(ctx); n != 0 {
		t.Fatalf("%d events left unprocessed", n)
	}
	if n := d1.Client.Notification.Query().CountX(ctx); n != want {
		t.Fatalf("%d notifications, want %d (the owner's in-app message of each event)", n, want)
	}
	t.Logf("%d events (citus: %v) fanned out %d + %d", want, d1.Citus, results[0].FannedOut, results[1].FannedOut)
}

type senderFunc func(context.Context, notify.Message) error

func (f senderFunc) Send(ctx context.Context, m notify.Message) error { return f(ctx, m) }

// TestScheduleInFarmZone is issue 28.9: messages speak of the farm's own days, in words, and
// of instants in its time zone. America/Los_Angeles keeps Pacific Daylight Time (UTC−7) from
// 8 March 2026, so the clock's 06:00 UTC on 10 March is 23:00 on Monday 9 March there.
func TestScheduleInFarmZone(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newFarmSetup(t, d)
		ctx := context.Background()
		if res := s.app.Do("PUT", "/v1/farm/"+s.farm.ID.String()+"/settings", s.owner.Token, map[string]any{"time_zone": "America/Los_Angeles"}); res.Status != 200 {
			t.Fatalf("settings: %d %s", res.Status, res.Body)
		}
		mustTasks(t, d.Client, s.farm.ID, "Calving check", time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC), 1)
		mustTasks(t, d.Client, s.farm.ID, "Weigh", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), 1)
		// A milk withdrawal that cleared at 05:00 UTC on 10 March: 22:00 on 9 March locally.
		clear := time.Date(2026, 3, 10, 5, 0, 0, 0, time.UTC)
		herdbooktest.InTx(t, d.Client, func(ctx context.Context, c *ent.Client) error {
			return c.ScheduledEvent.Create().SetFarmID(s.farm.ID).SetKind(scheduledevent.KindWithdrawalEnding).
				SetSubject(uuid.NewString() + ":milk").SetDueOn("2026-03-10").SetDueAt(clear).
				SetPayload(schematype.EventPayload{FarmName: "Hill Farm", AnimalTags: []string{"C-2"}, Withdrawal: "milk",
					MedicineName: "Mastitis tube", TreatedOn: "2026-03-06", ClearOn: clear.Format(time.RFC3339)}).Exec(ctx)
		})
		if _, err := s.app.Service.ScheduleDue(ctx); err != nil {
			t.Fatal(err)
		}
		titles := map[string]int{}
		ns, err := d.Client.Notification.Query().Where(notification.TypeEQ(notification.TypeIN_APP)).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			titles[n.Title+" | "+n.Body]++
		}
		want := map[string]int{
			"Calving check due today at Hill Farm | Calving check is due today at Hill Farm.":                                                                                                                                3,
			"Weigh due on Tuesday 10 March 2026 at Hill Farm | Weigh is due on Tuesday 10 March 2026 at Hill Farm.":                                                                                                          3,
			"Milk withdrawal of Mastitis tube ends today at Hill Farm | Mastitis tube given Friday 6 March 2026 at Hill Farm: the milk of C-2 may go into the tank from Monday 9 March 2026 at 22:00 (America/Los_Angeles).": 3,
		}
		if fmt.Sprint(titles) != fmt.Sprint(want) {
			t.Fatalf("in-app notifications:\n%v\nwant\n%v", titles, want)
		}
	})
}
