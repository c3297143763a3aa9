package herdbook

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/auditentry"
	"github.com/herdbook/herdbook/ent/factanimal"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recordanimal"
	"github.com/herdbook/herdbook/ent/recordgroup"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema/onfarm"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/ent/schema/trail"
)

// The book's corrections (docs/audit.md). A record or record item is never erased: DELETE
// (OWNER), void (EDITOR) and amend (EDITOR) keep the row, mark it voided with who, when and
// why, and take it out of every derived answer from then on; an amend also writes the
// corrected entry, linked both ways (amends, superseded_by). Each change appends audit
// entries in its transaction (ent/schema/trail). A computerised holding register must keep
// amendments with the old and new values, date, user and reason, and delete nothing without
// trace (issue 19; The Cattle Identification Regulations 2007, reg. 8, and Regulation (EU)
// 2019/2035, art. 102, on keeping the holding register; The Veterinary Medicines Regulations
// 2013, reg. 19, and Regulation (EU) 2019/6, art. 108, on keeping medicine records five years).

// MaxReasonLength bounds the reason of a void, an amend or a delete.
const MaxReasonLength = 1000

// validateReason checks a void or amend reason: required when required, one line or prose
// of at most MaxReasonLength characters.
func validateReason(fe *fieldErrors, reason string, required bool) {
	if strings.TrimSpace(reason) == "" {
		if required {
			fe.add("reason", "is required: say why the entry is voided or corrected")
		}
		return
	}
	if !fe.prose("reason", reason) {
		return
	}
	if utf8.RuneCountInString(reason) > MaxReasonLength {
		fe.add("reason", "must be at most %d characters", MaxReasonLength)
	}
}

// DeleteRecordWithReason deletes a record (OWNER): it stays in the book, voided, with the
// optional reason, and leaves every derived answer from now on.
func (s *Service) DeleteRecordWithReason(ctx context.Context, farmID, id uuid.UUID, reason string) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, ScopeWriteRecords); err != nil {
		return err
	}
	var fe fieldErrors
	validateReason(&fe, reason, false)
	if err := fe.err(); err != nil {
		return err
	}
	_, err := s.voidRecord(ctx, farmID, id, trail.Delete, strings.TrimSpace(reason))
	return err
}

// VoidRecord voids a record (EDITOR, reason required): the record stays in the book, marked
// with who voided it, when and why, and leaves every derived answer from now on.
func (s *Service) VoidRecord(ctx context.Context, farmID, id uuid.UUID, reason string) (*ent.Record, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, err
	}
	var fe fieldErrors
	validateReason(&fe, reason, true)
	if err := fe.err(); err != nil {
		return nil, err
	}
	return s.voidRecord(ctx, farmID, id, trail.Void, strings.TrimSpace(reason))
}

// voidRecord marks an active record of the farm voided; the trail's hooks stamp who and
// when and write the audit entry.
func (s *Service) voidRecord(ctx context.Context, farmID, id uuid.UUID, action, reason string) (*ent.Record, error) {
	var r *ent.Record
	err := s.inTx(ctx, func(ctx context.Context) error {
		ctx = trail.WithAction(ctx, action, reason)
		old, err := s.Client(ctx).Record.Query().Where(record.FarmID(farmID), record.ID(id)).Only(ctx)
		if err != nil {
			return notFound(err, "record", id)
		}
		r, err = updateRecordOf(ctx, s.Client(ctx), farmID, old.ID, func(m *ent.RecordMutation) { m.SetIsActive(false) })
		return err
	})
	return r, err
}

// RecordAmendment corrects a record: the old record is voided (superseded) and a corrected
// one written in its place, linked both ways. Fields of the patch that are set replace the
// old record's; those left out are copied. AnimalIDs and GroupIDs, when either is given,
// replace the associations (an amend is the corrected entry whole, unlike PUT, which adds);
// Items, when ItemsSet, replace the active items, which are copied otherwise.
type RecordAmendment struct {
	Reason string
	RecordPatch
	AssociationsSet bool
	ItemsSet        bool
}

