// Package onfarm carries the farm a request changes, so that the schema's hooks (change
// tracking and the audit trail) read the rows they follow on that farm's shard of a Citus
// cluster rather than on every shard (issue 30.3, docs/scaling.md "Statements on one
// shard"). The hooks learn the ids a mutation changes from the mutation, but not always the
// farm: a bulk update's predicates cannot be read back, and ent's UpdateOne knows its id
// alone. The service names the farm with With where a request's writes are one farm's.
//
// A hint, not a rule: a hook that finds fewer rows on the named farm than it changes asks
// again by id alone, so a wrong or missing hint costs a statement on every shard, never a
// lost event or audit entry.
package onfarm

import (
	"context"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
)

type key struct{}

// With returns a context whose writes are the given farm's.
func With(ctx context.Context, farm uuid.UUID) context.Context {
	return context.WithValue(ctx, key{}, farm)
}

// From returns the farm ctx's writes are, when the service named it.
func From(ctx context.Context) (uuid.UUID, bool) {
	f, ok := ctx.Value(key{}).(uuid.UUID)
	return f, ok && f != uuid.Nil
}

// Rows is a predicate of any farm table's query (ent's predicate.X is a func of the
// selector): the rows of ctx's farm by the table's own farm_id, or every row when ctx names
// no farm.
func Rows(ctx context.Context) func(*sql.Selector) {
	f, ok := From(ctx)
	return func(s *sql.Selector) {
		if ok {
			s.Where(sql.EQ(s.C("farm_id"), f))
		}
	}
}

// Lookup runs find with ctx's farm as its predicate, and again without it when that finds
// fewer than want rows: the hooks' reads by id, on the farm's shard when the hint is right.
func Lookup[T any](ctx context.Context, want int, find func(farm func(*sql.Selector)) ([]T, error)) ([]T, error) {
	if _, ok := From(ctx); ok {
		rows, err := find(Rows(ctx))
		if err != nil || len(rows) >= want {
			return rows, err
		}
	}
	return find(func(*sql.Selector) {})
}
