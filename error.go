package herdbook

import (
	"errors"
	"fmt"
	"strings"
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
}

// FieldError names one invalid field (JSON path as the client wrote it) and what is wrong.
type FieldError struct {
	Field   string
	Message string
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

// ErrorCode returns the code of err, EINTERNAL for errors that are not *Error, "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns what a caller may read about err: the message of an *Error, or
// "Internal error." for anything else, so that internals never leak.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// ErrorFields returns the field problems of an EINVALID error.
func ErrorFields(err error) []FieldError {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

// fieldErrors collects field problems while validating an input.
type fieldErrors []FieldError

func (f *fieldErrors) add(field, format string, args ...any) {
	*f = append(*f, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (f fieldErrors) err() error { return Invalid(f...) }
