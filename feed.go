package herdbook

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/file"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema/track"
	"github.com/herdbook/herdbook/ent/user"
)

// The change feed. Every transaction that changes a farm's records, animals or farm tasks
// takes the next number of the farm's change counter and stamps the rows it changes with
// it (change_seq); farm-level changes (a farm, its members) take numbers from one counter
// for all farms. The counter row stays locked until the transaction commits, so numbers
// become visible in order: a reader that has seen number n never later finds a committed
// change numbered n or less that it missed (ent/schema/track).
//
// A cursor is a position (number, id) in that order; a list asked for updated_since=cursor
// returns the rows after it, soft-deleted ones included, ordered by (change_seq, id). The
// answer's next_cursor is the position after its last row, or, when the answer holds
// everything that changed, the counter's value read before the rows were, so a client that
// keeps it misses nothing and reads nothing twice unless it changed again.

// Feed kinds, written into cursors so that one list's cursor is not taken by another.
const (
	feedFarms   = "farms"
	feedRecords = "records"
	feedTasks   = "tasks"
	feedAnimals = "animals"
)

// cursor is a position in a change sequence: every change up to number Seq, row ID
// included, has been seen. ID uuid.Max stands for all rows of Seq.
type cursor struct {
	Kind  string    `json:"k"`
	Scope uuid.UUID `json:"f"` // the counter: the farm's id, or uuid.Nil for farms
	Seq   int64     `json:"s"`
	ID    uuid.UUID `json:"i"`
	// records is the farm's active record count read with the position (not part of a
	// cursor): the records list's exact total without counting the farm.
	records int64
}

func (c cursor) String() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// after reports whether position (seq, id) lies after c.
func (c cursor) after(seq int64, id uuid.UUID) bool {
	return seq > c.Seq || (seq == c.Seq && slices.Compare(id[:], c.ID[:]) > 0)
}

// parseCursor reads an updated_since value made for this list.
func parseCursor(raw, kind string, scope uuid.UUID) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err == nil && len(raw) <= 200 {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || len(raw) > 200 || c.Kind != kind || c.Scope != scope || c.Seq < 0 {
		return cursor{}, Invalid(FieldError{Field: "updated_since", Message: "must be a next_cursor this list gave earlier"})
	}
	return c, nil
}

// position returns the counter's committed value as a cursor covering all its rows.
func (s *Service) position(ctx context.Context, kind string, scope uuid.UUID) (cursor, error) {
	row, err := s.Client(ctx).ChangeCounter.Get(ctx, scope)
	if ent.IsNotFound(err) {
		return cursor{Kind: kind, Scope: scope, ID: uuid.Max}, nil
	}
	if err != nil {
		return cursor{}, err
	}
	return cursor{Kind: kind, Scope: scope, Seq: row.Seq, ID: uuid.Max, records: row.Records}, nil
}

// FeedPage asks for one page of a list, and, with Since, only for what changed after an
// earlier answer's next_cursor.
type FeedPage struct {
	Page
	Since *string
}

// feedQuery validates a feed page and returns the cursor to read after (nil for a plain
// list), the position to answer when everything was read, and the limit.
func (s *Service) feedQuery(ctx context.Context, p FeedPage, kind string, scope uuid.UUID, limit func(Page) (int, int, error)) (*cursor, cursor, int, int, error) {
	skip, take, err := limit(p.Page)
	var since *cursor
	fe := fieldErrors(ErrorFields(err))
	if p.Since != nil {
		c, err := parseCursor(*p.Since, kind, scope)
		if err != nil {
			fe = append(fe, ErrorFields(err)...)
		}
		if skip > 0 {
			fe.add("skip", "cannot be combined with updated_since: follow next_cursor instead")
		}
		since = &c
	}
	if err := fe.err(); err != nil {
		return nil, cursor{}, 0, 0, err
	}
	// Read before the rows: everything numbered up to here has committed.
	pos, err := s.position(ctx, kind, scope)
	return since, pos, skip, take, err
}

