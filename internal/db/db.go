// Package db opens Herdbook's database (embedded SQLite by default, PostgreSQL through
// pgx's database/sql driver in production) and applies the versioned migrations.
package db

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/herdbook/herdbook/internal/tracectx"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/db/citus"
)

func init() {
	// ent and atlas know SQLite by the name "sqlite3"; modernc's pure Go driver keeps the
	// binary static (CGO_ENABLED=0).
	sql.Register("sqlite3", &sqlite.Driver{})
}

// sqliteParams are required for correctness: foreign keys on, writers wait instead of failing,
// WAL for concurrent readers, times stored in a form every reader parses, and transactions
// that take the write lock when they begin: a deferred transaction that reads and then
// writes fails at once with SQLITE_BUSY when another writer got there first, without
// waiting for busy_timeout. One is for speed: reads through a memory map of up to 256 MiB
// (mmap_size) instead of a read system call per page missed by each connection's 2 MiB page
// cache, which was the birth evidence review's largest cost on a 10,000-animal farm
// (BenchmarkBirthEvidence: 9.8 → 6.0 ms; docs/decisions.md). The map is the operating
// system's page cache, shared by the connections, not memory of the process's own.
const sqliteParams = "_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=mmap_size(268435456)&_time_format=sqlite&_txlock=immediate"

// DB is an open database with its ent client.
type DB struct {
	// Client is the ent client over the connection pool.
	Client *ent.Client
	// SQL is the underlying pool, for migrations and health checks.
	SQL *sql.DB
	// Dialect is dialect.SQLite or dialect.Postgres.
	Dialect string
	// Citus is true when the PostgreSQL database is a Citus cluster's coordinator (it has
	// the citus extension): the service's background sweeps then lease their work in the way
	// a cluster allows (herdbook.WithCitus, docs/scaling.md).
	Citus bool

	queries atomic.Int64
	// poolWait bounds the wait for a free connection, in nanoseconds (SetPoolWait).
	poolWait atomic.Int64
	// observe, when set, is told every statement (Observe).
	observe atomic.Pointer[func(query string, args []any)]
	// observeFailed, when set, is told every statement that failed (ObserveFailed).
	observeFailed atomic.Pointer[func(query string, err error)]
}

// Observe makes fn see every statement that goes through the ent client, with its
// arguments, until the returned function is called. Tests use it to EXPLAIN the statements
// the real handlers issue; fn must be safe for concurrent use.
func (d *DB) Observe(fn func(query string, args []any)) (stop func()) {
	d.observe.Store(&fn)
	return func() { d.observe.Store(nil) }
}

// ObserveFailed makes fn see every statement through the ent client that the database
// refused, with its error, until the returned function is called: the Citus test lists the
// statements a cluster refuses (graph's TestFarmRequestOnOneShard). fn must be safe for
// concurrent use.
func (d *DB) ObserveFailed(fn func(query string, err error)) (stop func()) {
	d.observeFailed.Store(&fn)
	return func() { d.observeFailed.Store(nil) }
}

// failed tells ObserveFailed's function of a statement's error, and returns the error.
func (d *DB) failed(query string, err error) error {
	if err != nil {
		if fn := d.observeFailed.Load(); fn != nil {
			(*fn)(query, err)
		}
	}
	return err
}

func (d *DB) seen(ctx context.Context, query string, args any) {
	d.queries.Add(1)
	if c, ok := ctx.Value(statementCounterKey{}).(*atomic.Int64); ok {
		c.Add(1)
	}
	if fn := d.observe.Load(); fn != nil {
		a, _ := args.([]any)
		(*fn)(query, a)
	}
}

type statementCounterKey struct{}

// CountStatements returns a context whose statements through the ent client are counted,
// and a function that reads the count: the metrics' statements per request.
func CountStatements(ctx context.Context) (context.Context, func() int64) {
	c := new(atomic.Int64)
	return context.WithValue(ctx, statementCounterKey{}, c), c.Load
}

// Queries reports how many statements went through the ent client since Open; tests use it
// to prove that list endpoints cost a constant number of queries.
func (d *DB) Queries() int64 { return d.queries.Load() }

