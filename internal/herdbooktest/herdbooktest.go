// Package herdbooktest gives tests real parts: a migrated database per test (embedded
// SQLite always, and PostgreSQL when HERDBOOK_TEST_DATABASE_URL is set) and the production
// HTTP wiring behind a real net/http server.
package herdbooktest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/blob"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/httpapi"
	"github.com/herdbook/herdbook/internal/metrics"
	"github.com/herdbook/herdbook/internal/server"
	"github.com/herdbook/herdbook/oauth"
)

// EnvPostgres names the PostgreSQL database tests also run on.
const EnvPostgres = "HERDBOOK_TEST_DATABASE_URL"

// EnvDialects, when set, keeps only the named databases of Dialects (a comma-separated list):
// CI runs the suite a second time with HERDBOOK_TEST_DATABASE_URL at a Citus coordinator and
// this set to "postgres", so that SQLite is not tested twice.
const EnvDialects = "HERDBOOK_TEST_DIALECTS"

// Dialects lists the databases tests run on: "sqlite", and "postgres" when configured.
func Dialects() []string {
	all := []string{"sqlite"}
	if os.Getenv(EnvPostgres) != "" {
		all = append(all, "postgres")
	}
	only := os.Getenv(EnvDialects)
	if only == "" {
		return all
	}
	var out []string
	for _, d := range all {
		for _, o := range strings.Split(only, ",") {
			if strings.TrimSpace(o) == d {
				out = append(out, d)
			}
		}
	}
	return out
}

// EachDB runs fn as a subtest per dialect, each on a fresh migrated database.
func EachDB(t *testing.T, fn func(t *testing.T, d *db.DB)) {
	t.Helper()
	for _, dia := range Dialects() {
		t.Run(dia, func(t *testing.T) { fn(t, MustDB(t, dia)) })
	}
}

// ScratchURL returns the URL of an empty database of the dialect, dropped after the test.
func ScratchURL(tb testing.TB, dialect string) string {
	tb.Helper()
	switch dialect {
	case "sqlite":
		return "sqlite://" + filepath.Join(tb.TempDir(), "test.db")
	case "postgres":
		base := os.Getenv(EnvPostgres)
		if base == "" {
			tb.Skipf("%s is not set", EnvPostgres)
		}
		url, cleanup, err := db.ScratchPostgres(context.Background(), base)
		if err != nil {
			tb.Fatalf("PostgreSQL at %s is unreachable: %v", EnvPostgres, err)
		}
		tb.Cleanup(cleanup)
		return url
	}
	tb.Fatalf("unknown dialect %q", dialect)
	return ""
}

// MustDB opens a fresh database of the dialect with every migration applied. On SQLite it
// is a copy of a file migrated once per test process (migratedSQLite); on PostgreSQL a schema
// an earlier test of the process used, emptied, when one is free (scratchPool).
func MustDB(tb testing.TB, dialect string) *db.DB {
	tb.Helper()
	ctx := context.Background()
	if dialect == "postgres" && pooling(tb) {
		return pooledDB(tb)
	}
	url := ""
	if dialect == "sqlite" {
		url = migratedSQLite(tb)
	} else {
		url = ScratchURL(tb, dialect)
	}
	d, err := db.Open(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	// Tests share two cores with every other package's tests: a statement may wait for a
	// connection far longer than in production without the pool being exhausted. The
	// tests of the bounded wait set their own (TestPoolExhausted).
	d.SetPoolWait(time.Minute)
	if _, err := d.Migrate(ctx, nil); err != nil {
		tb.Fatal(err)
	}
	return d
}

// App is a running Herdbook over one test database.
type App struct {
	tb      testing.TB
	DB      *db.DB
	Service *herdbook.Service
	Issuer  *oauth.Issuer
	Server  *httptest.Server
	URL     string
	Blobs   blob.Store // where uploaded files go: Options.Blobs, or a local store in a temp dir

	users atomic.Int64
}

// Options tune an App.
type Options struct {
	WebOrigin string
	// APIRateLimit is the REST budget per client per 15 minutes. Zero gives tests a budget
	// they never exhaust; the rate-limit tests set SPEC.md's 100.
	APIRateLimit int64
	Blobs        blob.Store // the file store; nil: a local directory removed after the test
	// Clock replaces time.Now in the service (the notification scheduler and workers).
	Clock func() time.Time
	// BodyPace is how slowly request bodies may arrive (zero: the production default).
	BodyPace httpapi.BodyPace
	// ServiceDB, when set, is the database of the service layer (and of GraphQL's
	// transactions and /readyz), while the OAuth issuer keeps the App's own: outage tests
	// give it UnreachableDB, so that tokens still resolve and the data queries fail.
	ServiceDB *db.DB
	// RefusePrivateWebhooks keeps the production default of refusing webhook URLs on
	// loopback and private addresses; tests otherwise allow them, for their receivers on
	// 127.0.0.1.
	RefusePrivateWebhooks bool
	// Metrics, when set, measures the App's requests (metrics.New over the App's database).
	Metrics *metrics.Metrics
	// SecondNode makes the App another node of a database an earlier App set up: it
	// shares that App's OAuth client, so the tokens of either work on both.
	SecondNode bool
	// ServiceOptions are given to the service after the App's own (a registry outbox's
	// configuration, say).
	ServiceOptions []herdbook.Option
}

// UnreachableDB is a PostgreSQL database whose server nobody listens on: every statement
// fails with "connection refused", as during an outage.
func UnreachableDB(tb testing.TB) *db.DB {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more
	pool, err := sql.Open("pgx", "postgres://"+addr+"/herdbook?sslmode=disable&connect_timeout=2")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pool.Close() })
	return &db.DB{SQL: pool, Dialect: dialect.Postgres, Client: ent.NewClient(ent.Driver(entsql.OpenDB(dialect.Postgres, pool)))}
}

