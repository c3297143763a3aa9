package herdbook

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/file"
	"github.com/herdbook/herdbook/ent/message"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recordanimal"
	"github.com/herdbook/herdbook/evidence"
)

// Cursor is a Relay connection cursor.
type Cursor = entgql.Cursor[uuid.UUID]

// MaxConnectionPage is the largest first or last a GraphQL connection accepts, and the page it
// returns when both are left out; it bounds the work of one request the way the REST page cap
// does.
const MaxConnectionPage = 500

// Window is a Relay connection window.
type Window struct {
	After  *Cursor
	First  *int
	Before *Cursor
	Last   *int
}

func (w Window) validate() error {
	var fe fieldErrors
	for _, a := range []struct {
		name string
		n    *int
	}{{"first", w.First}, {"last", w.Last}} {
		if a.n != nil && (*a.n < 0 || *a.n > MaxConnectionPage) {
			fe.add(a.name, "must be between 0 and %d", MaxConnectionPage)
		}
	}
	// A cursor is the client's to send back; its value reaches the query as a comparison.
	for _, c := range []struct {
		name string
		c    *Cursor
	}{{"after", w.After}, {"before", w.Before}} {
		if c.c != nil {
			textIn(&fe, c.name, c.c.Value, false)
		}
	}
	return fe.err()
}

// validateWhere applies the text rule to a GraphQL where filter: its strings reach the query
// as parameters, and one NUL fails the whole query on PostgreSQL.
func validateWhere(where any) error {
	var fe fieldErrors
	textIn(&fe, "where", where, false)
	return fe.err()
}

// page returns first and last as the query applies them: when the client gives neither, a
// page of MaxConnectionPage, as REST's take does, so that no request reads a whole table and
// the graph's cost limit can count on a page size.
func (w Window) page() (first, last *int) {
	if w.First == nil && w.Last == nil {
		n := MaxConnectionPage
		return &n, nil
	}
	return w.First, w.Last
}

// FarmConnection pages through the viewer's farms. Nested fields that the query selects are
// loaded in batches (entgql field collection), so the cost does not grow with the page.
func (s *Service) FarmConnection(ctx context.Context, w Window, order *ent.FarmOrder, where *ent.FarmWhereInput) (*ent.FarmConnection, error) {
	q, err := s.FarmQuery(ctx)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if err := validateWhere(where); err != nil {
		return nil, err
	}
	first, last := w.page()
	conn, err := q.Paginate(ctx, w.After, first, w.Before, last, ent.WithFarmOrder(order), ent.WithFarmFilter(where.Filter))
	if err == nil {
		ids := make([]uuid.UUID, len(conn.Edges))
		for i, e := range conn.Edges {
			ids[i] = e.Node.ID
		}
		notePageFarms(ctx, ids)
	}
	return conn, err
}

// AnimalConnection pages through a farm's active animals.
func (s *Service) AnimalConnection(ctx context.Context, farmID uuid.UUID, w Window, order *ent.AnimalOrder, where *ent.AnimalWhereInput) (*ent.AnimalConnection, error) {
	q, err := s.AnimalQuery(ctx, farmID)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if err := validateWhere(where); err != nil {
		return nil, err
	}
	first, last := w.page()
	c, err := q.Paginate(ctx, w.After, first, w.Before, last, ent.WithAnimalOrder(order), ent.WithAnimalFilter(where.Filter))
	notePageAnimals(ctx, c)
	return c, err
}

// GroupConnection pages through a farm's active groups.
func (s *Service) GroupConnection(ctx context.Context, farmID uuid.UUID, w Window, order *ent.GroupOrder, where *ent.GroupWhereInput) (*ent.GroupConnection, error) {
	q, err := s.GroupQuery(ctx, farmID)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if err := validateWhere(where); err != nil {
		return nil, err
	}
	first, last := w.page()
	conn, err := q.Paginate(ctx, w.After, first, w.Before, last, ent.WithGroupOrder(order), ent.WithGroupFilter(where.Filter))
	if err == nil {
		groups := make([]*ent.Group, len(conn.Edges))
		for i, e := range conn.Edges {
			groups[i] = e.Node
		}
		notePageGroups(ctx, groups)
	}
	return conn, err
}

