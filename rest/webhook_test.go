package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/webhook"
)

// receiver is a webhook endpoint for tests. It verifies every request with the official
// Standard Webhooks library (an implementation of the specification independent of ours)
// and answers with the statuses it is given in turn, then 204.
type receiver struct {
	t       testing.TB
	srv     *httptest.Server
	secret  string
	mu      sync.Mutex
	answers []int
	got     []received
	bad     []string
}

type received struct {
	ID      string
	Payload map[string]any
	At      time.Time
}

func newReceiver(t testing.TB, answers ...int) *receiver {
	rc := &receiver{t: t, answers: answers}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	wh, err := standardwebhooks.NewWebhook(rc.secret)
	if err == nil {
		err = wh.Verify(body, r.Header)
	}
	if err != nil {
		rc.bad = append(rc.bad, err.Error())
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var p map[string]any
	_ = json.Unmarshal(body, &p)
	rc.got = append(rc.got, received{ID: r.Header.Get("webhook-id"), Payload: p, At: time.Now()})
	status := http.StatusNoContent
	if len(rc.answers) > 0 {
		status, rc.answers = rc.answers[0], rc.answers[1:]
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte("answer " + http.StatusText(status)))
}

func (rc *receiver) received() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.bad) > 0 {
		rc.t.Fatalf("signatures the official verifier refused: %v", rc.bad)
	}
	return append([]received(nil), rc.got...)
}

// hookSetup is a farm with an OWNER, an EDITOR, a READER and an animal.
type hookSetup struct {
	app                   *herdbooktest.App
	owner, editor, reader herdbooktest.User
	farm, animal          string
	base                  string
}

func newHookSetup(t *testing.T, d *db.DB, opts ...herdbooktest.Options) hookSetup {
	app := herdbooktest.NewApp(t, d, opts...)
	s := hookSetup{app: app, owner: app.MustUser(), editor: app.MustUser(), reader: app.MustUser()}
	f := app.MustFarm(s.owner, "Hill Farm")
	app.MustMember(f.ID, s.editor, herdbook.RoleEditor)
	app.MustMember(f.ID, s.reader, herdbook.RoleReader)
	s.farm = f.ID.String()
	s.animal = app.MustAnimal(s.owner, f.ID, "C-17").ID.String()
	s.base = "/v1/farm/" + s.farm + "/webhooks"
	return s
}

// register creates a webhook of rc for the event types and returns its id.
func (s hookSetup) register(t *testing.T, rc *receiver, types ...string) string {
	t.Helper()
	res := s.app.Do("POST", s.base, s.owner.Token, map[string]any{"url": rc.srv.URL + "/hook", "event_types": types})
	if res.Status != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	rc.secret = body["secret"].(string)
	return body["webhook"].(map[string]any)["id"].(string)
}

