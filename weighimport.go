package herdbook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/scalefile"
)

// WeighImportOptions are what the caller of ImportWeighings knows that a session file may
// not say (scalefile.Options), and whether to write.
type WeighImportOptions struct {
	// DryRun reads and checks the whole file against the farm and writes nothing.
	DryRun bool
	// Unit (kg or lb) is the unit of weights when the file does not give one.
	Unit string
	// DateOrder (dmy or mdy) reads d/m/y dates when no date of the file settles it.
	DateOrder string
	// Date (YYYY-MM-DD) dates every weighing of a file without a date column.
	Date string
}

// WeighAction says what an import did, or would do, with a weighing.
type WeighAction string

// The actions of a weighing of a session file.
const (
	// WeighRecorded is a weighing written (or, in a dry run, that would be).
	WeighRecorded WeighAction = "recorded"
	// WeighUnchanged is a weighing the animal's history already holds (the same weight on
	// the same day): importing a session file again writes nothing.
	WeighUnchanged WeighAction = "unchanged"
)

// WeighRow is the outcome of one weighing of a session file.
type WeighRow struct {
	Line     int
	AnimalID uuid.UUID
	Tag      string
	EID      string
	Date     string
	Time     string
	KG       string
	Action   WeighAction
}

// WeighImportResult summarises a session file's import.
type WeighImportResult struct {
	DryRun    bool
	Layout    string
	Rows      int
	Recorded  int
	Unchanged int
	// Ignored lists the file's columns that no weighing records (the vendor's notes,
	// drafting, condition score...).
	Ignored   []string
	Weighings []WeighRow
}

// ImportWeighings reads a weigh-scale session file (scalefile: Tru-Test/Datamars and
// Gallagher exports, Digi-Star EID lines) and records each line as a weight fact of the
// animal its EID, else its VID, names, all or nothing: any problem answers EINVALID with a
// FieldError per problem carrying its line (Row) and column, and nothing is written. Each
// weighing is held to the animal's history as every weighing is (evidence.CheckHistory:
// not before its birth, not after its death or final departure) and to its arrival (not
// before it came onto the farm). A line that names an animal of no other farm but this
// one's, two lines weighing one animal on one day, an EID that named two animals on that
// day, a VID that names a different animal than the line's EID: each is a problem of its
// line. A weighing the history already holds is left unchanged, so a file imported twice
// writes nothing the second time. The viewer needs write:records and the EDITOR role.
//
// A constant number of statements whatever the file's length (up to MaxImportRows lines):
// the EIDs and VIDs are resolved in two, the animals' histories read in one, the weighings
// written in bulk.
func (s *Service) ImportWeighings(ctx context.Context, farmID uuid.UUID, file io.Reader, opts WeighImportOptions) (*WeighImportResult, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, err
	}
	sess, err := scalefile.Read(file, scalefile.Options{Unit: scalefile.Unit(strings.ToLower(opts.Unit)),
		DateOrder: scalefile.DateOrder(strings.ToLower(opts.DateOrder)), Date: opts.Date, MaxRows: MaxImportRows})
	if err != nil {
		var se *scalefile.Error
		if errors.As(err, &se) {
			var p importProblems
			for _, pr := range se.Problems {
				if pr.Line == 0 {
					// The file as a whole, or a parameter the caller gave (unit, date_order,
					// date): named as the parameter, as any other request field is.
					field := pr.Column
					if field == "" {
						field = "file"
					}
					p.list = append(p.list, FieldError{Field: field, Message: pr.Message})
					continue
				}
				p.add(pr.Line, pr.Column, "%s", pr.Message)
			}
			return nil, p.err()
		}
		return nil, csvError(err)
	}
	// The text rule, as every import's cells follow it: the visual ids are looked up and
	// named in answers, the vendor's column names listed as ignored; nothing else of the
	// file is text (EIDs, weights, dates and times are read as what they are).
	var p importProblems
	for _, col := range sess.Extra {
		if msg := textProblem(col, false); msg != "" {
			p.add(1, "header", "%s", msg)
		}
	}
	for _, r := range sess.Rows {
		if msg := textProblem(r.VID, false); msg != "" {
			p.add(r.Line, "vid", "%s", msg)
		}
	}
	if len(p.list) > 0 {
		return nil, p.err()
	}
	var res *WeighImportResult
	err = s.inTx(ctx, func(ctx context.Context) error {
		res, err = s.importWeighings(ctx, farmID, sess, opts.DryRun)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s *Service) importWeighings(ctx context.Context, farmID uuid.UUID, sess *scalefile.Session, dry bool) (*WeighImportResult, error) {
	rows := sess.Rows
	ids, tags, err := s.resolveWeighed(ctx, farmID, rows)
	if err != nil {
		return nil, err
	}
	animals := dedupe(slices.DeleteFunc(slices.Clone(ids), func(id uuid.UUID) bool { return id == uuid.Nil }))
	// The animals' histories but their weighings: a weight bounds no other weight (the rules
	// that hold a weighing are its animal's birth, arrival, death and departures), and an
	// animal weighed at every visit to the crush has more weighings than anything else. The
	// weighings of the file's days are read apart, to leave those the history holds.
	stored, err := s.animalFactsOf(ctx, farmID, animals, weighHistoryKinds)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(animals))
	for i, id := range animals {
		keys[i] = id.String()
	}
	entries := evidence.EntryDates(keys, stored)
	held, err := s.heldWeighings(ctx, farmID, animals, rows)
	if err != nil {
		return nil, err
	}
	var p importProblems
	res := &WeighImportResult{DryRun: dry, Layout: sess.Layout, Rows: len(rows), Ignored: sess.Extra, Weighings: make([]WeighRow, len(rows))}
	if res.Ignored == nil {
		res.Ignored = []string{}
	}
	seen := map[string]int{} // animal and day: the line that weighed it
	var facts []evidence.Fact
	var factRows []int // facts[i] comes from rows[factRows[i]]
	for i, r := range rows {
		id := ids[i]
		out := WeighRow{Line: r.Line, AnimalID: id, Tag: tags[id], EID: r.EID, Date: r.Date, Time: r.Time, KG: r.KG, Action: WeighRecorded}
		res.Weighings[i] = out
		if id == uuid.Nil {
			continue // resolveWeighed reported it
		}
		day := id.String() + " " + r.Date
		if first, dup := seen[day]; dup {
			p.add(r.Line, "weight", "weighs %s on %s again (line %d weighed it that day): keep one of the two lines", tags[id], r.Date, first)
			continue
		}
		seen[day] = r.Line
		if e := entries[strings.ToLower(id.String())]; e != "" && r.Date < e {
			p.add(r.Line, "date", "%s was not on the farm on %s: it came onto the farm on %s", tags[id], r.Date, e)
			continue
		}
		if held[id.String()+" "+r.Date+" "+r.KG] {
			res.Weighings[i].Action = WeighUnchanged
			res.Unchanged++
			continue
		}
		facts = append(facts, evidence.Fact{Kind: evidence.KindWeight, AnimalID: id.String(), Date: r.Date, KG: json.Number(r.KG)})
		factRows = append(factRows, i)
	}
	ptrs := factPointers(facts)
	if len(facts) > 0 {
		names := make(map[string]string, len(tags))
		for id, tag := range tags {
			names[id.String()] = tag
		}
		vs, err := s.historyViolationsOf(ctx, farmID, ptrs, names, stored)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			p.add(rows[factRows[v.Index]].Line, "date", "%s", v.Message)
		}
	}
	if len(p.list) > 0 || p.more > 0 {
		slices.SortStableFunc(p.list, func(a, b FieldError) int { return a.Row - b.Row })
		return nil, p.err()
	}
	res.Recorded = len(facts)
	if dry || len(facts) == 0 {
		return res, nil
	}
	if err := s.insertFacts(ctx, farmID, facts, ptrs, false); err != nil {
		return nil, err
	}
	// Weighings withhold nothing and leave no group: the guard and the reach have nothing to
	// say of them, and are asked all the same so that this path stays one of every write's.
	if err := s.storeReach(ctx, farmID, ptrs); err != nil {
		return nil, err
	}
	return res, s.guardWithdrawals(ctx, farmID, ptrs, func(i int) string { return fmt.Sprintf("row %d", rows[factRows[i]].Line) }, false)
}

