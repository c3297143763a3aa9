package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
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
}

// dbFlags registers the settings every command needs to reach the database.
func (e env) dbFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.DataDir, "data-dir", e.or("HERDBOOK_DATA_DIR", "./herdbook-data"), "directory of the embedded SQLite file and local blobs (HERDBOOK_DATA_DIR)")
	fs.StringVar(&c.DatabaseURL, "database-url", e.getenv("HERDBOOK_DATABASE_URL"), "postgres://… or sqlite://PATH; empty: SQLite in the data dir (HERDBOOK_DATABASE_URL)")
	fs.StringVar(&c.LogFormat, "log-format", e.or("HERDBOOK_LOG_FORMAT", "text"), "text or json (HERDBOOK_LOG_FORMAT)")
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