func (s hookSetup) createRecord(t *testing.T, name string) string {
	t.Helper()
	res := s.app.Do("POST", "/v1/farm/"+s.farm+"/records", s.editor.Token, map[string]any{
		"name": name, "type": "HEALTH", "applied_at": "2026-03-10T08:00:00Z", "animal_ids": []string{s.animal}})
	if res.Status != http.StatusCreated {
		t.Fatalf("create record: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["id"].(string)
}

func (s hookSetup) worker(name string, schedule ...time.Duration) *webhook.Worker {
	if schedule == nil {
		schedule = []time.Duration{}
	}
	return &webhook.Worker{Service: s.app.Service, ID: name, Sender: &webhook.Sender{AllowPrivate: true, Timeout: 5 * time.Second},
		Retry: herdbook.WebhookRetry{Schedule: schedule}, Batch: 10, Parallel: 4, Logger: quietLogger()}
}

func (s hookSetup) deliveries(t *testing.T, hook, query string) []map[string]any {
	t.Helper()
	res := s.app.Do("GET", s.base+"/"+hook+"/deliveries"+query, s.owner.Token, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("deliveries: %d %s", res.Status, res.Body)
	}
	var out []map[string]any
	for _, d := range res.JSON(t)["records"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

func TestWebhookCRUD(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		res := s.app.Do("POST", s.base, s.owner.Token, map[string]any{
			"url": "https://example.com/hooks/herdbook", "event_types": []string{"record.updated", "record.created", "record.created"},
			"description": "Our ERP"})
		if res.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		created := res.JSON(t)
		secret := created["secret"].(string)
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("secret %q has no whsec_ prefix", secret)
		}
		if key, err := webhook.Key(secret); err != nil || len(key) != 32 {
			t.Fatalf("secret decodes to %d bytes (%v), want 32", len(key), err)
		}
		hook := created["webhook"].(map[string]any)
		id := hook["id"].(string)
		if got := hook["event_types"].([]any); len(got) != 2 || got[0] != "record.created" || got[1] != "record.updated" {
			t.Fatalf("event_types %v, want the two types once each, sorted", got)
		}
		if hook["enabled"] != true || hook["farm_id"] != s.farm || hook["description"] != "Our ERP" {
			t.Fatalf("webhook %v", hook)
		}
		if strings.Contains(string(s.app.Do("GET", s.base+"/"+id, s.owner.Token, nil).Body), secret) {
			t.Fatal("the secret is shown again after creation")
		}
		list := s.app.Do("GET", s.base, s.owner.Token, nil).JSON(t)
		if list["total"] != float64(1) || len(list["records"].([]any)) != 1 {
			t.Fatalf("list %v", list)
		}
		res = s.app.Do("PUT", s.base+"/"+id, s.owner.Token, map[string]any{"event_types": []string{"farm.deleted"}, "description": nil, "enabled": false})
		if res.Status != http.StatusOK {
			t.Fatalf("update: %d %s", res.Status, res.Body)
		}
		hook = res.JSON(t)["webhook"].(map[string]any)
		if hook["description"] != nil || hook["enabled"] != false || hook["event_types"].([]any)[0] != "farm.deleted" || hook["url"] != "https://example.com/hooks/herdbook" {
			t.Fatalf("after update %v", hook)
		}
		if res := s.app.Do("DELETE", s.base+"/"+id, s.owner.Token, nil); res.Status != http.StatusNoContent {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		herdbooktest.WantEnvelope(t, s.app.Do("GET", s.base+"/"+id, s.owner.Token, nil), 404, "ServiceError", "not found")
		herdbooktest.WantEnvelope(t, s.app.Do("DELETE", s.base+"/"+id, s.owner.Token, nil), 404, "ServiceError", "not found")
	})
}

func TestWebhookBadInput(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		rc := newReceiver(t)
		hook := s.register(t, rc, "record.created")
		s.createRecord(t, "Vaccination")
		delivery := s.deliveries(t, hook, "")[0]["id"].(string)
		strangerApp := s.app.MustUser()
		otherFarm := s.app.MustFarm(strangerApp, "Other Farm").ID.String()
		otherHook := s.app.Do("POST", "/v1/farm/"+otherFarm+"/webhooks", strangerApp.Token,
			map[string]any{"url": "https://example.com/x", "event_types": []string{"farm.updated"}}).JSON(t)["webhook"].(map[string]any)["id"].(string)
		farmsOnly := s.app.MustToken(s.owner.ID, herdbook.ScopeReadFarms, herdbook.ScopeWriteFarms)
		readOnly := s.app.MustToken(s.owner.ID, herdbook.ScopeReadFarms, herdbook.ScopeReadRecords)
		good := map[string]any{"url": "https://example.com/h", "event_types": []string{"record.created"}}
		one := s.base + "/" + hook
		cases := []struct {
			name, method, path, token string
			body                      any
			status                    int
			errName, want             string
		}{
			{"ErrNoAuth", "POST", s.base, "", good, 401, "Unauthorized", "authentication"},
			{"ErrNoAuthList", "GET", s.base, "", nil, 401, "Unauthorized", ""},
			{"ErrNoAuthBadID", "GET", s.base + "/nope", "", nil, 401, "Unauthorized", ""},
			{"ErrScopeWrite", "POST", s.base, readOnly, good, 403, "ForbiddenError", "write:farms"},
			{"ErrScopeEvents", "POST", s.base, farmsOnly, good, 403, "ForbiddenError", "read:records"},
			{"ErrScopeEventsUpdate", "PUT", one, farmsOnly, map[string]any{"event_types": []string{"animal.created"}}, 403, "ForbiddenError", "read:animals"},
			{"ErrRoleEditor", "POST", s.base, s.editor.Token, good, 401, "Unauthorized", "OWNER"},
			{"ErrRoleReaderList", "GET", s.base, s.reader.Token, nil, 401, "Unauthorized", "OWNER"},
			{"ErrRoleEditorDeliveries", "GET", one + "/deliveries", s.editor.Token, nil, 401, "Unauthorized", "OWNER"},
			{"ErrOtherFarm", "GET", "/v1/farm/" + otherFarm + "/webhooks", s.owner.Token, nil, 404, "ServiceError", "not found"},
			{"ErrOtherFarmsWebhook", "GET", s.base + "/" + otherHook, s.owner.Token, nil, 404, "ServiceError", "webhook"},
			{"ErrOtherFarmsWebhookPut", "PUT", s.base + "/" + otherHook, s.owner.Token, map[string]any{"enabled": false}, 404, "ServiceError", "webhook"},
			{"ErrOtherFarmsWebhookDelete", "DELETE", s.base + "/" + otherHook, s.owner.Token, nil, 404, "ServiceError", "webhook"},
			{"ErrUnknownWebhook", "GET", s.base + "/00000000-0000-4000-8000-000000000000", s.owner.Token, nil, 404, "ServiceError", "webhook"},
			{"ErrUnknownFarm", "POST", "/v1/farm/00000000-0000-4000-8000-000000000000/webhooks", s.owner.Token, good, 404, "ServiceError", "farm"},
			{"ErrMalformedID", "GET", s.base + "/nope", s.owner.Token, nil, 400, "ValidationError", "webhook_id: must be a UUID"},
			{"ErrMalformedDeliveryID", "POST", one + "/deliveries/nope/replay", s.owner.Token, nil, 400, "ValidationError", "delivery_id: must be a UUID"},
			{"ErrMalformedJSON", "POST", s.base, s.owner.Token, `{"url": "https://example.com",`, 400, "ValidationError", "body"},
			{"ErrNotObject", "POST", s.base, s.owner.Token, `["https://example.com"]`, 400, "ValidationError", "body"},
			{"ErrURLType", "POST", s.base, s.owner.Token, map[string]any{"url": 5, "event_types": []string{"record.created"}}, 400, "ValidationError", "url: must be"},
			{"ErrTypesType", "POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com", "event_types": "record.created"}, 400, "ValidationError", "event_types"},
			{"ErrTypesItemType", "POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com", "event_types": []any{7}}, 400, "ValidationError", "event_types"},
			{"ErrEnabledType", "POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com", "event_types": []string{"farm.updated"}, "enabled": "yes"}, 400, "ValidationError", "enabled"},
			{"ErrUnknownField", "POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com", "event_types": []string{"farm.updated"}, "secret": "whsec_x"}, 400, "ValidationError", "secret: is not a known field"},
			{"ErrMissingURL", "POST", s.base, s.owner.Token, map[string]any{"event_types": []string{"farm.updated"}}, 400, "ValidationError", "url: is required"},
			{"ErrMissingTypes", "POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com"}, 400, "ValidationError", "event_types: is required"},
			{"ErrEmptyTypes", "POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com", "event_types": []string{}}, 400, "ValidationError", "at least one"},
			{"ErrUnknownType", "POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com", "event_types": []string{"farm.updated", "record.exploded"}}, 400, "ValidationError", "event_types[1]"},
			{"ErrScheme", "POST", s.base, s.owner.Token, map[string]any{"url": "ftp://example.com/x", "event_types": []string{"farm.updated"}}, 400, "ValidationError", "url: must use http or https"},
			{"ErrRelativeURL", "POST", s.base, s.owner.Token, map[string]any{"url": "/hooks", "event_types": []string{"farm.updated"}}, 400, "ValidationError", "url:"},
			{"ErrUserInfo", "POST", s.base, s.owner.Token, map[string]any{"url": "https://user:pw@example.com/", "event_types": []string{"farm.updated"}}, 400, "ValidationError", "user name"},
			{"ErrURLTooLong", "POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com/" + strings.Repeat("a", 2000), "event_types": []string{"farm.updated"}}, 400, "ValidationError", "2000"},
			{"ErrDescriptionTooLong", "POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com", "event_types": []string{"farm.updated"}, "description": strings.Repeat("d", 501)}, 400, "ValidationError", "description"},
			{"ErrNullURL", "PUT", one, s.owner.Token, map[string]any{"url": nil}, 400, "ValidationError", "url: may be left out but not null"},
			{"ErrNullTypes", "PUT", one, s.owner.Token, map[string]any{"event_types": nil}, 400, "ValidationError", "event_types: may be left out"},
			{"ErrEmptyTypesUpdate", "PUT", one, s.owner.Token, map[string]any{"event_types": []string{}}, 400, "ValidationError", "at least one"},
			{"ErrDeliveryStatus", "GET", one + "/deliveries?status=sent", s.owner.Token, nil, 400, "ValidationError", "status"},
			{"ErrDeliveryTake", "GET", one + "/deliveries?take=-1", s.owner.Token, nil, 400, "ValidationError", "take"},
			{"ErrDeliverySkip", "GET", one + "/deliveries?skip=x", s.owner.Token, nil, 400, "ValidationError", "skip"},
			{"ErrDeliveriesOtherWebhook", "GET", s.base + "/" + otherHook + "/deliveries", s.owner.Token, nil, 404, "ServiceError", "webhook"},
			{"ErrReplayUnknown", "POST", one + "/deliveries/00000000-0000-4000-8000-000000000000/replay", s.owner.Token, nil, 404, "ServiceError", "delivery"},
			{"ErrReplayOtherWebhook", "POST", s.base + "/" + otherHook + "/deliveries/" + delivery + "/replay", s.owner.Token, nil, 404, "ServiceError", "webhook"},
			{"ErrReplayRole", "POST", one + "/deliveries/" + delivery + "/replay", s.editor.Token, nil, 401, "Unauthorized", "OWNER"},
			{"ErrReplayScope", "POST", one + "/deliveries/" + delivery + "/replay", readOnly, nil, 403, "ForbiddenError", "write:farms"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, s.app.Do(c.method, c.path, c.token, c.body), c.status, c.errName, c.want)
			})
		}
		t.Run("ErrPrivateAddress", func(t *testing.T) {
			strict := herdbook.New(d.Client) // production default: private addresses refused
			for _, url := range []string{"http://127.0.0.1:8080/x", "http://[::1]/x", "http://10.1.2.3/x", "http://169.254.169.254/latest/meta-data",
				"http://localhost/x", "http://192.168.1.1/", "http://[::ffff:127.0.0.1]/", "http://100.64.0.1/"} {
				_, _, err := strict.CreateWebhook(s.app.Ctx(s.owner), mustUUID(t, s.farm), herdbook.WebhookInput{URL: url, EventTypes: []string{"farm.updated"}})
				if herdbook.ErrorCode(err) != herdbook.EINVALID || !strings.Contains(err.Error(), "private") {
					t.Errorf("%s: %v, want a validation error about private addresses", url, err)
				}
			}
		})
		t.Run("ErrTooMany", func(t *testing.T) {
			for i := 1; i < herdbook.MaxWebhooksPerFarm; i++ {
				if res := s.app.Do("POST", s.base, s.owner.Token, map[string]any{"url": "https://example.com/", "event_types": []string{"farm.updated"}}); res.Status != 201 {
					t.Fatalf("webhook %d: %d %s", i, res.Status, res.Body)
				}
			}
			herdbooktest.WantEnvelope(t, s.app.Do("POST", s.base, s.owner.Token, good), 409, "ConflictError", "at most")
		})
	})
}

