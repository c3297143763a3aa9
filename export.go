package herdbook

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
)

// A Table is an export that is read row by row, so that a farm of any size streams in
// constant memory: Header names the columns once, and Rows calls fn once per row, in order,
// stopping at the first error fn or the database returns. The columns are a published,
// stable contract (docs/csv.md): new columns are only ever added at the end.
type Table struct {
	Header []string
	Rows   func(fn func(row []string) error) error
}

// exportBatch is how many rows an export reads per query: memory stays bounded by it,
// whatever the size of the farm.
const exportBatch = 500

// RecordCSVColumns are the columns of the records export: one row per record item (a record
// without items gives one row with the item columns empty).
var RecordCSVColumns = []string{
	"record_id", "applied_at", "type", "name", "description",
	"animal_ids", "animal_tags", "group_ids", "group_names",
	"item_id", "item_name", "item_description", "fact_kind", "fact_date", "metadata",
}

// listSeparator joins several ids or names in one cell. A space is not used because tags
// and group names may contain spaces.
const listSeparator = ";"

// ExportRecords returns the farm's active records applied between from and to (calendar
// days YYYY-MM-DD, both included, either may be empty for an open end), oldest first by
// applied_at, then id. It needs read:records and the READER role; both and the dates are
// checked before any row is read, so a transport can still answer an error.
func (s *Service) ExportRecords(ctx context.Context, farmID uuid.UUID, from, to string) (*Table, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	var fe fieldErrors
	lo, hi := exportDay(&fe, "from", from), exportDay(&fe, "to", to)
	if lo != nil && hi != nil && hi.Before(*lo) {
		fe.add("to", "must not be before from")
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	return &Table{Header: RecordCSVColumns, Rows: func(fn func([]string) error) error {
		var last *ent.Record
		for {
			q := s.Client(ctx).Record.Query().Where(record.FarmID(farmID))
			if lo != nil {
				q.Where(record.AppliedAtGTE(*lo))
			}
			if hi != nil {
				q.Where(record.AppliedAtLT(hi.AddDate(0, 0, 1)))
			}
			if last != nil {
				q.Where(record.Or(record.AppliedAtGT(last.AppliedAt),
					record.And(record.AppliedAt(last.AppliedAt), record.IDGT(last.ID))))
			}
			batch, err := q.Order(ent.Asc(record.FieldAppliedAt), ent.Asc(record.FieldID)).Limit(exportBatch).
				WithItems(func(q *ent.RecordItemQuery) {
					q.Where(farmOf(farmID)).Order(ent.Asc(recorditem.FieldCreatedAt), ent.Asc(recorditem.FieldID))
				}).
				WithAnimals(func(q *ent.AnimalQuery) { q.Order(ent.Asc(animal.FieldTag), ent.Asc(animal.FieldID)) }, animalsOf(farmID)).
				WithGroups(func(q *ent.GroupQuery) {
					q.Where(linkedOf(record.GroupsTable, farmID)).Order(ent.Asc(group.FieldName), ent.Asc(group.FieldID))
				}).
				All(ctx)
			if err != nil {
				return err
			}
			for _, r := range batch {
				if err := recordRows(r, fn); err != nil {
					return err
				}
			}
			if len(batch) < exportBatch {
				return nil
			}
			last = batch[len(batch)-1]
		}
	}}, nil
}

// exportDay reads an optional calendar day of an export's range.
func exportDay(fe *fieldErrors, field, v string) *time.Time {
	if v == "" {
		return nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		fe.add(field, "must be a calendar date in the form YYYY-MM-DD")
		return nil
	}
	return &t
}

func recordRows(r *ent.Record, fn func([]string) error) error {
	var animalIDs, tags, groupIDs, names []string
	for _, a := range r.Edges.Animals {
		animalIDs, tags = append(animalIDs, a.ID.String()), append(tags, a.Tag)
	}
	for _, g := range r.Edges.Groups {
		groupIDs, names = append(groupIDs, g.ID.String()), append(names, g.Name)
	}
	head := []string{
		r.ID.String(), r.AppliedAt.UTC().Format(time.RFC3339), string(r.Type), r.Name, orEmpty(r.Description),
		strings.Join(animalIDs, listSeparator), strings.Join(tags, listSeparator),
		strings.Join(groupIDs, listSeparator), strings.Join(names, listSeparator),
	}
	if len(r.Edges.Items) == 0 {
		return fn(append(head, "", "", "", "", "", ""))
	}
	for _, it := range r.Edges.Items {
		md := ""
		if !it.Metadata.IsEmpty() {
			// Decoded and encoded again: the file gives an item's members in one order on
			// both databases (PostgreSQL's jsonb keeps its own order).
			m, err := it.Metadata.Map()
			if err != nil {
				return err
			}
			b, err := json.Marshal(m)
			if err != nil {
				return err
			}
			md = string(b)
		}
		row := append(append(make([]string, 0, len(RecordCSVColumns)), head...),
			it.ID.String(), orEmpty(it.Name), orEmpty(it.Description), orEmpty(it.FactKind), orEmpty(it.FactDate), md)
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// AdminFarmOwner returns the longest-standing active OWNER of an active farm, without a
// viewer: the command line acts as that member when no --user is given, so that what it
// writes is still attributed to, and authorized for, a person of the farm.
func (s *Service) AdminFarmOwner(ctx context.Context, farmID uuid.UUID) (uuid.UUID, error) {
	m, err := s.Client(ctx).FarmMember.Query().
		Where(farmmember.FarmID(farmID), farmmember.RoleEQ(RoleOwner), farmmember.HasFarmWith(farm.IsActive(true))).
		Order(ent.Asc(farmmember.FieldCreatedAt), ent.Asc(farmmember.FieldID)).First(ctx)
	if err != nil {
		return uuid.Nil, notFound(err, "an owner of farm", farmID)
	}
	return m.UserID, nil
}

// AnimalCSVColumns are the columns of the animals export: first the columns an import reads
// (AnimalImportColumns), so that an export imports into another farm as it is, then the
// read-only ones (AnimalExportOnlyColumns). dam and sire are the parents' tags; group the
// names of the groups the animal was in on as_of, separated by ';'.
// The columns after as_of (weights, group_since, arrival, arrival_date) carry the history an
// import reads back (docs/csv.md); the last four are an embryo-transfer calf's genetic and
// surrogate dam (the holding register's pair), export only.
var AnimalCSVColumns = []string{"tag", "name", "eid", "sex", "birth_date", "breed", "dam", "sire", "group",
	"status", "status_date", "id", "dam_id", "sire_id", "group_ids", "intact",
	"identifiers", "weight_kg", "weighed_on", "adg_kg", "as_of",
	"weights", "group_since", "arrival", "arrival_date",
	"genetic_dam", "genetic_dam_id", "surrogate_dam", "surrogate_dam_id"}

// ExportAnimals returns the farm's register as of a day (YYYY-MM-DD; empty is today, UTC):
// one row per active animal on the register that day (not one born or bought later), by tag
// then id, with its profile on that day. It needs
// read:animals and the READER role, checked (with the date) before any row is read.
func (s *Service) ExportAnimals(ctx context.Context, farmID uuid.UUID, asOf string) (*Table, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	var fe fieldErrors
	day := exportDay(&fe, "as_of", asOf)
	if err := fe.err(); err != nil {
		return nil, err
	}
	if day == nil {
		today, _ := time.Parse(time.DateOnly, s.nowUTC().Format(time.DateOnly))
		day = &today
	}
	return &Table{Header: AnimalCSVColumns, Rows: func(fn func([]string) error) error {
		var last *ent.Animal
		for {
			q := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID))
			if last != nil {
				q.Where(animal.Or(animal.TagGT(last.Tag), animal.And(animal.Tag(last.Tag), animal.IDGT(last.ID))))
			}
			batch, err := q.Order(ent.Asc(animal.FieldTag), ent.Asc(animal.FieldID)).Limit(exportBatch).All(ctx)
			if err != nil {
				return err
			}
			rows, err := s.animalRows(ctx, farmID, batch, *day)
			if err != nil {
				return err
			}
			status := slices.Index(AnimalCSVColumns, "status")
			for _, row := range rows {
				if row[status] == evidence.StatusNotYet {
					continue // not on the register of that day: born or bought later
				}
				if err := fn(row); err != nil {
					return err
				}
			}
			if len(batch) < exportBatch {
				return nil
			}
			last = batch[len(batch)-1]
		}
	}}, nil
}

// animalRows renders a batch of animals as export rows, in three statements whatever its
// size: the profiles, the parents' tags, the groups' names. A parent that is not an active
// animal of the farm (it was deleted) keeps its id in dam_id or sire_id and leaves dam or
// sire empty, so that the file still imports.
func (s *Service) animalRows(ctx context.Context, farmID uuid.UUID, batch []*ent.Animal, day time.Time) ([][]string, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	asOf := day.Format(time.DateOnly)
	ids := make([]uuid.UUID, len(batch))
	for i, a := range batch {
		ids[i] = a.ID
	}
	facts, err := s.animalFacts(ctx, farmID, ids)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = id.String()
	}
	profiles := evidence.ProfilesOf(keys, asOf, facts)
	hist := csvHistories(facts, asOf)
	var parents, groups []uuid.UUID
	for _, p := range profiles {
		for _, id := range []*string{p.DamID, p.SireID, p.GeneticDamID, p.SurrogateDamID} {
			if id != nil {
				if u, err := uuid.Parse(*id); err == nil {
					parents = append(parents, u)
				}
			}
		}
		for _, g := range p.GroupIDs {
			if u, err := uuid.Parse(g); err == nil {
				groups = append(groups, u)
			}
		}
	}
	tags, names := map[string]string{}, map[string]string{}
	if len(parents) > 0 {
		as, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(dedupe(parents)...)).
			Select(animal.FieldID, animal.FieldTag).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			tags[a.ID.String()] = a.Tag
		}
		// A bought-in animal's parent that never was on the farm is an outside animal: its
		// registration number, else its name, is what the import reads back (one more
		// statement, only then).
		var away []uuid.UUID
		for _, u := range dedupe(parents) {
			if _, ok := tags[u.String()]; !ok {
				away = append(away, u)
			}
		}
		outside, err := s.outsideAnimals(ctx, farmID, away)
		if err != nil {
			return nil, err
		}
		for id, o := range outside {
			tags[id.String()] = o.Name
			if o.RegistrationNumber != nil {
				tags[id.String()] = *o.RegistrationNumber
			}
		}
	}
	// An embryo-transfer calf's genetic dam may be an outside donor: her registration
	// number, else her name (one more statement, only then).
	donors := map[string]string{}
	var outside []uuid.UUID
	for _, p := range profiles {
		if p.GeneticDamID != nil && tags[*p.GeneticDamID] == "" {
			if u, err := uuid.Parse(*p.GeneticDamID); err == nil {
				outside = append(outside, u)
			}
		}
	}
	if len(outside) > 0 {
		found, err := s.outsideAnimals(ctx, farmID, outside)
		if err != nil {
			return nil, err
		}
		for id, o := range found {
			donors[id.String()] = o.Name
			if o.RegistrationNumber != nil {
				donors[id.String()] = *o.RegistrationNumber
			}
		}
	}
	if len(groups) > 0 {
		gs, err := s.Client(ctx).Group.Query().Where(group.FarmID(farmID), group.IDIn(dedupe(groups)...)).
			Select(group.FieldID, group.FieldName).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			names[g.ID.String()] = g.Name
		}
	}
	rows := make([][]string, len(batch))
	for i, a := range batch {
		p := profiles[a.ID.String()]
		h := hist[strings.ToLower(a.ID.String())]
		row := make([]string, len(AnimalCSVColumns))
		set := func(col, v string) { row[slices.Index(AnimalCSVColumns, col)] = v }
		set("tag", a.Tag)
		set("name", orEmpty(a.Name))
		set("id", a.ID.String())
		set("as_of", asOf)
		set("sex", orEmpty(p.Sex))
		set("birth_date", orEmpty(p.BirthDate))
		set("breed", orEmpty(p.Breed))
		if p.DamID != nil {
			set("dam", tags[*p.DamID])
			set("dam_id", *p.DamID)
		}
		if p.SireID != nil {
			set("sire", tags[*p.SireID])
			set("sire_id", *p.SireID)
		}
		if p.GeneticDamID != nil {
			name := tags[*p.GeneticDamID]
			if name == "" {
				name = donors[*p.GeneticDamID]
			}
			set("genetic_dam", name)
			set("genetic_dam_id", *p.GeneticDamID)
		}
		if p.SurrogateDamID != nil {
			set("surrogate_dam", tags[*p.SurrogateDamID])
			set("surrogate_dam_id", *p.SurrogateDamID)
		}
		var gnames []string
		for _, g := range p.GroupIDs {
			if n, ok := names[g]; ok {
				gnames = append(gnames, n)
			}
		}
		set("group", strings.Join(gnames, listSeparator))
		if h != nil && len(gnames) > 0 {
			since := make([]string, 0, len(p.GroupIDs))
			for _, g := range p.GroupIDs {
				if _, ok := names[g]; ok {
					since = append(since, h.since[strings.ToLower(g)])
				}
			}
			set("group_since", strings.Join(since, listSeparator))
		}
		if h != nil {
			set("weights", h.weightsCell())
			set("arrival", h.arrival)
			set("arrival_date", h.arrivalDate)
		}
		set("group_ids", strings.Join(p.GroupIDs, listSeparator))
		var idents []string
		for _, id := range p.Identifiers {
			if id.Scheme == evidence.SchemeEID && row[slices.Index(AnimalCSVColumns, "eid")] == "" {
				set("eid", id.Value)
			}
			idents = append(idents, id.Scheme+":"+id.Value)
		}
		set("identifiers", strings.Join(idents, listSeparator))
		if p.Intact != nil {
			set("intact", strconv.FormatBool(*p.Intact))
		}
		set("status", p.Status)
		set("status_date", orEmpty(p.StatusDate))
		set("weight_kg", number(p.WeightKG))
		set("weighed_on", orEmpty(p.WeighedOn))
		set("adg_kg", number(p.ADGKG))
		rows[i] = row
	}
	return rows, nil
}

// number writes an optional decimal in its shortest exact form.
func number(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}