// AmendRecord writes the corrected record and supersedes the old one (EDITOR, reason
// required), in one transaction. The corrected record goes through every check a new record
// does. It returns the corrected record and the superseded one.
func (s *Service) AmendRecord(ctx context.Context, farmID, id uuid.UUID, a RecordAmendment) (*ent.Record, *ent.Record, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, nil, err
	}
	var fe fieldErrors
	validateReason(&fe, a.Reason, true)
	if err := a.RecordPatch.Validate(); err != nil {
		fe = append(fe, ErrorFields(err)...)
	}
	if err := fe.err(); err != nil {
		return nil, nil, err
	}
	reason := strings.TrimSpace(a.Reason)
	var created, old *ent.Record
	err := s.inTx(ctx, func(ctx context.Context) error {
		ctx = trail.WithAction(ctx, trail.Amend, reason)
		c := s.Client(ctx)
		prev, err := c.Record.Query().Where(record.FarmID(farmID), record.ID(id)).
			WithItems(func(q *ent.RecordItemQuery) {
				q.Order(ent.Asc(recorditem.FieldCreatedAt), ent.Asc(recorditem.FieldID))
			}).
			Only(ctx)
		if err != nil {
			return notFound(err, "record", id)
		}
		in := RecordInput{
			Name: prev.Name, Type: string(prev.Type), AppliedAt: &prev.AppliedAt, Description: prev.Description,
			AnimalIDs: a.AnimalIDs, GroupIDs: a.GroupIDs,
			AcknowledgeWithdrawal: prev.AcknowledgeWithdrawal || a.AcknowledgeWithdrawal,
		}
		if a.Name != nil {
			in.Name = *a.Name
		}
		if a.Type != nil {
			in.Type = *a.Type
		}
		if a.AppliedAt != nil {
			in.AppliedAt = a.AppliedAt
		}
		if a.Description.Set {
			in.Description = a.Description.Value
		}
		if !a.AssociationsSet {
			// The record's links, read with its farm (a link to an animal or group deleted
			// since is dropped by the new record's checks, as any inactive id is).
			err := c.RecordAnimal.Query().Where(recordanimal.FarmID(farmID), recordanimal.RecordID(prev.ID)).
				Select(recordanimal.FieldAnimalID).Scan(ctx, &in.AnimalIDs)
			if err != nil {
				return err
			}
			err = c.RecordGroup.Query().Where(recordgroup.FarmID(farmID), recordgroup.RecordID(prev.ID)).
				Select(recordgroup.FieldGroupID).Scan(ctx, &in.GroupIDs)
			if err != nil {
				return err
			}
		}
		if a.ItemsSet {
			in.Items = a.Items
		} else {
			for _, it := range prev.Edges.Items {
				md, err := it.Metadata.Map()
				if err != nil {
					return err
				}
				in.Items = append(in.Items, RecordItemInput{Name: it.Name, Description: it.Description, Metadata: md})
			}
		}
		// The old record leaves the book first, so that the corrected one is checked
		// against the history without the entry it corrects.
		if old, err = prev.Update().SetIsActive(false).Save(ctx); err != nil {
			return err
		}
		if created, err = s.CreateRecord(ctx, farmID, in); err != nil {
			return err
		}
		if created, err = created.Update().SetAmendsID(old.ID).Save(ctx); err != nil {
			return err
		}
		old, err = old.Update().SetSupersededByID(created.ID).Save(ctx)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	created, err = s.recordQuery(ctx, farmID).Where(record.ID(created.ID)).Only(ctx)
	return created, old, err
}

// farmItem returns an active item of an active record of the farm, 404 otherwise.
func (s *Service) farmItem(ctx context.Context, farmID, recordID, itemID uuid.UUID) (*ent.RecordItem, error) {
	it, err := s.Client(ctx).RecordItem.Query().
		Where(recorditem.ID(itemID), recorditem.RecordID(recordID),
			itemsOfFarm(farmID, record.IsActive(true))).Only(ctx)
	return it, notFound(err, "record item", itemID)
}

// VoidRecordItem voids one item of a record (EDITOR, reason required); its fact, if it
// carries one, leaves every derived answer from now on.
func (s *Service) VoidRecordItem(ctx context.Context, farmID, recordID, itemID uuid.UUID, reason string) (*ent.RecordItem, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, err
	}
	var fe fieldErrors
	validateReason(&fe, reason, true)
	if err := fe.err(); err != nil {
		return nil, err
	}
	var out *ent.RecordItem
	err := s.inTx(ctx, func(ctx context.Context) error {
		ctx = trail.WithAction(ctx, trail.Void, strings.TrimSpace(reason))
		it, err := s.farmItem(ctx, farmID, recordID, itemID)
		if err != nil {
			return err
		}
		if out, err = it.Update().SetIsActive(false).Save(ctx); err != nil {
			return err
		}
		// The record changed with its item: touching it gives it the farm's next change
		// number, so the records feed (and a kept register synced by it), the webhooks and
		// the register's kept filter sets (filterset.go) see the void. Only its update
		// stamp changes, which the trail counts as bookkeeping: the void is its one entry.
		return s.Client(ctx).Record.Update().Where(record.ID(recordID), record.FarmID(farmID)).Exec(onfarm.With(ctx, farmID))
	})
	return out, err
}

