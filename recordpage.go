package herdbook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/changecounter"
	"github.com/herdbook/herdbook/ent/record"
)

// Pages of records for many farms in one statement.
//
// A GraphQL document such as farms(first: 50) { … records(first: 10) { … } } asks for a page
// of records under each farm. Asked farm by farm, that is a statement (and a count) per farm.
// Instead, the first farm's resolver loads the page of every farm the request's farm
// connection returned (the request's pageFarms), with one statement that numbers each farm's
// records (ROW_NUMBER() OVER (PARTITION BY farm_id …)) and counts them (COUNT(*) OVER
// (PARTITION BY farm_id)), then one statement per edge the nodes select (items, files); the
// other farms' resolvers take their page from that batch. Both dialects run window functions
// (SQLite since 3.25).

// RecordEdges names, by the alias the document gives them, the edges the nodes of a records
// page select, so that the page loads them with its records (one statement each) instead of
// one statement per record.
type RecordEdges struct {
	Items, Files, Animals, Groups []string
}

func (e RecordEdges) key() string {
	return fmt.Sprint(e.Items, e.Files, e.Animals, e.Groups)
}

// recordBatch is the result of one batched load: a connection per farm.
type recordBatch struct {
	once  sync.Once
	conns map[uuid.UUID]*ent.RecordConnection
	err   error
}

// notePageFarms records the farms a farm connection returned, the parents a batched load of
// records serves.
func notePageFarms(ctx context.Context, farms []uuid.UUID) {
	if st := requestFrom(ctx); st != nil {
		st.mu.Lock()
		for _, id := range farms {
			if !slices.Contains(st.pageFarms, id) {
				st.pageFarms = append(st.pageFarms, id)
			}
		}
		st.mu.Unlock()
	}
}

// recordOrderColumn returns the column an order sorts by, and whether it is the default
// (id) order.
func recordOrderColumn(order *ent.RecordOrder) (string, bool, error) {
	if order == nil || order.Field == nil || order.Field == ent.DefaultRecordOrder.Field {
		return record.FieldID, true, nil
	}
	col := strings.ToLower(order.Field.String())
	if !record.ValidColumn(col) {
		return "", false, fmt.Errorf("records: no column for order %s", order.Field)
	}
	return col, false, nil
}

// batchedRecords answers a farm's records page from the request's batch, loading the batch on
// the first call. ok is false when the page cannot be batched (no request scope).
func (s *Service) batchedRecords(ctx context.Context, v *Viewer, farmID uuid.UUID, w Window, order *ent.RecordOrder, edges RecordEdges) (*ent.RecordConnection, bool, error) {
	st := requestFrom(ctx)
	if st == nil {
		return nil, false, nil
	}
	first, last := w.page()
	key := fmt.Sprint("records", cursorKey(w.After), cursorKey(w.Before), intKey(first), intKey(last), orderKey(order), edges.key())
	// The parents: the farm asked for and, when it came from a farm connection, the other
	// farms of that page the viewer may read records of.
	// A farm asked alone (not from a farm connection) is its own only parent: its records
	// are read without loading the viewer's other memberships.
	parents := []uuid.UUID{farmID}
	st.mu.Lock()
	listed := slices.Contains(st.pageFarms, farmID)
	st.mu.Unlock()
	if listed {
		members, _, err := s.memberships(ctx, st, v)
		if err != nil {
			return nil, true, err
		}
		st.mu.Lock()
		for _, id := range st.pageFarms {
			if id != farmID && members[id] != nil {
				parents = append(parents, id)
			}
		}
		st.mu.Unlock()
	}
	for {
		b, _ := st.batches.LoadOrStore(key, &recordBatch{})
		rb := b.(*recordBatch)
		rb.once.Do(func() {
			rb.conns, rb.err = s.loadRecordPages(ctx, parents, w, first, last, order, edges)
		})
		if rb.err != nil {
			return nil, true, rb.err
		}
		if c, ok := rb.conns[farmID]; ok {
			return c, true, nil
		}
		// A batch loaded before this farm joined the page: load this farm's own.
		key += "|" + farmID.String()
		parents = []uuid.UUID{farmID}
	}
}

func cursorKey(c *Cursor) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%s/%v", c.ID, c.Value)
}

func intKey(n *int) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}

func orderKey(o *ent.RecordOrder) string {
	if o == nil || o.Field == nil {
		return "-"
	}
	return o.Field.String() + " " + string(o.Direction)
}