// Close closes the pool.
func (d *DB) Close() error { return d.Client.Close() }

// DefaultURL is the embedded SQLite database inside dataDir.
func DefaultURL(dataDir string) string {
	return "sqlite://" + filepath.Join(dataDir, "herdbook.db")
}

// Open connects to rawURL: postgres://… (or postgresql://…) or sqlite://PATH. It does not
// migrate; call Migrate.
func Open(ctx context.Context, rawURL string) (*DB, error) {
	var (
		driverName, dsn, dia string
	)
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		// pgx rather than lib/pq: it prepares each statement once per connection and then
		// runs it in one round trip (lib/pq takes two, parsing it again every time); on the
		// bench harness that made the records list 1.47x and the GraphQL page 1.26x faster,
		// with 59% less PostgreSQL CPU per request (docs/decisions.md).
		driverName, dsn, dia = "pgx", rawURL, dialect.Postgres
	case strings.HasPrefix(rawURL, "sqlite://"):
		path := strings.TrimPrefix(rawURL, "sqlite://")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if path == "" {
			return nil, fmt.Errorf("database URL %q names no file", rawURL)
		}
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("create data directory: %w", err)
			}
		}
		driverName, dsn, dia = "sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+sqliteParams, dialect.SQLite
	default:
		return nil, fmt.Errorf("database URL must start with postgres:// or sqlite://, got %q", redact(rawURL))
	}
	var (
		pool *sql.DB
		cfg  *pgx.ConnConfig
	)
	if driverName == "pgx" {
		var err error
		if cfg, err = pgx.ParseConfig(dsn); err != nil {
			return nil, fmt.Errorf("database URL %s: %w", redact(rawURL), err)
		}
		pool = openPostgres(cfg)
	} else {
		var err error
		if pool, err = sql.Open(driverName, dsn); err != nil {
			return nil, err
		}
		// One writer at a time is SQLite's model; a small pool avoids lock storms.
		pool.SetMaxOpenConns(4)
	}
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", redact(rawURL), err)
	}
	d := &DB{SQL: pool, Dialect: dia}
	if dia == dialect.Postgres {
		var err error
		if d.Citus, err = citus.Present(ctx, pool); err != nil {
			pool.Close()
			return nil, fmt.Errorf("ask %s for the citus extension: %w", redact(rawURL), err)
		}
		if d.Citus {
			// On a cluster every connection runs a transaction's multi-shard statements one
			// connection a node (citus.multi_shard_modify_mode sequential). A transaction
			// that read several shards in parallel (a holding's farms) may not then write a
			// reference table (the holding), which Citus refuses; and two nodes' sweeps
			// updating the same rows of every farm take the shards' row locks in the same
			// order, so one waits for the other instead of a deadlock across nodes, which
			// Citus breaks only after seconds by failing one. A farm's own statements go to
			// one shard, which the mode does not slow.
			cfg.RuntimeParams["citus.multi_shard_modify_mode"] = "sequential"
			pool.Close()
			pool = openPostgres(cfg)
			d.SQL = pool
		}
	}
	drv := &countingDriver{Driver: entsql.OpenDB(dia, pool), d: d}
	d.Client = ent.NewClient(ent.Driver(drv))
	return d, nil
}

// openPostgres opens a pool of pgx connections to cfg.
func openPostgres(cfg *pgx.ConnConfig) *sql.DB {
	pool := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(encodeUUIDs))
	pool.SetMaxOpenConns(20)
	pool.SetMaxIdleConns(10)
	return pool
}

// encodeUUIDs teaches a new PostgreSQL connection to send a uuid.UUID parameter as the 16
// bytes it is. pgx otherwise sees a driver.Valuer, asks it for its text, fails to encode
// text in binary, builds that error, parses the text back and encodes the result: for every
// id of every statement (a records page sends over a hundred), a tenth of what a GraphQL
// page allocated.
func encodeUUIDs(_ context.Context, c *pgx.Conn) error {
	m := c.TypeMap()
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{func(v any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
		if id, ok := v.(uuid.UUID); ok {
			return &uuidPlan{}, [16]byte(id), true
		}
		return nil, nil, false
	}}, m.TryWrapEncodePlanFuncs...)
	return nil
}

