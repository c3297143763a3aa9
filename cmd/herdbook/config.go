package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/internal/blob"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/httpapi"
	"github.com/herdbook/herdbook/internal/notify"
)

// config holds every setting; defaults work on a laptop with nothing installed.
type config struct {
	Addr        string
	MetricsAddr string
	// OTLPEndpoint is where traces go (OTLP over HTTP); empty leaves tracing off.
	OTLPEndpoint string
	DatabaseURL  string
	DataDir      string
	BaseURL      string
	WebOrigin    string
	RedisURL     string
	// TrustedProxies is a comma-separated list of proxy addresses or CIDR prefixes whose
	// X-Forwarded-For rate limits believe.
	TrustedProxies string
	NoMigrate      bool
	LogFormat      string
	// JSON asks for machine-readable output: JSON on standard output and JSON log lines.
	JSON bool
	// PhoneRegion is where phone numbers typed without a country code are read.
	PhoneRegion string
	// APIRateLimit and APIRateWindow are the REST budget per legacy key or client address.
	APIRateLimit int64
	// GraphQLMaxAnswerBytes is the ceiling on one GraphQL answer's bytes.
	GraphQLMaxAnswerBytes int64
	// PoolWait bounds a request's wait for a free database connection (db.SetPoolWait).
	PoolWait      time.Duration
	APIRateWindow time.Duration

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
	// Registry is the outbox of statutory notices (registry.go).
	Registry registryConfig
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

// dbFlags registers the settings every command needs to reach the database, and how it
// reports: --json and --log-format.
func (e env) dbFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.DataDir, "data-dir", e.or("HERDBOOK_DATA_DIR", "./herdbook-data"), "directory of the embedded SQLite file and local blobs (HERDBOOK_DATA_DIR)")
	fs.StringVar(&c.DatabaseURL, "database-url", e.getenv("HERDBOOK_DATABASE_URL"), "postgres://… or sqlite://PATH; empty: SQLite in the data dir (HERDBOOK_DATABASE_URL)")
	e.choiceVar(fs, &c.LogFormat, "log-format", "HERDBOOK_LOG_FORMAT", "text", []string{"text", "json"}, "format of log lines on standard error")
	fs.BoolVar(&c.JSON, "json", false, "machine-readable output: JSON on standard output, and JSON log lines (as --log-format json)")
}

// serviceFlags registers the settings of the service layer that commands working on users
// need.
func (e env) serviceFlags(fs *flag.FlagSet, c *config) {
	c.PhoneRegion = herdbook.DefaultPhoneRegion
	fs.Var(regionValue{&c.PhoneRegion}, "phone-region", "region (ISO 3166 code) whose national phone numbers, such as 91234567 or 004791234567 in NO, are understood (HERDBOOK_PHONE_REGION)")
	e.fromEnv(fs, "phone-region", "HERDBOOK_PHONE_REGION")
}

// regionValue is a phone region flag: a code libphonenumber knows, stored upper-case.
type regionValue struct{ p *string }

func (r regionValue) String() string {
	if r.p == nil {
		return ""
	}
	return *r.p
}

func (r regionValue) placeholder() string { return "REGION" }

func (r regionValue) Set(v string) error {
	if !herdbook.PhoneRegionKnown(v) {
		return fmt.Errorf("unknown region %q: want an ISO 3166 code such as NO, SE, DK or GB", v)
	}
	*r.p = strings.ToUpper(strings.TrimSpace(v))
	return nil
}

// choice is a flag whose value is one of a few words. A typo, on the command line or in
// the environment, is refused with the words allowed instead of being taken silently.
type choice struct {
	p       *string
	allowed []string
}

func (c *choice) String() string {
	if c.p == nil {
		return ""
	}
	return *c.p
}

func (c *choice) placeholder() string { return strings.Join(c.allowed, "|") }

