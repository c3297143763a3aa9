package herdbook

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/outsideanimal"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
)

// BreedingCSVColumns are the columns of breeding.csv, the breeding year's facts (heats,
// services, pregnancy checks, weanings), and of its import. animal_tag and animal_id name
// the female (the one in heat, served, checked; for an embryo transfer the recipient) or,
// for a weaning, the calf. sire_tag is the sire's tag, or an outside sire's name.
var BreedingCSVColumns = []string{"kind", "date", "animal_tag", "animal_id", "sire_tag", "sire_id",
	"donor_id", "recipient_id", "straw", "technician", "embryo", "method", "result",
	"foetal_age_days", "foetal_age_min_days", "foetal_age_max_days", "kg", "group_id", "record_id", "donor_tag",
	"expected_calving_date"}

// breedingKinds are the fact kinds of breeding.csv.
var breedingKinds = []evidence.Kind{evidence.KindHeat, evidence.KindInsemination, evidence.KindHandMating,
	evidence.KindEmbryoTransfer, evidence.KindPregnancyCheck, evidence.KindWeaning}

func breedingKindStrings() []string {
	out := make([]string, len(breedingKinds))
	for i, k := range breedingKinds {
		out[i] = string(k)
	}
	return out
}

// breedingFemale is the animal a breeding fact is about: the served, checked or heat female
// (the recipient of an embryo transfer), or the weaned calf.
func breedingFemale(f *evidence.Fact) string {
	switch f.Kind {
	case evidence.KindInsemination, evidence.KindHandMating:
		return f.DamID
	case evidence.KindEmbryoTransfer:
		return f.RecipientID
	}
	return f.AnimalID
}

// breedingKey says which fact a row stands for: the same kind, date and animals.
func breedingKey(f *evidence.Fact) string {
	return strings.ToLower(strings.Join([]string{string(f.Kind), f.Date, f.AnimalID, f.DamID, f.SireID, f.RecipientID}, "|"))
}

// breedingFacts loads the farm's live breeding facts, oldest first (date, then record id),
// in one statement.
func (s *Service) breedingFacts(ctx context.Context, farmID uuid.UUID, from, to string) ([]evidence.Fact, error) {
	var where []predicate.RecordItem
	where = append(where, recorditem.FactKindIn(breedingKindStrings()...))
	if from != "" {
		where = append(where, recorditem.FactDateGTE(from))
	}
	if to != "" {
		where = append(where, recorditem.FactDateLTE(to))
	}
	items, err := s.factItems(ctx, farmID, where...)
	if err != nil {
		return nil, err
	}
	out := factsOf(items)
	slices.SortFunc(out, func(a, b evidence.Fact) int {
		return cmp.Or(cmp.Compare(a.Date, b.Date), cmp.Compare(a.RecordID, b.RecordID), cmp.Compare(a.RecordItemID, b.RecordItemID))
	})
	return out, nil
}

// ExportBreeding returns breeding.csv: one row per live heat, insemination, hand mating,
// embryo transfer, pregnancy check and weaning of the farm dated between from and to
// (YYYY-MM-DD, both included, either may be empty), oldest first. Three statements whatever
// the number of rows: the facts, the tags of the animals they name, the outside sires'
// names. It needs read:records and the READER role.
func (s *Service) ExportBreeding(ctx context.Context, farmID uuid.UUID, from, to string) (*Table, error) {
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
	return &Table{Header: BreedingCSVColumns, Rows: func(fn func([]string) error) error {
		facts, err := s.breedingFacts(ctx, farmID, from, to)
		if err != nil {
			return err
		}
		var ids []uuid.UUID
		for _, f := range facts {
			for _, id := range f.ReferencedAnimals() {
				ids = append(ids, uuid.MustParse(id))
			}
		}
		tags := map[string]string{}
		outside := map[string]string{}
		if len(ids) > 0 {
			as, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(dedupe(ids)...)).
				Select(animal.FieldID, animal.FieldTag).All(IncludeInactive(ctx))
			if err != nil {
				return err
			}
			for _, a := range as {
				tags[a.ID.String()] = a.Tag
			}
			os, err := s.Client(ctx).OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID), outsideanimal.IDIn(dedupe(ids)...)).
				Select(outsideanimal.FieldID, outsideanimal.FieldName).All(ctx)
			if err != nil {
				return err
			}
			for _, o := range os {
				outside[o.ID.String()] = o.Name
			}
		}
		for _, f := range facts {
			row := make([]string, len(BreedingCSVColumns))
			set := func(col, v string) { row[slices.Index(BreedingCSVColumns, col)] = v }
			who := breedingFemale(&f)
			set("kind", string(f.Kind))
			set("date", f.Date)
			set("animal_tag", tags[who])
			set("animal_id", who)
			if f.SireID != "" {
				set("sire_id", f.SireID)
				set("sire_tag", cmp.Or(tags[f.SireID], outside[f.SireID]))
			}
			if f.Kind == evidence.KindEmbryoTransfer {
				set("donor_id", f.DamID)
				set("donor_tag", tags[f.DamID])
				set("recipient_id", f.RecipientID)
			}
			set("straw", f.Straw)
			set("technician", f.Technician)
			set("embryo", f.Embryo)
			set("method", f.Method)
			set("result", f.Result)
			set("expected_calving_date", f.ExpectedCalvingDate)
			for col, v := range map[string]*int{"foetal_age_days": f.FoetalAgeDays, "foetal_age_min_days": f.FoetalAgeMinDays, "foetal_age_max_days": f.FoetalAgeMaxDays} {
				if v != nil {
					set(col, strconv.Itoa(*v))
				}
			}
			set("kg", f.KG.String())
			set("group_id", f.GroupID)
			set("record_id", f.RecordID)
			if err := fn(row); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}

