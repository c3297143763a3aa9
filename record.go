package herdbook

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/changecounter"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recordanimal"
	"github.com/herdbook/herdbook/ent/recordgroup"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema/onfarm"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
)

// Limits of a record write. They keep one request from building a statement the database
// refuses, and are far above what a farm needs.
const (
	MaxRecordAssociations = 1000
	// MaxRecordItems bounds the items of one record, in one write and in total (items
	// appended later count with those it has): the GraphQL cost counts a record's items by
	// it, so that an answer's size is known before it is built.
	MaxRecordItems = 500
	// MaxItemMetadataBytes bounds one item's metadata, measured as compact JSON (UTF-8):
	// with MaxRecordItems it bounds a record's answer. A fact needs a few hundred bytes.
	MaxItemMetadataBytes = 16 << 10
)

// RecordTypes lists the record types.
var RecordTypes = []string{"OTHER", "FEED", "GENETIC", "HEALTH", "MOVEMENT"}

// RecordInput creates a record.
type RecordInput struct {
	AnimalIDs   []uuid.UUID
	GroupIDs    []uuid.UUID
	Name        string
	Type        string
	AppliedAt   *time.Time
	Description *string
	Items       []RecordItemInput
	// AcknowledgeWithdrawal lets a record that sends an animal off the farm, for sale or for
	// slaughter during a meat withdrawal through; the record keeps the acknowledgement.
	AcknowledgeWithdrawal bool
	// id, when set, is the new record's id: a calving's record shares its birth's id.
	id uuid.UUID
}

// RecordPatch changes a record. AnimalIDs and GroupIDs are added to the existing
// associations, never replace them; Items are appended.
type RecordPatch struct {
	AnimalIDs   []uuid.UUID
	GroupIDs    []uuid.UUID
	Name        *string
	Type        *string
	AppliedAt   *time.Time
	Description Optional[string]
	Items       []RecordItemInput
	// AcknowledgeWithdrawal lets appended items through the withdrawal guard, as on create;
	// once acknowledged, a record stays so.
	AcknowledgeWithdrawal bool
}

// RecordItemInput is one line of a record; Metadata may carry a birth_history fact.
type RecordItemInput struct {
	Name        *string
	Description *string
	Metadata    map[string]any
}

// MinInstant is the earliest instant a write takes. 0001-01-01 is Go's zero time, which
// GraphQL's Time writes as null and answers that must have a time then fail on; nothing a
// farm records is dated then.
var MinInstant = time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC)

func validateInstant(fe *fieldErrors, field string, t *time.Time) {
	if t != nil && t.Before(MinInstant) {
		fe.add(field, "must be on or after 0001-01-02T00:00:00Z")
	}
}

func validateRecordType(fe *fieldErrors, t string) {
	for _, ok := range RecordTypes {
		if t == ok {
			return
		}
	}
	fe.add("type", "must be one of %s", strings.Join(RecordTypes, ", "))
}

func validateDescription(fe *fieldErrors, field string, d *string) {
	if d != nil && !fe.prose(field, *d) {
		return
	}
	if d != nil && utf8.RuneCountInString(*d) > 10000 {
		fe.add(field, "must be at most 10000 characters")
	}
}

func validateAssociations(fe *fieldErrors, animals, groups []uuid.UUID) {
	if len(animals) > MaxRecordAssociations {
		fe.add("animal_ids", "must have at most %d ids", MaxRecordAssociations)
	}
	if len(groups) > MaxRecordAssociations {
		fe.add("group_ids", "must have at most %d ids", MaxRecordAssociations)
	}
}

func validateItems(fe *fieldErrors, items []RecordItemInput) {
	if len(items) > MaxRecordItems {
		fe.add("record_items", "must have at most %d items", MaxRecordItems)
		return
	}
	for i, it := range items {
		p := fmt.Sprintf("record_items[%d]", i)
		if it.Name != nil {
			validateName(fe, p+".name", *it.Name, 1, 200)
		}
		validateDescription(fe, p+".description", it.Description)
		// Metadata is stored as JSON (jsonb on PostgreSQL, which refuses \u0000 anywhere).
		before := len(*fe)
		textIn(fe, p+".metadata", it.Metadata, true)
		if len(*fe) == before {
			if md, err := schematype.MetadataOf(it.Metadata); err == nil && len(md) > MaxItemMetadataBytes {
				fe.add(p+".metadata", "must be at most %d bytes as compact JSON; it is %d", MaxItemMetadataBytes, len(md))
				continue
			}
			validateFact(fe, p+".metadata", it.Metadata)
		}
	}
}

