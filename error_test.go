package herdbook_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestErrorCodeUnavailable: the errors of a database that cannot be reached are
// EUNAVAILABLE (503 and retry), every other error keeps its code.
func TestErrorCodeUnavailable(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"ConnectionRefused", refused, herdbook.EUNAVAILABLE},
		{"ConnectionRefusedWrapped", fmt.Errorf("begin transaction: %w", refused), herdbook.EUNAVAILABLE},
		{"ConnectionReset", fmt.Errorf("read: %w", syscall.ECONNRESET), herdbook.EUNAVAILABLE},
		{"BadConn", driver.ErrBadConn, herdbook.EUNAVAILABLE},
		{"ConnDone", sql.ErrConnDone, herdbook.EUNAVAILABLE},
		{"PoolClosed", errors.New("sql: database is closed"), herdbook.EUNAVAILABLE},
		{"AdminShutdown", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, herdbook.EUNAVAILABLE},
		{"CannotConnectNow", &pgconn.PgError{Code: "57P03"}, herdbook.EUNAVAILABLE},
		{"NotAcceptingConnections", fmt.Errorf("connect: %w", &pgconn.PgError{Code: "55000", Message: `database "x" is not currently accepting connections`}), herdbook.EUNAVAILABLE},
		{"TooManyConnections", &pgconn.PgError{Code: "53300"}, herdbook.EUNAVAILABLE},
		{"ConnectionFailure", &pgconn.PgError{Code: "08006"}, herdbook.EUNAVAILABLE},
		{"ErrUniqueViolation", &pgconn.PgError{Code: "23505"}, herdbook.EINTERNAL},
		{"ErrInvalidByteSequence", &pgconn.PgError{Code: "22021"}, herdbook.EINTERNAL},
		{"ErrOther", errors.New("boom"), herdbook.EINTERNAL},
		{"ErrCanceled", context.Canceled, herdbook.EINTERNAL},
		{"ServiceError", herdbook.Errorf(herdbook.ENOTFOUND, "x"), herdbook.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := herdbook.ErrorCode(tc.err); got != tc.want {
				t.Fatalf("ErrorCode(%v) = %s, want %s", tc.err, got, tc.want)
			}
			if tc.want == herdbook.EUNAVAILABLE && herdbook.ErrorMessage(tc.err) == "Internal error." {
				t.Fatal("an outage reads as an internal error")
			}
		})
	}
}

// TestUnavailableDatabases: what the drivers really answer when the database is gone is
// recognised: a closed pool on either dialect, and a PostgreSQL nobody listens on.
func TestUnavailableDatabases(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run("ClosedPool/"+dia, func(t *testing.T) {
			d := herdbooktest.MustDB(t, dia)
			d.SQL.Close()
			_, err := herdbook.New(d.Client).UserByPhone(context.Background(), "+4791234567")
			if herdbook.ErrorCode(err) != herdbook.EUNAVAILABLE {
				t.Fatalf("error %v, want EUNAVAILABLE", err)
			}
		})
	}
	t.Run("AdminShutdown", func(t *testing.T) {
		if len(herdbooktest.Dialects()) < 2 {
			t.Skip("PostgreSQL is not configured")
		}
		ctx := context.Background()
		d := herdbooktest.MustDB(t, "postgres")
		conn, err := d.SQL.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var pid int
		if err := conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			t.Fatal(err)
		}
		// int4: Citus adds pg_terminate_backend(bigint) for its cluster-wide process ids, and
		// an untyped parameter would then match both.
		if _, err := d.SQL.ExecContext(ctx, "SELECT pg_terminate_backend($1::int4)", pid); err != nil {
			t.Fatal(err)
		}
		_, err = conn.ExecContext(ctx, "SELECT 1")
		if herdbook.ErrorCode(err) != herdbook.EUNAVAILABLE {
			t.Fatalf("error %v (%T), want EUNAVAILABLE", err, err)
		}
	})
	t.Run("Unreachable", func(t *testing.T) {
		d := herdbooktest.UnreachableDB(t)
		_, err := herdbook.New(d.Client).UserByPhone(context.Background(), "+4791234567")
		if herdbook.ErrorCode(err) != herdbook.EUNAVAILABLE {
			t.Fatalf("error %v, want EUNAVAILABLE", err)
		}
	})
	t.Run("CitusCommitLost", func(t *testing.T) {
		// A worker lost at COMMIT: Citus's placement_connection.c raises this without a
		// SQLSTATE of its own. Any other internal error stays a 500.
		lost := fmt.Errorf("commit: %w", &pgconn.PgError{Severity: "ERROR", Code: "XX000",
			Message: "could not commit transaction for shard 102029 on at least one active node"})
		if !herdbook.Unavailable(lost) {
			t.Errorf("%v is not an outage", lost)
		}
		other := &pgconn.PgError{Severity: "ERROR", Code: "XX000", Message: "cache lookup failed for relation 16384"}
		if herdbook.Unavailable(other) {
			t.Errorf("%v is an outage", other)
		}
	})
}
