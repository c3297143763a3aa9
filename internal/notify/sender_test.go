package notify_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/notify"
)

func TestSMTP(t *testing.T) {
	t.Parallel()
	srv := newSMTPServer(t)
	snd := srv.sender(t)
	msg := notify.Message{ID: uuid.New(), To: "ann@example.test", Subject: "Calving check due today at Hill\r\nBcc: x@evil.test", Body: "Calving check is due today at Hill for C-17.\n.\nbye"}
	t.Run("OK", func(t *testing.T) {
		if err := snd.Send(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
		got := srv.received()
		if len(got) != 1 || got[0].To != "ann@example.test" || got[0].From != "herdbook@example.test" {
			t.Fatalf("received %+v", got)
		}
		data := got[0].Data
		for _, want := range []string{"Subject: Calving check due today at Hill Bcc: x@evil.test\n", "Message-ID: <" + msg.ID.String() + "@herdbook>", "for C-17.", "\n.\nbye"} {
			if !strings.Contains(data, want) {
				t.Fatalf("mail lacks %q:\n%s", want, data)
			}
		}
		if strings.Contains(data, "\nBcc:") {
			t.Fatalf("a line break in the subject started a header:\n%s", data)
		}
	})
	for _, tc := range []struct {
		name      string
		reply     string
		permanent bool
	}{
		{"ErrTemporary", "451 4.3.0 mailbox busy", false},
		{"ErrPermanent", "550 5.1.1 no such user", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSMTPServer(t)
			srv.Reply = func(string) string { return tc.reply }
			err := srv.sender(t).Send(context.Background(), msg)
			var perm *herdbook.PermanentError
			if err == nil || errors.As(err, &perm) != tc.permanent || !strings.Contains(err.Error(), tc.reply[:3]) {
				t.Fatalf("err = %v, want permanent=%v naming %s", err, tc.permanent, tc.reply[:3])
			}
		})
	}
	t.Run("ErrUnreachable", func(t *testing.T) {
		cfg := srv.config()
		cfg.Port = 1
		s, _ := notify.NewSMTP(cfg)
		var perm *herdbook.PermanentError
		if err := s.Send(context.Background(), msg); err == nil || errors.As(err, &perm) {
			t.Fatalf("err = %v, want a retryable error", err)
		}
	})
	t.Run("ErrStartTLSMissing", func(t *testing.T) {
		cfg := srv.config()
		cfg.TLS = notify.TLSStartTLS
		s, _ := notify.NewSMTP(cfg)
		if err := s.Send(context.Background(), msg); err == nil || !strings.Contains(err.Error(), "STARTTLS") {
			t.Fatalf("err = %v: a server without STARTTLS must be refused, not used in clear", err)
		}
	})
}

func TestSMTPConfig(t *testing.T) {
	t.Parallel()
	ok := notify.SMTPConfig{Host: "mail.example.test", Port: 587, From: "h@example.test", TLS: notify.TLSStartTLS}
	for _, tc := range []struct {
		name   string
		change func(*notify.SMTPConfig)
		want   string
	}{
		{"OK", func(*notify.SMTPConfig) {}, ""},
		{"ErrNoHost", func(c *notify.SMTPConfig) { c.Host = "" }, "host is required"},
		{"ErrPort", func(c *notify.SMTPConfig) { c.Port = 70000 }, "port"},
		{"ErrFrom", func(c *notify.SMTPConfig) { c.From = "herdbook" }, "from"},
		{"ErrTLSMode", func(c *notify.SMTPConfig) { c.TLS = "ssl" }, "tls must be"},
		{"ErrPasswordWithoutUser", func(c *notify.SMTPConfig) { c.Password = "x" }, "username and password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.change(&c)
			err := c.Validate()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSMSWebhook(t *testing.T) {
	t.Parallel()
	msg := notify.Message{ID: uuid.New(), To: "+15550001", Body: "Calving check is due today."}
	for _, tc := range []struct {
		name      string
		status    int
		permanent bool
	}{
		{"OK", 200, false},
		{"OKAccepted", 202, false},
		{"ErrProviderDown", 503, false},
		{"ErrRateLimited", 429, false},
		{"ErrRefused", 400, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newSMSProvider(t)
			p.Status = func(int) int { return tc.status }
			err := p.sender(t).Send(context.Background(), msg)
			var perm *herdbook.PermanentError
			switch {
			case tc.status/100 == 2 && err != nil:
				t.Fatal(err)
			case tc.status/100 != 2 && (err == nil || errors.As(err, &perm) != tc.permanent):
				t.Fatalf("err = %v, want permanent=%v", err, tc.permanent)
			}
			got := p.calls()
			if len(got) != 1 || got[0].To != msg.To || got[0].Body != msg.Body || got[0].ID != msg.ID.String() ||
				got[0].Auth != "Bearer test-token" || got[0].IdempotencyKey != msg.ID.String() {
				t.Fatalf("provider got %+v", got)
			}
		})
	}
	t.Run("ErrURL", func(t *testing.T) {
		if _, err := notify.NewSMSWebhook("ftp://x", ""); err == nil {
			t.Fatal("a non-http URL was accepted")
		}
	})
}
