package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/webhook"
)

func TestSender(t *testing.T) {
	t.Parallel()
	secret := herdbook.NewWebhookSecret()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/busy":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/slow":
			time.Sleep(300 * time.Millisecond)
		default:
			if r.Header.Get("webhook-id") != "msg_1" || r.Header.Get("Content-Type") != "application/json" {
				w.WriteHeader(http.StatusBadRequest)
			}
			_, _ = w.Write([]byte(strings.Repeat("x", 5000)))
		}
	}))
	defer srv.Close()
	msg := func(path string) webhook.Message {
		return webhook.Message{ID: "msg_1", URL: srv.URL + path, Secret: secret, Body: []byte(`{"type":"test"}`)}
	}
	open := &webhook.Sender{AllowPrivate: true, Timeout: 200 * time.Millisecond}
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		r := open.Send(ctx, msg("/ok"))
		if r.Err != nil || r.StatusCode != 200 || len(r.Response) != 1000 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("ErrPrivateAddress", func(t *testing.T) {
		// The address is checked when connecting, after DNS: a name that resolves to an
		// internal address is refused as a literal is.
		for _, u := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)} {
			r := (&webhook.Sender{}).Send(ctx, webhook.Message{ID: "msg_1", URL: u + "/ok", Secret: secret, Body: []byte("{}")})
			if !errors.Is(r.Err, webhook.ErrPrivateAddress) || r.StatusCode != 0 {
				t.Fatalf("%s: %+v", u, r)
			}
		}
	})
	t.Run("ErrRedirectNotFollowed", func(t *testing.T) {
		if r := open.Send(ctx, msg("/redirect")); r.Err == nil || r.StatusCode != http.StatusFound {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("ErrRetryAfter", func(t *testing.T) {
		if r := open.Send(ctx, msg("/busy")); r.Err == nil || r.StatusCode != 503 || r.RetryAfter != 2*time.Minute {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("ErrTimeout", func(t *testing.T) {
		if r := open.Send(ctx, msg("/slow")); r.Err == nil || r.StatusCode != 0 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("ErrSecret", func(t *testing.T) {
		for _, s := range []string{"", "whsec_", "whsec_!!!", "sk_" + secret[6:], "whsec_c2hvcnQ="} {
			m := msg("/ok")
			m.Secret = s
			if r := open.Send(ctx, m); r.Err == nil {
				t.Fatalf("secret %q accepted", s)
			}
		}
	})
}

// TestSignKnownAnswer checks Sign against a signature worked out by hand from the
// specification: HMAC-SHA256 keyed with the secret's bytes over "id.timestamp.body".
func TestSignKnownAnswer(t *testing.T) {
	t.Parallel()
	// The key is 24 bytes 0x00..0x17; openssl dgst -sha256 -mac HMAC -macopt hexkey:0001…17
	// over "msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}" gives the digest below.
	key, err := webhook.Key("whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX")
	if err != nil {
		t.Fatal(err)
	}
	got := webhook.Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if got != wantKnownSignature {
		t.Fatalf("signature %s, want %s", got, wantKnownSignature)
	}
}

const wantKnownSignature = "v1,/485aUtxlie+TIScVpHggMfqOB4so2KWb7+Gf727B44="