// NewApp starts Herdbook on d behind a real HTTP server.
func NewApp(tb testing.TB, d *db.DB, opts ...Options) *App {
	tb.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	a := &App{tb: tb, DB: d, Service: herdbook.New(d.Client), Issuer: oauth.NewIssuer(d.Client, nil)}
	if a.Blobs = o.Blobs; a.Blobs == nil {
		local, err := blob.NewLocal(filepath.Join(tb.TempDir(), "blobs"))
		if err != nil {
			tb.Fatal(err)
		}
		a.Blobs = local
	}
	svcOpts := []herdbook.Option{herdbook.WithBlobStore(a.Blobs), herdbook.WithWebhookPrivateAddresses(!o.RefusePrivateWebhooks)}
	if o.Clock != nil {
		svcOpts = append(svcOpts, herdbook.WithClock(o.Clock))
	}
	svcOpts = append(svcOpts, o.ServiceOptions...)
	data := d
	if o.ServiceDB != nil {
		data = o.ServiceDB
	}
	// A Citus cluster's sweeps lease without row locks (herdbook.WithCitus).
	a.Service = herdbook.New(data.Client, append([]herdbook.Option{herdbook.WithCitus(data.Citus)}, svcOpts...)...)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	a.Server = httptest.NewUnstartedServer(nil)
	// The production server's connection limits (header timeout, header size, idle).
	prod := server.NewHTTPServer(nil)
	a.Server.Config.ReadHeaderTimeout, a.Server.Config.IdleTimeout, a.Server.Config.MaxHeaderBytes =
		prod.ReadHeaderTimeout, prod.IdleTimeout, prod.MaxHeaderBytes
	a.Server.Start()
	a.URL = a.Server.URL
	apiLimit := o.APIRateLimit
	if apiLimit == 0 {
		apiLimit = 1 << 30
	}
	a.Server.Config.Handler = server.New(server.Config{BaseURL: a.URL, WebOrigin: o.WebOrigin, Logger: logger, APIRateLimit: apiLimit,
		BodyPace: o.BodyPace, Metrics: o.Metrics},
		server.Deps{DB: data, Service: a.Service, Issuer: a.Issuer})
	tb.Cleanup(a.Server.Close)
	if _, err := a.Issuer.EnsureWebClient(context.Background(), a.URL); err != nil {
		tb.Fatal(err)
	}
	if o.SecondNode {
		return a
	}
	if _, _, err := a.Issuer.CreateClient(context.Background(), oauth.ClientInput{
		ClientID: "test-client", Name: "Test client", Scopes: herdbook.AllScopes,
	}); err != nil {
		tb.Fatal(err)
	}
	return a
}

// User is a test user with a token carrying every scope.
type User struct {
	ID    uuid.UUID
	Phone string
	Token string
}

// MustUser creates a user and issues a token with the given scopes (all when none).
func (a *App) MustUser(scopes ...string) User {
	a.tb.Helper()
	n := a.users.Add(1)
	phone := fmt.Sprintf("+1555%07d", n)
	name := fmt.Sprintf("Test User %d", n)
	u, err := a.Service.CreateUser(context.Background(), herdbook.UserInput{FullName: &name, PhoneNumberLocal: phone, Password: "a long test password"})
	if err != nil {
		a.tb.Fatal(err)
	}
	return User{ID: u.ID, Phone: phone, Token: a.MustToken(u.ID, scopes...)}
}

// MustToken issues a token for userID with the given scopes (all when none).
func (a *App) MustToken(userID uuid.UUID, scopes ...string) string {
	a.tb.Helper()
	if len(scopes) == 0 {
		scopes = herdbook.AllScopes
	}
	raw, _, err := a.Issuer.IssueAccessToken(context.Background(), "test-client", userID, scopes, time.Hour)
	if err != nil {
		a.tb.Fatal(err)
	}
	return raw
}

