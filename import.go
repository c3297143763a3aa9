package herdbook

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/eid"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/outsideanimal"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
)

// AnimalImportColumns are the columns an animals import reads. Only tag is required; a
// column may be left out, and an empty cell means "not known / no change", never "clear".
var AnimalImportColumns = []string{"tag", "name", "eid", "sex", "birth_date", "breed", "dam", "sire", "group",
	"status", "status_date", "identifiers", "weights", "group_since", "arrival", "arrival_date", "genetic_dam"}

// AnimalExportOnlyColumns are the columns of the animals export that an import does not
// read (ids of this farm, and what only the history can say): an import ignores them, so
// that an export can be imported as it is.
var AnimalExportOnlyColumns = []string{"id", "dam_id", "sire_id", "group_ids", "intact",
	"weight_kg", "weighed_on", "adg_kg", "as_of", "genetic_dam_id", "surrogate_dam", "surrogate_dam_id"}

// importStatuses are the status cells an import reads: on_farm (or empty) says nothing new;
// the departures record a sale, a death, a movement off the farm, or a death by slaughter
// (the export writes a slaughter as died), each dated by status_date and held to the same
// withdrawal guard as every other departure.
var importStatuses = []string{evidence.StatusOnFarm, evidence.StatusSold, evidence.StatusDied, evidence.StatusMovedOut, "slaughtered"}

// Limits of one import: far above a farm's register, and small enough that validating a
// file in memory before writing any of it stays cheap.
const (
	MaxImportRows   = 100_000
	MaxImportErrors = 100
)

// ImportOptions changes how ImportAnimals runs.
type ImportOptions struct {
	// DryRun validates and plans the whole file, and writes nothing.
	DryRun bool
	// Progress, when set, is told how many rows are written of how many (the CLI's progress
	// line); a dry run reports all of them once they are checked.
	Progress func(done, total int)
}

// ImportAction says what an import did, or would do, with a row.
type ImportAction string

// The actions of an import row.
const (
	ImportCreated   ImportAction = "created"
	ImportUpdated   ImportAction = "updated"
	ImportUnchanged ImportAction = "unchanged"
)

// ImportRow is the outcome of one row: AnimalID is nil for an animal a dry run would create.
type ImportRow struct {
	Row      int
	Tag      string
	AnimalID *uuid.UUID
	Action   ImportAction
}

// ImportResult summarises an import.
type ImportResult struct {
	DryRun        bool
	Rows          int
	Created       int
	Updated       int
	Unchanged     int
	GroupsCreated int
	Facts         int
	Animals       []ImportRow
}

// importRow is one data row of the file, its cells by column, once read and checked.
type importRow struct {
	row                                              int // the record's number, header = 1
	tag, name, eid, sex, birthDate, breed, dam, sire string
	groups                                           []string // the group cell, split at ';'
	status, statusDate                               string   // a departure and its date
	identifiers                                      []evidence.Identifier
	weights                                          []csvWeight // the weights cell
	groupSince                                       []string    // the group_since cell, one date per group
	arrival, arrivalDate                             string      // purchase or movement_in, and its date
	geneticDam                                       string      // an embryo-transfer calf's genetic dam (the donor)

	existing *ent.Animal // the farm's animal of the same tag, if any
	id       uuid.UUID   // the animal's id: existing, or drawn for a new one
	damID    uuid.UUID
	sireID   uuid.UUID
	// geneticDamID is the genetic_dam cell's animal: a farm animal or an outside donor.
	geneticDamID uuid.UUID
	// damOutside and sireOutside say the parent is an outside animal of the farm, named by
	// its registration number or its name (a bought-in animal's papers).
	damOutside, sireOutside bool
}

// departure is the fact kind the row's status records, "" when it records none.
func (r *importRow) departure() evidence.Kind {
	switch r.status {
	case evidence.StatusSold:
		return evidence.KindSale
	case evidence.StatusDied, "slaughtered":
		return evidence.KindDeath
	case evidence.StatusMovedOut:
		return evidence.KindMovementOut
	}
	return ""
}

// importProblems collects the problems of a file, each located by row and column, and stops
// counting at MaxImportErrors with one last entry that says how many more there were.
type importProblems struct {
	list []FieldError
	more int
}

