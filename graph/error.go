package graph

import (
	"context"
	"errors"
	"log/slog"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	herdbook "github.com/herdbook/herdbook"
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
		return gqlErr // a parse or validation error of the query itself
	}
	e := graphql.DefaultErrorPresenter(ctx, err)
	var cause error = err
	if gqlErr != nil && gqlErr.Err != nil {
		cause = gqlErr.Err
	}
	var input interface{ BadUserInput() }
	if errors.As(cause, &input) {
		cause = herdbook.Invalid(herdbook.FieldError{Field: e.Path.String(), Message: cause.Error()})
	}
	code := herdbook.ErrorCode(cause)
	if code == herdbook.EINTERNAL {
		slog.ErrorContext(ctx, "graphql internal error", "err", cause, "path", e.Path.String())
	}
	e.Message = herdbook.ErrorMessage(cause)
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = codeTable[code]
	if fields := herdbook.ErrorFields(cause); len(fields) > 0 {
		list := make([]map[string]string, len(fields))
		for i, f := range fields {
			list[i] = map[string]string{"field": f.Field, "message": f.Message}
		}
		e.Extensions["fields"] = list
	}
	return e
}

// recoverPanic turns a resolver panic into an internal error instead of a crash.
func recoverPanic(ctx context.Context, v any) error {
	slog.ErrorContext(ctx, "graphql resolver panic", "value", v)
	return herdbook.Errorf(herdbook.EINTERNAL, "panic")
}
