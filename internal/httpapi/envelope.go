// Package httpapi is what Herdbook's HTTP transports share: the error envelope and the one
// table that maps service error codes to HTTP statuses, request ids, the access log and
// panic recovery, and the rules for reading request bodies (the 10 MB limit, strict JSON,
// read deadlines that follow progress).
//
// It knows the service layer's error vocabulary and nothing of any transport, so that the
// REST facade, the OAuth server and the GraphQL graph stay peers: what they share lives here,
// and none imports another (internal/server's TestTransportsArePeers holds them to it).
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	herdbook "github.com/herdbook/herdbook"
)

// errorKind is how one service error code looks over HTTP.
type errorKind struct {
	status int
	name   string
}

// errorTable maps every service error code to its status and envelope name: the one place
// where the HTTP side decides what an error looks like.
var errorTable = map[string]errorKind{
	herdbook.EINVALID:      {http.StatusBadRequest, "ValidationError"},
	herdbook.EUNAUTHORIZED: {http.StatusUnauthorized, "Unauthorized"},
	herdbook.EDEVICECODE:   {http.StatusUnauthorized, "AuthError"},
	herdbook.EFORBIDDEN:    {http.StatusForbidden, "ForbiddenError"},
	herdbook.ENOTFOUND:     {http.StatusNotFound, "ServiceError"},
	herdbook.ECONFLICT:     {http.StatusConflict, "ConflictError"},
	herdbook.EWITHDRAWAL:   {http.StatusConflict, "WithdrawalError"},
	herdbook.ETOOLARGE:     {http.StatusRequestEntityTooLarge, "ValidationError"},
	herdbook.ERATELIMITED:  {http.StatusTooManyRequests, "ServiceError"},
	herdbook.EUNAVAILABLE:  {http.StatusServiceUnavailable, "ServiceError"},
	herdbook.EINTERNAL:     {http.StatusInternalServerError, "ServiceError"},
	herdbook.EMETHOD:       {http.StatusMethodNotAllowed, "ServiceError"},
}

// RetryAfterUnavailable is the Retry-After, in seconds, of a 503 answer: a dependency (the
// database) is down, and a client that waits this long before trying again neither hammers
// it while it recovers nor waits much longer than an ordinary restart takes.
const RetryAfterUnavailable = 5

// Status returns the HTTP status of a service error.
func Status(err error) int { return kindOf(err).status }

func kindOf(err error) errorKind {
	if k, ok := errorTable[herdbook.ErrorCode(err)]; ok {
		return k
	}
	return errorTable[herdbook.EINTERNAL]
}

// EnvelopeError is one entry of the error envelope.
type EnvelopeError struct {
	Code    int    `json:"code"`
	Name    string `json:"name"`
	Message string `json:"message"`
	// Row and Column locate a problem of an uploaded table (a CSV import): the line's
	// number, the header being row 1, and the column's header. Other errors leave them out.
	Row    int    `json:"row,omitempty"`
	Column string `json:"column,omitempty"`
}

// Envelope is the body of most error answers.
type Envelope struct {
	Success bool            `json:"success"`
	Errors  []EnvelopeError `json:"errors"`
}

// NewEnvelope builds the envelope of err: one entry per invalid field, else one entry.
func NewEnvelope(err error) Envelope {
	k := kindOf(err)
	env := Envelope{Success: false}
	for _, f := range herdbook.ErrorFields(err) {
		env.Errors = append(env.Errors, EnvelopeError{Code: k.status, Name: k.name, Message: f.Field + ": " + f.Message, Row: f.Row, Column: f.Column})
	}
	if len(env.Errors) == 0 {
		env.Errors = []EnvelopeError{{Code: k.status, Name: k.name, Message: herdbook.ErrorMessage(err)}}
	}
	return env
}

// WriteError answers with the envelope of err. Internal errors are logged with the request
// id and shown only as "Internal error."; an unavailable dependency is logged too, and the
// answer tells the client when to retry.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	Prepare(w, r, err)
	WriteJSON(w, Status(err), NewEnvelope(err))
}

// WriteEmpty answers with the status of err and no body, as SPEC.md's birth-history
// operations do; logging and Retry-After are as for WriteError.
func WriteEmpty(w http.ResponseWriter, r *http.Request, err error) {
	Prepare(w, r, err)
	w.WriteHeader(Status(err))
}

// Prepare does what every error answer needs before its status is written, whatever its
// body (the envelope, none, or another transport's shape): it logs internal errors and
// outages with the request id, and gives a 503 its Retry-After.
func Prepare(w http.ResponseWriter, r *http.Request, err error) {
	switch herdbook.ErrorCode(err) {
	case herdbook.EINTERNAL:
		if Canceled(r.Context(), err) {
			// The client went away (a closed tab, a cancelled fetch, a lost link): nothing
			// failed on the server's side, so it is no ERROR for an operator to chase.
			slog.InfoContext(r.Context(), "request cancelled by the client", "err", err, "method", r.Method, "path", r.URL.Path,
				"request_id", RequestID(r.Context()))
			return
		}
		slog.ErrorContext(r.Context(), "internal error", "err", err, "method", r.Method, "path", r.URL.Path,
			"request_id", RequestID(r.Context()))
	case herdbook.EUNAVAILABLE:
		slog.WarnContext(r.Context(), "dependency unavailable", "err", err, "method", r.Method, "path", r.URL.Path,
			"request_id", RequestID(r.Context()))
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", strconv.Itoa(RetryAfterUnavailable))
		}
	}
}

// Canceled reports whether err comes from the client cancelling its request: err is (or
// wraps) context.Canceled, or the request's context was cancelled. Such an error is logged
// at INFO, not ERROR, by every transport (issue 31.6).
func Canceled(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled)
}

// WriteJSON answers with status and v as JSON. HTML is not escaped: the answers are data,
// never pages.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