func (p *importProblems) add(row int, column, format string, args ...any) {
	if len(p.list) >= MaxImportErrors {
		p.more++
		return
	}
	field := fmt.Sprintf("row %d", row)
	if column != "" {
		field += ", " + column
	}
	p.list = append(p.list, FieldError{Field: field, Message: fmt.Sprintf(format, args...), Row: row, Column: column})
}

func (p *importProblems) err() error {
	if p.more > 0 {
		p.list = append(p.list, FieldError{Field: "file", Message: fmt.Sprintf("%d more problems are not listed; fix the ones above and try again", p.more)})
	}
	return Invalid(p.list...)
}

// ImportAnimals reads a CSV file of animals (AnimalImportColumns, header first) into a farm,
// all or nothing: any problem in any row answers EINVALID with one FieldError per problem,
// each carrying its Row and Column, and nothing is written. A row whose tag names an animal
// of the farm updates it: what the row says that the animal's history does not already say
// is written as new dated facts, so importing the same file twice changes nothing the second
// time. dam and sire name an animal by tag or EID, in the file or already on the farm. A
// group that does not exist yet is created. The viewer needs write:animals and the EDITOR
// role.
func (s *Service) ImportAnimals(ctx context.Context, farmID uuid.UUID, file io.Reader, opts ImportOptions) (*ImportResult, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return nil, err
	}
	rows, err := readAnimalCSV(file)
	if err != nil {
		return nil, err
	}
	progress := func(done int) {
		if opts.Progress != nil {
			opts.Progress(done, len(rows))
		}
	}
	progress(0)
	var res *ImportResult
	err = s.inTx(ctx, func(ctx context.Context) error {
		plan, err := s.planImport(ctx, farmID, rows)
		if err != nil {
			return err
		}
		if err := s.guardImport(ctx, farmID, plan); err != nil {
			return err
		}
		if opts.DryRun {
			res = plan.result(true)
			return nil
		}
		if err := s.writeImport(ctx, farmID, plan, progress); err != nil {
			return err
		}
		res = plan.result(false)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		progress(len(rows))
	}
	return res, nil
}

// guardImport holds the departures an import records (its status column) to the withdrawal
// guard every other departure path meets (treatment.go): a sale, a movement off the farm or a
// slaughter of an animal under meat withdrawal is refused (409), naming the row. An import
// carries no acknowledgement: a live sale during a withdrawal is recorded over REST or
// GraphQL, where the keeper acknowledges it.
func (s *Service) guardImport(ctx context.Context, farmID uuid.UUID, plan *importPlan) error {
	var facts []*evidence.Fact
	var rows []int
	for _, r := range plan.rows {
		ch := plan.changes[r]
		if ch == nil {
			continue
		}
		for i := range ch.facts {
			if f := &ch.facts[i]; leaving(f) {
				facts, rows = append(facts, f), append(rows, r.row)
			}
		}
	}
	if len(facts) == 0 {
		return nil
	}
	return s.guardWithdrawals(ctx, farmID, facts, func(i int) string { return fmt.Sprintf("row %d, status", rows[i]) }, false)
}