// loadRecordPages loads the page w of each farm's active records: one statement for the
// records and their totals, one per selected edge.
func (s *Service) loadRecordPages(ctx context.Context, farms []uuid.UUID, w Window, first, last *int, order *ent.RecordOrder, edges RecordEdges) (map[uuid.UUID]*ent.RecordConnection, error) {
	col, isDefault, err := recordOrderColumn(order)
	if err != nil {
		return nil, err
	}
	direction := entgql.OrderDirectionAsc
	if order != nil {
		direction = order.Direction
	}
	reverse := last != nil
	if reverse {
		direction = direction.Reverse()
	}
	limit := 0
	if first != nil {
		limit = *first + 1
	} else if last != nil {
		limit = *last + 1
	}
	conns := make(map[uuid.UUID]*ent.RecordConnection, len(farms))
	for _, id := range farms {
		conns[id] = &ent.RecordConnection{Edges: []*ent.RecordEdge{}}
	}
	if limit == 1 { // first: 0 or last: 0: the totals only
		return conns, s.recordTotals(ctx, farms, conns)
	}
	hasCursor := w.After != nil || w.Before != nil
	if len(farms) == 1 {
		return conns, s.loadRecordPage(ctx, farms[0], conns[farms[0]], w, first, last, order, col, isDefault, direction, limit, edges)
	}
	orderExpr := sql.ExprFunc(func(b *sql.Builder) {
		b.Ident(col).Pad().WriteString(string(direction))
		if !isDefault {
			b.Comma().Ident(record.FieldID).Pad().WriteString(string(direction))
		}
	})
	cursors := entgql.CursorsPredicate(w.After, w.Before, record.FieldID, col, direction)
	const totalCol, rowCol = "page_total_count", "page_row_number"
	q := s.Client(ctx).Record.Query().
		// Explicit, so that rows are numbered after soft-deleted ones are left out.
		Where(record.FarmIDIn(farms...), record.IsActive(true)).
		Where(func(sel *sql.Selector) {
			d := sql.Dialect(sel.Dialect())
			src := sel.Clone()
			if !hasCursor {
				// Without a cursor, the rows numbered are the rows counted.
				src.AppendSelectExprAs(sql.Window(func(b *sql.Builder) { b.WriteString("COUNT(*)") }).PartitionBy(record.FieldFarmID), totalCol)
			}
			numbered := d.Select("*").
				AppendSelectExprAs(sql.RowNumber().PartitionBy(record.FieldFarmID).OrderExpr(orderExpr), rowCol).
				From(d.Table("page_src"))
			for _, p := range cursors {
				p(numbered)
			}
			with := d.With("page_src").As(src).With("page_numbered").As(numbered)
			t := d.Table("page_numbered").As(sel.TableName())
			cols := sel.UnqualifiedColumns()
			outer := d.Select(cols...).From(t).Where(sql.LTE(t.C(rowCol), limit)).Prefix(with)
			if !hasCursor {
				outer.AppendSelect(t.C(totalCol))
			}
			*sel = *outer
		})
	if !isDefault {
		q.Order(orderTerm(col, direction), orderTerm(record.FieldID, direction))
	} else {
		q.Order(orderTerm(record.FieldID, direction))
	}
	withEdges(q, edges, farms...)
	rows, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	nodes := make(map[uuid.UUID][]*ent.Record, len(farms))
	for _, r := range rows {
		nodes[r.FarmID] = append(nodes[r.FarmID], r)
	}
	for _, id := range farms {
		c := conns[id]
		if !hasCursor {
			if ns := nodes[id]; len(ns) > 0 {
				n, err := ns[0].Value(totalCol)
				if err != nil {
					return nil, err
				}
				c.TotalCount = toInt(n)
			}
		}
		buildRecordConnection(c, nodes[id], order, isDefault, w, first, last)
	}
	if hasCursor {
		return conns, s.recordTotals(ctx, farms, conns)
	}
	return conns, nil
}

func orderTerm(col string, d entgql.OrderDirection) func(*sql.Selector) {
	if d == entgql.OrderDirectionDesc {
		return ent.Desc(col)
	}
	return ent.Asc(col)
}

// recordTotals counts each farm's active records with one statement.
func (s *Service) recordTotals(ctx context.Context, farms []uuid.UUID, conns map[uuid.UUID]*ent.RecordConnection) error {
	var counts []struct {
		FarmID uuid.UUID `json:"farm_id"`
		Count  int       `json:"count"`
	}
	err := s.Client(ctx).Record.Query().Where(record.FarmIDIn(farms...)).
		GroupBy(record.FieldFarmID).Aggregate(ent.Count()).Scan(ctx, &counts)
	if err != nil {
		return err
	}
	for _, c := range counts {
		if conn := conns[c.FarmID]; conn != nil {
			conn.TotalCount = c.Count
		}
	}
	return nil
}

func toInt(v any) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case int:
		return n
	case int32:
		return int(n)
	case float64:
		return int(n)
	case []byte:
		var i int
		_, _ = fmt.Sscan(string(n), &i)
		return i
	case string:
		var i int
		_, _ = fmt.Sscan(n, &i)
		return i
	}
	return 0
}