// Validate checks a RecordInput.
func (in RecordInput) Validate() error {
	var fe fieldErrors
	if len(in.AnimalIDs) == 0 && len(in.GroupIDs) == 0 && !factsName(in.Items) {
		fe.add("animal_ids", "animal_ids or group_ids must name at least one animal or group, unless the record's facts name them")
	}
	validateAssociations(&fe, in.AnimalIDs, in.GroupIDs)
	validateName(&fe, "name", in.Name, 1, 200)
	validateRecordType(&fe, in.Type)
	if in.AppliedAt == nil {
		fe.add("applied_at", "is required (an ISO 8601 date-time)")
	}
	validateInstant(&fe, "applied_at", in.AppliedAt)
	validateDescription(&fe, "description", in.Description)
	validateItems(&fe, in.Items)
	return fe.err()
}

// changes reports whether p's fields (not its associations or items, which the caller
// knows) would change r.
func (p RecordPatch) changes(r *ent.Record) bool {
	return (p.Name != nil && strings.TrimSpace(*p.Name) != r.Name) ||
		(p.Type != nil && *p.Type != string(r.Type)) ||
		(p.AppliedAt != nil && !p.AppliedAt.Equal(r.AppliedAt)) ||
		(p.AcknowledgeWithdrawal && !r.AcknowledgeWithdrawal) ||
		(p.Description.Set && !equalPtr(p.Description.Value, r.Description))
}

// Validate checks a RecordPatch.
func (p RecordPatch) Validate() error {
	var fe fieldErrors
	validateAssociations(&fe, p.AnimalIDs, p.GroupIDs)
	if p.Name != nil {
		validateName(&fe, "name", *p.Name, 1, 200)
	}
	if p.Type != nil {
		validateRecordType(&fe, *p.Type)
	}
	validateDescription(&fe, "description", p.Description.Value)
	validateInstant(&fe, "applied_at", p.AppliedAt)
	validateItems(&fe, p.Items)
	return fe.err()
}

// CreateRecord records an event for animals and/or groups of a farm. Ids that do not name
// active animals or groups of the same farm are filtered out, as the API contract says.
func (s *Service) CreateRecord(ctx context.Context, farmID uuid.UUID, in RecordInput) (*ent.Record, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if len(in.AnimalIDs) == 0 && len(in.GroupIDs) == 0 {
		// The facts name the record's animals and groups: it is about them (an outside sire
		// or donor is no animal of the farm, and farmEntities leaves it out).
		in.AnimalIDs, in.GroupIDs = factEntities(in.Items)
	}
	var r *ent.Record
	err := s.inTx(ctx, func(ctx context.Context) error {
		animals, groups, err := s.farmEntities(ctx, farmID, in.AnimalIDs, in.GroupIDs)
		if err != nil {
			return err
		}
		facts := parseFacts(in.Items)
		if err := s.checkFactReferences(ctx, farmID, facts); err != nil {
			return err
		}
		if err := s.checkIdentifiers(ctx, farmID, facts); err != nil {
			return err
		}
		if err := s.checkTreatments(ctx, farmID, facts, recordItemFact); err != nil {
			return err
		}
		if err := s.checkHistory(ctx, farmID, facts, recordItemFact); err != nil {
			return err
		}
		normalizeFacts(in.Items, facts)
		rc := s.Client(ctx).Record.Create()
		if in.id != uuid.Nil {
			rc.SetID(in.id)
		}
		r, err = rc.
			SetFarmID(farmID).
			SetName(strings.TrimSpace(in.Name)).
			SetType(record.Type(in.Type)).
			SetAppliedAt(in.AppliedAt.UTC()).
			SetNillableDescription(in.Description).
			SetAcknowledgeWithdrawal(in.AcknowledgeWithdrawal).
			Save(ctx)
		if err != nil {
			return err
		}
		var links RecordLinks
		links.Add(s.Client(ctx), farmID, r.ID, animals, groups)
		if err := links.Save(ctx, s.Client(ctx)); err != nil {
			return err
		}
		if err := s.createItems(ctx, farmID, r.ID, in.Items, facts); err != nil {
			return err
		}
		if err := s.storeReach(ctx, farmID, facts); err != nil {
			return err
		}
		return s.guardWithdrawals(ctx, farmID, facts, recordItemFact, in.AcknowledgeWithdrawal)
	})
	return r, err
}

