package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/cts"
	"github.com/herdbook/herdbook/registry/cts/ctsfake"
	"github.com/herdbook/herdbook/registry/hitier"
	"github.com/herdbook/herdbook/registry/hitier/hitierfake"
)

// outboxClock is a test clock the outbox's backoff is stepped over.
type outboxClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *outboxClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *outboxClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// crashTransport passes requests to the fake registry; armed, it lets the next request reach
// the registry and then stops the process's work (cancels its context) before the answer is
// read, as when a node dies in the middle of sending.
type crashTransport struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (c *crashTransport) arm(cancel context.CancelFunc) {
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
}

func (c *crashTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	c.mu.Lock()
	cancel := c.cancel
	c.cancel = nil
	c.mu.Unlock()
	if cancel != nil && err == nil {
		res.Body.Close()
		cancel()
		return nil, context.Canceled
	}
	return res, err
}

// TestOutboxCTS (issue 29.3) sends a GB season through the outbox to a fake CTWS
// (registry/cts/ctsfake, speaking cts-tool's message shapes) on both databases: nothing goes
// before the keeper saves credentials and turns sending on; the registry down (503) is
// retried with backoff; CTWS806 ("not ready") is polled again; a reject keeps its cause; a
// node dying after the registry took a batch, and a new node taking over, reports nothing
// twice (the registry's copy is asked first); credentials refused are a reject that goes
// again once the keeper saves new ones. The registry applies each movement exactly once.
func TestOutboxCTS(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		fake := ctsfake.New()
		srv := httptest.NewServer(fake)
		t.Cleanup(srv.Close)
		crash := &crashTransport{}
		client := &cts.Client{URL: srv.URL, SoftwareUser: fake.Software, SoftwarePassword: fake.SoftwarePassword,
			ProgramName: "Herdbook", ProgramVersion: "test", HTTP: &http.Client{Transport: crash}}
		key := []byte(strings.Repeat("k", herdbook.RegistryKeySize))
		regs, err := herdbook.NewRegistries(key, map[string]registry.Adapter{"uk.cph": client})
		if err != nil {
			t.Fatal(err)
		}
		regs.WithBackoff(registry.Backoff{Base: time.Minute, Max: 10 * time.Minute}, 4)
		clock := &outboxClock{now: noticeNow}
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{Clock: clock.Now, ServiceOptions: []herdbook.Option{herdbook.WithRegistries(regs)}})
		owner, reader := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		n := &noticeFarm{app: app, owner: owner, reader: reader, farm: f.ID, base: "/v1/farm/" + f.ID.String()}
		res := app.Do("PUT", n.base+"/holding", owner.Token, cphHolding())
		if res.Status != 201 {
			t.Fatalf("holding: %d %s", res.Status, res.Body)
		}
		creds := "/v1/holdings/" + res.JSON(t)["id"].(string) + "/registry-credentials"

		// The registry's cattle: two cows and a steer on the holding, a heifer elsewhere.
		cow1, cow2, steer, heifer := ctsfake.UKTag("123456", 1), ctsfake.UKTag("123456", 2), ctsfake.UKTag("123456", 3), ctsfake.UKTag("654321", 201)
		fake.Cattle[cow1] = &ctsfake.Animal{Breed: "LIMX", Sex: "F", Dob: "2020-04-01", OnDate: "2020-04-01", Here: true}
		fake.Cattle[cow2] = &ctsfake.Animal{Breed: "AA", Sex: "F", Dob: "2021-03-10", OnDate: "2021-03-10", Here: true}
		fake.Cattle[steer] = &ctsfake.Animal{Breed: "LIMX", Sex: "M", Dob: "2024-04-01", OnDate: "2024-04-01", Here: true}
		fake.Cattle[heifer] = &ctsfake.Animal{Breed: "HER", Sex: "F", Dob: "2024-05-02"}
		ids := map[string]string{}
		for _, tag := range []string{cow1, cow2, steer, heifer, ctsfake.UKTag("999999", 7)} {
			ids[tag] = app.MustAnimal(owner, f.ID, tag).ID.String()
		}
		stray := ids[ctsfake.UKTag("999999", 7)]
		n.fact(t, map[string]any{"kind": "purchase", "animal_id": ids[heifer], "date": "2026-03-16", "holding_scheme": "uk.cph", "holding_number": "123456789"})
		n.fact(t, map[string]any{"kind": "sale", "animal_id": ids[cow2], "date": "2026-03-18"})
		n.fact(t, map[string]any{"kind": "death", "animal_id": ids[steer], "date": "2026-03-19", "disposal": "approved_service"})
		n.fact(t, map[string]any{"kind": "sale", "animal_id": stray, "date": "2026-03-18"})

		pass := func(want string) herdbook.OutboxResult {
			t.Helper()
			r, err := app.Service.SendNotices(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", want, err)
			}
			return r
		}
		state := func(animal, kind string) map[string]any {
			t.Helper()
			return n.notices(t, "")[kind+"/"+animal]
		}

		// No credentials: nothing is sent.
		if r := pass("no credentials"); r != (herdbook.OutboxResult{}) || fake.Calls != 0 {
			t.Fatalf("without credentials: %+v, %d calls", r, fake.Calls)
		}
		t.Run("Credentials", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("PUT", creds, owner.Token, `{"username":`), 400, "ValidationError", "")
			herdbooktest.WantEnvelope(t, app.Do("PUT", creds, owner.Token, map[string]any{"username": "123-456-789"}), 400, "ValidationError", "password")
			herdbooktest.WantEnvelope(t, app.Do("PUT", creds, owner.Token, map[string]any{"username": 5, "password": "x"}), 400, "ValidationError", "username")
			herdbooktest.WantEnvelope(t, app.Do("PUT", creds, owner.Token, map[string]any{"username": "u", "password": "x", "sending": "yes"}), 400, "ValidationError", "sending")
			herdbooktest.WantEnvelope(t, app.Do("PUT", creds, owner.Token, map[string]any{"username": "u", "password": ""}), 400, "ValidationError", "password")
			herdbooktest.WantEnvelope(t, app.Do("PUT", creds, owner.Token, map[string]any{"username": "u", "password": "x", "pin": 1}), 400, "ValidationError", "")
			if res := app.Do("PUT", creds, reader.Token, map[string]any{"username": "u", "password": "x"}); res.Status != 401 {
				t.Fatalf("a reader sets them: %d %s", res.Status, res.Body)
			}
			if res := app.Do("PUT", creds, "", map[string]any{"username": "u", "password": "x"}); res.Status != 401 {
				t.Fatalf("no auth: %d", res.Status)
			}
			stranger := app.MustUser()
			if res := app.Do("GET", creds, stranger.Token, nil); res.Status != 404 {
				t.Fatalf("a stranger reads: %d", res.Status)
			}
			if res := app.Do("GET", "/v1/holdings/"+uuid.NewString()+"/registry-credentials", owner.Token, nil); res.Status != 404 {
				t.Fatalf("unknown holding: %d", res.Status)
			}
			if res := app.Do("GET", creds, reader.Token, nil); res.Status != 404 {
				t.Fatalf("none yet: %d", res.Status)
			}
		})
		res = app.Do("PUT", creds, owner.Token, map[string]any{"username": fake.Keeper, "password": fake.KeeperPassword})
		if res.Status != 201 {
			t.Fatalf("credentials: %d %s", res.Status, res.Body)
		}
		if got := res.JSON(t); got["sending"] != false || got["adapter"] != "gb_cts" || strings.Contains(string(res.Body), fake.KeeperPassword) {
			t.Fatalf("credentials: %s", res.Body)
		}
		if r := pass("sending off"); r != (herdbook.OutboxResult{}) || fake.Calls != 0 {
			t.Fatalf("sending off: %+v", r)
		}
		res = app.Do("PUT", creds, owner.Token, map[string]any{"sending": true})
		if res.Status != 200 || res.JSON(t)["active"] != true || res.JSON(t)["username"] != fake.Keeper {
			t.Fatalf("sending on: %d %s", res.Status, res.Body)
		}
		if res := app.Do("GET", creds, reader.Token, nil); res.Status != 200 || strings.Contains(string(res.Body), fake.KeeperPassword) || strings.Contains(string(res.Body), "password") {
			t.Fatalf("a reader sees: %d %s", res.Status, res.Body)
		}

		// The registry is down: the batch waits, the notices stay unreported.
		fake.Fail = 1
		if r := pass("503"); r.Retried != 4 || r.Submitted != 0 {
			t.Fatalf("503: %+v", r)
		}
		if s := state(ids[heifer], "move_on"); s["state"] != "overdue" {
			t.Fatalf("after a failed send: %v", s)
		}
		if r := pass("before the backoff"); r != (herdbook.OutboxResult{}) {
			t.Fatalf("before the backoff: %+v", r)
		}
		clock.Add(2 * time.Minute)
		// The registry's copy says it has none of them: the batch goes again, once.
		if r := pass("retry"); r.Submitted != 4 {
			t.Fatalf("retry: %+v", r)
		}
		if s := state(ids[heifer], "move_on"); s["state"] != "sent" {
			t.Fatalf("sent: %v", s)
		}
		// CTWS806 first, then the answers.
		clock.Add(3 * time.Minute)
		if r := pass("not ready"); r.Answered != 0 {
			t.Fatalf("not ready: %+v", r)
		}
		clock.Add(10 * time.Minute)
		if r := pass("answers"); r.Answered != 4 {
			t.Fatalf("answers: %+v", r)
		}
		for _, k := range [][2]string{{ids[heifer], "move_on"}, {ids[cow2], "move_off"}, {ids[steer], "death"}} {
			if s := state(k[0], k[1]); s["state"] != "accepted" {
				t.Errorf("%s: %v", k[1], s)
			}
		}
		s := state(stray, "move_off")
		if sub, _ := s["submission"].(map[string]any); s["state"] != "rejected" || sub["cause"] != "Animal not found" || sub["channel"] != "gb_cts" {
			t.Fatalf("the stray's reject: %v", s)
		}
		if fake.Registered != 3 || fake.Batches() != 1 {
			t.Fatalf("the registry applied %d in %d batches", fake.Registered, fake.Batches())
		}

		// A node dies after the registry took its batch; another takes over after the lease.
		n.fact(t, map[string]any{"kind": "sale", "animal_id": ids[cow1], "date": "2026-03-20"})
		ctx, cancel := context.WithCancel(context.Background())
		crash.arm(cancel)
		if _, err := app.Service.SendNotices(ctx); err == nil {
			t.Fatal("the dying node's pass succeeded")
		}
		if fake.Registered != 4 || fake.Batches() != 2 {
			t.Fatalf("the registry has %d in %d batches", fake.Registered, fake.Batches())
		}
		other := herdbook.New(d.Client, herdbook.WithClock(clock.Now), herdbook.WithRegistries(regs))
		if r, err := other.SendNotices(context.Background()); err != nil || r != (herdbook.OutboxResult{}) {
			t.Fatalf("within the lease: %+v %v", r, err)
		}
		clock.Add(11 * time.Minute)
		if r, err := other.SendNotices(context.Background()); err != nil || r.Recovered != 1 || r.Submitted != 0 {
			t.Fatalf("taking over: %+v %v", r, err)
		}
		if fake.Registered != 4 || fake.Batches() != 2 {
			t.Fatalf("reported twice: %d in %d batches", fake.Registered, fake.Batches())
		}
		if s := state(ids[cow1], "move_off"); s["state"] != "accepted" {
			t.Fatalf("recovered: %v", s)
		}

		// The keeper's password changed at the registry: refused, kept with its cause, sent
		// again once the keeper saves the new one.
		back := app.MustAnimal(owner, f.ID, ctsfake.UKTag("654321", 202)).ID.String()
		fake.Cattle[ctsfake.UKTag("654321", 202)] = &ctsfake.Animal{Breed: "HER", Sex: "F", Dob: "2024-05-03"}
		n.fact(t, map[string]any{"kind": "purchase", "animal_id": back, "date": "2026-03-20"})
		fake.KeeperPassword = "changed"
		if r := pass("refused"); r.Refused != 1 {
			t.Fatalf("refused: %+v", r)
		}
		s = state(back, "move_on")
		if sub, _ := s["submission"].(map[string]any); s["state"] != "rejected" || !strings.Contains(sub["cause"].(string), "not recognised") {
			t.Fatalf("refused: %v", s)
		}
		clock.Add(time.Minute)
		if r := pass("not again"); r != (herdbook.OutboxResult{}) {
			t.Fatalf("sent again with the same credentials: %+v", r)
		}
		if res := app.Do("PUT", creds, owner.Token, map[string]any{"password": "changed"}); res.Status != 200 {
			t.Fatalf("new password: %d %s", res.Status, res.Body)
		}
		clock.Add(time.Minute)
		if r := pass("new password"); r.Submitted != 1 {
			t.Fatalf("new password: %+v", r)
		}
		clock.Add(5 * time.Minute)
		pass("poll")
		clock.Add(10 * time.Minute)
		pass("poll")
		if s := state(back, "move_on"); s["state"] != "accepted" {
			t.Fatalf("after new credentials: %v", s)
		}
		// Births go by another service: never sent here, still due for the keeper.
		if fake.Registered != 5 {
			t.Fatalf("the registry applied %d", fake.Registered)
		}
		// Reconciliation with the registry's copy read from CTS itself: its arrival date of
		// the heifer differs from the book's purchase, and it has a cow the book lacks.
		fake.Cattle[heifer].OnDate = "2026-03-15"
		fake.Cattle[ctsfake.UKTag("123456", 9)] = &ctsfake.Animal{Breed: "AA", Sex: "F", Dob: "2019-05-01", OnDate: "2019-05-01", Here: true}
		rec := n.base + "/reconciliation?as_of=2026-03-20"
		res = app.Do("POST", rec, owner.Token, map[string]any{"from_registry": true})
		if res.Status != 200 {
			t.Fatalf("reconciliation from the registry: %d %s", res.Status, res.Body)
		}
		diffs := map[string]string{}
		for _, d := range res.JSON(t)["differences"].([]any) {
			m := d.(map[string]any)
			diffs[m["tag"].(string)+"/"+m["kind"].(string)] = fmt.Sprint(m["field"], " ", m["registry"], " ", m["book"])
		}
		if _, ok := diffs[ctsfake.UKTag("123456", 9)+"/only_in_registry"]; len(diffs) != 2 || !ok || diffs[heifer+"/differs"] != "on_date 2026-03-15 2026-03-16" {
			t.Fatalf("differences %v", diffs)
		}
		if res := app.Do("POST", rec, reader.Token, map[string]any{"from_registry": true}); res.Status != 401 {
			t.Fatalf("a reader reads the registry in the keeper's name: %d %s", res.Status, res.Body)
		}
		herdbooktest.WantEnvelope(t, app.Do("POST", rec, owner.Token, map[string]any{"from_registry": true, "animals": []any{map[string]any{"tag": heifer}}}), 400, "ValidationError", "from_registry")
		herdbooktest.WantEnvelope(t, app.Do("POST", rec, owner.Token, map[string]any{"from_registry": "yes"}), 400, "ValidationError", "from_registry")
		herdbooktest.WantEnvelope(t, app.Do("POST", rec, owner.Token, map[string]any{}), 400, "ValidationError", "animals")
		fake.KeeperPassword = "changed again"
		herdbooktest.WantEnvelope(t, app.Do("POST", rec, owner.Token, map[string]any{"from_registry": true}), 409, "ConflictError", "")
		fake.KeeperPassword = "changed"

		if res := app.Do("DELETE", creds, owner.Token, nil); res.Status != 204 {
			t.Fatalf("delete: %d", res.Status)
		}
		if r := pass("deleted"); r != (herdbook.OutboxResult{}) {
			t.Fatalf("after delete: %+v", r)
		}
		herdbooktest.WantEnvelope(t, app.Do("POST", rec, owner.Token, map[string]any{"from_registry": true}), 409, "ConflictError", "")
	})
}