// buildRecordConnection fills c with the page's edges and page info, as ent's own
// pagination does: nodes holds up to one more than the page, in query order.
func buildRecordConnection(c *ent.RecordConnection, nodes []*ent.Record, order *ent.RecordOrder, isDefault bool, w Window, first, last *int) {
	c.PageInfo.HasNextPage = w.Before != nil
	c.PageInfo.HasPreviousPage = w.After != nil
	if first != nil && *first+1 == len(nodes) {
		c.PageInfo.HasNextPage = true
		nodes = nodes[:len(nodes)-1]
	} else if last != nil && *last+1 == len(nodes) {
		c.PageInfo.HasPreviousPage = true
		nodes = nodes[:len(nodes)-1]
	}
	c.Edges = make([]*ent.RecordEdge, len(nodes))
	for i := range nodes {
		node := nodes[i]
		if last != nil {
			node = nodes[len(nodes)-1-i]
		}
		cur := Cursor{ID: node.ID}
		if !isDefault {
			cur.Value, _ = order.Field.Value(node)
		}
		c.Edges[i] = &ent.RecordEdge{Node: node, Cursor: cur}
	}
	if l := len(c.Edges); l > 0 {
		c.PageInfo.StartCursor = &c.Edges[0].Cursor
		c.PageInfo.EndCursor = &c.Edges[l-1].Cursor
	}
}

// withEdges makes q load the edges the page's nodes select, one statement each.
// Each names the records' farms (farmOf, linkedOf), so that on a cluster the page of one
// farm reads only its shard.
func withEdges(q *ent.RecordQuery, edges RecordEdges, farms ...uuid.UUID) {
	for _, alias := range edges.Items {
		q.WithNamedItems(alias, answerItems, itemsOf(farms...))
	}
	for _, alias := range edges.Files {
		q.WithNamedFiles(alias, filesOf(farms...))
	}
	for _, alias := range edges.Animals {
		q.WithNamedAnimals(alias, animalsOf(farms...))
	}
	for _, alias := range edges.Groups {
		q.WithNamedGroups(alias, func(q *ent.GroupQuery) { q.Where(linkedOf(record.GroupsTable, farms...)) })
	}
}

// itemsOf, filesOf and animalsOf give a record query's eager loading of its items, files and
// animals the records' farms.
func itemsOf(farms ...uuid.UUID) func(*ent.RecordItemQuery) {
	return func(q *ent.RecordItemQuery) { q.Where(farmOf(farms...)) }
}

func filesOf(farms ...uuid.UUID) func(*ent.FileQuery) {
	return func(q *ent.FileQuery) { q.Where(linkedOf(record.FilesTable, farms...)) }
}

func animalsOf(farms ...uuid.UUID) func(*ent.AnimalQuery) {
	return func(q *ent.AnimalQuery) { q.Where(linkedOf(record.AnimalsTable, farms...)) }
}

// loadRecordPage loads one farm's page: numbering every record of the farm to page one
// would make the database read them all, so a single farm's page is an ordered, limited
// scan (an index walk) with the total read from the farm's counter row (the record count
// every record write keeps in its transaction, as the REST list's total), which costs the
// same on a farm of 100,000 records as on one of ten. Still one statement, plus one per
// selected edge.
func (s *Service) loadRecordPage(ctx context.Context, farmID uuid.UUID, c *ent.RecordConnection, w Window, first, last *int, order *ent.RecordOrder, col string, isDefault bool, direction entgql.OrderDirection, limit int, edges RecordEdges) error {
	const totalCol = "page_total_count"
	q := s.Client(ctx).Record.Query().Where(record.FarmID(farmID))
	for _, p := range entgql.CursorsPredicate(w.After, w.Before, record.FieldID, col, direction) {
		q.Where(p)
	}
	q.Where(func(sel *sql.Selector) {
		sel.AppendSelectExprAs(counterColumn(sel.Dialect(), farmID, changecounter.FieldRecords), totalCol)
	})
	if !isDefault {
		q.Order(orderTerm(col, direction), orderTerm(record.FieldID, direction))
	} else {
		q.Order(orderTerm(record.FieldID, direction))
	}
	q.Limit(limit)
	withEdges(q, edges, farmID)
	rows, err := q.All(ctx)
	if err != nil {
		return err
	}
	if len(rows) > 0 {
		n, err := rows[0].Value(totalCol)
		if err != nil {
			return err
		}
		c.TotalCount = toInt(n)
	} else if err := s.recordTotals(ctx, []uuid.UUID{farmID}, map[uuid.UUID]*ent.RecordConnection{farmID: c}); err != nil {
		return err
	}
	buildRecordConnection(c, rows, order, isDefault, w, first, last)
	return nil
}