func (s *Service) createItems(ctx context.Context, farmID, recordID uuid.UUID, items []RecordItemInput, facts []*evidence.Fact) error {
	recordIDs := make([]uuid.UUID, len(items))
	for i := range recordIDs {
		recordIDs[i] = recordID
	}
	return s.createFactItems(ctx, farmID, recordIDs, items, facts)
}

// createFactItems writes items (item i in record recordIDs[i], every record of farmID) with
// the indexed copies of their facts and the facts' links to the animals they name, in bulk.
func (s *Service) createFactItems(ctx context.Context, farmID uuid.UUID, recordIDs []uuid.UUID, items []RecordItemInput, facts []*evidence.Fact) error {
	if len(items) == 0 {
		return nil
	}
	c := s.Client(ctx)
	builders := make([]*ent.RecordItemCreate, len(items))
	ids := make([]uuid.UUID, len(items))
	var err error
	for i, it := range items {
		// Time-ordered ids: facts of one date are read in (date, record item id) order,
		// so a correction written later the same day comes after what it corrects.
		if ids[i], err = uuid.NewV7(); err != nil {
			return err
		}
		md, err := schematype.MetadataOf(it.Metadata)
		if err != nil {
			return err
		}
		builders[i] = withFactColumns(c.RecordItem.Create().SetID(ids[i]).SetRecordID(recordIDs[i]).SetFarmID(farmID).
			SetNillableName(it.Name).SetNillableDescription(it.Description).SetMetadata(md), facts[i])
	}
	if err := c.RecordItem.CreateBulk(builders...).Exec(ctx); err != nil {
		return err
	}
	// The facts carry their items from here on: storeReach keys a treatment's reach by them.
	for i, f := range facts {
		if f != nil {
			f.RecordID, f.RecordItemID = recordIDs[i].String(), ids[i].String()
		}
	}
	return createFactLinks(ctx, c, farmID, ids, facts)
}

// itemAnswerColumns are the columns of a record item that answers show, in REST and in the
// graph alike. The fact's index columns (fact_kind, fact_date, …) are the service's own,
// read by the queries on facts; a page of records leaves them out, half of each item's row.
var itemAnswerColumns = []string{
	recorditem.FieldID, recorditem.FieldCreatedAt, recorditem.FieldUpdatedAt, recorditem.FieldIsActive,
	recorditem.FieldRecordID, recorditem.FieldName, recorditem.FieldDescription, recorditem.FieldMetadata,
}

// answerItems orders a record's items as answers list them and reads the columns they show.
func answerItems(q *ent.RecordItemQuery) {
	q.Select(itemAnswerColumns...).Order(ent.Asc(recorditem.FieldCreatedAt), ent.Asc(recorditem.FieldID))
}

// recordQuery loads records with their active items and files, for answers.
func (s *Service) recordQuery(ctx context.Context, farmID uuid.UUID) *ent.RecordQuery {
	return s.Client(ctx).Record.Query().Where(record.FarmID(farmID)).WithItems(answerItems, itemsOf(farmID)).WithFiles(filesOf(farmID))
}

// Records lists a farm's active records, oldest first, with their items and files. It costs
// a constant number of queries whatever the page size.
func (s *Service) Records(ctx context.Context, farmID uuid.UUID, p Page) ([]*ent.Record, int, error) {
	rs, pos, err := s.recordPage(ctx, farmID, p)
	return rs, int(pos.records), err
}

