package rest_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// faultyDriver is an ent driver that, while fault holds an error, fails every statement and
// transaction with it: the errors the drivers give during an outage, injected on both
// databases alike.
type faultyDriver struct {
	dialect.Driver
	fault *atomic.Pointer[error]
}

func (d faultyDriver) err() error {
	if e := d.fault.Load(); e != nil {
		return *e
	}
	return nil
}

func (d faultyDriver) Exec(ctx context.Context, q string, args, v any) error {
	if err := d.err(); err != nil {
		return err
	}
	return d.Driver.Exec(ctx, q, args, v)
}

func (d faultyDriver) Query(ctx context.Context, q string, args, v any) error {
	if err := d.err(); err != nil {
		return err
	}
	return d.Driver.Query(ctx, q, args, v)
}

func (d faultyDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	if err := d.err(); err != nil {
		return nil, err
	}
	return d.Driver.Tx(ctx)
}

func (d faultyDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	if err := d.err(); err != nil {
		return nil, err
	}
	return d.Driver.(*entsql.Driver).BeginTx(ctx, opts)
}

// outageProbe sends one request of each transport that needs the database and checks
// that each is a 503 with Retry-After in that transport's own shape.
func outageProbe(t *testing.T, app *herdbooktest.App, token, farmID, cause string) {
	t.Helper()
	type probe struct {
		name   string
		res    herdbooktest.Response
		expect func(herdbooktest.Response) string
	}
	envelope := func(res herdbooktest.Response) string {
		var body struct {
			Success *bool `json:"success"`
			Errors  []struct {
				Code int    `json:"code"`
				Name string `json:"name"`
			} `json:"errors"`
		}
		if json.Unmarshal(res.Body, &body) != nil || body.Success == nil || *body.Success || len(body.Errors) != 1 ||
			body.Errors[0].Name != "ServiceError" || body.Errors[0].Code != http.StatusServiceUnavailable {
			return "not the REST envelope's ServiceError"
		}
		return ""
	}
	graphQL := func(res herdbooktest.Response) string {
		var body struct {
			Errors []struct {
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
			Error any `json:"error"`
		}
		if json.Unmarshal(res.Body, &body) != nil || body.Error != nil || len(body.Errors) == 0 || body.Errors[0].Extensions["code"] != "UNAVAILABLE" {
			return "not GraphQL's UNAVAILABLE"
		}
		return ""
	}
	oauthErr := func(res herdbooktest.Response) string {
		var body struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(res.Body, &body) != nil || body.Error != "temporarily_unavailable" {
			return "not OAuth's temporarily_unavailable"
		}
		return ""
	}
	form := "grant_type=refresh_token&refresh_token=rt-unknown&client_id=test-client"
	for _, p := range []probe{
		{"REST read", app.Do("GET", "/v1/farm/"+farmID+"/records?take=5", token, nil), envelope},
		{"REST write", app.Do("POST", "/v1/farm", token, `{"name":"North Field","species":"CATTLE"}`), envelope},
		{"GraphQL", app.Do("POST", "/graphql", token, map[string]any{"query": "{ farms(first: 5) { totalCount } }"}), graphQL},
		{"OAuth userinfo", app.Do("GET", "/oauth/userinfo", token, nil), envelope},
		{"OAuth token", app.Do("POST", "/oauth/token", "", form, "Content-Type", "application/x-www-form-urlencoded"), oauthErr},
	} {
		if p.res.Status != http.StatusServiceUnavailable || p.res.Header.Get("Retry-After") != "5" {
			t.Errorf("%s, %s: status %d, Retry-After %q: %s", cause, p.name, p.res.Status, p.res.Header.Get("Retry-After"), p.res.Body)
			continue
		}
		if msg := p.expect(p.res); msg != "" {
			t.Errorf("%s, %s: %s: %s", cause, p.name, msg, p.res.Body)
		}
	}
}

// captureLogs makes the default logger write to a buffer until the test ends. The tests
// that use it are not parallel, so no other test logs meanwhile.
func captureLogs(t *testing.T) *lockedBuffer {
	t.Helper()
	buf := &lockedBuffer{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	return buf
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// wantWarnings fails unless the log holds warnings and no error line.
func wantWarnings(t *testing.T, logs *lockedBuffer, cause string) {
	t.Helper()
	out := logs.String()
	if !strings.Contains(out, "level=WARN") {
		t.Errorf("%s: no warning logged:\n%s", cause, out)
	}
	if strings.Contains(out, "level=ERROR") {
		t.Errorf("%s: logged as an error:\n%s", cause, out)
	}
}

// TestOutageCauses (issue 22.3): each cause of an outage the drivers report (SQLSTATE
// 55000 object not in prerequisite state — a database that does not allow connections —,
// 57P03 cannot connect now, 53300 too many connections, a refused connection and a reset
// one, and the pool's own exhaustion) answers 503 with Retry-After on REST, GraphQL (its
// own error shape, code UNAVAILABLE) and OAuth (temporarily_unavailable, RFC 6749 §5.2),
// and is logged as a warning, never as an error. PostgreSQL's SQLSTATEs are listed in its
// manual, appendix A (PostgreSQL Error Codes). Not parallel: it reads the default logger.
func TestOutageCauses(t *testing.T) {
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		fault := new(atomic.Pointer[error])
		faulty := &db.DB{SQL: d.SQL, Dialect: d.Dialect,
			Client: ent.NewClient(ent.Driver(faultyDriver{Driver: entsql.OpenDB(d.Dialect, d.SQL), fault: fault}))}
		app := herdbooktest.NewApp(t, faulty)
		u := app.MustUser()
		f := app.MustFarm(u, "Fault Farm")
		refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
		reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
		for _, c := range []struct {
			name string
			err  error
		}{
			{"55000", fmt.Errorf("failed to connect: %w", &pgconn.PgError{Severity: "FATAL", Code: "55000", Message: `database "herdbook" is not currently accepting connections`})},
			{"57P03", &pgconn.PgError{Severity: "FATAL", Code: "57P03", Message: "the database system is starting up"}},
			{"53300", &pgconn.PgError{Severity: "FATAL", Code: "53300", Message: "sorry, too many clients already"}},
			{"ConnectionRefused", refused},
			{"ConnectionReset", reset},
			{"PoolExhausted", fmt.Errorf("query: %w", db.ErrPoolExhausted)},
		} {
			t.Run(c.name, func(t *testing.T) {
				logs := captureLogs(t)
				fault.Store(&c.err)
				defer fault.Store(nil)
				outageProbe(t, app, u.Token, f.ID.String(), c.name)
				wantWarnings(t, logs, c.name)
			})
		}
		if res := app.Do("GET", "/v1/farm/"+f.ID.String(), u.Token, nil); res.Status != http.StatusOK {
			t.Fatalf("after the faults: %d %s", res.Status, res.Body)
		}
	})
}

// TestPoolExhausted (issue 22.3): when every connection of the pool stays busy beyond the
// pool wait (db.DefaultPoolWait, --db-pool-wait), a request is answered 503 with
// Retry-After on every transport and logged as a warning, instead of waiting as long as
// its client does; once a connection is free the same requests succeed. Not parallel: it
// reads the default logger and holds the whole pool of its database.
func TestPoolExhausted(t *testing.T) {
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Busy Farm")
		old := d.PoolWait()
		d.SetPoolWait(150 * time.Millisecond)
		t.Cleanup(func() { d.SetPoolWait(old) })
		ctx := context.Background()
		var held []*sql.Conn
		for range d.SQL.Stats().MaxOpenConnections {
			c, err := d.SQL.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
		}
		logs := captureLogs(t)
		start := time.Now()
		outageProbe(t, app, u.Token, f.ID.String(), "pool exhausted")
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("five requests took %s: the wait is not bounded", el)
		}
		wantWarnings(t, logs, "pool exhausted")
		if !strings.Contains(logs.String(), "pool exhausted") {
			t.Errorf("the warning does not say the pool was exhausted:\n%s", logs)
		}
		for _, c := range held {
			c.Close()
		}
		if res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/records?take=5", u.Token, nil); res.Status != http.StatusOK {
			t.Fatalf("after the pool is free: %d %s", res.Status, res.Body)
		}
		if res := app.Do("POST", "/graphql", u.Token, map[string]any{"query": "{ farms(first: 5) { totalCount } }"}); res.Status != http.StatusOK {
			t.Fatalf("GraphQL after the pool is free: %d %s", res.Status, res.Body)
		}
	})
}