// TestWebhookDelivery follows one change from the REST write to the receiver: the event is
// in the outbox when the write answers, the worker signs and posts it, the official
// verifier accepts it, and the delivery log shows the attempt.
func TestWebhookDelivery(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		rc := newReceiver(t)
		hook := s.register(t, rc, "record.created", "record.deleted", "farm.updated")
		s.register(t, newReceiver(t), "animal.created") // hears nothing of this test
		rec := s.createRecord(t, "Vaccination")
		if res := s.app.Do("DELETE", "/v1/farm/"+s.farm+"/records/"+rec, s.owner.Token, nil); res.Status != 204 {
			t.Fatalf("delete record: %d", res.Status)
		}
		if res := s.app.Do("PUT", "/v1/farm/"+s.farm+"/records/"+rec, s.owner.Token, map[string]any{"name": "x"}); res.Status != 404 {
			t.Fatalf("update of a deleted record: %d", res.Status)
		}
		pending := s.deliveries(t, hook, "?status=PENDING")
		if len(pending) != 2 || pending[0]["event_type"] != "record.created" || pending[1]["event_type"] != "record.deleted" {
			t.Fatalf("outbox before delivery: %v", pending)
		}
		if err := s.worker("w1").Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := rc.received()
		if len(got) != 2 {
			t.Fatalf("%d webhooks received, want 2", len(got))
		}
		// Deliveries go out in parallel: order is not promised (the timestamp tells).
		if got[0].Payload["type"] != "record.created" {
			got[0], got[1] = got[1], got[0]
		}
		p := got[0].Payload
		data := p["data"].(map[string]any)
		if p["type"] != "record.created" || data["id"] != rec || data["farm_id"] != s.farm || data["name"] != "Vaccination" || data["is_active"] != true {
			t.Fatalf("payload %v", p)
		}
		if _, err := time.Parse(time.RFC3339Nano, p["timestamp"].(string)); err != nil {
			t.Fatalf("timestamp %v: %v", p["timestamp"], err)
		}
		if del := got[1].Payload; del["type"] != "record.deleted" || del["data"].(map[string]any)["is_active"] != false {
			t.Fatalf("deletion payload %v", del)
		}
		ds := s.deliveries(t, hook, "") // oldest first: record.created
		for _, dl := range ds {
			log := dl["attempt_log"].([]any)
			if dl["status"] != "SUCCEEDED" || dl["next_attempt_at"] != nil || len(log) != 1 || log[0].(map[string]any)["status_code"] != float64(204) {
				t.Fatalf("delivery %v", dl)
			}
		}
		if got[0].ID != ds[0]["event_id"] {
			t.Fatalf("webhook-id %s, want the event id %s", got[0].ID, ds[0]["event_id"])
		}
		// A farm change reaches the farm.updated subscriber; a rename that fails writes nothing.
		if res := s.app.Do("PUT", "/v1/farm/"+s.farm, s.owner.Token, map[string]any{"name": "X"}); res.Status != 400 {
			t.Fatalf("bad rename: %d", res.Status)
		}
		if res := s.app.Do("PUT", "/v1/farm/"+s.farm, s.owner.Token, map[string]any{"name": "Hill Farm East"}); res.Status != 200 {
			t.Fatalf("rename: %d", res.Status)
		}
		if err := s.worker("w1").Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := rc.received(); len(got) != 3 || got[2].Payload["type"] != "farm.updated" || got[2].Payload["data"].(map[string]any)["name"] != "Hill Farm East" {
			t.Fatalf("after the rename: %v", got)
		}
	})
}

