package graph

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// codeTable maps each service error code to GraphQL's extensions.code: the one place where
// the graph decides what an error looks like.
var codeTable = map[string]string{
	herdbook.EINVALID:      "BAD_USER_INPUT",
	herdbook.EUNAUTHORIZED: "UNAUTHENTICATED",
	herdbook.EDEVICECODE:   "UNAUTHENTICATED",
	herdbook.EFORBIDDEN:    "FORBIDDEN",
	herdbook.ENOTFOUND:     "NOT_FOUND",
	herdbook.ECONFLICT:     "CONFLICT",
	herdbook.EWITHDRAWAL:   "WITHDRAWAL",
	herdbook.ETOOLARGE:     "BAD_USER_INPUT",
	herdbook.ERATELIMITED:  "RATE_LIMITED",
	herdbook.EUNAVAILABLE:  "UNAVAILABLE",
	herdbook.EMETHOD:       "BAD_REQUEST",
	herdbook.EINTERNAL:     "INTERNAL_SERVER_ERROR",
}

// presentError shows service errors with their code and field problems, and hides the
// details of internal ones (they are logged instead).
func presentError(ctx context.Context, err error) *gqlerror.Error {
	var gqlErr *gqlerror.Error
	if errors.As(err, &gqlErr) && gqlErr.Err == nil {
		if len(gqlErr.Path) > 0 {
			return paginationError(gqlErr)
		}
		return gqlErr // a parse or validation error of the query itself
	}
	e := graphql.DefaultErrorPresenter(ctx, err)
	var cause error = err
	if gqlErr != nil && gqlErr.Err != nil {
		cause = gqlErr.Err
	}
	var input interface{ BadUserInput() }
	if errors.As(cause, &input) || inArguments(ctx, e.Path) {
		cause = herdbook.Invalid(herdbook.FieldError{Field: e.Path.String(), Message: cause.Error()})
	}
	code := herdbook.ErrorCode(cause)
	switch code {
	case herdbook.EINTERNAL:
		if httpapi.Canceled(ctx, cause) {
			slog.InfoContext(ctx, "graphql request cancelled by the client", "err", cause, "path", e.Path.String())
		} else {
			slog.ErrorContext(ctx, "graphql internal error", "err", cause, "path", e.Path.String())
		}
	case herdbook.EUNAVAILABLE:
		slog.WarnContext(ctx, "graphql: dependency unavailable", "err", cause, "path", e.Path.String())
	}
	e.Message = herdbook.ErrorMessage(cause)
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = codeTable[code]
	if fields := herdbook.ErrorFields(cause); len(fields) > 0 {
		list := make([]map[string]any, len(fields))
		for i, f := range fields {
			list[i] = map[string]any{"field": f.Field, "message": f.Message}
			if f.Row > 0 {
				list[i]["row"], list[i]["column"] = f.Row, f.Column
			}
		}
		e.Extensions["fields"] = list
	}
	if ws := herdbook.ErrorWithdrawals(cause); len(ws) > 0 {
		list := make([]map[string]any, len(ws))
		for i, w := range ws {
			list[i] = map[string]any{"field": w.Field, "kind": w.Kind, "date": w.Date, "animalID": w.AnimalID.String(),
				"animalTag": w.AnimalTag, "medicineID": w.MedicineID.String(), "medicineName": w.MedicineName,
				"treatmentRecordID": w.TreatmentRecord.String(), "treatedOn": w.TreatedOn, "meatClearOn": w.MeatClearOn}
		}
		e.Extensions["withdrawals"] = list
	}
	return e
}

// inArguments reports whether path leads into the arguments of the field being resolved:
// gqlgen adds an argument's name (and the path inside an input object) to the field's path
// while it decodes the arguments, so an error there is a value of the client's that a scalar
// refused (a malformed cursor, time or id), not a failure of the server.
func inArguments(ctx context.Context, path ast.Path) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return false
	}
	field := fc.Path()
	if len(path) <= len(field) || !slices.Equal(path[:len(field)], field) {
		return false
	}
	_, named := path[len(field)].(ast.PathName) // an index would be an element of the field's value
	return named
}

// recoverPanic turns a resolver panic into an internal error instead of a crash.
// The log names the field's path and carries the stack, so that the panic can be found.
func recoverPanic(ctx context.Context, v any) error {
	path := ""
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		path = fc.Path().String()
	}
	slog.ErrorContext(ctx, "graphql resolver panic", "value", v, "path", path, "stack", string(debug.Stack()))
	return herdbook.Errorf(herdbook.EINTERNAL, "panic")
}

// paginationError gives the errors entgql's generated connections raise about first and
// last (both passed, or one below zero), which have no code of their own or its own
// INVALID_PAGINATION, the code and field of any argument the service refuses:
// BAD_USER_INPUT with extensions.fields naming the argument.
func paginationError(e *gqlerror.Error) *gqlerror.Error {
	code, _ := e.Extensions["code"].(string)
	if code != "INVALID_PAGINATION" && (code != "" || !strings.HasPrefix(e.Message, "Passing both `first` and `last`")) {
		return e
	}
	arg := "last"
	if strings.Contains(e.Message, "`first` on") {
		arg = "first"
	}
	msg := "pass first or last, not both"
	if !strings.HasPrefix(e.Message, "Passing both") {
		msg = "must be 0 or more"
	}
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Message = arg + ": " + msg
	e.Extensions["code"] = codeTable[herdbook.EINVALID]
	e.Extensions["fields"] = []map[string]any{{"field": e.Path.String() + "." + arg, "message": msg}}
	return e
}