// AmendRecordItem corrects one item (EDITOR, reason required): the old item is voided and
// the corrected one appended to the same record, through every check an appended item
// goes through, linked both ways. It returns the corrected item and the superseded one.
func (s *Service) AmendRecordItem(ctx context.Context, farmID, recordID, itemID uuid.UUID, reason string, in RecordItemInput) (*ent.RecordItem, *ent.RecordItem, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, nil, err
	}
	var fe fieldErrors
	validateReason(&fe, reason, true)
	var ie fieldErrors
	validateItems(&ie, []RecordItemInput{in})
	for _, e := range ie { // the item is the body itself: name, not record_items[0].name
		e.Field = strings.TrimPrefix(e.Field, "record_items[0].")
		fe = append(fe, e)
	}
	if err := fe.err(); err != nil {
		return nil, nil, err
	}
	var created, old *ent.RecordItem
	err := s.inTx(ctx, func(ctx context.Context) error {
		ctx = trail.WithAction(ctx, trail.Amend, strings.TrimSpace(reason))
		prev, err := s.farmItem(ctx, farmID, recordID, itemID)
		if err != nil {
			return err
		}
		if in.Name == nil {
			in.Name = prev.Name
		}
		if in.Description == nil {
			in.Description = prev.Description
		}
		if in.Metadata == nil {
			if in.Metadata, err = prev.Metadata.Map(); err != nil {
				return err
			}
		}
		if old, err = prev.Update().SetIsActive(false).Save(ctx); err != nil {
			return err
		}
		if _, err := s.UpdateRecord(ctx, farmID, recordID, RecordPatch{Items: []RecordItemInput{in}}); err != nil {
			return err
		}
		// Item ids are time-ordered (uuid v7): the newest active item is the one just written.
		if created, err = s.Client(ctx).RecordItem.Query().Where(recorditem.RecordID(recordID)).
			Order(ent.Desc(recorditem.FieldID)).First(ctx); err != nil {
			return err
		}
		if created, err = created.Update().SetAmendsID(old.ID).Save(ctx); err != nil {
			return err
		}
		old, err = old.Update().SetSupersededByID(created.ID).Save(ctx)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return created, old, nil
}

// AuditFilter selects entries of a farm's audit trail. Unset fields do not filter. From and
// To bound the time of the change (both included); a bare date (YYYY-MM-DD) is its whole
// day in UTC.
type AuditFilter struct {
	AnimalID, RecordID, UserID string
	From, To                   string
	Page                       Page
}

// auditPredicates validates f and returns its conditions.
func (s *Service) auditPredicates(farmID uuid.UUID, f AuditFilter) ([]predicate.AuditEntry, error) {
	var fe fieldErrors
	ps := []predicate.AuditEntry{auditentry.FarmID(farmID)}
	id := func(field, v string) (uuid.UUID, bool) {
		if v == "" {
			return uuid.Nil, false
		}
		u, err := uuid.Parse(v)
		if err != nil || len(v) != 36 {
			fe.add(field, "must be a UUID")
			return uuid.Nil, false
		}
		return u, true
	}
	if u, ok := id("record_id", f.RecordID); ok {
		ps = append(ps, auditentry.RecordID(u))
	}
	if u, ok := id("user_id", f.UserID); ok {
		ps = append(ps, auditentry.UserID(u))
	}
	if u, ok := id("animal_id", f.AnimalID); ok {
		ps = append(ps, auditOfAnimal(farmID, u))
	}
	from, okFrom := auditTime(&fe, "from", f.From, false)
	to, okTo := auditTime(&fe, "to", f.To, true)
	if okFrom {
		ps = append(ps, auditentry.AtGTE(from))
	}
	if okTo {
		ps = append(ps, auditentry.AtLTE(to))
	}
	if okFrom && okTo && to.Before(from) {
		fe.add("to", "must not be before from")
	}
	return ps, fe.err()
}

// auditTime reads a from or to bound: an RFC 3339 date-time, or a date whose first (from)
// or last (to) instant in UTC is meant.
func auditTime(fe *fieldErrors, field, v string, end bool) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), true
	}
	if d, err := time.Parse(time.DateOnly, v); err == nil && len(v) == 10 {
		if end {
			return d.AddDate(0, 0, 1).Add(-time.Nanosecond), true
		}
		return d, true
	}
	fe.add(field, "must be an RFC 3339 date-time (2026-05-01T08:00:00Z) or a date (2026-05-01)")
	return time.Time{}, false
}