// recordPage checks that the viewer may read the farm's records and reads one page of
// them with the farm's change-feed position, whose records field is the list's total: the
// farm's record count kept on its counter row (ChangeCounter.records) by every record
// write in the same transaction, so the total is exact and costs the same on a farm of
// 100,000 records as on one of ten.
//
// The page's own statement also reads the position (one snapshot, so nothing numbered up
// to it is missing from the rows) and the viewer's role in the farm: a page of rows is
// returned only when that role is there, and any other outcome (no rows, no membership)
// goes through authorizeFarm, which answers as for every farm operation. A page costs one
// statement, plus one per eager-loaded edge, instead of four.
func (s *Service) recordPage(ctx context.Context, farmID uuid.UUID, p Page) ([]*ent.Record, cursor, error) {
	v, err := authenticate(ctx, ScopeReadRecords)
	if err != nil {
		return nil, cursor{}, err
	}
	offset, limit, err := s.bounds(p)
	var rs []*ent.Record
	if err == nil && limit > 0 {
		rs, err = s.recordQuery(ctx, farmID).Where(withCounter(farmID, v.UserID)).
			Order(ent.Asc(record.FieldCreatedAt), ent.Asc(record.FieldID)).Offset(offset).Limit(limit).All(ctx)
		if err != nil {
			return nil, cursor{}, err
		}
	}
	if len(rs) > 0 {
		var role string
		_ = scanValue(rs[0], counterRole, func(b []byte) error { role = string(b); return nil })
		if role != "" {
			return counted(rs, farmID)
		}
	}
	// The answer of every farm operation for a farm the viewer cannot read, whatever the
	// page; the same answer, after the membership check, for a malformed page.
	if _, _, aerr := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); aerr != nil {
		return nil, cursor{}, aerr
	}
	if err != nil {
		return nil, cursor{}, err
	}
	if len(rs) > 0 { // the membership began between the two reads
		return counted(rs, farmID)
	}
	pos, err := s.position(ctx, feedRecords, farmID)
	return []*ent.Record{}, pos, err
}

// counted returns a page read with withCounter and the position its rows carry.
func counted(rs []*ent.Record, farmID uuid.UUID) ([]*ent.Record, cursor, error) {
	pos := cursor{Kind: feedRecords, Scope: farmID, ID: uuid.Max}
	for _, c := range []struct {
		name string
		v    *int64
	}{{counterSeq, &pos.Seq}, {counterRecords, &pos.records}} {
		name, v := c.name, c.v
		x, err := rs[0].Value(name)
		if err != nil {
			return nil, cursor{}, err
		}
		switch n := x.(type) {
		case int64:
			*v = n
		default:
			return nil, cursor{}, fmt.Errorf("read the record counter: %s is a %T", name, x)
		}
	}
	return rs, pos, nil
}

// The columns withCounter adds to a records query.
const (
	counterSeq     = "counter_seq"
	counterRecords = "counter_records"
	counterRole    = "viewer_role"
)

// withCounter selects with every row of a records query the farm's change counter (its
// number and record count) and the viewer's role in the farm (NULL unless an active
// membership of an active farm: authorizeFarm's rule), as scalar subqueries on primary
// and unique keys.
func withCounter(farmID, userID uuid.UUID) func(*sql.Selector) {
	return func(s *sql.Selector) {
		s.AppendSelectExprAs(counterColumn(s.Dialect(), farmID, changecounter.FieldSeq), counterSeq)
		s.AppendSelectExprAs(counterColumn(s.Dialect(), farmID, changecounter.FieldRecords), counterRecords)
		m, f := sql.Table(farmmember.Table), sql.Table(farm.Table)
		activeFarm := sql.Dialect(s.Dialect()).Select(f.C(farm.FieldID)).From(f).
			Where(sql.And(sql.EQ(f.C(farm.FieldID), farmID), sql.EQ(f.C(farm.FieldIsActive), true)))
		s.AppendSelectExprAs(orElse(sql.Dialect(s.Dialect()).Select(m.C(farmmember.FieldRole)).From(m).Where(sql.And(
			sql.EQ(m.C(farmmember.FieldFarmID), farmID),
			sql.EQ(m.C(farmmember.FieldUserID), userID),
			sql.EQ(m.C(farmmember.FieldIsActive), true),
			sql.Exists(activeFarm),
		)), "''"), counterRole)
	}
}

// counterColumn is the column col of the farm's change counter row as a scalar subquery on
// its primary key, 0 while the farm has no counter row yet.
func counterColumn(dialect string, farmID uuid.UUID, col string) sql.Querier {
	c := sql.Table(changecounter.Table)
	return orElse(sql.Dialect(dialect).Select(c.C(col)).From(c).Where(sql.EQ(c.C(changecounter.FieldID), farmID)), "0")
}

// orElse is the scalar subquery q, or the literal when it finds no row: never NULL, whose
// column SQLite cannot type when ent scans an extra selected value.
func orElse(q sql.Querier, literal string) sql.Querier {
	return sql.ExprFunc(func(b *sql.Builder) {
		b.WriteString("COALESCE((").Join(q).WriteString("), " + literal + ")")
	})
}