// readAnimalCSV reads and checks the file's rows on their own (cells, duplicates in the
// file); what depends on the farm is checked by planImport.
func readAnimalCSV(file io.Reader) ([]*importRow, error) {
	var p importProblems
	cr := csv.NewReader(file)
	cr.FieldsPerRecord = -1 // a row of the wrong width is reported with its row number
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, Invalid(FieldError{Field: "file", Message: "is empty: the first line must name the columns, for example " + strings.Join(AnimalImportColumns, ",")})
	}
	if err != nil {
		return nil, csvError(err)
	}
	cols := map[string]int{}
	header = slices.Clone(header)
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF") // spreadsheets save UTF-8 with a byte order mark
		}
		h = strings.ToLower(strings.TrimSpace(h))
		header[i] = h
		switch {
		case textProblem(h, false) != "":
			p.add(1, fmt.Sprintf("column %d", i+1), "the header %s", textProblem(h, false))
		case h == "":
			p.add(1, fmt.Sprintf("column %d", i+1), "the header is empty; name every column")
		case slices.Contains(AnimalExportOnlyColumns, h):
			// Read-only columns of the animals export: ignored so that an export imports.
		case !slices.Contains(AnimalImportColumns, h):
			p.add(1, h, "is not a column this import reads; it reads %s", strings.Join(AnimalImportColumns, ", "))
		default:
			if _, dup := cols[h]; dup {
				p.add(1, h, "is given more than once")
			}
			cols[h] = i
		}
	}
	if _, ok := cols["tag"]; !ok && len(p.list) == 0 {
		p.add(1, "tag", "the column tag is required")
	}
	if len(p.list) > 0 {
		return nil, p.err()
	}
	var rows []*importRow
	tags := map[string]int{}
	for n := 2; ; n++ {
		rec, err := readCSVRow(cr)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && !errors.Is(pe.Err, csv.ErrFieldCount) {
				p.add(n, "", "is not valid CSV: %v", pe.Err)
				return nil, p.err() // the reader cannot find the next row reliably
			}
			return nil, csvError(err)
		}
		if len(rows) == MaxImportRows {
			return nil, Invalid(FieldError{Field: "file", Message: fmt.Sprintf("has more than %d rows; split it", MaxImportRows), Row: n})
		}
		if len(rec) != len(header) {
			p.add(n, "", "has %d cells; the header has %d", len(rec), len(header))
			continue
		}
		cell := func(name string) string {
			if i, ok := cols[name]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		r := &importRow{row: n, tag: cell("tag"), name: cell("name"), eid: cell("eid"), sex: strings.ToLower(cell("sex")),
			birthDate: cell("birth_date"), breed: cell("breed"), dam: cell("dam"), sire: cell("sire"),
			status: strings.ToLower(cell("status")), statusDate: cell("status_date"), geneticDam: cell("genetic_dam")}
		since := splitList(cell("group_since"))
		for i, g := range strings.Split(cell("group"), listSeparator) {
			if g = strings.TrimSpace(g); g != "" && !slices.Contains(r.groups, g) {
				r.groups = append(r.groups, g)
				if i < len(since) {
					r.groupSince = append(r.groupSince, since[i])
				} else {
					r.groupSince = append(r.groupSince, "")
				}
			}
		}
		if len(since) > 0 && len(since) != len(strings.Split(cell("group"), listSeparator)) {
			p.add(n, "group_since", "must give one date per group (separated by ;), in the order of the group cell")
		}
		r.arrival, r.arrivalDate = strings.ToLower(cell("arrival")), cell("arrival_date")
		r.readHistory(&p, cell("identifiers"), cell("weights"))
		r.check(&p)
		if r.tag != "" {
			if first, dup := tags[r.tag]; dup {
				p.add(n, "tag", "%s is also the tag of row %d; one row per animal", r.tag, first)
			} else {
				tags[r.tag] = n
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 && len(p.list) == 0 {
		return nil, Invalid(FieldError{Field: "file", Message: "has a header but no rows"})
	}
	return rows, p.err()
}

// csvError words a failure to read the file itself.
func csvError(err error) error {
	if e := (*Error)(nil); errors.As(err, &e) {
		return err // the transport's reader already said what went wrong (too large, too slow)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return Invalid(FieldError{Field: fmt.Sprintf("row %d", pe.StartLine), Message: "is not valid CSV: " + pe.Err.Error(), Row: pe.StartLine})
	}
	return Invalid(FieldError{Field: "file", Message: "could not be read: " + err.Error()})
}

// check validates the row's cells on their own.
func (r *importRow) check(p *importProblems) {
	line := func(column, v string, max int) bool {
		if msg := textProblem(v, false); msg != "" {
			p.add(r.row, column, "%s", msg)
			return false
		}
		if utf8.RuneCountInString(v) > max {
			p.add(r.row, column, "must be at most %d characters", max)
			return false
		}
		return true
	}
	if r.tag == "" {
		p.add(r.row, "tag", "is required")
	} else if line("tag", r.tag, 100) {
		if t, err := normalizeTag(r.tag); err != nil {
			p.add(r.row, "tag", "%s", err.Error())
		} else {
			r.tag = t
		}
	}
	line("name", r.name, 200)
	line("breed", r.breed, 100)
	for _, g := range r.groups {
		line("group", g, 200)
	}
	line("dam", r.dam, 100)
	line("sire", r.sire, 100)
	line("genetic_dam", r.geneticDam, 100)
	if r.eid != "" && line("eid", r.eid, 40) {
		if c, err := eid.Parse(r.eid); err == nil {
			r.eid = c.String()
		} else {
			p.add(r.row, "eid", "%s", eidMessage(err))
		}
	}
	if r.sex != "" && r.sex != "male" && r.sex != "female" {
		p.add(r.row, "sex", "must be male or female")
	}
	switch {
	case r.status != "" && !slices.Contains(importStatuses, r.status):
		p.add(r.row, "status", "must be one of %s", strings.Join(importStatuses, ", "))
	case r.departure() != "" && r.statusDate == "":
		p.add(r.row, "status_date", "is required with status %s: a departure is a dated fact", r.status)
	case r.departure() != "":
		if _, err := time.Parse(time.DateOnly, r.statusDate); err != nil {
			p.add(r.row, "status_date", "must be a calendar date in the form YYYY-MM-DD")
		}
	}
	if r.birthDate != "" {
		if _, err := time.Parse(time.DateOnly, r.birthDate); err != nil {
			p.add(r.row, "birth_date", "must be a calendar date in the form YYYY-MM-DD")
		}
	}
	if r.tag != "" && (r.dam == r.tag || r.sire == r.tag) {
		col := "dam"
		if r.sire == r.tag {
			col = "sire"
		}
		p.add(r.row, col, "must not name the animal itself")
	}
}

// importPlan is what an import does: the rows with their animals resolved, and the groups
// it creates.
type importPlan struct {
	rows      []*importRow
	groups    map[string]uuid.UUID // every group a row names, by name
	newGroups []string             // in the order of first mention
	changes   map[*importRow]*animalChange
	// onFarm holds the animals of the farm and of the file: a dam among them gave birth here.
	onFarm map[uuid.UUID]bool
}

// animalChange is what a row adds to its animal.
type animalChange struct {
	create bool
	name   *string
	facts  []evidence.Fact
}

func (pl *importPlan) result(dry bool) *ImportResult {
	res := &ImportResult{DryRun: dry, Rows: len(pl.rows), GroupsCreated: len(pl.newGroups), Animals: make([]ImportRow, len(pl.rows))}
	for i, r := range pl.rows {
		c := pl.changes[r]
		out := ImportRow{Row: r.row, Tag: r.tag, Action: ImportUnchanged}
		if !(dry && c.create) {
			id := r.id
			out.AnimalID = &id
		}
		switch {
		case c.create:
			out.Action = ImportCreated
			res.Created++
		case c.name != nil || len(c.facts) > 0:
			out.Action = ImportUpdated
			res.Updated++
		default:
			res.Unchanged++
		}
		res.Facts += len(c.facts)
		res.Animals[i] = out
	}
	return res
}

// planImport resolves the rows against the farm: the animals their tags name, the dams and
// sires they name, the groups; and works out the facts each row adds.
func (s *Service) planImport(ctx context.Context, farmID uuid.UUID, rows []*importRow) (*importPlan, error) {
	c := s.Client(ctx)
	var p importProblems
	existing, err := c.Animal.Query().Where(animal.FarmID(farmID)).
		Select(animal.FieldID, animal.FieldTag, animal.FieldName, animal.FieldFarmID).All(ctx)
	if err != nil {
		return nil, err
	}
	byTag := map[string][]*ent.Animal{}
	for _, a := range existing {
		byTag[a.Tag] = append(byTag[a.Tag], a)
	}
	eids, err := s.farmEIDs(ctx, farmID)
	if err != nil {
		return nil, err
	}
	fileTag := map[string]*importRow{}
	fileEID := map[string]*importRow{}
	for _, r := range rows {
		switch as := byTag[r.tag]; len(as) {
		case 0:
			r.id = newID()
		case 1:
			r.existing, r.id = as[0], as[0].ID
		default:
			p.add(r.row, "tag", "%s names %d animals of this farm; give them distinct tags first", r.tag, len(as))
		}
		fileTag[r.tag] = r
	}
	for _, r := range rows {
		if r.eid == "" {
			continue
		}
		if other, ok := fileEID[r.eid]; ok {
			p.add(r.row, "eid", "%s is also the EID of row %d", r.eid, other.row)
			continue
		}
		fileEID[r.eid] = r
	}
	// Outside animals (a bought-in animal's parents that never were on the farm) are named
	// by registration number or name: one statement, only when a dam or sire cell names
	// neither an animal of the file nor one of the farm.
	var outside []*ent.OutsideAnimal
	outsideLoaded := false
	outsideOf := func(r *importRow, column, ref string) (id uuid.UUID, found, reported bool) {
		if !outsideLoaded {
			outsideLoaded = true
			if outside, err = c.OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID)).All(ctx); err != nil {
				return uuid.Nil, false, true
			}
		}
		var match []*ent.OutsideAnimal
		for _, pass := range []func(*ent.OutsideAnimal) bool{
			func(o *ent.OutsideAnimal) bool {
				return o.RegistrationNumber != nil && strings.EqualFold(*o.RegistrationNumber, ref)
			},
			func(o *ent.OutsideAnimal) bool { return strings.EqualFold(o.Name, ref) },
		} {
			for _, o := range outside {
				if pass(o) {
					match = append(match, o)
				}
			}
			if len(match) > 0 {
				break
			}
		}
		switch {
		case len(match) > 1:
			p.add(r.row, column, "%s names %d outside animals of this farm; give them distinct registration numbers", ref, len(match))
			return uuid.Nil, false, true
		case len(match) == 1:
			sex := evidence.SexFemale
			if column == "sire" {
				sex = evidence.SexMale
			}
			if match[0].Sex != sex {
				p.add(r.row, column, "outside animal %s is recorded as %s and cannot be the %s", ref, match[0].Sex, column)
				return uuid.Nil, false, true
			}
			return match[0].ID, true, false
		}
		return uuid.Nil, false, false
	}
	// resolve finds the animal a dam or sire cell names: an EID first (in the file, then on
	// the farm), else a tag (in the file, then on the farm), else an outside animal of the
	// farm by registration number or name; outside says it is one.
	resolve := func(r *importRow, column, ref string) (id uuid.UUID, isOutside bool) {
		if ref == "" {
			return uuid.Nil, false
		}
		if eid, ok := importEID(ref); ok {
			if o, ok := fileEID[eid]; ok {
				return o.id, false
			}
			if id, ok := eids[eid]; ok {
				return id, false
			}
		}
		raw := ref
		ref = tagValue(ref) // an official tag in the spacing rows and the farm store
		if o, ok := fileTag[ref]; ok {
			return o.id, false
		}
		switch as := byTag[ref]; len(as) {
		case 1:
			return as[0].ID, false
		case 0:
			if id, ok, reported := outsideOf(r, column, strings.TrimSpace(raw)); ok || reported {
				return id, ok
			}
			p.add(r.row, column, "%s is neither a tag nor an EID of an animal of this farm or of this file, nor the registration number or name of an outside animal of this farm", ref)
		default:
			p.add(r.row, column, "%s is the tag of %d animals of this farm; name the %s by its EID", ref, len(as), column)
		}
		return uuid.Nil, false
	}
	for _, r := range rows {
		r.damID, r.damOutside = resolve(r, "dam", r.dam)
		r.sireID, r.sireOutside = resolve(r, "sire", r.sire)
		r.geneticDamID, _ = resolve(r, "genetic_dam", r.geneticDam)
		if r.geneticDamID != uuid.Nil && (r.geneticDamID == r.id || r.geneticDamID == r.damID || r.geneticDamID == r.sireID) {
			p.add(r.row, "genetic_dam", "must differ from the animal, its dam and its sire: leave it empty when the dam that gave birth is the genetic dam")
		}
		if err != nil {
			return nil, err
		}
		if r.damID != uuid.Nil && r.damID == r.id {
			p.add(r.row, "dam", "must not name the animal itself")
		}
		if r.sireID != uuid.Nil && r.sireID == r.id {
			p.add(r.row, "sire", "must not name the animal itself")
		}
		if r.damID != uuid.Nil && r.damID == r.sireID {
			p.add(r.row, "sire", "must not be the same animal as the dam")
		}
	}
	plan := &importPlan{rows: rows, groups: map[string]uuid.UUID{}, changes: map[*importRow]*animalChange{}, onFarm: map[uuid.UUID]bool{}}
	for _, a := range existing {
		plan.onFarm[a.ID] = true
	}
	for _, r := range rows {
		plan.onFarm[r.id] = true
	}
	var names []string
	for _, r := range rows {
		for _, g := range r.groups {
			if !slices.Contains(names, g) {
				names = append(names, g)
			}
		}
	}
	if len(names) > 0 {
		gs, err := c.Group.Query().Where(group.FarmID(farmID), group.NameIn(names...)).All(ctx)
		if err != nil {
			return nil, err
		}
		count := map[string]int{}
		for _, g := range gs {
			plan.groups[g.Name] = g.ID
			count[g.Name]++
		}
		for _, r := range rows {
			for _, g := range r.groups {
				if count[g] > 1 {
					p.add(r.row, "group", "%s names %d groups of this farm; rename one first", g, count[g])
				}
			}
		}
		for _, n := range names {
			if _, ok := plan.groups[n]; !ok {
				plan.groups[n] = newID()
				plan.newGroups = append(plan.newGroups, n)
			}
		}
	}
	if len(p.list) > 0 {
		return nil, p.err()
	}
	if err := s.planChanges(ctx, farmID, plan); err != nil {
		return nil, err
	}
	return plan, nil
}