// next returns the next_cursor of an answer: after its last row when more may follow,
// else the later of that and the counter's position.
func next(since *cursor, pos cursor, n, limit int, last func() (int64, uuid.UUID)) string {
	if since == nil {
		return pos.String()
	}
	c := *since
	if n > 0 {
		c.Seq, c.ID = last()
	}
	if limit > 0 && n < limit && c.after(pos.Seq, pos.ID) {
		c.Seq, c.ID = pos.Seq, pos.ID
	}
	return c.String()
}

// changedAfter selects rows after the cursor, in change order.
func changedAfter(c *cursor) func(*sql.Selector) {
	return func(sel *sql.Selector) {
		seq, id := sel.C("change_seq"), sel.C("id")
		sel.Where(sql.Or(sql.GT(seq, c.Seq), sql.And(sql.EQ(seq, c.Seq), sql.GT(id, c.ID))))
	}
}

// FarmFeed lists the viewer's farms like Farms, with the position to sync from; with
// Since, the farms that changed after it (a change of the farm or of its members),
// soft-deleted farms included. A farm the viewer left is not reported.
func (s *Service) FarmFeed(ctx context.Context, p FeedPage) ([]*ent.Farm, int, string, error) {
	v, err := authenticate(ctx, ScopeReadFarms)
	if err != nil {
		return nil, 0, "", err
	}
	since, pos, skip, limit, err := s.feedQuery(ctx, p, feedFarms, track.GlobalCounter, s.bounds)
	if err != nil {
		return nil, 0, "", err
	}
	if since == nil {
		farms, total, err := s.Farms(ctx, p.Page)
		return farms, total, next(nil, pos, 0, 0, nil), err
	}
	all := IncludeInactive(ctx)
	q := s.Client(ctx).Farm.Query().Where(changedAfter(since)).
		WithMembers(func(q *ent.FarmMemberQuery) {
			q.Where(farmmember.IsActive(true)).
				WithUser(func(q *ent.UserQuery) { q.Where(user.IsActive(true)) }).
				Order(ent.Asc(farmmember.FieldCreatedAt), ent.Asc(farmmember.FieldID))
		})
	visibleFarms(v)(q)
	total, err := q.Clone().Count(all)
	if err != nil || limit == 0 {
		return []*ent.Farm{}, total, since.String(), err
	}
	farms, err := q.Order(ent.Asc(farm.FieldChangeSeq), ent.Asc(farm.FieldID)).Offset(skip).Limit(limit).All(all)
	if err != nil {
		return nil, 0, "", err
	}
	return farms, total, next(since, pos, len(farms), limit, func() (int64, uuid.UUID) {
		f := farms[len(farms)-1]
		return f.ChangeSeq, f.ID
	}), nil
}

// RecordFeed lists a farm's records like Records, with the position to sync from; with
// Since, the records that changed after it (a change of the record, its items or its
// files), soft-deleted records included.
func (s *Service) RecordFeed(ctx context.Context, farmID uuid.UUID, p FeedPage) ([]*ent.Record, int, string, error) {
	if p.Since == nil {
		// A plain page: the membership check, the position and the total come with the
		// rows (recordPage).
		rs, pos, err := s.recordPage(ctx, farmID, p.Page)
		if err != nil {
			return nil, 0, "", err
		}
		return rs, int(pos.records), next(nil, pos, 0, 0, nil), nil
	}
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, "", err
	}
	since, pos, _, limit, err := s.feedQuery(ctx, p, feedRecords, farmID, s.bounds)
	if err != nil {
		return nil, 0, "", err
	}
	all := IncludeInactive(ctx)
	q := s.Client(ctx).Record.Query().Where(record.FarmID(farmID), changedAfter(since)).
		WithItems(func(q *ent.RecordItemQuery) {
			q.Where(recorditem.IsActive(true)).Order(ent.Asc(recorditem.FieldCreatedAt), ent.Asc(recorditem.FieldID))
		}, itemsOf(farmID)).
		WithFiles(func(q *ent.FileQuery) { q.Where(file.IsActive(true)) }, filesOf(farmID))
	total, err := q.Clone().Count(all)
	if err != nil || limit == 0 {
		return []*ent.Record{}, total, since.String(), err
	}
	rs, err := q.Order(ent.Asc(record.FieldChangeSeq), ent.Asc(record.FieldID)).Limit(limit).All(all)
	if err != nil {
		return nil, 0, "", err
	}
	return rs, total, next(since, pos, len(rs), limit, func() (int64, uuid.UUID) {
		r := rs[len(rs)-1]
		return r.ChangeSeq, r.ID
	}), nil
}