type uuidPlan struct{ next pgtype.EncodePlan }

func (p *uuidPlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *uuidPlan) Encode(v any, buf []byte) ([]byte, error) {
	return p.next.Encode([16]byte(v.(uuid.UUID)), buf)
}

// redact hides a password in a URL before it reaches a log or an error.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// countingDriver counts the statements that ent sends.
type countingDriver struct {
	dialect.Driver
	d *DB
}

func (d *countingDriver) Exec(ctx context.Context, query string, args, v any) error {
	d.d.seen(ctx, query, args)
	ctx, end := d.d.span(ctx, query)
	return end(d.d.failed(query, d.d.boundedExec(ctx, query, args, v)))
}

func (d *countingDriver) Query(ctx context.Context, query string, args, v any) error {
	d.d.seen(ctx, query, args)
	ctx, end := d.d.span(ctx, query)
	return end(columnTypesOnce(d.d.failed(query, d.d.boundedQuery(ctx, query, args, v)), v))
}

func (d *countingDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	return d.BeginTx(ctx, nil)
}

func (d *countingDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	tx, err := d.d.boundedTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &countingTx{Tx: tx, d: d.d}, nil
}

type countingTx struct {
	dialect.Tx
	d *DB
}

func (t *countingTx) Exec(ctx context.Context, query string, args, v any) error {
	t.d.seen(ctx, query, args)
	ctx, end := t.d.span(ctx, query)
	return end(t.d.failed(query, t.Tx.Exec(ctx, query, args, v)))
}

func (t *countingTx) Query(ctx context.Context, query string, args, v any) error {
	t.d.seen(ctx, query, args)
	ctx, end := t.d.span(ctx, query)
	return end(columnTypesOnce(t.d.failed(query, t.Tx.Query(ctx, query, args, v)), v))
}

// QueryContext runs a query ent has no builder for in the transaction (ent's
// Client.QueryContext reaches it), counted and observed as ent's own: an UPDATE … RETURNING.
func (t *countingTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q, ok := t.Tx.(interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	})
	if !ok {
		return nil, fmt.Errorf("the transaction cannot run %q", query)
	}
	t.d.seen(ctx, query, args)
	ctx, end := t.d.span(ctx, query)
	rows, err := q.QueryContext(ctx, query, args...)
	return rows, end(t.d.failed(query, err))
}

// span starts a client span for a statement when the request's trace is recording (tracing
// is configured: docs/operations.md); otherwise it costs one context lookup. The statement's
// text is recorded, never its arguments, which hold farm data.
func (d *DB) span(ctx context.Context, query string) (context.Context, func(error) error) {
	pctx, ok := tracectx.Parent(ctx)
	if !ok {
		return ctx, func(err error) error { return err }
	}
	ctx, s := otel.Tracer("github.com/herdbook/herdbook/internal/db").Start(pctx, "sql", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", d.Dialect), attribute.String("db.query.text", query)))
	return ctx, func(err error) error {
		if err != nil {
			s.RecordError(err)
		}
		s.End()
		return err
	}
}

// columnTypesOnce makes the rows of a successful query describe their columns once. ent
// asks the rows for their column types for every row that has a column it has no Go type
// for (a computed column such as a page's total), and database/sql builds the whole list
// anew at each call: on a records page that was a quarter of the bytes the server
// allocated. A result set's columns do not change from row to row.
func columnTypesOnce(err error, v any) error {
	if rows, ok := v.(*entsql.Rows); ok && err == nil && rows.ColumnScanner != nil {
		rows.ColumnScanner = &describedRows{ColumnScanner: rows.ColumnScanner}
	}
	return err
}

type describedRows struct {
	entsql.ColumnScanner
	types []*sql.ColumnType
}

func (r *describedRows) ColumnTypes() ([]*sql.ColumnType, error) {
	if r.types == nil {
		types, err := r.ColumnScanner.ColumnTypes()
		if err != nil {
			return nil, err
		}
		r.types = types
	}
	return r.types, nil
}
