package herdbook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/birthevent"
	"github.com/herdbook/herdbook/ent/birthpreview"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/taskupdate"
)

// ApproveBirthPreview records the birth of a preview as a calving (birthpath.go): its calves
// become animals with their birth facts, and the protocol's steps tasks naming the dam or the
// calves. The request id makes it idempotent: the same id for the same preview replays the
// first answer; for another preview it is a conflict.
func (s *Service) ApproveBirthPreview(ctx context.Context, farmID, previewID uuid.UUID, in BirthApproval) (*ent.BirthEvent, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	requestID := in.RequestID
	if err := validateRequestID(requestID, true); err != nil {
		return nil, err
	}
	var eventID uuid.UUID
	err := s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		prev, err := c.BirthEvent.Query().Where(birthevent.FarmID(farmID), birthevent.RequestID(requestID)).Only(ctx)
		switch {
		case err == nil && prev.PreviewID == previewID:
			eventID = prev.ID
			return nil
		case err == nil:
			return Errorf(ECONFLICT, "request id %q was already used for another preview", requestID)
		case !ent.IsNotFound(err):
			return err
		}
		p, err := c.BirthPreview.Query().Where(birthpreview.FarmID(farmID), birthpreview.ID(previewID)).Only(ctx)
		if err != nil {
			return notFound(err, "preview", previewID)
		}
		if p.Stale {
			return Errorf(ECONFLICT, "the preview is stale: the birth-history settings changed after it was made; make a new preview")
		}
		if p.ApprovedAt == nil {
			changed, err := s.evidenceChanged(ctx, p)
			if err != nil {
				return err
			}
			if changed {
				// Marked outside this transaction's rollback would be lost; the answer says
				// why, and the next read of the preview marks it.
				return Errorf(ECONFLICT, "the preview is stale: facts under its evidence (of the dam, a candidate sire or their groups) were recorded after it was made; make a new preview")
			}
		}
		if p.ApprovedAt != nil {
			return Errorf(ECONFLICT, "the preview was already approved with another request id")
		}
		// One birth per dam and day: a second preview of the same calving, approved (by
		// another hand, or again after a settings change), answers the birth already
		// recorded and creates neither a second event nor a second set of tasks.
		if first, err := s.sameBirth(ctx, farmID, p.DamID, p.BirthDate); err != nil {
			return err
		} else if first != nil {
			eventID = first.ID
			return p.Update().SetApprovedAt(s.nowUTC()).SetBirthEventID(first.ID).Exec(ctx)
		}
		if err := in.checkCalves(); err != nil {
			return err
		}
		cur, err := s.protocol(ctx, farmID, 0)
		if err != nil {
			return err
		}
		if cur.Version != p.ProtocolVersion {
			old, err := s.protocol(ctx, farmID, p.ProtocolVersion)
			if err != nil && p.ProtocolVersion != 0 {
				return err
			}
			if !slices.Equal(old.Steps, cur.Steps) {
				return Errorf(ECONFLICT, "the follow-up protocol changed its steps since the preview (version %d, now %d); make a new preview", p.ProtocolVersion, cur.Version)
			}
		}
		// The calving operation records the birth, its calves and its tasks, and approves
		// the preview.
		cv, _, err := s.RecordCalving(ctx, farmID, in.calving(p))
		if err != nil {
			return err
		}
		eventID = cv.ID
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Client(ctx).BirthEvent.Query().Where(birthevent.ID(eventID), birthevent.FarmID(farmID)).
		WithTasks(func(q *ent.FarmTaskQuery) {
			q.Where(farmOf(farmID)).Order(ent.Asc(farmtask.FieldStep)).WithAnimals(taskAnimalsOf(farmID))
		}).Only(ctx)
}