// AnimalCursor returns the position of a farm's animals in the change feed, for a register
// page read after it (GET …/animals answers it as next_cursor): everything numbered up to
// it has committed, so updated_since=cursor then misses no change made while the page was
// read.
func (s *Service) AnimalCursor(ctx context.Context, farmID uuid.UUID) (string, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return "", err
	}
	pos, err := s.position(ctx, feedAnimals, farmID)
	if err != nil {
		return "", err
	}
	return pos.String(), nil
}

// AnimalFeed lists a farm's animals oldest first, with the position to sync from; with
// Since, the animals that changed after it, soft-deleted animals included. It serves the
// animals list's updated_since (GET …/animals) the way RecordFeed serves records.
func (s *Service) AnimalFeed(ctx context.Context, farmID uuid.UUID, p FeedPage) ([]*ent.Animal, int, string, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, 0, "", err
	}
	since, pos, skip, limit, err := s.feedQuery(ctx, p, feedAnimals, farmID, s.bounds)
	if err != nil {
		return nil, 0, "", err
	}
	ctxq, q := ctx, s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID))
	order := []animal.OrderOption{ent.Asc(animal.FieldCreatedAt), ent.Asc(animal.FieldID)}
	if since != nil {
		ctxq = IncludeInactive(ctx)
		q.Where(changedAfter(since))
		order = []animal.OrderOption{ent.Asc(animal.FieldChangeSeq), ent.Asc(animal.FieldID)}
	}
	total, err := q.Clone().Count(ctxq)
	if err != nil || limit == 0 {
		return []*ent.Animal{}, total, next(since, pos, 0, 0, nil), err
	}
	as, err := q.Order(order...).Offset(skip).Limit(limit).All(ctxq)
	if err != nil {
		return nil, 0, "", err
	}
	return as, total, next(since, pos, len(as), limit, func() (int64, uuid.UUID) {
		a := as[len(as)-1]
		return a.ChangeSeq, a.ID
	}), nil
}

// FarmTaskFeed lists a farm's tasks like FarmTasks, with the position to sync from; with
// Since, the tasks that changed after it (tasks are never deleted: a CANCELLED task is
// one that changed). Since cannot be combined with a status filter, which would hide a
// task that left the status.
func (s *Service) FarmTaskFeed(ctx context.Context, farmID uuid.UUID, q FarmTaskQuery, since *string) ([]*ent.FarmTask, int, string, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, "", err
	}
	bounds := func(Page) (int, int, error) { return farmTaskBounds(q) }
	p := FeedPage{Since: since}
	if q.Skip != nil {
		p.Skip = *q.Skip
	}
	c, pos, _, limit, err := s.feedQuery(ctx, p, feedTasks, farmID, bounds)
	if err == nil && c != nil && q.Status != nil {
		err = Invalid(FieldError{Field: "status", Message: "cannot be combined with updated_since: a task that left the status would not be reported"})
	}
	if err != nil {
		return nil, 0, "", err
	}
	if c == nil {
		tasks, total, err := s.FarmTasks(ctx, farmID, q)
		return tasks, total, next(nil, pos, 0, 0, nil), err
	}
	query := s.Client(ctx).FarmTask.Query().Where(farmtask.FarmID(farmID), changedAfter(c))
	total, err := query.Clone().Count(ctx)
	if err != nil {
		return nil, 0, "", err
	}
	tasks, err := query.Order(ent.Asc(farmtask.FieldChangeSeq), ent.Asc(farmtask.FieldID)).Limit(limit).
		WithAnimals(func(q *ent.AnimalQuery) { q.Select("id") }, taskAnimalsOf(farmID)).All(IncludeInactive(ctx))
	if err != nil {
		return nil, 0, "", err
	}
	return tasks, total, next(c, pos, len(tasks), limit, func() (int64, uuid.UUID) {
		t := tasks[len(tasks)-1]
		return t.ChangeSeq, t.ID
	}), nil
}