// RecordConnection pages through a farm's active records. edges names the edges the page's
// nodes select, loaded with the page. Without a where filter, the pages of every farm of the
// request's farm connection are loaded together (recordpage.go): the cost does not grow with
// the number of farms.
func (s *Service) RecordConnection(ctx context.Context, farmID uuid.UUID, w Window, order *ent.RecordOrder, where *ent.RecordWhereInput, edges RecordEdges) (*ent.RecordConnection, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if err := validateWhere(where); err != nil {
		return nil, err
	}
	if where == nil {
		if c, ok, err := s.batchedRecords(ctx, v, farmID, w, order, edges); ok {
			return c, err
		}
	}
	first, last := w.page()
	return s.Client(ctx).Record.Query().Where(record.FarmID(farmID)).
		Paginate(ctx, w.After, first, w.Before, last, ent.WithRecordOrder(order), ent.WithRecordFilter(where.Filter))
}

// FileConnection pages through a farm's files that are not deleted.
func (s *Service) FileConnection(ctx context.Context, farmID uuid.UUID, w Window, order *ent.FileOrder) (*ent.FileConnection, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if order == nil {
		order = &ent.FileOrder{Field: ent.FileOrderFieldCreatedAt, Direction: entgql.OrderDirectionAsc}
	}
	first, last := w.page()
	return s.Client(ctx).File.Query().Where(file.FarmID(farmID)).
		Paginate(ctx, w.After, first, w.Before, last, ent.WithFileOrder(order))
}

// ThreadConnection pages through the threads of a farm the viewer may read, newest first
// unless ordered otherwise.
func (s *Service) ThreadConnection(ctx context.Context, farmID uuid.UUID, w Window, order *ent.ThreadOrder) (*ent.ThreadConnection, error) {
	v, m, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadFarms)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if order == nil {
		order = &ent.ThreadOrder{Field: ent.ThreadOrderFieldCreatedAt, Direction: entgql.OrderDirectionDesc}
	}
	first, last := w.page()
	return s.Client(ctx).Thread.Query().Where(visibleThreads(v, m)).
		Paginate(ctx, w.After, first, w.Before, last, ent.WithThreadOrder(order))
}

// MessageConnection pages through a readable thread's messages, oldest first unless ordered
// otherwise.
func (s *Service) MessageConnection(ctx context.Context, threadID uuid.UUID, w Window, order *ent.MessageOrder) (*ent.MessageConnection, error) {
	if _, _, err := s.readableThread(ctx, threadID, ScopeReadFarms); err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if order == nil {
		order = &ent.MessageOrder{Field: ent.MessageOrderFieldCreatedAt, Direction: entgql.OrderDirectionAsc}
	}
	first, last := w.page()
	return s.Client(ctx).Message.Query().Where(message.ThreadID(threadID)).
		Paginate(ctx, w.After, first, w.Before, last, ent.WithMessageOrder(order))
}

// GroupAnimalConnection pages through a group's current active animals: those its
// membership facts place in it today.
func (s *Service) GroupAnimalConnection(ctx context.Context, groupID uuid.UUID, w Window, order *ent.AnimalOrder, where *ent.AnimalWhereInput) (*ent.AnimalConnection, error) {
	if _, err := authenticate(ctx, ScopeReadAnimals); err != nil {
		return nil, err
	}
	if where == nil && ((w.First != nil && *w.First == 0) || (w.Last != nil && *w.Last == 0)) {
		if err := w.validate(); err != nil {
			return nil, err
		}
		// A count of every group of the request's group page, in one statement.
		if c, ok, err := s.batchedGroupAnimalCount(ctx, groupID, w); ok {
			return c, err
		}
	}
	g, err := s.Client(ctx).Group.Get(ctx, groupID)
	if err != nil {
		return nil, notFound(err, "group", groupID)
	}
	q, err := s.AnimalQuery(ctx, g.FarmID)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if err := validateWhere(where); err != nil {
		return nil, err
	}
	members, err := s.groupMembersOn(ctx, g.FarmID, []uuid.UUID{groupID}, s.todayOnFarm(ctx, g.FarmID))
	if err != nil {
		return nil, err
	}
	first, last := w.page()
	c, err := q.Where(animal.IDIn(members[groupID]...)).
		Paginate(ctx, w.After, first, w.Before, last, ent.WithAnimalOrder(order), ent.WithAnimalFilter(where.Filter))
	notePageAnimals(ctx, c)
	return c, err
}