// RecordQuery returns a query over a farm's active records, for GraphQL connections.
func (s *Service) RecordQuery(ctx context.Context, farmID uuid.UUID) (*ent.RecordQuery, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	return s.Client(ctx).Record.Query().Where(record.FarmID(farmID)), nil
}

// Record returns one record of a farm with its items and files.
func (s *Service) Record(ctx context.Context, farmID, id uuid.UUID) (*ent.Record, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	r, err := s.recordQuery(ctx, farmID).Where(record.ID(id)).Only(ctx)
	return r, notFound(err, "record", id)
}

// UpdateRecord changes a record and adds associations and items to it.
func (s *Service) UpdateRecord(ctx context.Context, farmID, id uuid.UUID, p RecordPatch) (*ent.Record, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	var r *ent.Record
	err := s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		old, err := c.Record.Query().Where(record.FarmID(farmID), record.ID(id)).Only(ctx)
		if err != nil {
			return notFound(err, "record", id)
		}
		animals, groups, err := s.farmEntities(ctx, farmID, p.AnimalIDs, p.GroupIDs)
		if err != nil {
			return err
		}
		// Already-connected ids are skipped: the join tables refuse duplicates. The links
		// are read from the link tables, with the farm.
		if len(animals) > 0 {
			var have []uuid.UUID
			err := c.RecordAnimal.Query().Where(recordanimal.FarmID(farmID), recordanimal.RecordID(id), recordanimal.AnimalIDIn(animals...)).
				Select(recordanimal.FieldAnimalID).Scan(ctx, &have)
			if err != nil {
				return err
			}
			animals = without(animals, have)
		}
		if len(groups) > 0 {
			var have []uuid.UUID
			err := c.RecordGroup.Query().Where(recordgroup.FarmID(farmID), recordgroup.RecordID(id), recordgroup.GroupIDIn(groups...)).
				Select(recordgroup.FieldGroupID).Scan(ctx, &have)
			if err != nil {
				return err
			}
			groups = without(groups, have)
		}
		if len(p.Items) > 0 {
			// Appended items count with those the record has (inactive ones too: they are
			// kept, and an administrator may show them).
			have, err := c.RecordItem.Query().Where(recorditem.FarmID(farmID), recorditem.RecordID(id)).Count(IncludeInactive(ctx))
			if err != nil {
				return err
			}
			if have+len(p.Items) > MaxRecordItems {
				return Invalid(FieldError{Field: "record_items", Message: fmt.Sprintf(
					"a record holds at most %d items; this one has %d, so at most %d more can be added", MaxRecordItems, have, max(MaxRecordItems-have, 0))})
			}
		}
		facts := parseFacts(p.Items)
		if err := s.checkFactReferences(ctx, farmID, facts); err != nil {
			return err
		}
		if err := s.checkIdentifiers(ctx, farmID, facts); err != nil {
			return err
		}
		if err := s.checkTreatments(ctx, farmID, facts, recordItemFact); err != nil {
			return err
		}
		if err := s.checkHistory(ctx, farmID, facts, recordItemFact); err != nil {
			return err
		}
		normalizeFacts(p.Items, facts)
		if len(animals) == 0 && len(groups) == 0 && len(p.Items) == 0 && !p.changes(old) {
			// A write that changes nothing changes nothing: no updated_at, no place in the
			// change feed, no record.updated webhook.
			r = old
			return nil
		}
		r, err = updateRecordOf(ctx, c, farmID, id, func(u *ent.RecordMutation) {
			if p.Name != nil {
				u.SetName(strings.TrimSpace(*p.Name))
			}
			if p.Type != nil {
				u.SetType(record.Type(*p.Type))
			}
			if p.AppliedAt != nil {
				u.SetAppliedAt(p.AppliedAt.UTC())
			}
			if p.AcknowledgeWithdrawal {
				u.SetAcknowledgeWithdrawal(true)
			}
			if p.Description.Set {
				if p.Description.Value == nil {
					u.ClearDescription()
				} else {
					u.SetDescription(*p.Description.Value)
				}
			}
		})
		if err != nil {
			return err
		}
		var links RecordLinks
		links.Add(s.Client(ctx), farmID, id, animals, groups)
		if err := links.Save(ctx, s.Client(ctx)); err != nil {
			return err
		}
		if err := s.createItems(ctx, farmID, id, p.Items, facts); err != nil {
			return err
		}
		if err := s.storeReach(ctx, farmID, facts); err != nil {
			return err
		}
		return s.guardWithdrawals(ctx, farmID, facts, recordItemFact, p.AcknowledgeWithdrawal)
	})
	return r, err
}