// resolveWeighed finds the animal each line names: by its EID (the identifier facts that
// named it, the one naming it on the line's day first), else by its VID (an animal's tag,
// else a visual identifier). ids[i] is uuid.Nil for a line reported to p. Two statements.
func (s *Service) resolveWeighed(ctx context.Context, farmID uuid.UUID, rows []scalefile.Row) (ids []uuid.UUID, tags map[uuid.UUID]string, err error) {
	var values, vids []string
	for _, r := range rows {
		if r.EID != "" {
			values = append(values, r.EID)
		}
		if r.VID != "" {
			v := tagValue(r.VID)
			vids = append(vids, v)
			values = append(values, v)
		}
	}
	var spans []identifierSpan
	if len(values) > 0 {
		if spans, err = s.identifierFacts(ctx, farmID, sortedUnique(values)); err != nil {
			return nil, nil, err
		}
	}
	bySpan := map[string][]identifierSpan{}
	var named []uuid.UUID
	for _, sp := range spans {
		bySpan[sp.value] = append(bySpan[sp.value], sp)
		if u, err := uuid.Parse(sp.animal); err == nil {
			named = append(named, u)
		}
	}
	// One statement for the animals the tags and identifiers name: their tags, and the
	// animals whose tag is a line's VID. Animals archived are not weighed.
	q := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID))
	switch {
	case len(vids) > 0 && len(named) > 0:
		q = q.Where(animal.Or(animal.TagIn(sortedUnique(vids)...), animal.IDIn(dedupe(named)...)))
	case len(vids) > 0:
		q = q.Where(animal.TagIn(sortedUnique(vids)...))
	case len(named) > 0:
		q = q.Where(animal.IDIn(dedupe(named)...))
	default:
		q = nil
	}
	tags = map[uuid.UUID]string{}
	byTag := map[string][]uuid.UUID{}
	if q != nil {
		as, err := q.Select(animal.FieldID, animal.FieldTag).All(ctx)
		if err != nil {
			return nil, nil, err
		}
		for _, a := range as {
			tags[a.ID] = a.Tag
			byTag[a.Tag] = append(byTag[a.Tag], a.ID)
		}
	}
	// byValue is the animal a value names on a day: a span covering the day, else the one
	// animal the value ever named; ok false with a message when none or several.
	byValue := func(value, day, what string) (uuid.UUID, string) {
		var on, ever []uuid.UUID
		for _, sp := range bySpan[value] {
			if (what == "EID") != (sp.scheme == evidence.SchemeEID) {
				continue
			}
			u, err := uuid.Parse(sp.animal)
			if _, live := tags[u]; err != nil || !live {
				continue
			}
			ever = append(ever, u)
			if (sp.start == "" || sp.start <= day) && (sp.end == "" || day <= sp.end) {
				on = append(on, u)
			}
		}
		on, ever = dedupe(on), dedupe(ever)
		switch {
		case len(on) == 1:
			return on[0], ""
		case len(on) > 1:
			return uuid.Nil, fmt.Sprintf("%s %s named %d animals of this farm on %s (%s); correct their identifiers first", what, value, len(on), day, tagList(on, tags))
		case len(ever) == 1:
			return ever[0], ""
		case len(ever) > 1:
			return uuid.Nil, fmt.Sprintf("%s %s named %d animals of this farm, none of them on %s (%s)", what, value, len(ever), day, tagList(ever, tags))
		}
		return uuid.Nil, ""
	}
	var p importProblems
	ids = make([]uuid.UUID, len(rows))
	for i, r := range rows {
		var byEID, byVID uuid.UUID
		if r.EID != "" {
			id, msg := byValue(r.EID, r.Date, "EID")
			switch {
			case msg != "":
				p.add(r.Line, "eid", "%s", msg)
				continue
			case id == uuid.Nil:
				p.add(r.Line, "eid", "%s names no animal of this farm", r.EID)
				continue
			}
			byEID = id
		}
		if r.VID != "" {
			v := tagValue(r.VID)
			switch as := byTag[v]; {
			case len(as) == 1:
				byVID = as[0]
			case len(as) > 1:
				if byEID == uuid.Nil {
					p.add(r.Line, "vid", "%s is the tag of %d animals of this farm; weigh them by EID", v, len(as))
					continue
				}
			default:
				id, msg := byValue(v, r.Date, "VID")
				if msg != "" && byEID == uuid.Nil {
					p.add(r.Line, "vid", "%s", msg)
					continue
				}
				byVID = id
			}
		}
		switch {
		case byEID != uuid.Nil && byVID != uuid.Nil && byEID != byVID:
			p.add(r.Line, "vid", "%s is the tag of %s, but the EID %s names %s: which animal was weighed?", r.VID, tags[byVID], r.EID, tags[byEID])
		case byEID != uuid.Nil:
			ids[i] = byEID
		case byVID != uuid.Nil:
			ids[i] = byVID
		default:
			p.add(r.Line, "vid", "%s names no animal of this farm (neither a tag nor a visual identifier)", r.VID)
		}
	}
	if len(p.list) > 0 {
		return nil, nil, p.err()
	}
	return ids, tags, nil
}