// TestWebhookRolledBackChangeSendsNothing runs a GraphQL operation whose second field fails:
// the whole operation rolls back, and with it the first field's event.
func TestWebhookRolledBackChangeSendsNothing(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		rc := newReceiver(t)
		hook := s.register(t, rc, "animal.created")
		out := s.app.GraphQL(s.owner.Token, `mutation($farm: ID!) {
			a: createAnimal(farmID: $farm, input: {tag: "C-18"}) { id }
			b: createAnimal(farmID: $farm, input: {tag: ""}) { id }
		}`, map[string]any{"farm": s.farm})
		if out["errors"] == nil {
			t.Fatalf("the second field should fail: %v", out)
		}
		if ds := s.deliveries(t, hook, ""); len(ds) != 0 {
			t.Fatalf("a rolled-back change left deliveries: %v", ds)
		}
		out = s.app.GraphQL(s.owner.Token, `mutation($farm: ID!) { createAnimal(farmID: $farm, input: {tag: "C-19"}) { id } }`, map[string]any{"farm": s.farm})
		if out["errors"] != nil {
			t.Fatal(out)
		}
		if ds := s.deliveries(t, hook, ""); len(ds) != 1 {
			t.Fatalf("%d deliveries after a committed change, want 1", len(ds))
		}
	})
}

