package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func TestAdminNotifyTest(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			var calls, failing atomic.Int32
			provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				if r.Header.Get("Authorization") != "Bearer sms-secret" {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				if failing.Load() == 1 {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				w.WriteHeader(http.StatusAccepted)
			}))
			defer provider.Close()
			c := newCLI(t, dia)
			c.env = map[string]string{"HERDBOOK_SMS_WEBHOOK_URL": provider.URL, "HERDBOOK_SMS_WEBHOOK_TOKEN": "sms-secret"}
			u := c.mustJSON("a very long password\n", "admin", "user", "create", "--phone", "+4790000011", "--email", "ola@example.test", "--password-stdin")
			if _, err := c.run("", "admin", "notify", "test", "--user", "+4790000011", "--channel", "SMS"); err == nil || !strings.Contains(err.Error(), "no active member") {
				t.Fatalf("user without a farm: %v", err)
			}
			c.mustJSON("", "admin", "seed", "--owner", "+4790000011", "--farms", "1", "--animals", "1", "--groups", "1", "--records", "1", "--items", "1")

			t.Run("OKInApp", func(t *testing.T) {
				n := c.mustJSON("", "admin", "notify", "test", "--user", u["id"].(string), "--channel", "in_app")
				if n["status"] != "SENT" || n["type"] != "IN_APP" {
					t.Fatalf("notification %v", n)
				}
			})
			t.Run("OKSMS", func(t *testing.T) {
				n := c.mustJSON("", "admin", "notify", "test", "--user", "+4790000011", "--channel", "SMS", "--message", "hello")
				if n["status"] != "SENT" || calls.Load() != 1 {
					t.Fatalf("notification %v, provider calls %d", n, calls.Load())
				}
			})
			t.Run("ErrProviderDown", func(t *testing.T) {
				failing.Store(1)
				out, err := c.run("", "admin", "notify", "test", "--user", "+4790000011", "--channel", "SMS")
				if err == nil || !strings.Contains(out, "FAILED") || !strings.Contains(out, "503") {
					t.Fatalf("out %q err %v", out, err)
				}
			})
			t.Run("ErrEmailNotConfigured", func(t *testing.T) {
				if _, err := c.run("", "admin", "notify", "test", "--user", "+4790000011", "--channel", "EMAIL"); err == nil || !strings.Contains(err.Error(), "not configured") {
					t.Fatalf("err %v", err)
				}
			})
			t.Run("ErrChannel", func(t *testing.T) {
				if _, err := c.run("", "admin", "notify", "test", "--user", "+4790000011", "--channel", "PIGEON"); err == nil {
					t.Fatal("unknown channel accepted")
				}
			})
			t.Run("ErrEmailAddress", func(t *testing.T) {
				if _, err := c.run("", "admin", "user", "create", "--phone", "+4790000012", "--email", "not an address"); err == nil || !strings.Contains(err.Error(), "email") {
					t.Fatalf("err %v", err)
				}
			})
		})
	}
}
