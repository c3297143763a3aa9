package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func TestAdminWebhookTest(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			var secret atomic.Value
			var status atomic.Int32
			status.Store(http.StatusOK)
			receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				wh, err := standardwebhooks.NewWebhook(secret.Load().(string))
				if err == nil {
					err = wh.Verify(body, r.Header)
				}
				var p map[string]any
				if err == nil {
					err = json.Unmarshal(body, &p)
				}
				if err != nil || p["type"] != "webhook.test" {
					http.Error(w, "bad signature or payload", http.StatusUnauthorized)
					return
				}
				w.WriteHeader(int(status.Load()))
				_, _ = w.Write([]byte("thanks"))
			}))
			defer receiver.Close()
			c := newCLI(t, dia)
			u := c.mustJSON("a very long password\n", "admin", "user", "create", "--phone", "+4790000021", "--password-stdin")
			farm := c.mustJSON("", "admin", "seed", "--owner", "+4790000021", "--farms", "1", "--animals", "1", "--groups", "1", "--records", "1", "--items", "1")["farm_ids"].([]any)[0].(string)
			url := receiver.URL + "/hooks"

			t.Run("ErrPrivateAddressRefused", func(t *testing.T) {
				if _, err := c.run("", "admin", "webhook", "test", "--farm", farm, "--url", url, "--secret", herdbook.NewWebhookSecret()); err == nil || !strings.Contains(err.Error(), "private") {
					t.Fatalf("err %v", err)
				}
			})
			c.env = map[string]string{"HERDBOOK_WEBHOOK_ALLOW_PRIVATE": "true"}
			t.Run("ErrNoWebhook", func(t *testing.T) {
				if _, err := c.run("", "admin", "webhook", "test", "--farm", farm, "--url", url); err == nil || !strings.Contains(err.Error(), "register the webhook") {
					t.Fatalf("err %v", err)
				}
			})
			t.Run("OKSecretFlag", func(t *testing.T) {
				s := herdbook.NewWebhookSecret()
				secret.Store(s)
				out := c.mustJSON("", "admin", "webhook", "test", "--farm", farm, "--url", url, "--secret", s)
				if out["status_code"] != float64(200) || out["response"] != "thanks" || !strings.HasPrefix(out["webhook_id"].(string), "test_") {
					t.Fatalf("out %v", out)
				}
			})
			t.Run("OKRegisteredWebhook", func(t *testing.T) {
				d, err := db.Open(context.Background(), c.dbURL)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				svc := herdbook.New(d.Client, herdbook.WithWebhookPrivateAddresses(true))
				ctx := herdbook.WithViewer(context.Background(), &herdbook.Viewer{UserID: uuid.MustParse(u["id"].(string)), Scopes: herdbook.AllScopes})
				ep, s, err := svc.CreateWebhook(ctx, uuid.MustParse(farm), herdbook.WebhookInput{URL: url, EventTypes: []string{"record.created"}})
				if err != nil {
					t.Fatal(err)
				}
				secret.Store(s)
				out := c.mustJSON("", "admin", "webhook", "test", "--farm", farm, "--url", url)
				if out["status_code"] != float64(200) || out["webhook"] != ep.ID.String() {
					t.Fatalf("out %v", out)
				}
				human, err := c.run("", "admin", "webhook", "test", "--farm", farm, "--url", url)
				if err != nil || !strings.Contains(human, ": 200 in ") {
					t.Fatalf("human output %q, err %v", human, err)
				}
			})
			t.Run("ErrReceiverRefuses", func(t *testing.T) {
				status.Store(http.StatusInternalServerError)
				out, err := c.run("", "admin", "webhook", "test", "--farm", farm, "--url", url)
				if err == nil || !strings.Contains(out, "500") {
					t.Fatalf("out %q err %v", out, err)
				}
			})
			t.Run("ErrFlags", func(t *testing.T) {
				for _, args := range [][]string{{"--farm", "nope", "--url", url}, {"--farm", farm, "--url", "ftp://x"}, {"--farm", farm, "--url", url, "--secret", "nope"}} {
					if _, err := c.run("", append([]string{"admin", "webhook", "test"}, args...)...); err == nil {
						t.Errorf("%v accepted", args)
					}
				}
			})
		})
	}
}