// TestWebhookRetriesAndReplay fails the first two attempts, checks the back-off between
// them, the log, then replays the delivered webhook under the same webhook-id.
func TestWebhookRetriesAndReplay(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		rc := newReceiver(t, 503, 500)
		hook := s.register(t, rc, "record.created")
		s.createRecord(t, "Weighing")
		w := s.worker("retrier", 300*time.Millisecond, 600*time.Millisecond, time.Hour)
		ctx := context.Background()
		deadline := time.Now().Add(30 * time.Second)
		for len(rc.received()) < 3 && time.Now().Before(deadline) {
			if err := w.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		got := rc.received()
		if len(got) != 3 {
			t.Fatalf("%d attempts, want 3", len(got))
		}
		if gap := got[1].At.Sub(got[0].At); gap < 300*time.Millisecond {
			t.Fatalf("second attempt %s after the first, want at least the 300ms back-off", gap)
		}
		if gap := got[2].At.Sub(got[1].At); gap < 600*time.Millisecond {
			t.Fatalf("third attempt %s after the second, want at least the 600ms back-off", gap)
		}
		if got[0].ID != got[1].ID || got[1].ID != got[2].ID {
			t.Fatalf("retries changed the webhook-id: %s %s %s", got[0].ID, got[1].ID, got[2].ID)
		}
		ds := s.deliveries(t, hook, "")
		if len(ds) != 1 || ds[0]["status"] != "SUCCEEDED" || ds[0]["attempts"] != float64(3) || ds[0]["last_status_code"] != float64(204) {
			t.Fatalf("delivery %v", ds)
		}
		log := ds[0]["attempt_log"].([]any)
		var codes []float64
		for _, a := range log {
			codes = append(codes, a.(map[string]any)["status_code"].(float64))
		}
		if len(codes) != 3 || codes[0] != 503 || codes[1] != 500 || codes[2] != 204 || log[0].(map[string]any)["error"] == nil {
			t.Fatalf("attempt log %v", log)
		}

		id := ds[0]["id"].(string)
		res := s.app.Do("POST", s.base+"/"+hook+"/deliveries/"+id+"/replay", s.owner.Token, nil)
		if res.Status != http.StatusAccepted {
			t.Fatalf("replay: %d %s", res.Status, res.Body)
		}
		if dl := res.JSON(t)["delivery"].(map[string]any); dl["status"] != "PENDING" || dl["attempts"] != float64(0) {
			t.Fatalf("replayed delivery %v", dl)
		}
		if err := w.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rc.received(); len(got) != 4 || got[3].ID != got[0].ID {
			t.Fatalf("replay: %d received, ids %v", len(got), got)
		}
		ds = s.deliveries(t, hook, "")
		if ds[0]["status"] != "SUCCEEDED" || len(ds[0]["attempt_log"].([]any)) != 4 {
			t.Fatalf("after replay %v", ds[0])
		}
	})
}

