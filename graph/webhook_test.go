package graph_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/webhook"
)

func TestWebhooksGraph(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Graph Farm")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		var hits atomic.Int32
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.WriteHeader(http.StatusOK)
		}))
		defer rc.Close()
		farm := f.ID.String()

		res := app.GraphQL(owner.Token, `mutation($f: ID!, $url: String!) { webhookCreate(input: {farmID: $f, url: $url, eventTypes: ["animal.created"], description: "ERP"}) {
			secret webhook { id url eventTypes enabled description } } }`, map[string]any{"f": farm, "url": rc.URL})
		wantNoErrors(t, res)
		hook := dig(t, res, "data.webhookCreate.webhook.id").(string)
		if s := dig(t, res, "data.webhookCreate.secret").(string); len(s) < 40 || s[:6] != "whsec_" {
			t.Fatalf("secret %q", s)
		}
		for name, c := range map[string]struct {
			token, query, code string
		}{
			"ErrEditor":    {editor.Token, `query($f: ID!) { webhooks(farmID: $f) { id } }`, "UNAUTHENTICATED"},
			"ErrEventType": {owner.Token, `mutation($f: ID!) { webhookCreate(input: {farmID: $f, url: "https://example.com", eventTypes: ["cow.mooed"]}) { secret } }`, "BAD_USER_INPUT"},
			"ErrScheme":    {owner.Token, `mutation($f: ID!) { webhookCreate(input: {farmID: $f, url: "gopher://example.com", eventTypes: ["farm.updated"]}) { secret } }`, "BAD_USER_INPUT"},
			"ErrNoAuth":    {"", `query($f: ID!) { webhooks(farmID: $f) { id } }`, "UNAUTHENTICATED"},
			"ErrScope":     {app.MustToken(owner.ID, herdbook.ScopeReadFarms), `mutation($f: ID!) { webhookDelete(input: {farmID: $f, id: "00000000-0000-4000-8000-000000000000"}) { deletedWebhookID } }`, "FORBIDDEN"},
			"ErrUnknown":   {owner.Token, `mutation($f: ID!) { webhookDelete(input: {farmID: $f, id: "00000000-0000-4000-8000-000000000000"}) { deletedWebhookID } }`, "NOT_FOUND"},
		} {
			t.Run(name, func(t *testing.T) {
				if got := errorCode(app.GraphQL(c.token, c.query, map[string]any{"f": farm})); got != c.code {
					t.Fatalf("code %q, want %q", got, c.code)
				}
			})
		}
		if res := app.GraphQL(owner.Token, `query($f: ID!) { webhook(farmID: $f, id: "00000000-0000-4000-8000-000000000000") { id } }`, map[string]any{"f": farm}); dig(t, res, "data.webhook") != nil {
			t.Fatalf("unknown webhook: %v", res)
		}

		app.MustAnimal(owner, f.ID, "G-1")
		w := &webhook.Worker{Service: app.Service, Sender: &webhook.Sender{AllowPrivate: true}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		if err := w.Tick(context.Background()); err != nil || hits.Load() != 1 {
			t.Fatalf("tick: %v, %d hits", err, hits.Load())
		}
		const deliveries = `query($f: ID!, $h: ID!) { webhookDeliveries(farmID: $f, webhookID: $h, status: SUCCEEDED) { totalCount nodes {
			id eventType status attempts payload attemptLog { statusCode durationMs } } } }`
		res = app.GraphQL(owner.Token, deliveries, map[string]any{"f": farm, "h": hook})
		wantNoErrors(t, res)
		if dig(t, res, "data.webhookDeliveries.totalCount") != float64(1) || dig(t, res, "data.webhookDeliveries.nodes.0.eventType") != "animal.created" ||
			dig(t, res, "data.webhookDeliveries.nodes.0.payload.data.tag") != "G-1" || dig(t, res, "data.webhookDeliveries.nodes.0.attemptLog.0.statusCode") != float64(200) {
			t.Fatalf("deliveries %v", res)
		}
		delivery := dig(t, res, "data.webhookDeliveries.nodes.0.id").(string)
		res = app.GraphQL(owner.Token, `mutation($f: ID!, $h: ID!, $d: ID!) { webhookDeliveryReplay(input: {farmID: $f, webhookID: $h, deliveryID: $d}) { delivery { status attempts } } }`,
			map[string]any{"f": farm, "h": hook, "d": delivery})
		wantNoErrors(t, res)
		if dig(t, res, "data.webhookDeliveryReplay.delivery.status") != "PENDING" {
			t.Fatalf("replay %v", res)
		}
		res = app.GraphQL(owner.Token, `mutation($f: ID!, $h: ID!) { webhookUpdate(input: {farmID: $f, id: $h, description: null, enabled: false}) { webhook { description enabled } } }`,
			map[string]any{"f": farm, "h": hook})
		wantNoErrors(t, res)
		if dig(t, res, "data.webhookUpdate.webhook.description") != nil || dig(t, res, "data.webhookUpdate.webhook.enabled") != false {
			t.Fatalf("update %v", res)
		}
		res = app.GraphQL(owner.Token, `mutation($f: ID!, $h: ID!) { webhookDelete(input: {farmID: $f, id: $h}) { deletedWebhookID } }`, map[string]any{"f": farm, "h": hook})
		wantNoErrors(t, res)
		if res := app.GraphQL(owner.Token, `query($f: ID!) { webhooks(farmID: $f) { id } }`, map[string]any{"f": farm}); len(dig(t, res, "data.webhooks").([]any)) != 0 {
			t.Fatalf("after delete %v", res)
		}
	})
}