// Ctx returns a context authenticated as u with every scope, for direct service calls.
func (a *App) Ctx(u User) context.Context {
	return herdbook.WithViewer(context.Background(), &herdbook.Viewer{UserID: u.ID, Scopes: herdbook.AllScopes, Credential: herdbook.CredentialOAuth})
}

// MustFarm creates a farm owned by u through the service.
func (a *App) MustFarm(u User, name string) *ent.Farm {
	a.tb.Helper()
	f, _, err := a.Service.CreateFarm(a.Ctx(u), herdbook.FarmInput{Name: name, Species: "CATTLE"})
	if err != nil {
		a.tb.Fatal(err)
	}
	return f
}

// MustMember makes u a member of farm with role.
func (a *App) MustMember(farmID uuid.UUID, u User, role herdbook.Role) {
	a.tb.Helper()
	if _, err := a.Service.AdminPutMember(context.Background(), farmID, u.ID, role); err != nil {
		a.tb.Fatal(err)
	}
}

// MustAnimal creates an animal on farm as u.
func (a *App) MustAnimal(u User, farmID uuid.UUID, tag string) *ent.Animal {
	a.tb.Helper()
	an, err := a.Service.CreateAnimal(a.Ctx(u), farmID, herdbook.AnimalInput{Tag: tag})
	if err != nil {
		a.tb.Fatal(err)
	}
	return an
}

// MustGroup creates a group on farm as u.
func (a *App) MustGroup(u User, farmID uuid.UUID, name string) *ent.Group {
	a.tb.Helper()
	g, err := a.Service.CreateGroup(a.Ctx(u), farmID, herdbook.GroupInput{Name: name})
	if err != nil {
		a.tb.Fatal(err)
	}
	return g
}

// Response is an HTTP answer with its body read.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r Response) JSON(tb testing.TB) map[string]any {
	tb.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		tb.Fatalf("body is not a JSON object: %v\n%s", err, r.Body)
	}
	return v
}

// Do sends a request with an optional bearer token. body may be a string (sent as is), nil,
// or any value (sent as JSON).
func (a *App) Do(method, path, token string, body any, header ...string) Response {
	a.tb.Helper()
	var payload []byte
	switch b := body.(type) {
	case nil:
	case string:
		payload = []byte(b)
	case []byte:
		payload = b
	default:
		j, err := json.Marshal(b)
		if err != nil {
			a.tb.Fatal(err)
		}
		payload = j
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequest(method, a.URL+path, rd)
	if err != nil {
		a.tb.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := a.Server.Client().Do(req)
	if err != nil {
		a.tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		a.tb.Fatal(err)
	}
	out := Response{Status: res.StatusCode, Header: res.Header, Body: b}
	Observe(Exchange{Method: method, Path: path, Header: req.Header, Body: payload, Res: out})
	return out
}

// GraphQL posts a GraphQL operation and returns the decoded answer.
func (a *App) GraphQL(token, query string, vars map[string]any) map[string]any {
	a.tb.Helper()
	res := a.Do("POST", "/graphql", token, map[string]any{"query": query, "variables": vars})
	if res.Status != http.StatusOK {
		a.tb.Fatalf("graphql answered %d: %s", res.Status, res.Body)
	}
	return res.JSON(a.tb)
}

// Queries counts the database statements fn causes.
func (a *App) Queries(fn func()) int64 {
	before := a.DB.Queries()
	fn()
	return a.DB.Queries() - before
}

// WantEnvelope fails unless res is the error envelope with the status and name, and (when
// given) a message containing want.
func WantEnvelope(tb testing.TB, res Response, status int, name, want string) {
	tb.Helper()
	if res.Status != status {
		tb.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	var env struct {
		Success *bool `json:"success"`
		Errors  []struct {
			Code    int    `json:"code"`
			Name    string `json:"name"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(res.Body, &env); err != nil || env.Success == nil || *env.Success || len(env.Errors) == 0 {
		tb.Fatalf("not an error envelope: %s", res.Body)
	}
	var msgs []string
	for _, e := range env.Errors {
		if e.Code != status || e.Name != name {
			tb.Fatalf("envelope entry %+v, want code %d name %s", e, status, name)
		}
		msgs = append(msgs, e.Message)
	}
	if want != "" && !strings.Contains(strings.Join(msgs, " | "), want) {
		tb.Fatalf("messages %q do not mention %q", msgs, want)
	}
}

// InTx runs fn in a transaction on c and commits it. Tests that write farms, records,
// animals, farm tasks, files or notifications straight to the database use it, because
// those changes must run in a transaction carried by the context, as the service runs
// them (package ent/schema/track).
func InTx(tb testing.TB, c *ent.Client, fn func(ctx context.Context, c *ent.Client) error) {
	tb.Helper()
	ctx := context.Background()
	tx, err := c.Tx(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if err := fn(ent.NewTxContext(ctx, tx), tx.Client()); err != nil {
		_ = tx.Rollback()
		tb.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}