// TestWebhookGoneAndExhausted: a 410 disables the endpoint at once; a receiver that keeps
// failing exhausts the schedule and the delivery FAILs; replay refuses a disabled webhook.
func TestWebhookGoneAndExhausted(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		gone := newReceiver(t, 410)
		goneHook := s.register(t, gone, "record.created")
		failing := newReceiver(t, 500, 500)
		failingHook := s.register(t, failing, "record.created")
		s.createRecord(t, "Weighing")
		w := s.worker("w", 10*time.Millisecond)
		for range 20 {
			if err := w.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(failing.received()) == 2 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if ds := s.deliveries(t, failingHook, ""); ds[0]["status"] != "FAILED" || ds[0]["attempts"] != float64(2) || ds[0]["last_error"] == nil {
			t.Fatalf("exhausted delivery %v", ds[0])
		}
		if len(gone.received()) != 1 {
			t.Fatalf("the 410 endpoint got %d attempts, want 1", len(gone.received()))
		}
		g := s.app.Do("GET", s.base+"/"+goneHook, s.owner.Token, nil).JSON(t)["webhook"].(map[string]any)
		if g["enabled"] != false || !strings.Contains(g["disabled_reason"].(string), "410") {
			t.Fatalf("after 410: %v", g)
		}
		ds := s.deliveries(t, goneHook, "")
		herdbooktest.WantEnvelope(t, s.app.Do("POST", s.base+"/"+goneHook+"/deliveries/"+ds[0]["id"].(string)+"/replay", s.owner.Token, nil),
			409, "ConflictError", "disabled")
		// Nothing is queued for a disabled endpoint's farm changes… until it is enabled.
		s.createRecord(t, "Second")
		res := s.app.Do("PUT", s.base+"/"+goneHook, s.owner.Token, map[string]any{"enabled": true})
		if res.JSON(t)["webhook"].(map[string]any)["disabled_reason"] != nil {
			t.Fatalf("enabling kept the reason: %s", res.Body)
		}
		if ds := s.deliveries(t, goneHook, ""); len(ds) != 1 {
			t.Fatalf("a disabled webhook was queued a change: %d deliveries", len(ds))
		}
	})
}