// importEID reads an EID cell in any form readers emit (eid.Parse) as its 15 digits.
func importEID(v string) (string, bool) {
	c, err := eid.Parse(v)
	return c.String(), err == nil
}

// farmEIDs maps every EID the farm's active identifier facts ever named to its animal, in
// one query: a dam or sire cell may name an animal by an EID it carried in the past.
func (s *Service) farmEIDs(ctx context.Context, farmID uuid.UUID) (map[string]uuid.UUID, error) {
	items, err := s.Client(ctx).RecordItem.Query().
		Where(recorditem.FactKind(string(evidence.KindIdentifier)), recorditem.FactValueNotNil(),
			itemsOfFarm(farmID, record.IsActive(true))).
		Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata).All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]uuid.UUID{}
	for _, f := range factsOf(items) {
		if id, err := uuid.Parse(f.AnimalID); err == nil && f.Scheme == evidence.SchemeEID {
			out[f.Value] = id
		}
	}
	return out, nil
}

// planChanges works out, for each row, what it adds to what its animal's history says as
// of today: the register's facts (registerFacts) for the values that differ, and a
// membership from today for each group the animal is not in. A row that agrees with the
// history adds nothing, which is what makes a repeated import write nothing.
func (s *Service) planChanges(ctx context.Context, farmID uuid.UUID, plan *importPlan) error {
	today := s.nowUTC().Format(time.DateOnly)
	var known []uuid.UUID
	for _, r := range plan.rows {
		if r.existing != nil {
			known = append(known, r.id)
		}
	}
	facts, err := s.animalFacts(ctx, farmID, known)
	if err != nil {
		return err
	}
	keys := make([]string, len(known))
	for i, id := range known {
		keys[i] = id.String()
	}
	byKey := evidence.ProfilesOf(keys, today, facts)
	profiles := make(map[uuid.UUID]Profile, len(known))
	for _, id := range known {
		profiles[id] = Profile{Profile: byKey[id.String()]}
	}
	hist := csvHistories(facts, today)
	differs := func(have *string, want string) bool { return want != "" && (have == nil || *have != want) }
	var p importProblems
	for _, r := range plan.rows {
		pr := profiles[r.id].Profile // zero for a new animal
		c := &animalChange{create: r.existing == nil}
		if r.name != "" && (r.existing == nil || r.existing.Name == nil || *r.existing.Name != r.name) {
			name := r.name
			c.name = &name
		}
		var in AnimalInput
		if differs(pr.Sex, r.sex) {
			in.Sex = &r.sex
		}
		if differs(pr.Breed, r.breed) {
			in.Breed = &r.breed
		}
		if differs(pr.BirthDate, r.birthDate) {
			in.BirthDate = &r.birthDate
		}
		damChanged := r.damID != uuid.Nil && differs(pr.DamID, r.damID.String())
		sireChanged := r.sireID != uuid.Nil && differs(pr.SireID, r.sireID.String())
		geneticChanged := r.geneticDamID != uuid.Nil && differs(pr.GeneticDamID, r.geneticDamID.String())
		if damChanged || sireChanged || geneticChanged {
			// Parents born here are recorded as a birth fact: it needs the dam and the birth
			// date, from the row or else from what the history already says. A dam not on the
			// farm (an outside animal), or none, makes them a pedigree fact: the papers of an
			// animal born elsewhere.
			dam, born := r.damID, r.birthDate
			if dam == uuid.Nil && pr.DamID != nil {
				dam, _ = uuid.Parse(*pr.DamID)
			}
			if born == "" && pr.BirthDate != nil {
				born = *pr.BirthDate
			}
			damOnFarm := dam != uuid.Nil && plan.onFarm[dam]
			if geneticChanged && (!damOnFarm || born == "") {
				p.add(r.row, "genetic_dam", "needs a dam of this farm and a birth_date: an embryo-transfer calf's genetic dam is recorded on its birth")
			} else if damOnFarm && born == "" {
				col := "dam"
				if !damChanged {
					col = "sire"
				}
				p.add(r.row, col, "needs a birth_date (in the row, or already recorded): a calf of a dam of this farm is recorded as a dated birth fact")
			} else {
				if dam != uuid.Nil {
					in.DamID = &dam
				}
				if damOnFarm {
					in.BirthDate = &born
				}
				in.damOnFarm = damOnFarm
				if r.sireID != uuid.Nil {
					in.SireID = &r.sireID
				} else if pr.SireID != nil {
					if sire, err := uuid.Parse(*pr.SireID); err == nil {
						in.SireID = &sire
					}
				}
				// The birth fact written again keeps the genetic dam the history holds.
				if r.geneticDamID != uuid.Nil {
					in.geneticDamID = &r.geneticDamID
				} else if pr.GeneticDamID != nil {
					if g, err := uuid.Parse(*pr.GeneticDamID); err == nil {
						in.geneticDamID = &g
					}
				}
			}
		}
		if r.eid != "" && !slices.Contains(pr.Identifiers, evidence.Identifier{Scheme: evidence.SchemeEID, Value: r.eid}) {
			in.EID = &r.eid
		}
		c.facts = s.registerFacts(r.id, in)
		for i, g := range r.groups {
			if gid := plan.groups[g]; !slices.Contains(pr.GroupIDs, gid.String()) {
				start := today
				if r.groupSince[i] != "" {
					start = r.groupSince[i]
				}
				c.facts = append(c.facts, evidence.Fact{Kind: evidence.KindMembership, AnimalID: r.id.String(), GroupID: gid.String(), StartDate: start})
			}
		}
		c.facts = append(c.facts, r.historyFacts(pr, hist[strings.ToLower(r.id.String())], in)...)
		if kind := r.departure(); kind != "" {
			// A departure the history already holds (the same status on the same day) adds
			// nothing, so that an export imports again unchanged.
			want := r.status
			if want == "slaughtered" {
				want = evidence.StatusDied
			}
			if pr.Status != want || pr.StatusDate == nil || *pr.StatusDate != r.statusDate {
				c.facts = append(c.facts, evidence.Fact{Kind: kind, AnimalID: r.id.String(), Date: r.statusDate,
					Slaughter: r.status == "slaughtered"})
			}
		}
		plan.changes[r] = c
	}
	if len(p.list) > 0 {
		return p.err()
	}
	if err := s.checkImportIdentifiers(ctx, farmID, plan); err != nil {
		return err
	}
	return s.checkImportHistory(ctx, farmID, plan)
}

