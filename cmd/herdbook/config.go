package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/internal/blob"
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
	// Webhooks (docs/webhooks.md).
	WebhookWorker       bool
	WebhookInterval     time.Duration
	WebhookMaxAttempts  int
	WebhookAllowPrivate bool
	// File storage (docs/files.md): where file contents go, the S3 keys (environment only,
	// so they never show in a process listing), and how long deleted files are kept.
	BlobURL           string
	S3AccessKey       string
	S3SecretKey       string
	FileRetention     string
	FilePurgeInterval string
	// serviceOptions are given to the Service that open builds.
	serviceOptions []herdbook.Option
}

// fileFlags registers the file-storage settings of serve.
func (e env) fileFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.BlobURL, "blob-url", e.getenv("HERDBOOK_BLOB_URL"), "file storage: file:///DIR or s3://BUCKET?endpoint=HOST:PORT&region=…&insecure=1; default DATA_DIR/blobs (HERDBOOK_BLOB_URL)")
	fs.StringVar(&c.FileRetention, "file-retention", e.or("HERDBOOK_FILE_RETENTION", "720h"), "how long a deleted file's bytes are kept before the purge (HERDBOOK_FILE_RETENTION)")
	fs.StringVar(&c.FilePurgeInterval, "file-purge-interval", e.or("HERDBOOK_FILE_PURGE_INTERVAL", "1h"), "how often the purge of deleted files runs (HERDBOOK_FILE_PURGE_INTERVAL)")
	c.S3AccessKey, c.S3SecretKey = e.getenv("HERDBOOK_S3_ACCESS_KEY"), e.getenv("HERDBOOK_S3_SECRET_KEY")
}

// blobConfig describes the file store the settings name.
func (c *config) blobConfig() blob.Config {
	return blob.Config{URL: c.BlobURL, Dir: filepath.Join(c.DataDir, "blobs"), AccessKey: c.S3AccessKey, SecretKey: c.S3SecretKey}
}

// purgeTimes returns the retention and the interval of the file purge.
func (c *config) purgeTimes() (retention, every time.Duration, err error) {
	if retention, err = time.ParseDuration(c.FileRetention); err != nil || retention <= 0 {
		return 0, 0, fmt.Errorf("file retention %q: want a positive duration such as 720h", c.FileRetention)
	}
	if every, err = time.ParseDuration(c.FilePurgeInterval); err != nil || every <= 0 {
		return 0, 0, fmt.Errorf("file purge interval %q: want a positive duration such as 1h", c.FilePurgeInterval)
	}
	return retention, every, nil
}

// dbFlags registers the settings every command needs to reach the database.
func (e env) dbFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.DataDir, "data-dir", e.or("HERDBOOK_DATA_DIR", "./herdbook-data"), "directory of the embedded SQLite file and local blobs (HERDBOOK_DATA_DIR)")
	fs.StringVar(&c.DatabaseURL, "database-url", e.getenv("HERDBOOK_DATABASE_URL"), "postgres://… or sqlite://PATH; empty: SQLite in the data dir (HERDBOOK_DATABASE_URL)")
	fs.StringVar(&c.LogFormat, "log-format", e.or("HERDBOOK_LOG_FORMAT", "text"), "text or json (HERDBOOK_LOG_FORMAT)")
}

// webhookFlags registers the webhook settings that serve and admin webhook test share.
func (e env) webhookFlags(fs *flag.FlagSet, c *config) {
	allow := e.getenv("HERDBOOK_WEBHOOK_ALLOW_PRIVATE")
	fs.BoolVar(&c.WebhookAllowPrivate, "webhook-allow-private", allow == "true" || allow == "1",
		"let webhook URLs name loopback, private and link-local addresses; only where nothing internal is reachable (HERDBOOK_WEBHOOK_ALLOW_PRIVATE=true)")
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
	return d, herdbook.New(d.Client, c.serviceOptions...), nil
}