// RecordAnimalConnection pages through the active animals a record applies to.
func (s *Service) RecordAnimalConnection(ctx context.Context, recordID uuid.UUID, w Window, order *ent.AnimalOrder, where *ent.AnimalWhereInput) (*ent.AnimalConnection, error) {
	if _, err := authenticate(ctx, ScopeReadAnimals); err != nil {
		return nil, err
	}
	// By id alone, but on the request's hinted farm first (nodeOnHintedFarm).
	r, err := nodeOnHintedFarm(ctx, func(ctx context.Context) (*ent.Record, error) {
		r, err := s.Client(ctx).Record.Get(ctx, recordID)
		return r, notFound(err, "record", recordID)
	})
	if err != nil {
		return nil, err
	}
	if _, _, err := s.authorizeFarm(ctx, r.FarmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	q, err := s.AnimalQuery(ctx, r.FarmID)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if err := validateWhere(where); err != nil {
		return nil, err
	}
	first, last := w.page()
	// The record's links with its farm: the animals, their links and the record on one shard.
	c, err := q.Where(func(s *sql.Selector) {
		t := sql.Table(recordanimal.Table)
		s.Where(sql.In(s.C(animal.FieldID), sql.Select(t.C(recordanimal.FieldAnimalID)).From(t).
			Where(sql.And(sql.EQ(t.C(recordanimal.FieldRecordID), recordID), sql.EQ(t.C(recordanimal.FieldFarmID), r.FarmID)))))
	}).
		Paginate(ctx, w.After, first, w.Before, last, ent.WithAnimalOrder(order), ent.WithAnimalFilter(where.Filter))
	notePageAnimals(ctx, c)
	return c, err
}

// RegisterAnimalConnection pages through a farm's active animals like AnimalConnection,
// keeping those with status on f.AsOf (when f.Status is set), those f.Q finds by tag,
// name or any identifier they ever had (an EID in any reader form), and those of f.Sex and
// in f.Group on f.AsOf (when set). f.Page is not used: the window pages. The filters cost
// a constant number of statements.
func (s *Service) RegisterAnimalConnection(ctx context.Context, farmID uuid.UUID, w Window, order *ent.AnimalOrder, where *ent.AnimalWhereInput, f AnimalFilter) (*ent.AnimalConnection, error) {
	q, err := s.AnimalQuery(ctx, farmID)
	if err != nil {
		return nil, err
	}
	var fe fieldErrors
	asOf := s.asOf(&fe, f.AsOf)
	if f.Status != "" && !slices.Contains(evidence.Statuses, f.Status) {
		fe.add("status", "must be one of %s", strings.Join(evidence.Statuses, ", "))
	}
	if len(f.Q) > 200 {
		fe.add("search", "must be at most 200 characters")
	} else if f.Q != "" {
		fe.line("search", f.Q)
	}
	if f.Sex != "" && f.Sex != evidence.SexMale && f.Sex != evidence.SexFemale {
		fe.add("sex", "must be male or female")
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	if err := validateWhere(where); err != nil {
		return nil, err
	}
	if f.Q != "" {
		p, err := s.searchPredicate(ctx, farmID, f.Q)
		if err != nil {
			return nil, err
		}
		q.Where(p)
	}
	p, err := s.statusPredicate(ctx, farmID, asOf, f.Status)
	if err != nil {
		return nil, err
	}
	q.Where(p)
	first, last := w.page()
	// The register of a sex or a group is picked and counted in memory (registerSetPage), the
	// page's statement then asking for its rows by id; any other filter or order, or a page
	// backwards, asks the database with the kept sets.
	page, total, ok, err := s.registerSetPage(ctx, farmID, asOf, f, w, order, where)
	if err != nil {
		return nil, err
	}
	pageCtx := ctx
	if ok {
		q.Where(animal.IDIn(page...))
		pageCtx = withoutTotal(ctx)
	} else if err := s.sexAndGroup(ctx, q, farmID, asOf, f); err != nil {
		return nil, err
	}
	c, err := q.Paginate(pageCtx, w.After, first, w.Before, last, ent.WithAnimalOrder(order), ent.WithAnimalFilter(where.Filter))
	if err == nil && ok {
		c.TotalCount = total
	}
	notePageAnimals(ctx, c)
	return c, err
}

// registerSetPage picks the page of a register filtered by sex or group alone, forward in
// tag order, in memory: it walks the farm's active animals in the register's order (kept
// until an animal changes, registerOrder) from the cursor, keeping those in every kept set
// (filterSet) and on the register on asOf (not notYet), until it has first+1; and counts
// them all. On 10,000 animals the database's page of a set of 6,667 females read the set as
// a parameter, sorted or walked it, and counted it again: three register pages. ok is false
// for any other page (another filter, order or direction, or a cursor whose animal is gone
// or retagged), which the caller asks the database for.
func (s *Service) registerSetPage(ctx context.Context, farmID uuid.UUID, asOf string, f AnimalFilter, w Window,
	order *ent.AnimalOrder, where *ent.AnimalWhereInput) (page []uuid.UUID, total int, ok bool, err error) {
	if (f.Sex == "" && f.Group == uuid.Nil) || f.Q != "" || f.Status != "" || where != nil || order == nil ||
		order.Field == nil || order.Field.String() != ent.AnimalOrderFieldTag.String() || order.Direction != entgql.OrderDirectionAsc ||
		w.Before != nil || w.Last != nil || w.First == nil {
		return nil, 0, false, nil
	}
	var sets [][]uuid.UUID
	if f.Sex != "" {
		ids, err := s.sexSet(ctx, farmID, asOf, f.Sex)
		if err != nil {
			return nil, 0, false, err
		}
		sets = append(sets, ids)
	}
	if f.Group != uuid.Nil {
		ids, err := s.groupSet(ctx, farmID, asOf, f.Group)
		if err != nil {
			return nil, 0, false, err
		}
		sets = append(sets, ids)
	}
	notYet, err := s.notYet(ctx, farmID, asOf)
	if err != nil {
		return nil, 0, false, err
	}
	ro, err := s.registerOrder(ctx, farmID)
	if err != nil {
		return nil, 0, false, err
	}
	start := 0
	if w.After != nil {
		at, found := ro.at[w.After.ID]
		if !found || fmt.Sprint(w.After.Value) != ro.tags[at] {
			return nil, 0, false, nil
		}
		start = at + 1
	}
	// in marks, for each animal, the sets it is in (a bit each); notYet's take it out.
	in := make(map[uuid.UUID]int, len(sets[0]))
	for k, set := range sets {
		for _, id := range set {
			in[id] |= 1 << k
		}
	}
	all := 1<<len(sets) - 1
	for _, id := range notYet {
		delete(in, id)
	}
	page = make([]uuid.UUID, 0, *w.First+1)
	for i, id := range ro.ids {
		if in[id] == all {
			total++
			if i >= start && len(page) <= *w.First {
				page = append(page, id)
			}
		}
	}
	return page, total, true, nil
}

// registerOrder is the farm's active animals in the register's order (tag, then id), as the
// database orders them (its collation, not Go's), kept until an animal is created, changed or
// deleted: one statement of ids and tags.
type registerOrder struct {
	ids  []uuid.UUID
	tags []string
	at   map[uuid.UUID]int // each animal's place in ids
}

func (s *Service) registerOrder(ctx context.Context, farmID uuid.UUID) (*registerOrder, error) {
	ro, _, err := keptUnless(ctx, s, farmID, "register-order", []string{}, func() (*registerOrder, error) {
		var rows []struct {
			ID  uuid.UUID `json:"id"`
			Tag string    `json:"tag"`
		}
		if err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID)).
			Order(ent.Asc(animal.FieldTag), ent.Asc(animal.FieldID)).
			Select(animal.FieldID, animal.FieldTag).Scan(ctx, &rows); err != nil {
			return nil, err
		}
		ro := &registerOrder{ids: make([]uuid.UUID, len(rows)), tags: make([]string, len(rows)), at: make(map[uuid.UUID]int, len(rows))}
		for i, r := range rows {
			ro.ids[i], ro.tags[i], ro.at[r.ID] = r.ID, r.Tag, i
		}
		return ro, nil
	})
	return ro, err
}

// withoutTotal is ctx for a connection's Paginate whose total is known already: the field's
// selections without totalCount and pageInfo, the two that make Paginate count (pageInfo's
// next page comes from the page's own extra row either way). Outside a GraphQL field it is
// ctx, and Paginate counts.
func withoutTotal(ctx context.Context) context.Context {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		return ctx
	}
	var keep ast.SelectionSet
	for _, cf := range graphql.CollectFields(graphql.GetOperationContext(ctx), fc.Field.Selections, nil) {
		if cf.Alias != "totalCount" && cf.Alias != "pageInfo" {
			keep = append(keep, cf.Field)
		}
	}
	field := *fc.Field.Field
	field.SelectionSet = keep
	c := *fc
	c.Field.Field, c.Field.Selections = &field, keep
	return graphql.WithFieldContext(ctx, &c)
}