// TestWebhookExactlyOnceTwoWorkers has two workers with their own ids race over the same
// outbox: every webhook arrives once.
func TestWebhookExactlyOnceTwoWorkers(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		rc := newReceiver(t)
		hook := s.register(t, rc, "animal.created", "record.created")
		const n = 60
		for i := range n / 2 {
			s.createRecord(t, "R"+string(rune('A'+i%26)))
			s.app.MustAnimal(s.owner, mustUUID(t, s.farm), "T-"+string(rune('A'+i%26))+string(rune('a'+i/26)))
		}
		var wg sync.WaitGroup
		var failures atomic.Int64
		for _, name := range []string{"node-a", "node-b"} {
			wg.Add(1)
			go func(w *webhook.Worker) {
				defer wg.Done()
				w.Batch = 7
				if err := w.Tick(context.Background()); err != nil {
					failures.Add(1)
					t.Error(err)
				}
			}(s.worker(name))
		}
		wg.Wait()
		got := rc.received()
		seen := map[string]int{}
		for _, r := range got {
			seen[r.ID]++
		}
		if len(got) != n || len(seen) != n {
			t.Fatalf("%d webhooks received, %d distinct, want %d once each", len(got), len(seen), n)
		}
		res := s.app.Do("GET", s.base+"/"+hook+"/deliveries?status=SUCCEEDED&take=0", s.owner.Token, nil)
		if res.JSON(t)["total"] != float64(n) {
			t.Fatalf("succeeded deliveries: %s", res.Body)
		}
	})
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func mustUUID(t testing.TB, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestWebhookDeliveryListQueryCount: the delivery list costs the same for 2 rows as for 20.
func TestWebhookDeliveryListQueryCount(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		hook := s.register(t, newReceiver(t), "record.created")
		for i := range 20 {
			s.createRecord(t, fmt.Sprintf("R%d", i))
		}
		counts := map[int]int64{}
		for _, take := range []int{2, 20} {
			counts[take] = s.app.Queries(func() {
				if n := len(s.deliveries(t, hook, fmt.Sprintf("?take=%d", take))); n != take {
					t.Fatalf("%d deliveries, want %d", n, take)
				}
			})
		}
		if counts[2] != counts[20] {
			t.Fatalf("queries grow with the page: %v", counts)
		}
		t.Logf("delivery list: %d queries for any page size", counts[20])
	})
}

// BenchmarkRecordCreateREST measures what change tracking costs a write: a record created
// over REST in a farm without webhooks, and in one whose webhook hears record.created (the
// outbox rows are written in the request; delivery is not measured).
func BenchmarkRecordCreateREST(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		for _, listening := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/webhook=%v", dia, listening), func(b *testing.B) {
				app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
				u := app.MustUser()
				f := app.MustFarm(u, "Bench")
				animal := app.MustAnimal(u, f.ID, "B-1").ID.String()
				if listening {
					if res := app.Do("POST", "/v1/farm/"+f.ID.String()+"/webhooks", u.Token,
						map[string]any{"url": "https://example.com/h", "event_types": []string{"record.created"}}); res.Status != 201 {
						b.Fatal(res.Status)
					}
				}
				body := map[string]any{"name": "Weighing", "type": "HEALTH", "applied_at": "2026-03-10T08:00:00Z", "animal_ids": []string{animal}}
				path := "/v1/farm/" + f.ID.String() + "/records"
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if res := app.Do("POST", path, u.Token, body); res.Status != 201 {
						b.Fatal(res.Status)
					}
				}
			})
		}
	}
}