// checkImportIdentifiers holds the file's EIDs to the rule of every identifier write (one
// value names one animal at a time), and words a breach as a problem of the row's eid.
func (s *Service) checkImportIdentifiers(ctx context.Context, farmID uuid.UUID, plan *importPlan) error {
	var facts []*evidence.Fact
	var rows []*importRow
	for _, r := range plan.rows {
		for i := range plan.changes[r].facts {
			if f := &plan.changes[r].facts[i]; f.Kind == evidence.KindIdentifier {
				facts, rows = append(facts, f), append(rows, r)
			}
		}
	}
	err := s.checkIdentifiers(ctx, farmID, facts)
	if ErrorCode(err) != EINVALID {
		return err
	}
	var p importProblems
	for _, fe := range ErrorFields(err) {
		var i int
		if _, scan := fmt.Sscanf(fe.Field, "record_items[%d]", &i); scan == nil && i < len(rows) {
			p.add(rows[i].row, "eid", "%s", fe.Message)
		} else {
			p.add(0, "eid", "%s", fe.Message)
		}
	}
	return p.err()
}

// importBatch is how many animals, records or items one bulk insert of an import writes.
const importBatch = 500

// writeImport writes a plan: new groups, every new animal (so that any fact may name any
// of them), changed names, then one record per changed animal, "Register import: TAG",
// applied now and linked to the animal, with one item per fact. Everything goes in bulk
// inserts; the caller's transaction makes it all or nothing.
func (s *Service) writeImport(ctx context.Context, farmID uuid.UUID, plan *importPlan, progress func(int)) error {
	c := s.Client(ctx)
	if len(plan.newGroups) > 0 {
		b := make([]*ent.GroupCreate, len(plan.newGroups))
		for i, n := range plan.newGroups {
			b[i] = c.Group.Create().SetID(plan.groups[n]).SetFarmID(farmID).SetName(n)
		}
		if err := c.Group.CreateBulk(b...).Exec(ctx); err != nil {
			return err
		}
	}
	var creates []*ent.AnimalCreate
	flush := func() error {
		err := c.Animal.CreateBulk(creates...).Exec(ctx)
		creates = creates[:0]
		return err
	}
	for _, r := range plan.rows {
		ch := plan.changes[r]
		switch {
		case ch.create:
			creates = append(creates, c.Animal.Create().SetID(r.id).SetFarmID(farmID).SetTag(r.tag).SetNillableName(ch.name))
			if len(creates) == importBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		case ch.name != nil:
			if err := c.Animal.UpdateOneID(r.id).SetName(*ch.name).Exec(ctx); err != nil {
				return err
			}
		}
	}
	if len(creates) > 0 {
		if err := flush(); err != nil {
			return err
		}
	}
	now := s.nowUTC()
	done := 0
	for start := 0; start < len(plan.rows); start += importBatch {
		batch := plan.rows[start:min(start+importBatch, len(plan.rows))]
		var records []*ent.RecordCreate
		var links RecordLinks
		var items []*ent.RecordItemCreate
		var itemIDs []uuid.UUID
		var facts []*evidence.Fact
		for _, r := range batch {
			ch := plan.changes[r]
			if len(ch.facts) == 0 {
				continue
			}
			recID := newID()
			records = append(records, c.Record.Create().SetID(recID).SetFarmID(farmID).SetName("Register import: "+r.tag).
				SetType(record.TypeGENETIC).SetAppliedAt(now))
			links.Add(c, farmID, recID, []uuid.UUID{r.id}, nil)
			for i := range ch.facts {
				f := &ch.facts[i]
				id, name := newID(), "Register: "+strings.ReplaceAll(string(f.Kind), "_", " ")
				md, err := schematype.MetadataOf(factMetadata(*f))
				if err != nil {
					return err
				}
				items = append(items, withFactColumns(c.RecordItem.Create().SetID(id).SetRecordID(recID).SetFarmID(farmID).SetName(name).
					SetMetadata(md), f))
				itemIDs, facts = append(itemIDs, id), append(facts, f)
			}
		}
		if len(records) > 0 {
			if err := c.Record.CreateBulk(records...).Exec(ctx); err != nil {
				return err
			}
			if err := links.Save(ctx, c); err != nil {
				return err
			}
		}
		for len(items) > 0 {
			n := min(len(items), importBatch)
			if err := c.RecordItem.CreateBulk(items[:n]...).Exec(ctx); err != nil {
				return err
			}
			items = items[n:]
		}
		if err := createFactLinks(ctx, c, farmID, itemIDs, facts); err != nil {
			return err
		}
		done += len(batch)
		progress(done)
	}
	return nil
}

// newID draws the id of a row an import writes: a version 7 UUID, which grows with time,
// so that thousands of inserts land at the right edge of each index instead of on random
// pages all over it (what keeps a 10,000-animal import fast on SQLite).
func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