// auditOfAnimal keeps the entries of records that apply to the animal, and of items whose
// fact names it (in any role), through the join tables' animal indexes.
// Every table names the farm, so that a cluster runs it on the farm's shard.
func auditOfAnimal(farmID, animalID uuid.UUID) predicate.AuditEntry {
	return func(sel *sql.Selector) {
		d := sql.Dialect(sel.Dialect())
		// Separate tables for each subquery: a join gives its table an alias.
		ra, fa, fj, ri := sql.Table(record.AnimalsTable), sql.Table(factanimal.Table), sql.Table(factanimal.Table), sql.Table(recorditem.Table)
		ofRecords := d.Select(ra.C(record.AnimalsPrimaryKey[0])).From(ra).
			Where(sql.And(sql.EQ(ra.C(record.AnimalsPrimaryKey[1]), animalID), sql.EQ(ra.C("farm_id"), farmID)))
		ofItems := d.Select(fa.C(factanimal.FieldRecordItemID)).From(fa).
			Where(sql.And(sql.EQ(fa.C(factanimal.FieldAnimalID), animalID), sql.EQ(fa.C(factanimal.FieldFarmID), farmID)))
		recordsOfItems := d.Select(ri.C(recorditem.FieldRecordID)).From(ri).
			Join(fj).On(ri.C(recorditem.FieldID), fj.C(factanimal.FieldRecordItemID)).
			Where(sql.And(sql.EQ(fj.C(factanimal.FieldAnimalID), animalID), sql.EQ(fj.C(factanimal.FieldFarmID), farmID),
				sql.EQ(ri.C(recorditem.FieldFarmID), farmID)))
		sel.Where(sql.Or(
			sql.In(sel.C(auditentry.FieldRecordID), ofRecords),
			sql.In(sel.C(auditentry.FieldRecordItemID), ofItems),
			sql.In(sel.C(auditentry.FieldRecordID), recordsOfItems),
		))
	}
}

