package citus

import (
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
)

// Statements name the farm (issue 30.3, docs/scaling.md "Statements name the farm"). On a
// cluster every farm table is distributed by its farm_id, and a statement goes to one shard
// only when every farm table in it is filtered by the farm: a table filtered by its parent's
// farm alone, or by ids alone, makes it a statement on every shard (and a join of two farm
// tables on ids alone one that Citus refuses). FarmOf and LinkedOf add the farm to ent's
// queries where the caller knows it. On PostgreSQL and SQLite they change no answer (a row's
// farm_id is its parent's) and no statement count.

// FarmOf is a predicate of any farm table's query (ent's predicate.X is a func of the
// selector): the rows of the farms given, by the table's own farm_id. With one farm it is an
// equality, which a cluster routes to that farm's shard. Without farms it keeps every row (a
// caller that does not know its farm).
func FarmOf(farms ...uuid.UUID) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if len(farms) > 0 {
			s.Where(farmColumnIn(s.C("farm_id"), farms))
		}
	}
}

// LinkedOf is FarmOf for ent's eager loading of a many-to-many edge through its link table
// (a record's animals, groups and files, a task's animals): the neighbours and the link
// rows, both of the farms given. ent joins the link table after the caller's predicates are
// added, so the link's column is found when the statement is written.
func LinkedOf(link string, farms ...uuid.UUID) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if len(farms) == 0 {
			return
		}
		s.Where(sql.And(farmColumnIn(s.C("farm_id"), farms), sql.P(func(b *sql.Builder) {
			col, joined := linkFarm(s, link)
			b.Join(farmColumnIn(col, farms))
			if len(farms) > 1 && joined {
				// Of several farms, the link and its neighbour join on their farm too: a
				// cluster joins two farm tables only on their distribution column.
				b.WriteString(" AND ").Join(sql.ColumnsEQ(col, s.C("farm_id")))
			}
		})))
	}
}

// OnFarm is the predicate of a lookup that must stay on one farm (a GraphQL node's, once its
// farm is known): on a table with its own farm_id, the rows of farm, and the rows of any link
// table ent's loader joins (LinkTables); on any other table (users), nothing.
func OnFarm(farm uuid.UUID) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if !hasFarmID[s.TableName()] {
			return
		}
		s.Where(sql.P(func(b *sql.Builder) {
			b.Join(sql.EQ(s.C("farm_id"), farm))
			for _, link := range LinkTables {
				if col, ok := linkFarm(s, link); ok {
					b.WriteString(" AND ").Join(sql.EQ(col, farm))
				}
			}
		}))
	}
}

// hasFarmID holds the farm tables with a farm_id column of their own: all but those whose
// id is the farm's.
var hasFarmID = func() map[string]bool {
	out := map[string]bool{}
	for _, t := range FarmTables {
		out[t] = DistributionColumn(t) == "farm_id"
	}
	return out
}()

// LinkTables are the link tables of the many-to-many edges between farm tables.
var LinkTables = []string{"record_animals", "record_groups", "file_records", "farm_task_animals"}

// linkFarm returns the farm_id column of link as joined to s, and whether ent's loader joined
// it; when it did not, s's own farm_id. The join is added after the caller's predicates, so
// this is asked when the statement is written (in a sql.P).
func linkFarm(s *sql.Selector, link string) (string, bool) {
	if t, ok := s.JoinedTable(link); ok {
		return t.C("farm_id"), true
	}
	return s.C("farm_id"), false
}

func farmColumnIn(col string, farms []uuid.UUID) *sql.Predicate {
	if len(farms) == 1 {
		return sql.EQ(col, farms[0])
	}
	ids := make([]any, len(farms))
	for i, f := range farms {
		ids[i] = f
	}
	return sql.In(col, ids...)
}

// Statements of the background sweeps (the scheduler, the delivery leases) read the rows of
// every farm at once, so no farm can be named. A cluster still runs such a statement shard
// by shard, without moving rows between nodes, when every join between farm tables equates
// their farms as well as their ids; ent's own joins name the ids alone, which a cluster
// refuses ("the query contains a join that requires repartitioning"). The two helpers below
// are ent's joins with the farm added. On PostgreSQL and SQLite the added equality holds for
// every pair the id joins (a child's farm_id is its parent's): the same rows, the same
// statement count.

// ParentOnFarm is ent's HasXWith for a many-to-one edge from a farm table (the column fk) to
// its parent table: EXISTS a parent row with that id, on the same farm, matching ps.
func ParentOnFarm[P ~func(*sql.Selector)](parent, fk string, ps ...P) func(*sql.Selector) {
	return func(s *sql.Selector) {
		t := sql.Table(parent)
		sub := sql.Dialect(s.Dialect()).Select(t.C("id")).From(t).
			Where(sql.And(sql.ColumnsEQ(s.C(fk), t.C("id")), sql.ColumnsEQ(s.C("farm_id"), t.C("farm_id"))))
		for _, p := range ps {
			p(sub)
		}
		s.Where(sql.Exists(sub))
	}
}

// LinkedOnFarm is for ent's eager loading of a many-to-many edge through a link table across
// farms (the scheduler's tasks with their animals): the neighbour's farm equals the link's.
// ent joins the link table after the caller's predicates are added, so the link's column is
// found when the statement is written, as in LinkedOf.
func LinkedOnFarm(link string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			col, _ := linkFarm(s, link)
			b.Join(sql.ColumnsEQ(s.C("farm_id"), col))
		}))
	}
}
