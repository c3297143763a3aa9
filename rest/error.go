package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	herdbook "github.com/herdbook/herdbook"
)

// errorKind is how one service error code looks over HTTP.
type errorKind struct {
	status int
	name   string
}

// errorTable maps every service error code to its status and envelope name: the one place
// where REST decides what an error looks like.
var errorTable = map[string]errorKind{
	herdbook.EINVALID:      {http.StatusBadRequest, "ValidationError"},
	herdbook.EUNAUTHORIZED: {http.StatusUnauthorized, "Unauthorized"},
	herdbook.EDEVICECODE:   {http.StatusUnauthorized, "AuthError"},
	herdbook.EFORBIDDEN:    {http.StatusForbidden, "ForbiddenError"},
	herdbook.ENOTFOUND:     {http.StatusNotFound, "ServiceError"},
	herdbook.ECONFLICT:     {http.StatusConflict, "ConflictError"},
	herdbook.ETOOLARGE:     {http.StatusRequestEntityTooLarge, "ValidationError"},
	herdbook.ERATELIMITED:  {http.StatusTooManyRequests, "ServiceError"},
	herdbook.EUNAVAILABLE:  {http.StatusServiceUnavailable, "ServiceError"},
	herdbook.EINTERNAL:     {http.StatusInternalServerError, "ServiceError"},
	herdbook.EMETHOD:       {http.StatusMethodNotAllowed, "ServiceError"},
}

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
		env.Errors = append(env.Errors, EnvelopeError{Code: k.status, Name: k.name, Message: f.Field + ": " + f.Message})
	}
	if len(env.Errors) == 0 {
		env.Errors = []EnvelopeError{{Code: k.status, Name: k.name, Message: herdbook.ErrorMessage(err)}}
	}
	return env
}

// WriteError answers with the envelope of err. Internal errors are logged with the request
// id and shown only as "Internal error.".
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	if herdbook.ErrorCode(err) == herdbook.EINTERNAL {
		slog.ErrorContext(r.Context(), "internal error", "err", err, "method", r.Method, "path", r.URL.Path,
			"request_id", RequestID(r.Context()))
	}
	writeJSON(w, Status(err), NewEnvelope(err))
}

// writeEmpty answers with a status and no body: birth-history errors are answered that way.
func writeEmpty(w http.ResponseWriter, r *http.Request, err error) {
	if herdbook.ErrorCode(err) == herdbook.EINTERNAL {
		slog.ErrorContext(r.Context(), "internal error", "err", err, "path", r.URL.Path, "request_id", RequestID(r.Context()))
	}
	w.WriteHeader(Status(err))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// MaxJSONBody is the JSON request body limit of SPEC.md (10 MB).
const MaxJSONBody = 10 << 20

// decode reads one JSON object into v. Unknown fields are refused, so that a misspelt field
// is reported instead of silently dropped; every problem names its field.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, MaxJSONBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		if err != nil {
			return decodeError(err)
		}
		return bodyInvalid("must hold a single JSON object")
	}
	return nil
}

func bodyInvalid(msg string) error {
	return herdbook.Invalid(herdbook.FieldError{Field: "body", Message: msg})
}

func decodeError(err error) error {
	var (
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
		tooLarge *http.MaxBytesError
		field    *fieldError
	)
	switch {
	case errors.Is(err, io.EOF):
		return bodyInvalid("a JSON object is required")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return bodyInvalid("malformed JSON: the body ends too early")
	case errors.As(err, &tooLarge):
		return herdbook.Errorf(herdbook.ETOOLARGE, "the JSON body is larger than %d bytes", MaxJSONBody)
	case errors.As(err, &syntax):
		return bodyInvalid(fmt.Sprintf("malformed JSON at byte %d", syntax.Offset))
	case errors.As(err, &field):
		return herdbook.Invalid(herdbook.FieldError{Field: field.field, Message: field.msg})
	case errors.As(err, &typ):
		if typ.Field == "" {
			return bodyInvalid("must be a JSON object")
		}
		return herdbook.Invalid(herdbook.FieldError{Field: typ.Field, Message: "must be " + jsonKind(typ.Type.Kind().String())})
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return herdbook.Invalid(herdbook.FieldError{Field: name, Message: "is not a known field"})
	default:
		return bodyInvalid("malformed JSON")
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "int", "int64", "int32", "float64":
		return "a number"
	}
	return "of another type"
}

// fieldError lets a value's UnmarshalJSON name the problem in its own words.
type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return e.field + ": " + e.msg }
