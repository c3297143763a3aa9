package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// DefaultPoolWait is how long a statement waits for a free connection of the pool before
// the request is answered 503 with Retry-After (docs/operations.md): long enough for a
// burst of slow pages to drain, short enough that a client is told to come back rather
// than held until its own timeout while every request behind it piles up.
const DefaultPoolWait = 3 * time.Second

// ErrPoolExhausted is the error of a statement that found every connection of the pool
// busy for the whole pool wait (SetPoolWait). herdbook.Unavailable knows it as an outage.
var ErrPoolExhausted error = poolExhausted{}

type poolExhausted struct{}

func (poolExhausted) Error() string {
	return "database pool exhausted: no connection became free within the pool wait"
}

// PoolExhausted marks the error for herdbook.Unavailable, which does not import this
// package.
func (poolExhausted) PoolExhausted() bool { return true }

// SetPoolWait sets how long a statement of the ent client waits for a connection when all
// of the pool's are busy (DefaultPoolWait until set; zero or less restores it).
func (d *DB) SetPoolWait(wait time.Duration) {
	if wait <= 0 {
		wait = DefaultPoolWait
	}
	d.poolWait.Store(int64(wait))
}

// PoolWait returns the bounded wait for a connection.
func (d *DB) PoolWait() time.Duration {
	if w := d.poolWait.Load(); w > 0 {
		return time.Duration(w)
	}
	return DefaultPoolWait
}

// conn takes a connection of the pool for one statement or transaction, waiting at most
// the pool wait: database/sql would otherwise wait for as long as the request's context
// lives. The wait bounds only the taking; the statement then runs under ctx. An error of
// the caller's own context (the client went away) is returned as it is.
func (d *DB) conn(ctx context.Context) (*sql.Conn, error) {
	wctx, cancel := context.WithTimeout(ctx, d.PoolWait())
	c, err := d.SQL.Conn(wctx)
	cancel()
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, ErrPoolExhausted
	}
	return c, err
}

// boundedExec runs a statement outside a transaction on a connection taken with the
// bounded wait and gives it back.
func (d *DB) boundedExec(ctx context.Context, query string, args, v any) error {
	c, err := d.conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return entsql.Conn{ExecQuerier: c}.Exec(ctx, query, args, v)
}

// boundedQuery runs a query outside a transaction on a connection taken with the bounded
// wait; the connection goes back to the pool when the rows are closed (ent closes every
// result set it reads).
func (d *DB) boundedQuery(ctx context.Context, query string, args, v any) error {
	c, err := d.conn(ctx)
	if err != nil {
		return err
	}
	if err := (entsql.Conn{ExecQuerier: c}).Query(ctx, query, args, v); err != nil {
		c.Close()
		return err
	}
	if rows, ok := v.(*entsql.Rows); ok && rows.ColumnScanner != nil {
		rows.ColumnScanner = &releasingRows{ColumnScanner: rows.ColumnScanner, conn: c}
		return nil
	}
	c.Close()
	return nil
}

// boundedTx begins a transaction on a connection taken with the bounded wait; the
// connection goes back to the pool when the transaction ends.
func (d *DB) boundedTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	c, err := d.conn(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := c.BeginTx(ctx, opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	return &entsql.Tx{Conn: entsql.Conn{ExecQuerier: tx}, Tx: &releasingTx{Tx: tx, conn: c}}, nil
}

type releasingRows struct {
	entsql.ColumnScanner
	conn *sql.Conn
	done bool
}

func (r *releasingRows) Close() error {
	err := r.ColumnScanner.Close()
	if !r.done {
		r.done = true
		r.conn.Close()
	}
	return err
}

type releasingTx struct {
	*sql.Tx
	conn *sql.Conn
}

func (t *releasingTx) Commit() error {
	err := t.Tx.Commit()
	t.conn.Close()
	return err
}

func (t *releasingTx) Rollback() error {
	err := t.Tx.Rollback()
	t.conn.Close()
	return err
}