func (c *choice) Set(v string) error {
	for _, a := range c.allowed {
		if strings.EqualFold(strings.TrimSpace(v), a) {
			*c.p = a
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(c.allowed, ", "))
}

// choiceVar registers a choice flag with its default and its environment variable (none
// when envName is empty).
func (e env) choiceVar(fs *flag.FlagSet, p *string, name, envName, def string, allowed []string, usage string) {
	*p = def
	usage = fmt.Sprintf("%s: %s", usage, strings.Join(allowed, ", "))
	if envName != "" {
		usage += " (" + envName + ")"
	}
	fs.Var(&choice{p: p, allowed: allowed}, name, usage)
	if envName != "" {
		e.fromEnv(fs, name, envName)
	}
}

// fromEnv gives the registered flag name the value of the environment variable envName,
// when it is set. A value the flag refuses is reported by parse, unless the command line
// sets the flag and so overrides it.
func (e env) fromEnv(fs *flag.FlagSet, name, envName string) {
	v := e.getenv(envName)
	f := fs.Lookup(name)
	if v == "" || f == nil {
		return
	}
	if err := f.Value.Set(v); err != nil {
		f.Value = badEnv{Value: f.Value, err: fmt.Errorf("%s=%q: %w", envName, v, err)}
		return
	}
	f.DefValue = f.Value.String()
}

// badEnv marks a flag whose environment variable held a value the flag refused.
type badEnv struct {
	flag.Value
	err error
}

// newFlags returns the flag set of the command at path; its -h prints the command's
// summary and flags.
func (e env) newFlags(path string) *flag.FlagSet {
	fs := flag.NewFlagSet(path, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: herdbook %s [flags]\n\n%s.\n\nflags:\n", path, summaryOf(path))
		printFlags(fs.Output(), fs)
	}
	return fs
}

// printFlags lists the flags as they are written on the command line (--name VALUE), each
// with its usage and default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		if p, ok := f.Value.(interface{ placeholder() string }); ok {
			kind = p.placeholder()
		}
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		fmt.Fprintf(w, "%s\n        %s", line, usage)
		if f.DefValue != "" && f.DefValue != "false" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
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
	c.SMTPPort = 587
	fs.Var(intRange{&c.SMTPPort, 1, 65535}, "smtp-port", "SMTP port (HERDBOOK_SMTP_PORT)")
	e.fromEnv(fs, "smtp-port", "HERDBOOK_SMTP_PORT")
	fs.StringVar(&c.SMTPUsername, "smtp-username", e.getenv("HERDBOOK_SMTP_USERNAME"), "SMTP user for AUTH PLAIN (HERDBOOK_SMTP_USERNAME)")
	c.SMTPPassword = e.getenv("HERDBOOK_SMTP_PASSWORD") // environment only: flags show in process lists
	fs.StringVar(&c.SMTPFrom, "smtp-from", e.getenv("HERDBOOK_SMTP_FROM"), "sender address of notification mail (HERDBOOK_SMTP_FROM)")
	e.choiceVar(fs, &c.SMTPTLS, "smtp-tls", "HERDBOOK_SMTP_TLS", "starttls", []string{"none", "starttls", "tls"}, "how SMTP connections are secured")
	fs.StringVar(&c.SMSWebhookURL, "sms-webhook-url", e.getenv("HERDBOOK_SMS_WEBHOOK_URL"), "HTTP endpoint that sends SMS; empty: no SMS (HERDBOOK_SMS_WEBHOOK_URL)")
	c.SMSWebhookToken = e.getenv("HERDBOOK_SMS_WEBHOOK_TOKEN") // environment only, like the SMTP password
	c.NotifyMaxAttempts = herdbook.DefaultRetryPolicy.MaxAttempts
	fs.Var(intRange{&c.NotifyMaxAttempts, 1, 100}, "notify-max-attempts", "delivery attempts before a notification is FAILED (HERDBOOK_NOTIFY_MAX_ATTEMPTS)")
	e.fromEnv(fs, "notify-max-attempts", "HERDBOOK_NOTIFY_MAX_ATTEMPTS")
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

func (e env) or(key, def string) string {
	if v := e.getenv(key); v != "" {
		return v
	}
	return def
}

// parse parses a command's flags. -h prints the usage on standard output and ends the
// command successfully (errHelpShown); a bad flag, a stray argument or a bad value from the
// environment is an error that says how to get help.
func (e env) parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(e.stdout)
		fs.Usage()
		return errHelpShown
	}
	hint := fmt.Sprintf("\nRun \"herdbook %s -h\" for its flags.", fs.Name())
	if err != nil {
		return fmt.Errorf("%s: %w%s", fs.Name(), err, hint)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q%s", fs.Name(), fs.Arg(0), hint)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if b, ok := f.Value.(badEnv); ok && !set[f.Name] {
			errs = append(errs, b.err)
		}
	})
	return errors.Join(errs...)
}

func (c *config) databaseURL() string {
	if c.DatabaseURL != "" {
		return c.DatabaseURL
	}
	return db.DefaultURL(c.DataDir)
}

// jsonLogs tells whether log lines are JSON: --log-format json, or --json.
func (c *config) jsonLogs() bool { return c.JSON || c.LogFormat == "json" }

// logger returns the command's logger. JSON lines carry durations as text ("1.5s"), as
// the text format does, instead of slog's integer nanoseconds.
func (c *config) logger(w io.Writer) *slog.Logger {
	// Every line logged within a request carries its request_id.
	if c.jsonLogs() {
		return slog.New(httpapi.RequestIDs(slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: durationsAsText})))
	}
	return slog.New(httpapi.RequestIDs(slog.NewTextHandler(w, nil)))
}

func durationsAsText(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}

// open connects to the database and, unless told not to, applies pending migrations,
// logging each one.
func (e env) open(ctx context.Context, c *config, migrate bool) (*db.DB, *herdbook.Service, error) {
	d, err := db.Open(ctx, c.databaseURL())
	if err != nil {
		return nil, nil, err
	}
	if migrate {
		logger := c.logger(e.stderr)
		if _, err := d.Migrate(ctx, func(v, desc string) {
			logger.Info("applied migration", "version", v, "description", desc)
		}); err != nil {
			d.Close()
			return nil, nil, err
		}
	}
	opts := append([]herdbook.Option{herdbook.WithCitus(d.Citus)}, c.serviceOptions...)
	if c.PhoneRegion != "" {
		opts = append(opts, herdbook.WithPhoneRegion(c.PhoneRegion))
	}
	return d, herdbook.New(d.Client, opts...), nil
}