func without(ids, drop []uuid.UUID) []uuid.UUID {
	if len(drop) == 0 {
		return ids
	}
	d := make(map[uuid.UUID]bool, len(drop))
	for _, id := range drop {
		d[id] = true
	}
	out := ids[:0:0]
	for _, id := range ids {
		if !d[id] {
			out = append(out, id)
		}
	}
	return out
}

// DeleteRecord soft-deletes a record; only an OWNER may do it.
func (s *Service) DeleteRecord(ctx context.Context, farmID, id uuid.UUID) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, ScopeWriteRecords); err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		n, err := s.Client(ctx).Record.Update().Where(record.FarmID(farmID), record.ID(id), record.IsActive(true)).SetIsActive(false).Save(onfarm.With(ctx, farmID))
		if err != nil {
			return err
		}
		if n == 0 {
			return Errorf(ENOTFOUND, "record %s not found", id)
		}
		return nil
	})
}

// factsName reports whether the facts of items name any animal or group.
func factsName(items []RecordItemInput) bool {
	animals, groups := factEntities(items)
	return len(animals)+len(groups) > 0
}

// factEntities are the animals and groups the facts of items name, in order, each once.
func factEntities(items []RecordItemInput) (animals, groups []uuid.UUID) {
	for _, f := range parseFacts(items) {
		if f == nil {
			continue
		}
		for _, id := range f.ReferencedAnimals() {
			animals = append(animals, uuid.MustParse(id))
		}
		for _, id := range f.ReferencedGroups() {
			groups = append(groups, uuid.MustParse(id))
		}
	}
	return dedupe(animals), dedupe(groups)
}

// RecordLinks collects links of records to the animals and groups they apply to, each naming
// the record's farm (docs/scaling.md). Record.animals and Record.groups go through RecordAnimal
// and RecordGroup, whose rows ent's AddAnimalIDs and AddGroupIDs cannot give a farm, so a
// record's animals and groups are always linked with RecordLinks, once the record exists.
type RecordLinks struct {
	animals []*ent.RecordAnimalCreate
	groups  []*ent.RecordGroupCreate
}

// Add links record recordID of farmID to animals and groups.
func (l *RecordLinks) Add(c *ent.Client, farmID, recordID uuid.UUID, animals, groups []uuid.UUID) {
	for _, a := range animals {
		l.animals = append(l.animals, c.RecordAnimal.Create().SetRecordID(recordID).SetAnimalID(a).SetFarmID(farmID))
	}
	for _, g := range groups {
		l.groups = append(l.groups, c.RecordGroup.Create().SetRecordID(recordID).SetGroupID(g).SetFarmID(farmID))
	}
}

// recordLinkBatch keeps each bulk insert of links far below the statement parameter limits of
// both databases (three parameters a row).
const recordLinkBatch = 1000

// Save writes the links collected, in bulk; a link that exists already is kept as it is (a
// record update adds its animals and groups to those it has). The conflict names no columns:
// the links' only unique key is their primary key, (record, animal) on SQLite and PostgreSQL
// but (farm, record, animal) on a Citus cluster (docs/scaling.md), and ON CONFLICT with
// columns must name a key's exactly.
func (l *RecordLinks) Save(ctx context.Context, c *ent.Client) error {
	for lo := 0; lo < len(l.animals); lo += recordLinkBatch {
		if err := c.RecordAnimal.CreateBulk(l.animals[lo:min(lo+recordLinkBatch, len(l.animals))]...).
			OnConflict(sql.DoNothing()).Exec(ctx); err != nil {
			return err
		}
	}
	for lo := 0; lo < len(l.groups); lo += recordLinkBatch {
		if err := c.RecordGroup.CreateBulk(l.groups[lo:min(lo+recordLinkBatch, len(l.groups))]...).
			OnConflict(sql.DoNothing()).Exec(ctx); err != nil {
			return err
		}
	}
	l.animals, l.groups = nil, nil
	return nil
}