// Audit lists a page of the farm's audit trail, oldest first, with the number of entries the
// filter keeps: who changed which record or item, when, why, with the values before and
// after. Any member may read it (an inspector reads the book). Three statements whatever
// the page (the membership check, the count, the page).
func (s *Service) Audit(ctx context.Context, farmID uuid.UUID, f AuditFilter) ([]*ent.AuditEntry, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, err
	}
	ps, err := s.auditPredicates(farmID, f)
	offset, limit, perr := s.bounds(f.Page)
	if perr != nil {
		fe := fieldErrors(ErrorFields(err))
		fe = append(fe, ErrorFields(perr)...)
		err = fe.err()
	}
	if err != nil {
		return nil, 0, err
	}
	q := s.Client(ctx).AuditEntry.Query().Where(ps...)
	total, err := q.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []*ent.AuditEntry{}, total, err
	}
	out, err := q.Order(ent.Asc(auditentry.FieldAt), ent.Asc(auditentry.FieldID)).Offset(offset).Limit(limit).All(ctx)
	return out, total, err
}

// AuditQuery returns the query of the farm's audit trail under f, for GraphQL connections.
func (s *Service) AuditQuery(ctx context.Context, farmID uuid.UUID, f AuditFilter) (*ent.AuditEntryQuery, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	ps, err := s.auditPredicates(farmID, f)
	if err != nil {
		return nil, err
	}
	return s.Client(ctx).AuditEntry.Query().Where(ps...), nil
}

// AuditCSVHeader names the columns of the audit trail's CSV.
var AuditCSVHeader = []string{"at", "action", "entity", "record_id", "record_item_id", "user_id", "client_id", "reason", "old_value", "new_value"}

// AuditCSV writes the whole filtered trail (f.Page is ignored), oldest first, to emit one
// row at a time, in chunks of constant cost.
func (s *Service) AuditCSV(ctx context.Context, farmID uuid.UUID, f AuditFilter, emit func([]string) error) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return err
	}
	ps, err := s.auditPredicates(farmID, f)
	if err != nil {
		return err
	}
	if err := emit(AuditCSVHeader); err != nil {
		return err
	}
	var last *ent.AuditEntry
	for {
		q := s.Client(ctx).AuditEntry.Query().Where(ps...)
		if last != nil {
			q.Where(auditentry.Or(auditentry.AtGT(last.At), auditentry.And(auditentry.At(last.At), auditentry.IDGT(last.ID))))
		}
		rows, err := q.Order(ent.Asc(auditentry.FieldAt), ent.Asc(auditentry.FieldID)).Limit(medicineBookChunk).All(ctx)
		if err != nil {
			return err
		}
		for _, e := range rows {
			if err := emit(auditRow(e)); err != nil {
				return err
			}
		}
		if len(rows) < medicineBookChunk {
			return nil
		}
		last = rows[len(rows)-1]
	}
}

func auditRow(e *ent.AuditEntry) []string {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	id := func(p *uuid.UUID) string {
		if p == nil {
			return ""
		}
		return p.String()
	}
	js := func(m schematype.Metadata) string {
		if m.IsNull() {
			return ""
		}
		return string(m)
	}
	return []string{e.At.UTC().Format(time.RFC3339Nano), e.Action, e.Entity, e.RecordID.String(), id(e.RecordItemID),
		id(e.UserID), str(e.ClientID), str(e.Reason), js(e.OldValue), js(e.NewValue)}
}

// AuditConnection pages through the farm's audit trail under f (its Page ignored), oldest
// first: the membership check, the page and, when asked, its count.
func (s *Service) AuditConnection(ctx context.Context, farmID uuid.UUID, w Window, f AuditFilter) (*ent.AuditEntryConnection, error) {
	q, err := s.AuditQuery(ctx, farmID, f)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	first, last := w.page()
	return q.Paginate(ctx, w.After, first, w.Before, last,
		ent.WithAuditEntryOrder(&ent.AuditEntryOrder{Direction: entgql.OrderDirectionAsc, Field: ent.AuditEntryOrderFieldAt}))
}