// BreedingImportResult summarises a breeding import.
type BreedingImportResult struct {
	DryRun  bool
	Rows    int
	Created int
	Skipped int
}

// errDryRun rolls a dry run's transaction back once every row went through.
var errDryRun = errors.New("dry run")

// ImportBreeding reads breeding.csv (BreedingCSVColumns; record_id is ignored) into a farm
// in one transaction, each row recorded as REST's and GraphQL's facts are (RecordFact), so
// the history checks apply. Animals are named by tag, EID or id (animal_tag before
// animal_id, donor_tag before donor_id); a sire by the tag, EID or id of a farm animal, or by
// an outside animal's id or exact name. Any problem answers EINVALID listing every problem
// by row and column, and nothing is written. A row whose fact the farm already holds (same
// kind, date and animals) is skipped, so importing an export again adds nothing. A dry run
// does all of it and rolls back. The viewer needs write:records and the EDITOR role.
func (s *Service) ImportBreeding(ctx context.Context, farmID uuid.UUID, file io.Reader, dryRun bool) (*BreedingImportResult, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, err
	}
	var p importProblems
	cr := csv.NewReader(file)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, Invalid(FieldError{Field: "file", Message: "is empty: the first line must name the columns, for example " + strings.Join(BreedingCSVColumns, ",")})
	}
	if err != nil {
		return nil, csvError(err)
	}
	cols := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF")
		}
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case textProblem(h, false) != "":
			p.add(1, fmt.Sprintf("column %d", i+1), "the header %s", textProblem(h, false))
		case !slices.Contains(BreedingCSVColumns, h):
			p.add(1, fmt.Sprintf("column %d", i+1), "%q is not a column this import reads; it reads %s", h, strings.Join(BreedingCSVColumns, ", "))
		default:
			if _, dup := cols[h]; dup {
				p.add(1, h, "is given more than once")
			}
			cols[h] = i
		}
	}
	for _, c := range []string{"kind", "date"} {
		if _, ok := cols[c]; !ok && len(p.list) == 0 {
			p.add(1, c, "the column %s is required", c)
		}
	}
	if len(p.list) > 0 {
		return nil, p.err()
	}
	type row struct {
		n     int
		cells map[string]string
	}
	var rows []row
	for n := 2; ; n++ {
		rec, err := readCSVRow(cr)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && !errors.Is(pe.Err, csv.ErrFieldCount) {
				p.add(n, "", "is not valid CSV: %v", pe.Err)
				return nil, p.err()
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
		cells := map[string]string{}
		for c, i := range cols {
			v := strings.TrimSpace(rec[i])
			if msg := textProblem(v, false); msg != "" {
				p.add(n, c, "%s", msg)
				v = ""
			}
			cells[c] = v
		}
		rows = append(rows, row{n, cells})
	}
	if len(p.list) > 0 {
		return nil, p.err()
	}
	res := &BreedingImportResult{DryRun: dryRun, Rows: len(rows)}
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		all := IncludeInactive(ctx)
		animals, err := c.Animal.Query().Where(animal.FarmID(farmID)).Select(animal.FieldID, animal.FieldTag).All(all)
		if err != nil {
			return err
		}
		byTag := map[string][]*ent.Animal{}
		byID := map[string]bool{}
		for _, a := range animals {
			byTag[a.Tag] = append(byTag[a.Tag], a)
			byID[a.ID.String()] = true
		}
		outside, err := c.OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID)).Select(outsideanimal.FieldID, outsideanimal.FieldName).All(ctx)
		if err != nil {
			return err
		}
		eids, err := s.farmEIDs(ctx, farmID)
		if err != nil {
			return err
		}
		held, err := s.breedingFacts(ctx, farmID, "", "")
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for i := range held {
			seen[breedingKey(&held[i])] = true
		}
		// resolve finds the farm animal (or, for a sire, the outside animal) a cell names.
		resolve := func(n int, column, ref string, sire bool) string {
			if ref == "" {
				return ""
			}
			if u, err := uuid.Parse(ref); err == nil {
				if byID[u.String()] {
					return u.String()
				}
				if sire {
					for _, o := range outside {
						if o.ID == u {
							return u.String()
						}
					}
				}
				p.add(n, column, "%s is not an animal of this farm", ref)
				return ""
			}
			if e, ok := importEID(ref); ok {
				if id, ok := eids[e]; ok {
					return id.String()
				}
			}
			switch as := byTag[tagValue(ref)]; len(as) {
			case 1:
				return as[0].ID.String()
			case 0:
			default:
				p.add(n, column, "%s is the tag of %d animals of this farm; name it by its EID or id", ref, len(as))
				return ""
			}
			if sire {
				var match []string
				for _, o := range outside {
					if o.Name == ref {
						match = append(match, o.ID.String())
					}
				}
				if len(match) == 1 {
					return match[0]
				}
				if len(match) > 1 {
					p.add(n, column, "%s is the name of %d outside animals; name the sire by its id", ref, len(match))
					return ""
				}
				p.add(n, column, "%s is neither a tag, an EID nor an id of an animal of this farm, nor an outside animal's name", ref)
				return ""
			}
			p.add(n, column, "%s is neither a tag, an EID nor an id of an animal of this farm", ref)
			return ""
		}
		for _, r := range rows {
			cell := func(c string) string { return r.cells[c] }
			before := len(p.list) + p.more
			kind := evidence.Kind(strings.ToLower(cell("kind")))
			if !slices.Contains(breedingKinds, kind) {
				p.add(r.n, "kind", "must be one of %s", strings.Join(breedingKindStrings(), ", "))
				continue
			}
			who := resolve(r.n, "animal_tag", cmp.Or(cell("animal_tag"), cell("animal_id"), cell("recipient_id")), false)
			f := evidence.Fact{Kind: kind, Date: cell("date"), Straw: cell("straw"), Technician: cell("technician"),
				Embryo: cell("embryo"), Method: strings.ToLower(cell("method")), Result: strings.ToLower(cell("result")),
				KG: json.Number(cell("kg")), GroupID: strings.ToLower(cell("group_id")), ExpectedCalvingDate: cell("expected_calving_date")}
			if who == "" && before == len(p.list)+p.more {
				p.add(r.n, "animal_tag", "is required: name the animal by tag, EID or id")
			}
			sire := ""
			if evidence.IsService(kind) {
				if sire = resolve(r.n, "sire_tag", cmp.Or(cell("sire_tag"), cell("sire_id")), true); sire == "" && cell("sire_tag")+cell("sire_id") == "" {
					p.add(r.n, "sire_tag", "is required for %s: name the sire by tag, EID, id or outside name", kind)
				}
			}
			switch kind {
			case evidence.KindInsemination, evidence.KindHandMating:
				f.DamID, f.SireID = who, sire
			case evidence.KindEmbryoTransfer:
				f.RecipientID, f.SireID = who, sire
				if f.DamID = resolve(r.n, "donor_tag", cmp.Or(cell("donor_tag"), cell("donor_id")), false); f.DamID == "" && cell("donor_tag")+cell("donor_id") == "" {
					p.add(r.n, "donor_tag", "is required for embryo_transfer: name the donor by tag, EID or id")
				}
			default:
				f.AnimalID = who
			}
			for col, dst := range map[string]**int{"foetal_age_days": &f.FoetalAgeDays, "foetal_age_min_days": &f.FoetalAgeMinDays, "foetal_age_max_days": &f.FoetalAgeMaxDays} {
				if v := cell(col); v != "" {
					d, err := strconv.Atoi(v)
					if err != nil {
						p.add(r.n, col, "must be a whole number of days")
						continue
					}
					*dst = &d
				}
			}
			if before != len(p.list)+p.more {
				continue
			}
			if seen[breedingKey(&f)] {
				res.Skipped++
				continue
			}
			if _, err := s.RecordFact(ctx, farmID, f); err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Code == EINTERNAL {
					return err
				}
				if len(e.Fields) == 0 {
					p.add(r.n, "", "%s", e.Message)
				}
				for _, fe := range e.Fields {
					p.add(r.n, breedingColumn(kind, fe.Field), "%s", fe.Message)
				}
				continue
			}
			seen[breedingKey(&f)] = true
			res.Created++
		}
		if len(p.list) > 0 {
			return p.err()
		}
		if dryRun {
			return errDryRun
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// breedingColumn is the file's column a fact field's problem belongs to.
func breedingColumn(kind evidence.Kind, field string) string {
	if i := strings.LastIndex(field, "."); i >= 0 {
		field = field[i+1:]
	}
	switch field {
	case "animal_id", "recipient_id", "animal_ids":
		return "animal_tag"
	case "dam_id":
		if kind == evidence.KindEmbryoTransfer {
			return "donor_tag"
		}
		return "animal_tag"
	case "sire_id":
		return "sire_tag"
	}
	if slices.Contains(BreedingCSVColumns, field) {
		return field
	}
	return ""
}