// TestRegistryCredentialsWithoutKey: a server whose operator gave no registry key keeps no
// keeper's password (409, saying why) and sends nothing.
func TestRegistryCredentialsWithoutKey(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		n := newNoticeFarm(t, d)
		creds := "/v1/holdings/" + n.holding + "/registry-credentials"
		res := n.app.Do("PUT", creds, n.owner.Token, map[string]any{"username": "123-456-789", "password": "secret", "sending": true})
		herdbooktest.WantEnvelope(t, res, 409, "ConflictError", "")
		if !strings.Contains(string(res.Body), "registry key") {
			t.Fatalf("409 without saying why: %s", res.Body)
		}
		if r, err := n.app.Service.SendNotices(context.Background()); err != nil || r != (herdbook.OutboxResult{}) {
			t.Fatalf("sending without a key: %+v %v", r, err)
		}
	})
}

// TestOutboxHITier (issue 29.3) sends a German season through the outbox to a fake HI-Tier
// (registry/hitier/hitierfake) on both databases, under de_hitier (Viehverkehrsverordnung
// § 29: within 7 days): a bought heifer's arrival and a calf's birth accepted, the birth with
// its sex, dam and breed code from the book (registry/breed maps the recorded
// "Holstein-Schwarzbunt" to RASSE 01); then the birth voided after it was reported: its
// correction goes as a Storno of the birth, dated by the birth, not by the void.
func TestOutboxHITier(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		const keeper, pin = "276090000000001", "900001"
		fake := hitierfake.New()
		fake.Accounts[keeper] = pin
		srv := httptest.NewServer(fake)
		t.Cleanup(srv.Close)
		regs, err := herdbook.NewRegistries([]byte(strings.Repeat("h", herdbook.RegistryKeySize)),
			map[string]registry.Adapter{"de.hitier.bnr": &hitier.Client{URL: srv.URL + "/api/hit"}})
		if err != nil {
			t.Fatal(err)
		}
		regs.WithBackoff(registry.Backoff{Base: time.Minute, Max: 10 * time.Minute}, 4)
		clock := &outboxClock{now: noticeNow}
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{Clock: clock.Now, ServiceOptions: []herdbook.Option{herdbook.WithRegistries(regs)}})
		owner := app.MustUser()
		f := app.MustFarm(owner, "Hof Sonnenwiese")
		n := &noticeFarm{app: app, owner: owner, reader: owner, farm: f.ID, base: "/v1/farm/" + f.ID.String()}
		res := app.Do("PUT", n.base+"/holding", owner.Token, map[string]any{"scheme": "de.hitier.bnr", "identifier": "09 000 000 0001",
			"keeper_name": "Anna Bauer", "rule_set": "de_hitier", "time_zone": "Europe/Berlin"})
		if res.Status != 201 {
			t.Fatalf("holding: %d %s", res.Status, res.Body)
		}
		creds := "/v1/holdings/" + res.JSON(t)["id"].(string) + "/registry-credentials"
		if res := app.Do("PUT", creds, owner.Token, map[string]any{"username": keeper, "password": pin, "sending": true}); res.Status != 201 {
			t.Fatalf("credentials: %d %s", res.Status, res.Body)
		}
		lom := func(tag string) string { return "27600" + strings.ReplaceAll(strings.TrimPrefix(tag, "DE "), " ", "") }
		cowTag, calfTag, heiferTag := "DE 09 123 00001", "DE 09 123 00010", "DE 05 777 00201"
		fake.Cattle[lom(cowTag)] = &hitierfake.Animal{Holding: keeper}
		fake.Cattle[lom(heiferTag)] = &hitierfake.Animal{Holding: "276051111100001"}
		cow, calf, heifer := app.MustAnimal(owner, f.ID, cowTag).ID.String(), app.MustAnimal(owner, f.ID, calfTag).ID.String(), app.MustAnimal(owner, f.ID, heiferTag).ID.String()
		n.fact(t, map[string]any{"kind": "profile", "animal_id": cow, "sex": "female", "birth_date": "2020-04-01"})
		n.fact(t, map[string]any{"kind": "profile", "animal_id": calf, "sex": "female", "birth_date": "2026-03-18", "breed": "Holstein-Schwarzbunt"})
		birth := n.fact(t, map[string]any{"kind": "birth", "dam_id": cow, "date": "2026-03-18", "offspring_ids": []string{calf}})
		n.fact(t, map[string]any{"kind": "purchase", "animal_id": heifer, "date": "2026-03-16", "holding_scheme": "de.hitier.bnr", "holding_number": "05 111 110 0001"})

		pass := func(what string) herdbook.OutboxResult {
			t.Helper()
			r, err := app.Service.SendNotices(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			return r
		}
		if r := pass("send"); r.Submitted != 2 {
			t.Fatalf("send: %+v (fake bodies %v)", r, fake.Bodies)
		}
		clock.Add(2 * time.Minute)
		if r := pass("answers"); r.Answered != 2 {
			t.Fatalf("answers: %+v", r)
		}
		for _, k := range []string{"birth/" + calf, "move_on/" + heifer} {
			if s := n.notices(t, "")[k]; s["state"] != "accepted" {
				t.Fatalf("%s: %v", k, s)
			}
		}
		if fake.Cattle[lom(calfTag)] == nil || fake.Cattle[lom(heiferTag)].Holding != keeper {
			t.Fatalf("the registry's cattle after the season: calf %v heifer %v", fake.Cattle[lom(calfTag)], fake.Cattle[lom(heiferTag)])
		}
		applied := fake.Applied

		// The birth is voided after it was reported: its correction withdraws it at HI-Tier.
		if res := app.Do("POST", n.base+"/records/"+birth+"/void", owner.Token, map[string]any{"reason": "recorded on the wrong farm"}); res.Status != 200 {
			t.Fatalf("void: %d %s", res.Status, res.Body)
		}
		if s := n.notices(t, "")["birth/"+calf]; s["state"] != "superseded" {
			t.Fatalf("the reported birth after its void: %v", s)
		}
		if r := pass("storno"); r.Submitted != 1 {
			t.Fatalf("storno: %+v", r)
		}
		clock.Add(2 * time.Minute)
		if r := pass("storno answered"); r.Answered != 1 {
			t.Fatalf("storno answered: %+v", r)
		}
		if s := n.notices(t, "")["correction/"+calf]; s["state"] != "accepted" {
			t.Fatalf("the correction: %v", s)
		}
		last := fake.Bodies[len(fake.Bodies)-1]
		if fake.Applied != applied+1 || !strings.Contains(last, lom(calfTag)) || !strings.Contains(last, "18.03.2026") {
			t.Fatalf("the storno: applied %d (was %d), body %s", fake.Applied, applied, last)
		}
		if r := pass("nothing left"); r != (herdbook.OutboxResult{}) {
			t.Fatalf("nothing left to send: %+v", r)
		}
	})
}