// sameBirth returns the approved birth of dam on day, nil when there is none: approval is
// idempotent on (dam, birth date).
func (s *Service) sameBirth(ctx context.Context, farmID, dam uuid.UUID, day string) (*ent.BirthEvent, error) {
	ev, err := s.Client(ctx).BirthEvent.Query().
		Where(birthevent.FarmID(farmID), birthevent.DamID(dam), birthevent.BirthDate(day)).
		Order(ent.Asc(birthevent.FieldCreatedAt), ent.Asc(birthevent.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return ev, err
}

func validateRequestID(id string, required bool) error {
	if id == "" && !required {
		return nil
	}
	if err := CheckText("request_id", id); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(id); n < 1 || n > 200 {
		return Invalid(FieldError{Field: "request_id", Message: "must be 1 to 200 characters"})
	}
	return nil
}

// TaskStatuses lists the statuses of a farm task.
var TaskStatuses = []string{"TODO", "DONE", "CANCELLED"}

// FarmTaskQuery filters and pages the farm-task list; its bounds differ from other lists.
type FarmTaskQuery struct {
	Skip   *int
	Take   *int
	Status *string
}

// farmTaskBounds validates the farm-task list's own bounds: skip ≥ 0, take 1..200 (50).
func farmTaskBounds(q FarmTaskQuery) (skip, take int, err error) {
	var fe fieldErrors
	skip, take = 0, 50
	if q.Skip != nil {
		if skip = *q.Skip; skip < 0 {
			fe.add("skip", "must be 0 or more")
		}
	}
	if q.Take != nil {
		if take = *q.Take; take < 1 || take > MaxTaskPage {
			fe.add("take", "must be between 1 and 200")
		}
	}
	return skip, take, fe.err()
}

// FarmTasks lists a farm's birth follow-up tasks: undated TODO tasks first, then by due
// date, then oldest first.
func (s *Service) FarmTasks(ctx context.Context, farmID uuid.UUID, q FarmTaskQuery) ([]*ent.FarmTask, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, err
	}
	skip, take, err := farmTaskBounds(q)
	fe := fieldErrors(ErrorFields(err))
	if q.Status != nil && !slices.Contains(TaskStatuses, *q.Status) {
		fe.add("status", "must be one of TODO, DONE, CANCELLED")
	}
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	return s.farmTaskPage(ctx, farmID, q.Status, skip, take)
}

// MaxTaskPage is the largest page of farm tasks, in REST and in the GraphQL connection.
const MaxTaskPage = 200

// farmTaskPage loads one page of a farm's tasks in the board's order with their animals
// (deleted ones too: a task keeps naming them) and their birth, in three queries whatever the
// page size, and the number of tasks that match.
func (s *Service) farmTaskPage(ctx context.Context, farmID uuid.UUID, status *string, skip, take int) ([]*ent.FarmTask, int, error) {
	query := s.Client(ctx).FarmTask.Query().Where(farmtask.FarmID(farmID))
	if status != nil {
		query.Where(farmtask.StatusEQ(farmtask.Status(*status)))
	}
	total, err := query.Clone().Count(ctx)
	if err != nil || take == 0 || skip >= total {
		return []*ent.FarmTask{}, total, err
	}
	tasks, err := query.Order(func(sel *sql.Selector) {
		// Undated TODO first; then dated by due date; undated others last (SQLite and
		// PostgreSQL disagree on where NULLs sort, so it is spelt out).
		sel.OrderExpr(sql.Expr(fmt.Sprintf("CASE WHEN %s IS NULL AND %s = 'TODO' THEN 0 WHEN %s IS NULL THEN 2 ELSE 1 END",
			sel.C(farmtask.FieldDueDate), sel.C(farmtask.FieldStatus), sel.C(farmtask.FieldDueDate))))
	}, ent.Asc(farmtask.FieldDueDate), ent.Asc(farmtask.FieldCreatedAt), ent.Asc(farmtask.FieldID)).
		Offset(skip).Limit(take).WithAnimals(taskAnimalsOf(farmID)).WithBirthEvent(func(q *ent.BirthEventQuery) { q.Where(farmOf(farmID)) }).All(IncludeInactive(ctx))
	return tasks, total, err
}

// TaskConnectionFilter narrows the GraphQL task connection.
type TaskConnectionFilter struct {
	Status *farmtask.Status
}

// FarmTaskConnection pages through a farm's tasks in the board's order (see FarmTasks). That
// order is computed, not a column, so cursors carry the position in it: a task added or
// finished between two pages can shift the next page by one, as with REST's skip.
func (s *Service) FarmTaskConnection(ctx context.Context, farmID uuid.UUID, w Window, f TaskConnectionFilter) (*ent.FollowUpTaskConnection, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	var fe fieldErrors
	for _, a := range []struct {
		name string
		n    *int
	}{{"first", w.First}, {"last", w.Last}} {
		if a.n != nil && (*a.n < 0 || *a.n > MaxTaskPage) {
			fe.add(a.name, "must be between 0 and %d", MaxTaskPage)
		}
	}
	if w.First != nil && w.Last != nil {
		fe.add("last", "cannot be given with first")
	}
	for _, c := range []struct {
		name string
		c    *Cursor
	}{{"after", w.After}, {"before", w.Before}} {
		if c.c != nil {
			textIn(&fe, c.name, c.c.Value, false)
		}
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	var status *string
	if f.Status != nil {
		st := string(*f.Status)
		status = &st
	}
	// The window in positions: [from, to) of the whole ordered list, cut by the cursors
	// first, then by first or last.
	from, to := 0, -1 // -1: the end of the list
	if w.After != nil {
		from = positionOf(w.After) + 1
	}
	if w.Before != nil {
		to = positionOf(w.Before)
	}
	take := 50
	switch {
	case w.First != nil:
		take = *w.First
	case w.Last != nil:
		take = *w.Last
		if to < 0 {
			total, err := s.Client(ctx).FarmTask.Query().Where(farmTaskFilter(farmID, status)...).Count(ctx)
			if err != nil {
				return nil, err
			}
			to = total
		}
		if from < to-take {
			from = to - take
		}
	}
	if to >= 0 && take > to-from {
		take = max(to-from, 0)
	}
	tasks, total, err := s.farmTaskPage(ctx, farmID, status, from, take)
	if err != nil {
		return nil, err
	}
	conn := &ent.FollowUpTaskConnection{TotalCount: total, Edges: make([]*ent.FollowUpTaskEdge, len(tasks))}
	for i, t := range tasks {
		conn.Edges[i] = &ent.FollowUpTaskEdge{Node: t, Cursor: Cursor{ID: t.ID, Value: from + i}}
	}
	conn.PageInfo.HasPreviousPage = from > 0
	conn.PageInfo.HasNextPage = from+len(tasks) < total && (to < 0 || from+len(tasks) < to)
	if n := len(conn.Edges); n > 0 {
		conn.PageInfo.StartCursor = &conn.Edges[0].Cursor
		conn.PageInfo.EndCursor = &conn.Edges[n-1].Cursor
	}
	return conn, nil
}

func farmTaskFilter(farmID uuid.UUID, status *string) []predicate.FarmTask {
	ps := []predicate.FarmTask{farmtask.FarmID(farmID)}
	if status != nil {
		ps = append(ps, farmtask.StatusEQ(farmtask.Status(*status)))
	}
	return ps
}

// positionOf reads the position a task cursor carries (msgpack decodes it as the smallest
// integer type that holds it); a cursor from elsewhere counts as the start of the list.
func positionOf(c *Cursor) int {
	v := reflect.ValueOf(c.Value)
	switch {
	case !v.IsValid():
	case v.CanInt() && v.Int() > 0 && v.Int() < math.MaxInt32:
		return int(v.Int())
	case v.CanUint() && v.Uint() < math.MaxInt32:
		return int(v.Uint())
	}
	return 0
}

// FarmTaskPatch updates a task. DueDate is a date-only string: absent keeps the stored date,
// null clears it. RequestID, PreviewID and ProtocolVersion guard against stale clients.
type FarmTaskPatch struct {
	Status          string
	DueDate         Optional[string]
	RequestID       string
	PreviewID       *uuid.UUID
	ProtocolVersion *int
}

func (p FarmTaskPatch) validate() (*time.Time, error) {
	var fe fieldErrors
	if !slices.Contains(TaskStatuses, p.Status) {
		fe.add("status", "is required: one of TODO, DONE, CANCELLED")
	}
	var due *time.Time
	if p.DueDate.Value != nil {
		d, err := time.Parse(time.DateOnly, *p.DueDate.Value)
		if err != nil || len(*p.DueDate.Value) != 10 {
			fe.add("due_date", "must be a real calendar date YYYY-MM-DD, or null")
		} else {
			due = &d
		}
	}
	if err := validateRequestID(p.RequestID, false); err != nil {
		return nil, err
	}
	return due, fe.err()
}

// checkTaskPreview guards a task update that names the preview the client saw: it must be
// the preview the task's birth was approved from (another preview of the farm says the
// client holds another birth's view), and that preview must not have gone stale since.
func (s *Service) checkTaskPreview(ctx context.Context, farmID uuid.UUID, t *ent.FarmTask, previewID uuid.UUID) error {
	c := s.Client(ctx)
	pv, err := c.BirthPreview.Query().Where(birthpreview.FarmID(farmID), birthpreview.ID(previewID)).Only(ctx)
	if err != nil {
		return Invalid(FieldError{Field: "preview_id", Message: "is not a preview of this farm"})
	}
	ev, err := c.BirthEvent.Query().Where(birthevent.ID(t.BirthEventID)).Select(birthevent.FieldPreviewID).Only(ctx)
	if err != nil {
		return err
	}
	if ev.PreviewID != pv.ID {
		return Errorf(ECONFLICT, "preview %s is not the preview this task's birth was approved from (%s)", pv.ID, ev.PreviewID)
	}
	if pv.Stale {
		return Errorf(ECONFLICT, "the approved preview is stale: the birth-history settings or the farm's species changed after it was made")
	}
	return nil
}

// hash is the fingerprint of the request, to tell a retry from a reused request id.
func (p FarmTaskPatch) hash(taskID uuid.UUID) string {
	b, _ := json.Marshal(struct {
		Task     uuid.UUID
		Status   string
		DueSet   bool
		Due      *string
		Preview  *uuid.UUID
		Protocol *int
	}{taskID, p.Status, p.DueDate.Set, p.DueDate.Value, p.PreviewID, p.ProtocolVersion})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// UpdateFarmTask sets a task's status and due date. Any status may follow any other: a task
// marked DONE by mistake can be reopened. It answers ECONFLICT when the request id was used
// with another body (the same body replays the first answer), when the preview is stale, or
// when the client's protocol version has other steps than the task's.
func (s *Service) UpdateFarmTask(ctx context.Context, farmID, taskID uuid.UUID, p FarmTaskPatch) (*ent.FarmTask, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, err
	}
	due, err := p.validate()
	if err != nil {
		return nil, err
	}
	var out *ent.FarmTask
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		if p.RequestID != "" {
			prev, err := c.TaskUpdate.Query().Where(taskupdate.FarmID(farmID), taskupdate.RequestID(p.RequestID)).Only(ctx)
			switch {
			case err == nil && prev.BodyHash == p.hash(taskID):
				out = &ent.FarmTask{}
				return json.Unmarshal(prev.Snapshot, out)
			case err == nil:
				return Errorf(ECONFLICT, "request id %q was already used with a different request", p.RequestID)
			case !ent.IsNotFound(err):
				return err
			}
		}
		t, err := c.FarmTask.Query().Where(farmtask.FarmID(farmID), farmtask.ID(taskID)).Only(ctx)
		if err != nil {
			return notFound(err, "task", taskID)
		}
		if p.PreviewID != nil {
			if err := s.checkTaskPreview(ctx, farmID, t, *p.PreviewID); err != nil {
				return err
			}
		}
		if p.ProtocolVersion != nil && *p.ProtocolVersion != t.ProtocolVersion {
			theirs, err := s.protocol(ctx, farmID, *p.ProtocolVersion)
			if err != nil {
				return err
			}
			ours, err := s.protocol(ctx, farmID, t.ProtocolVersion)
			if err != nil && t.ProtocolVersion != 0 {
				return err
			}
			if !slices.Equal(theirs.Steps, ours.Steps) {
				return Errorf(ECONFLICT, "protocol version %d has different steps from the task's version %d", *p.ProtocolVersion, t.ProtocolVersion)
			}
		}
		if string(t.Status) == p.Status && (!p.DueDate.Set || sameDay(due, t.DueDate)) {
			// A write that changes nothing changes nothing: no updated_at, no place in the
			// change feed. The request id is still kept, so a retry answers the same.
			out, err = c.FarmTask.Query().Where(farmtask.ID(taskID), farmtask.FarmID(farmID)).WithAnimals(taskAnimalsOf(farmID)).WithBirthEvent(func(q *ent.BirthEventQuery) { q.Where(farmOf(farmID)) }).Only(IncludeInactive(ctx))
			if err != nil || p.RequestID == "" {
				return err
			}
			snap, err := json.Marshal(out)
			if err != nil {
				return err
			}
			return constraint(c.TaskUpdate.Create().SetFarmID(farmID).SetRequestID(p.RequestID).SetTaskID(taskID).
				SetBodyHash(p.hash(taskID)).SetSnapshot(snap).Exec(ctx), "the request id was used at the same time; retry to get its answer")
		}
		u := t.Update().Where(farmtask.FarmID(farmID)).SetStatus(farmtask.Status(p.Status))
		if p.DueDate.Set {
			if due == nil {
				u.ClearDueDate()
			} else {
				u.SetDueDate(*due)
			}
		}
		if err := u.Exec(ctx); err != nil {
			return err
		}
		out, err = c.FarmTask.Query().Where(farmtask.ID(taskID), farmtask.FarmID(farmID)).WithAnimals(taskAnimalsOf(farmID)).WithBirthEvent(func(q *ent.BirthEventQuery) { q.Where(farmOf(farmID)) }).Only(IncludeInactive(ctx))
		if err != nil {
			return err
		}
		if p.RequestID != "" {
			snap, err := json.Marshal(out)
			if err != nil {
				return err
			}
			if err := c.TaskUpdate.Create().SetFarmID(farmID).SetRequestID(p.RequestID).SetTaskID(taskID).
				SetBodyHash(p.hash(taskID)).SetSnapshot(snap).Exec(ctx); err != nil {
				return constraint(err, "the request id was used at the same time; retry to get its answer")
			}
		}
		return nil
	})
	return out, err
}

// sameDay tells whether two optional dates are both absent or the same instant.
func sameDay(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

// TaskAnimalLinks returns the links of task taskID of farmID to the animals it is about, to be
// created once the task is: FarmTask.animals goes through FarmTaskAnimal, whose rows name the
// farm (docs/scaling.md), so a task's animals are never added with ent's AddAnimalIDs.
func TaskAnimalLinks(c *ent.Client, farmID, taskID uuid.UUID, animals ...uuid.UUID) []*ent.FarmTaskAnimalCreate {
	links := make([]*ent.FarmTaskAnimalCreate, len(animals))
	for i, a := range animals {
		links[i] = c.FarmTaskAnimal.Create().SetFarmTaskID(taskID).SetAnimalID(a).SetFarmID(farmID)
	}
	return links
}

// taskAnimalsOf gives a task query's eager loading of its animals the farm (linkedOf).
func taskAnimalsOf(farmID uuid.UUID) func(*ent.AnimalQuery) {
	return func(q *ent.AnimalQuery) { q.Where(linkedOf(farmtask.AnimalsTable, farmID)) }
}
