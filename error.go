package herdbook

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"modernc.org/sqlite"
)

// Error codes of the service layer. Transports map each to one HTTP status or GraphQL
// extensions.code in a single table (rest/error.go, graph/error.go).
const (
	EINVALID      = "invalid"      // the input is wrong; Fields says where
	EUNAUTHORIZED = "unauthorized" // no or bad credential, or a role below the minimum
	EFORBIDDEN    = "forbidden"    // the credential lacks a scope or is of a refused type
	ENOTFOUND     = "not_found"    // no such resource, or no active membership of its farm
	ECONFLICT     = "conflict"     // the request contradicts the stored state
	ETOOLARGE     = "too_large"    // the body is larger than allowed
	ERATELIMITED  = "rate_limited" // too many requests in the window
	EINTERNAL     = "internal"     // anything unexpected; never shown in detail
	EDEVICECODE   = "device_code"  // an invalid, consumed, expired or foreign device code
	EUNAVAILABLE  = "unavailable"  // a dependency is down; retry later
	EMETHOD       = "method"       // the path exists, but not with this method
)

// Error is a failure that the caller may see. Fields lists per-field problems of an EINVALID.
type Error struct {
	Code    string
	Message string
	Fields  []FieldError
	// Withdrawals names what an EWITHDRAWAL refusal is about (treatment.go).
	Withdrawals []WithdrawalConflict
}

// FieldError names one invalid field (JSON path as the client wrote it) and what is wrong.
// A problem found in an uploaded table (a CSV import) also says where: Row is the line's
// number in the file (the header is row 1) and Column the header of the cell; both are
// zero for other inputs.
type FieldError struct {
	Field   string
	Message string
	Row     int
	Column  string
}

// Error renders the code and the message. It carries no "herdbook:" prefix: the command
// line adds the program's name once, and logs name the program anyway.
func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Field + ": " + f.Message
	}
	return fmt.Sprintf("%s: %s", e.Code, strings.Join(parts, "; "))
}

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an EINVALID error for the given field problems, or nil when there are none.
func Invalid(fields ...FieldError) error {
	if len(fields) == 0 {
		return nil
	}
	return &Error{Code: EINVALID, Message: "request validation failed", Fields: fields}
}

// ErrorCode returns the code of err, "" for nil. An error that is not an *Error is
// EUNAVAILABLE when it says the database cannot be reached (Unavailable), EINTERNAL otherwise.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	case Unavailable(err):
		return EUNAVAILABLE
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns what a caller may read about err: the message of an *Error, a plea
// to retry for an outage, or "Internal error." for anything else, so that internals never
// leak.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Message
	case Unavailable(err):
		return "The service is temporarily unavailable; try again in a few seconds."
	}
	return "Internal error."
}

// Unavailable reports whether err says that the database (or another dependency over the
// network) cannot be reached right now, rather than that the request or the code is wrong:
// a refused or broken connection, a closed pool, PostgreSQL shutting down, starting up or
// out of connections, SQLite still locked after its busy timeout, every connection of the
// pool busy beyond the bounded pool wait (db.ErrPoolExhausted). Such errors answer 503
// with Retry-After instead of 500: the same request will work once the dependency is back.
// It is the one place that knows the drivers' outage errors.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var (
		pg   interface{ SQLState() string }
		sq   *sqlite.Error
		op   *net.OpError
		pool interface{ PoolExhausted() bool }
	)
	switch {
	case errors.As(err, &pool):
		// Every connection of the pool stayed busy for the bounded wait (internal/db).
		return pool.PoolExhausted()
	case errors.As(err, &pg):
		return unavailableState(pg.SQLState()) || commitLost(pg.SQLState(), err)
	case errors.As(err, &sq):
		// Primary result codes: SQLITE_BUSY (5) and SQLITE_LOCKED (6) outlived busy_timeout.
		return sq.Code()&0xff == 5 || sq.Code()&0xff == 6
	case errors.As(err, &op), errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	// database/sql does not export the error of a closed pool.
	return strings.Contains(err.Error(), "sql: database is closed")
}

// unavailableState tells the SQLSTATEs of an outage: class 08 (connection exception),
// 53300 (too many connections), 55000 (what a new connection gets while the database does
// not allow connections, as during a failover: ALTER DATABASE … ALLOW_CONNECTIONS false;
// the service uses nothing else that raises it), 57P01 to 57P03 (admin shutdown, crash
// shutdown, cannot connect now).
func unavailableState(state string) bool {
	switch state {
	case "53300", "55000", "57P01", "57P02", "57P03":
		return true
	}
	return strings.HasPrefix(state, "08")
}

// commitLost tells Citus's error for a worker lost while the coordinator committed a
// transaction that wrote to one of its shards ("could not commit transaction for shard … on
// at least one active node", raised at COMMIT without a SQLSTATE of its own, so XX000). Citus
// raises it for a placement whose connection failed or whose deferred constraint failed at
// commit; Herdbook's constraints are none of them deferred, so here it is the outage: the
// request was not acknowledged, and its retry, with its Idempotency-Key, is answered once the
// worker is back (rest/citusoutage_test.go kills a worker during writes).
func commitLost(state string, err error) bool {
	return state == "XX000" && strings.Contains(err.Error(), "could not commit transaction for shard")
}

// ErrorFields returns the field problems of an EINVALID error.
func ErrorFields(err error) []FieldError {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

// ErrorWithdrawals returns what an EWITHDRAWAL refusal is about.
func ErrorWithdrawals(err error) []WithdrawalConflict {
	var e *Error
	if errors.As(err, &e) {
		return e.Withdrawals
	}
	return nil
}

// fieldErrors collects field problems while validating an input.
type fieldErrors []FieldError

func (f *fieldErrors) add(field, format string, args ...any) {
	*f = append(*f, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (f fieldErrors) err() error { return Invalid(f...) }