func tagList(ids []uuid.UUID, tags map[uuid.UUID]string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = tags[id]
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// weighHistoryKinds are the kinds of fact a weighing is checked against: all but weights and
// weanings (a weaning weighs the calf), which bound nothing a weighing does.
var weighHistoryKinds = func() []string {
	var out []string
	for _, k := range evidence.Kinds {
		if k != evidence.KindWeight && k != evidence.KindWeaning {
			out = append(out, string(k))
		}
	}
	return out
}()

// heldWeighings returns "animal day kg" for every weighing the animals' histories hold on
// the days of the file's lines. One statement.
func (s *Service) heldWeighings(ctx context.Context, farmID uuid.UUID, animals []uuid.UUID, rows []scalefile.Row) (map[string]bool, error) {
	held := map[string]bool{}
	if len(animals) == 0 {
		return held, nil
	}
	var days []string
	for _, r := range rows {
		days = append(days, r.Date)
	}
	items, err := s.factItems(ctx, farmID, recorditem.FactKind(string(evidence.KindWeight)),
		recorditem.FactSubjectIn(animals...), recorditem.FactDateIn(sortedUnique(days)...))
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 {
			continue
		}
		if kg, err := strconv.ParseFloat(f.KG.String(), 64); err == nil {
			held[strings.ToLower(f.AnimalID)+" "+f.Date+" "+strconv.FormatFloat(kg, 'f', -1, 64)] = true
		}
	}
	return held, nil
}
