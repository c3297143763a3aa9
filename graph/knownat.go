package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	herdbook "github.com/herdbook/herdbook"
)

// KnownAtExtension is the request extension that asks a query for the book as it stood at a
// moment (docs/audit.md): `"extensions": {"knownAt": "2026-05-01T08:00:00Z"}`. Every derived
// answer of the operation (profiles, the register, withdrawals, the evidence review) then
// ignores entries recorded after it and still counts entries voided or superseded after it.
// It is the operation's, not a field's, so that nested fields (each animal's profile) read
// the same book as their list.
const KnownAtExtension = "knownAt"

// asKnown reads the knownAt extension into the operation's context. Only queries take it:
// a write is always checked against the book as it stands.
func asKnown(svc *herdbook.Service) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		oc := graphql.GetOperationContext(ctx)
		v, ok := oc.Extensions[KnownAtExtension]
		if !ok || v == nil {
			return next(ctx)
		}
		refuse := func(msg string) graphql.ResponseHandler {
			return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{{Message: msg,
				Extensions: map[string]any{"code": "BAD_USER_INPUT", "field": KnownAtExtension}}}})
		}
		if oc.Operation != nil && oc.Operation.Operation != ast.Query {
			return refuse("knownAt: only a query reads the book as it stood; a mutation always writes to the book as it stands")
		}
		s, _ := v.(string)
		kctx, err := svc.KnownAt(ctx, s)
		if err != nil || s == "" {
			return refuse("knownAt: must be an RFC 3339 date-time, such as 2026-05-01T08:00:00Z")
		}
		return next(kctx)
	}
}
