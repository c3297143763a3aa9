package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/notify"
)

// config holds every setting; defaults work on a laptop with nothing installed.
type config struct {
	Addr        string
	DatabaseURL string
	DataDir     string
	BaseURL     string
	WebOrigin   string
	RedisURL    string
	// TrustedProxies is a comma-separated list of proxy addresses or CIDR prefixes whose
	// X-Forwarded-For rate limits believe.
	TrustedProxies string
	NoMigrate      bool
	LogFormat      string

	// Notifications (docs/notifications.md). A channel without configuration is not
	// delivered: its notifications stay PENDING.
	SMTPHost, SMTPUsername, SMTPPassword, SMTPFrom, SMTPTLS string
	SMTPPort                                                int
	SMSWebhookURL, SMSWebhookToken                          string
	NotifyInterval                                          time.Duration
	NotifyMaxAttempts                                       int
	NotifyWorker                                            bool
}

// dbFlags registers the settings every command needs to reach the database.
func (e env) dbFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.DataDir, "data-dir", e.or("HERDBOOK_DATA_DIR", "./herdbook-data"), "directory of the embedded SQLite file and local blobs (HERDBOOK_DATA_DIR)")
	fs.StringVar(&c.DatabaseURL, "database-url", e.getenv("HERDBOOK_DATABASE_URL"), "postgres://… or sqlite://PATH; empty: SQLite in the data dir (HERDBOOK_DATABASE_URL)")
	fs.StringVar(&c.LogFormat, "log-format", e.or("HERDBOOK_LOG_FORMAT", "text"), "text or json (HERDBOOK_LOG_FORMAT)")
}

// notifyFlags registers the delivery settings that serve and admin notify test share.
func (e env) notifyFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.SMTPHost, "smtp-host", e.getenv("HERDBOOK_SMTP_HOST"), "SMTP server for EMAIL notifications; empty: no email (HERDBOOK_SMTP_HOST)")
	fs.IntVar(&c.SMTPPort, "smtp-port", e.intOr("HERDBOOK_SMTP_PORT", 587), "SMTP port (HERDBOOK_SMTP_PORT)")
	fs.StringVar(&c.SMTPUsername, "smtp-username", e.getenv("HERDBOOK_SMTP_USERNAME"), "SMTP user for AUTH PLAIN (HERDBOOK_SMTP_USERNAME)")
	c.SMTPPassword = e.getenv("HERDBOOK_SMTP_PASSWORD") // environment only: flags show in process lists
	fs.StringVar(&c.SMTPFrom, "smtp-from", e.getenv("HERDBOOK_SMTP_FROM"), "sender address of notification mail (HERDBOOK_SMTP_FROM)")
	fs.StringVar(&c.SMTPTLS, "smtp-tls", e.or("HERDBOOK_SMTP_TLS", "starttls"), "none, starttls or tls (HERDBOOK_SMTP_TLS)")
	fs.StringVar(&c.SMSWebhookURL, "sms-webhook-url", e.getenv("HERDBOOK_SMS_WEBHOOK_URL"), "HTTP endpoint that sends SMS; empty: no SMS (HERDBOOK_SMS_WEBHOOK_URL)")
	c.SMSWebhookToken = e.getenv("HERDBOOK_SMS_WEBHOOK_TOKEN") // environment only, like the SMTP password
	fs.IntVar(&c.NotifyMaxAttempts, "notify-max-attempts", e.intOr("HERDBOOK_NOTIFY_MAX_ATTEMPTS", herdbook.DefaultRetryPolicy.MaxAttempts), "delivery attempts before a notification is FAILED (HERDBOOK_NOTIFY_MAX_ATTEMPTS)")
}

// senders builds the configured notification channels. IN_APP needs no sender: it is
// SENT when stored.
func (c *config) senders() (map[notification.Type]notify.Sender, error) {
	out := map[notification.Type]notify.Sender{}
	if c.SMTPHost != "" {
		s, err := notify.NewSMTP(notify.SMTPConfig{Host: c.SMTPHost, Port: c.SMTPPort, Username: c.SMTPUsername,
			Password: c.SMTPPassword, From: c.SMTPFrom, TLS: c.SMTPTLS})
		if err != nil {
			return nil, err
		}
		out[notification.TypeEMAIL] = s
	}
	if c.SMSWebhookURL != "" {
		s, err := notify.NewSMSWebhook(c.SMSWebhookURL, c.SMSWebhookToken)
		if err != nil {
			return nil, err
		}
		out[notification.TypeSMS] = s
	}
	return out, nil
}

func (e env) intOr(key string, def int) int {
	if n, err := strconv.Atoi(e.getenv(key)); err == nil {
		return n
	}
	return def
}

func (e env) durationOr(key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(e.getenv(key)); err == nil && d > 0 {
		return d
	}
	return def
}

func (e env) or(key, def string) string {
	if v := e.getenv(key); v != "" {
		return v
	}
	return def
}

func (e env) parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(e.stderr)
	return fs.Parse(args)
}

func (c *config) databaseURL() string {
	if c.DatabaseURL != "" {
		return c.DatabaseURL
	}
	return db.DefaultURL(c.DataDir)
}

func (c *config) logger(w io.Writer) *slog.Logger {
	if strings.EqualFold(c.LogFormat, "json") {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// open connects to the database and, unless told not to, applies pending migrations.
func (e env) open(ctx context.Context, c *config, migrate bool) (*db.DB, *herdbook.Service, error) {
	d, err := db.Open(ctx, c.databaseURL())
	if err != nil {
		return nil, nil, err
	}
	if migrate {
		if _, err := d.Migrate(ctx, func(v, desc string) {
			fmt.Fprintf(e.stderr, "applied migration %s %s\n", v, desc)
		}); err != nil {
			d.Close()
			return nil, nil, err
		}
	}
	return d, herdbook.New(d.Client), nil
}
