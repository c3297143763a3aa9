package herdbook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/eid"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/factanimal"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
)

// Profile is an animal's profile as of a date, as the register shows it. It embeds the
// profile the evidence package computes from facts; fields added here (a withdrawal, say)
// appear beside them in JSON.
type Profile struct {
	evidence.Profile
	// Withdrawal is the medicine withdrawal as of the profile's date (treatment.go); single
	// animal reads fill it, lists leave it out to stay within their statement budget.
	Withdrawal *ProfileWithdrawal `json:"withdrawal,omitempty"`
}

// AnimalProfile is an animal with its profile as of a date.
type AnimalProfile struct {
	Animal  *ent.Animal
	Profile Profile
}

// AnimalFilter selects a page of a farm's register.
type AnimalFilter struct {
	// AsOf is the date of the profiles, YYYY-MM-DD; "" means today (UTC).
	AsOf string
	// Status keeps the animals whose profile has this status on AsOf; "" keeps the animals
	// on the register that day, every status but not_yet (born or bought later).
	Status string
	// Q keeps the animals whose tag or name contains it (case-insensitive) or that an
	// identifier with this value named at any time (an EID in any reader form).
	Q string
	// Sex keeps the animals whose profile on AsOf records this sex (male or female): the
	// newest profile fact dated on or before AsOf that records one. "" keeps every sex,
	// unknown included.
	Sex string
	// Group keeps the animals that membership facts place in this group on AsOf (uuid.Nil
	// keeps every animal); a group of another farm keeps none.
	Group uuid.UUID
	Page  Page
}

// asOf validates an as_of value; "" is today in UTC.
func (s *Service) asOf(fe *fieldErrors, v string) string {
	if v == "" {
		return s.nowUTC().Format(time.DateOnly)
	}
	if _, err := time.Parse(time.DateOnly, v); err != nil || len(v) != 10 {
		fe.add("as_of", "must be a calendar date in the form YYYY-MM-DD")
	}
	return v
}

// Animals lists a page of a farm's active animals (oldest first) with their profiles as of
// f.AsOf, and the number of animals the filter keeps. It costs a constant number of
// statements whatever the page size.
func (s *Service) Animals(ctx context.Context, farmID uuid.UUID, f AnimalFilter) ([]AnimalProfile, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, 0, err
	}
	var fe fieldErrors
	asOf := s.asOf(&fe, f.AsOf)
	if f.Status != "" && !slices.Contains(evidence.Statuses, f.Status) {
		fe.add("status", "must be one of %s", strings.Join(evidence.Statuses, ", "))
	}
	if len(f.Q) > 200 {
		fe.add("q", "must be at most 200 characters")
	} else if f.Q != "" {
		fe.line("q", f.Q)
	}
	if f.Sex != "" && f.Sex != evidence.SexMale && f.Sex != evidence.SexFemale {
		fe.add("sex", "must be male or female")
	}
	offset, limit, err := s.bounds(f.Page)
	if err != nil {
		fe = append(fe, ErrorFields(err)...)
	}
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	q := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID))
	if f.Q != "" {
		p, err := s.searchPredicate(ctx, farmID, f.Q)
		if err != nil {
			return nil, 0, err
		}
		q.Where(p)
	}
	p, err := s.statusPredicate(ctx, farmID, asOf, f.Status)
	if err != nil {
		return nil, 0, err
	}
	q.Where(p)
	if err := s.sexAndGroup(ctx, q, farmID, asOf, f); err != nil {
		return nil, 0, err
	}
	total, err := q.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []AnimalProfile{}, total, err
	}
	animals, err := q.Order(ent.Asc(animal.FieldCreatedAt), ent.Asc(animal.FieldID)).Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := s.withProfiles(ctx, farmID, animals, asOf)
	return out, total, err
}

// searchPredicate matches tag or name, or an identifier value (at any time): an EID in any
// reader form, an official tag in any spacing, or the last 4 to 6 digits of any identifier
// (through the indexed fact_tail column, identifierTail). One query.
func (s *Service) searchPredicate(ctx context.Context, farmID uuid.UUID, q string) (predicate.Animal, error) {
	trimmed := strings.TrimSpace(q)
	values := []string{trimmed}
	if v, ok := evidence.NormalizeEID(q); ok {
		values = append(values, v)
	}
	tagged := animal.TagContainsFold(q)
	if t, err := eid.ParseTag(q); err == nil && t.Scheme != "" {
		values = append(values, t.Value)
		tagged = animal.Or(tagged, animal.Tag(t.Value))
	}
	byValue := recorditem.FactValueIn(values...)
	if tails := tailsFor(trimmed); tails != nil {
		byValue = recorditem.Or(byValue, recorditem.FactTailIn(tails...))
	}
	ids, err := s.Client(ctx).RecordItem.Query().
		Where(recorditem.FactKind(string(evidence.KindIdentifier)), byValue,
			recorditem.FactSubjectNotNil(), itemsOfFarm(farmID, liveRecord(ctx))).
		Select(recorditem.FieldFactSubject).Strings(ctx)
	if err != nil {
		return nil, err
	}
	named := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if u, err := uuid.Parse(id); err == nil {
			named = append(named, u)
		}
	}
	p := animal.Or(tagged, animal.NameContainsFold(q))
	if len(named) > 0 {
		p = animal.Or(p, animal.IDIn(dedupe(named)...))
	}
	return p, nil
}

// sexAndGroup narrows q to f.Sex and f.Group on asOf, when they are set: two statements for
// the sex (animalsOfSex, and one more per 5,000 animals) and three for the group
// (groupMembersOn), whatever the page's size, for the first page; the next pages of the
// same filters find the sets in filterSets (one statement each) while the farm is unchanged.
func (s *Service) sexAndGroup(ctx context.Context, q *ent.AnimalQuery, farmID uuid.UUID, asOf string, f AnimalFilter) error {
	if f.Sex != "" {
		ids, err := s.sexSet(ctx, farmID, asOf, f.Sex)
		if err != nil {
			return err
		}
		q.Where(idInSet(ids))
	}
	if f.Group != uuid.Nil {
		ids, err := s.groupSet(ctx, farmID, asOf, f.Group)
		if err != nil {
			return err
		}
		q.Where(idInSet(ids))
	}
	return nil
}

// sexSet is the kept set of the farm's active animals of sex on asOf (filterSet).
func (s *Service) sexSet(ctx context.Context, farmID uuid.UUID, asOf, sex string) ([]uuid.UUID, error) {
	return s.filterSet(ctx, farmID, asOf, sex, uuid.Nil, func() ([]uuid.UUID, error) {
		return s.animalsOfSex(ctx, farmID, asOf, sex)
	}, func(touched []uuid.UUID) ([]uuid.UUID, error) {
		active, err := s.activeAmong(ctx, farmID, touched)
		if err != nil {
			return nil, err
		}
		return s.ofSexAmong(ctx, farmID, asOf, sex, active)
	})
}

// groupSet is the kept set of the animals in group on asOf (filterSet).
func (s *Service) groupSet(ctx context.Context, farmID uuid.UUID, asOf string, group uuid.UUID) ([]uuid.UUID, error) {
	return s.filterSet(ctx, farmID, asOf, "", group, func() ([]uuid.UUID, error) {
		members, err := s.groupMembersOn(ctx, farmID, []uuid.UUID{group}, asOf)
		return members[group], err
	}, func(touched []uuid.UUID) ([]uuid.UUID, error) {
		members, err := s.groupMembersAmong(ctx, farmID, []uuid.UUID{group}, asOf, touched)
		return members[group], err
	})
}

// idInSet is animal.IDIn for a kept filter set, which may hold most of a farm. On SQLite it
// is one parameter whatever the set's size, a JSON array that json_each reads, where IDIn
// binds one parameter an animal: on 10,000 animals the register's first page of females
// bound 6,667 parameters twice (the page and its total), and the page cost 33 ms against 25
// this way (BenchmarkEveryScreen). PostgreSQL keeps IDIn: given the set as one array
// (= ANY($1::uuid[])) it planned the page slower (24 to 50 ms) than with the list.
func idInSet(ids []uuid.UUID) predicate.Animal {
	if len(ids) <= 64 {
		return animal.IDIn(ids...)
	}
	return predicate.Animal(func(s *sql.Selector) {
		if s.Dialect() != dialect.SQLite {
			animal.IDIn(ids...)(s)
			return
		}
		texts := make([]string, len(ids))
		for i, id := range ids {
			texts[i] = id.String()
		}
		col := s.C(animal.FieldID)
		list, _ := json.Marshal(texts)
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString(col + " IN (SELECT value FROM json_each(").Arg(string(list)).WriteString("))")
		}))
	})
}

// animalsOfSex answers the animals whose profile on asOf records sex. Only profile facts
// record a sex, so they are loaded for the farm's animals, through the animals' fact links
// (animalFactsOf: the farm's own facts, never every farm's facts of a kind), and
// evidence.ProfilesOf decides each animal's sex on asOf from them (the newest one dated on or
// before asOf that records a sex), as it does for a whole profile. Two statements (the
// farm's animals, their profile facts), and one more per 5,000 animals.
func (s *Service) animalsOfSex(ctx context.Context, farmID uuid.UUID, asOf, sex string) ([]uuid.UUID, error) {
	all, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	return s.ofSexAmong(ctx, farmID, asOf, sex, all)
}

// ofSexAmong answers which of the farm's active animals ids are of sex on asOf, from their
// profile facts: one statement per 5,000 animals.
func (s *Service) ofSexAmong(ctx context.Context, farmID uuid.UUID, asOf, sex string, ids []uuid.UUID) ([]uuid.UUID, error) {
	var facts []evidence.Fact
	for lo := 0; lo < len(ids); lo += historyIDBatch {
		got, err := s.animalFactsOf(ctx, farmID, ids[lo:min(lo+historyIDBatch, len(ids))], []string{string(evidence.KindProfile)})
		if err != nil {
			return nil, err
		}
		facts = append(facts, got...)
	}
	named := make([]string, 0, len(facts))
	for _, f := range facts {
		named = append(named, f.AnimalID)
	}
	matching := []uuid.UUID{}
	for id, p := range evidence.ProfilesOf(named, asOf, facts) {
		if p.Sex != nil && *p.Sex == sex {
			if u, err := uuid.Parse(id); err == nil {
				matching = append(matching, u)
			}
		}
	}
	return matching, nil
}

// statusKinds are the facts that set an animal's status.
var statusKinds = []string{string(evidence.KindPurchase), string(evidence.KindMovementIn),
	string(evidence.KindMovementOut), string(evidence.KindSale), string(evidence.KindDeath)}

// statusPredicate keeps the animals whose status on asOf is status; status "" keeps every
// animal that is on the register on asOf, which leaves out those not yet on the farm
// (evidence.StatusNotYet). It loads the farm's arrival and departure facts dated on or
// before asOf (one query) and decides each animal's status from them: an animal without
// such facts is on the farm, unless notYet finds it arrives later. The sets of a status are
// kept by the farm's change counter (statusSetsOn).
func (s *Service) statusPredicate(ctx context.Context, farmID uuid.UUID, asOf, status string) (predicate.Animal, error) {
	switch status {
	case "", evidence.StatusNotYet:
		notYet, err := s.notYet(ctx, farmID, asOf)
		if err != nil {
			return nil, err
		}
		if status == "" {
			return animal.IDNotIn(notYet...), nil
		}
		return animal.IDIn(notYet...), nil
	}
	sets, err := s.statusSetsOn(ctx, farmID, asOf)
	if err != nil {
		return nil, err
	}
	if status == evidence.StatusOnFarm {
		return animal.IDNotIn(sets.departed...), nil
	}
	return animal.IDIn(sets.byStatus[status]...), nil
}

// statusSets are the farm's animals by their status on a day: those not yet on the farm, those
// off it (not yet there, or departed), and those of each status other than on the farm.
type statusSets struct {
	departed []uuid.UUID
	byStatus map[string][]uuid.UUID
}

// statusSetsOn derives the farm's status sets on asOf from its entry and departure facts,
// kept by the farm's change counter (derived.go): the dashboard asks for four statuses, and
// the register filtered by status for each page of a scroll. After a write, the sets kept
// before it are patched for the animals it touched (patch.go).
func (s *Service) statusSetsOn(ctx context.Context, farmID uuid.UUID, asOf string) (statusSets, error) {
	sets, _, err := keptPatched(ctx, s, s.derived, farmID, "statuses "+asOf, append(slices.Clone(statusKinds), entryKinds...), func() (statusSets, error) {
		notYet, err := s.notYet(ctx, farmID, asOf)
		if err != nil {
			return statusSets{}, err
		}
		items, err := s.Client(ctx).RecordItem.Query().
			Where(recorditem.FactKindIn(statusKinds...), recorditem.FactDateLTE(asOf),
				itemsOfFarm(farmID, liveRecord(ctx))).
			Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata).All(ctx)
		if err != nil {
			return statusSets{}, err
		}
		return statusesOf(notYet, factsOf(items), asOf), nil
	}, func(old statusSets, touched []uuid.UUID, _ int64) (statusSets, error) {
		if len(touched) == 0 {
			return old, nil
		}
		// The touched animals' entry and departure facts, in one statement.
		facts, err := s.animalFactsOf(ctx, farmID, touched, append(slices.Clone(statusKinds), entryKinds...))
		if err != nil {
			return statusSets{}, err
		}
		var departures []evidence.Fact
		mine := idSet(touched)
		for _, f := range facts {
			if day := factDay(f); slices.Contains(statusKinds, string(f.Kind)) && day != "" && day <= asOf && mine[strings.ToLower(f.AnimalID)] {
				departures = append(departures, f)
			}
		}
		now := statusesOf(enteringAfter(touched, facts, asOf), departures, asOf)
		out := statusSets{departed: patchSet(old.departed, touched, now.departed), byStatus: map[string][]uuid.UUID{}}
		for st, ids := range old.byStatus {
			out.byStatus[st] = patchSet(ids, touched, now.byStatus[st])
		}
		for st, ids := range now.byStatus {
			if _, ok := old.byStatus[st]; !ok {
				out.byStatus[st] = ids
			}
		}
		return out, nil
	})
	return sets, err
}

// statusesOf sorts the animals that facts (their arrivals and departures dated on or before
// asOf) name into status sets; notYet are those not yet on the farm on asOf.
func statusesOf(notYet []uuid.UUID, facts []evidence.Fact, asOf string) statusSets {
	ids := make([]string, 0, len(facts))
	for _, f := range facts {
		ids = append(ids, f.AnimalID)
	}
	later := make(map[uuid.UUID]bool, len(notYet))
	for _, id := range notYet {
		later[id] = true
	}
	out := statusSets{departed: slices.Clone(notYet), byStatus: map[string][]uuid.UUID{}}
	for id, p := range evidence.ProfilesOf(ids, asOf, facts) {
		u := uuid.MustParse(id)
		if later[u] {
			continue
		}
		if p.Status != evidence.StatusOnFarm {
			out.departed = append(out.departed, u)
			out.byStatus[p.Status] = append(out.byStatus[p.Status], u)
		}
	}
	return out
}

// entryKinds are the facts that may put an animal's entry onto the farm after a date
// (evidence.EntryDates): its birth, an arrival, a profile with its birth date.
var entryKinds = []string{string(evidence.KindBirth), string(evidence.KindPurchase),
	string(evidence.KindMovementIn), string(evidence.KindProfile)}

// notYet returns the farm's animals that are not yet on the farm on asOf: born there or
// first arrived later (evidence.EntryDates). One statement finds the animals that such
// facts dated after asOf name (usually none for today); when there are some, one more
// (per 5,000 animals) reads their entry facts (births, arrivals, profiles; not their
// weights and treatments) to tell an entry from a return.
func (s *Service) notYet(ctx context.Context, farmID uuid.UUID, asOf string) ([]uuid.UUID, error) {
	// Once a request: the register's page and its total both leave them out.
	return onceInRequest(ctx, "not-yet "+farmID.String()+" "+asOf, func() ([]uuid.UUID, error) { return s.readNotYet(ctx, farmID, asOf) })
}

func (s *Service) readNotYet(ctx context.Context, farmID uuid.UUID, asOf string) ([]uuid.UUID, error) {
	items, err := s.Client(ctx).RecordItem.Query().
		Where(recorditem.FactKindIn(entryKinds...), recorditem.FactDateGT(asOf),
			itemsOfFarm(farmID, liveRecord(ctx))).
		Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata).All(ctx)
	if err != nil {
		return nil, err
	}
	var candidates []uuid.UUID
	for _, f := range factsOf(items) {
		named := []string{f.AnimalID}
		switch f.Kind {
		case evidence.KindBirth:
			named = f.OffspringIDs
		case evidence.KindProfile:
			if f.BirthDate == "" || f.BirthDate <= asOf {
				continue
			}
		}
		for _, id := range named {
			if u, err := uuid.Parse(id); err == nil {
				candidates = append(candidates, u)
			}
		}
	}
	if len(candidates) == 0 {
		return []uuid.UUID{}, nil
	}
	candidates = dedupe(candidates)
	var facts []evidence.Fact
	for lo := 0; lo < len(candidates); lo += historyIDBatch {
		got, err := s.animalFactsOf(ctx, farmID, candidates[lo:min(lo+historyIDBatch, len(candidates))], entryKinds)
		if err != nil {
			return nil, err
		}
		facts = append(facts, got...)
	}
	return enteringAfter(candidates, facts, asOf), nil
}

// enteringAfter answers which of ids their entry facts (evidence.EntryDates) bring onto the
// farm after asOf: those not yet on it that day.
func enteringAfter(ids []uuid.UUID, facts []evidence.Fact, asOf string) []uuid.UUID {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = id.String()
	}
	entries := evidence.EntryDates(keys, facts)
	out := []uuid.UUID{}
	for _, id := range ids {
		if e := entries[id.String()]; e > asOf {
			out = append(out, id)
		}
	}
	return out
}

// factsOf parses the facts of loaded items, skipping items whose fact does not parse.
func factsOf(items []*ent.RecordItem) []evidence.Fact {
	facts := make([]evidence.Fact, 0, len(items))
	for _, it := range items {
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 {
			continue
		}
		f.RecordID, f.RecordItemID = it.RecordID.String(), it.ID.String()
		facts = append(facts, f)
	}
	return facts
}

// animalFacts loads every active fact of the farm that names one of ids, in any role, in
// one statement (through the fact_animals index).
func (s *Service) animalFacts(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) ([]evidence.Fact, error) {
	// An animal's page asks for the one animal's facts from several resolvers (its profile,
	// weights, offspring, timeline): the request reads them once. The request forgets them at
	// its first write (request.go), and a transaction reads its own.
	if len(ids) != 1 || ent.TxFromContext(ctx) != nil {
		return s.animalFactsOf(ctx, farmID, ids, nil)
	}
	facts, err := onceInRequest(ctx, "animal-facts "+farmID.String()+" "+ids[0].String(), func() ([]evidence.Fact, error) {
		return s.animalFactsOf(ctx, farmID, ids, nil)
	})
	return slices.Clone(facts), err
}

// animalFactsOf is animalFacts keeping only the facts of the given kinds (all when nil).
func (s *Service) animalFactsOf(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID, kinds []string) ([]evidence.Fact, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	animals := make([]any, 0, len(ids))
	for _, id := range dedupe(ids) {
		animals = append(animals, id)
	}
	// Driven by the fact_animals index and joined to the items and their records, so that
	// the database reads the page's facts and never the farm's whole history. On SQLite the
	// other terms are written +column, which SQLite never answers from an index: its planner
	// otherwise drives the join from the farm's records (record_farm_id_created_at_id_active),
	// from the facts of the kinds asked (recorditem_fact_kind_fact_date) or from every item,
	// probing the links once per animal of the page, whenever it guesses that cheaper —
	// without statistics, and with them for a page of 500 animals or an export batch — and
	// then reads the farm's whole history for every page (TestRegisterPlansOnSQLite).
	// PostgreSQL plans from its own statistics.
	items, err := s.Client(ctx).RecordItem.Query().
		Where(func(sel *sql.Selector) {
			links, recs := sql.Table(factanimal.Table), sql.Table(record.Table)
			col := func(c string) string { return c }
			if sel.Dialect() == dialect.SQLite {
				col = func(c string) string { return "+" + c }
			}
			// item = link (the link never looked up by its item: an item first would probe
			// the link index once per animal of the page), item → record (the record by
			// its key, never the items by their record).
			sel.Join(links).OnP(sql.P(func(b *sql.Builder) {
				b.WriteString(sel.C(recorditem.FieldID)).WriteOp(sql.OpEQ).WriteString(col(links.C(factanimal.FieldRecordItemID)))
			}))
			sel.Join(recs).OnP(sql.P(func(b *sql.Builder) {
				b.WriteString(col(sel.C(recorditem.FieldRecordID))).WriteOp(sql.OpEQ).WriteString(recs.C(record.FieldID))
			}))
			sel.Where(sql.And(
				sql.In(links.C(factanimal.FieldAnimalID), animals...),
				sql.P(func(b *sql.Builder) {
					b.WriteString(col(recs.C(record.FieldFarmID))).WriteOp(sql.OpEQ).Arg(farmID)
				}),
				// The farm on the links and the items too: the same rows, and on a Citus
				// cluster the statement goes to the farm's shard (docs/scaling.md).
				sql.P(func(b *sql.Builder) {
					b.WriteString(col(links.C(factanimal.FieldFarmID))).WriteOp(sql.OpEQ).Arg(farmID)
				}),
				sql.P(func(b *sql.Builder) {
					b.WriteString(col(sel.C(recorditem.FieldFarmID))).WriteOp(sql.OpEQ).Arg(farmID)
				}),
				liveRecordOf(ctx, recs),
				sql.P(func(b *sql.Builder) { b.WriteString(col(sel.C(recorditem.FieldFactKind))).WriteOp(sql.OpNotNull) }),
			))
			if len(kinds) > 0 {
				args := make([]any, len(kinds))
				for i, k := range kinds {
					args[i] = k
				}
				sel.Where(sql.P(func(b *sql.Builder) {
					b.WriteString(col(sel.C(recorditem.FieldFactKind))).WriteOp(sql.OpIn).Wrap(func(b *sql.Builder) { b.Args(args...) })
				}))
			}
		}).
		Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata).All(ctx)
	if err != nil {
		return nil, err
	}
	// An item naming two animals of the page comes once per link.
	seen := make(map[uuid.UUID]bool, len(items))
	kept := items[:0]
	for _, it := range items {
		if !seen[it.ID] {
			seen[it.ID] = true
			kept = append(kept, it)
		}
	}
	return factsOf(kept), nil
}

// Profiles computes the profiles of many animals of a farm as of asOf (YYYY-MM-DD, "" is
// today) from their facts: two statements (the permission check and the facts) whatever
// their number. Every id asked for has an entry; ids of other farms get empty profiles.
func (s *Service) Profiles(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID, asOf string) (map[uuid.UUID]Profile, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	var fe fieldErrors
	day := s.asOf(&fe, asOf)
	if err := fe.err(); err != nil {
		return nil, err
	}
	return s.profiles(ctx, farmID, ids, day)
}

// profiles is Profiles without the checks, for callers that made them.
func (s *Service) profiles(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID, asOf string) (map[uuid.UUID]Profile, error) {
	facts, err := s.animalFacts(ctx, farmID, ids)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = id.String()
	}
	byKey := evidence.ProfilesOf(keys, asOf, facts)
	out := make(map[uuid.UUID]Profile, len(ids))
	for _, id := range ids {
		out[id] = Profile{Profile: byKey[id.String()]}
	}
	return out, nil
}

// withProfiles pairs animals with their profiles as of asOf, in one statement.
func (s *Service) withProfiles(ctx context.Context, farmID uuid.UUID, animals []*ent.Animal, asOf string) ([]AnimalProfile, error) {
	ids := make([]uuid.UUID, len(animals))
	for i, a := range animals {
		ids[i] = a.ID
	}
	profiles, err := s.profiles(ctx, farmID, ids, asOf)
	if err != nil {
		return nil, err
	}
	out := make([]AnimalProfile, len(animals))
	for i, a := range animals {
		out[i] = AnimalProfile{Animal: a, Profile: profiles[a.ID]}
	}
	return out, nil
}

// AnimalProfile returns one active animal with its profile as of asOf ("" is today).
func (s *Service) AnimalProfile(ctx context.Context, id uuid.UUID, asOf string) (AnimalProfile, error) {
	var fe fieldErrors
	day := s.asOf(&fe, asOf)
	a, err := s.animalFor(ctx, id, RoleReader, ScopeReadAnimals)
	if err != nil {
		return AnimalProfile{}, err
	}
	if err := fe.err(); err != nil {
		return AnimalProfile{}, err
	}
	out, err := s.withProfiles(ctx, a.FarmID, []*ent.Animal{a}, day)
	if err != nil {
		return AnimalProfile{}, err
	}
	return out[0], s.withWithdrawal(ctx, a.FarmID, &out[0], day)
}

// FarmAnimal returns an active animal of the farm, 404 when the animal belongs elsewhere.
func (s *Service) FarmAnimal(ctx context.Context, farmID, id uuid.UUID, asOf string) (AnimalProfile, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return AnimalProfile{}, err
	}
	var fe fieldErrors
	day := s.asOf(&fe, asOf)
	if err := fe.err(); err != nil {
		return AnimalProfile{}, err
	}
	a, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.ID(id)).Only(ctx)
	if err != nil {
		return AnimalProfile{}, notFound(err, "animal", id)
	}
	out, err := s.withProfiles(ctx, farmID, []*ent.Animal{a}, day)
	if err != nil {
		return AnimalProfile{}, err
	}
	return out[0], s.withWithdrawal(ctx, farmID, &out[0], day)
}

// AnimalsByIdentifier returns the ids of the farm's animals that an identifier with this
// value (an EID in any reader form, or a visual tag, brand or tattoo) named at any time.
func (s *Service) AnimalsByIdentifier(ctx context.Context, farmID uuid.UUID, value string) ([]uuid.UUID, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	var fe fieldErrors
	if !fe.line("value", value) {
		return nil, fe.err()
	}
	values := []string{strings.TrimSpace(value)}
	if v, ok := evidence.NormalizeEID(value); ok {
		values = append(values, v)
	}
	if t, err := eid.ParseTag(value); err == nil && t.Scheme != "" {
		values = append(values, t.Value)
	}
	stored, err := s.identifierFacts(ctx, farmID, values)
	if err != nil {
		return nil, err
	}
	var out []uuid.UUID
	for _, sp := range stored {
		out = append(out, uuid.MustParse(sp.animal))
	}
	return dedupe(out), nil
}

// touchingAnimal keeps the farm's records that touch animal id: named by it (record_animals),
// holding a fact that names it (fact_animals), or applied to a group during one of its
// membership spans. The three are one union of record ids, each read through its own index
// (the animal's links, its fact links, the group's records), so the timeline costs what the
// animal's history costs and never the farm's: written as an OR of three subqueries, the
// databases read every record of the farm and tested each (40 ms on a farm of 10,000
// animals on SQLite). On SQLite the farm term is written +farm_id, which SQLite never
// answers from an index, so that its planner drives the statement from the union (without
// statistics it guesses the farm's records few). Every table of the union names the farm
// too (the links, the facts' items, the spans' records), so that a Citus cluster sends the
// statement to the farm's shard alone (docs/scaling.md, "Statements on one shard"); written
// +farm_id on SQLite as well, so that no index of it is taken for the animal's or group's.
func touchingAnimal(farmID, id uuid.UUID, spans []evidence.GroupSpan) predicate.Record {
	return func(sel *sql.Selector) {
		d := sql.Dialect(sel.Dialect())
		// ofFarm is the farm term on column col.
		ofFarm := func(col string) *sql.Predicate {
			if sel.Dialect() == dialect.SQLite {
				col = "+" + col
			}
			return sql.P(func(b *sql.Builder) { b.WriteString(col).WriteOp(sql.OpEQ).Arg(farmID) })
		}
		links := d.Table(record.AnimalsTable)
		union := d.Select(links.C(record.AnimalsPrimaryKey[0])).From(links).
			Where(sql.And(sql.EQ(links.C(record.AnimalsPrimaryKey[1]), id), ofFarm(links.C(record.FieldFarmID))))
		items, facts := d.Table(recorditem.Table).As("fact_items"), d.Table(factanimal.Table)
		union.Union(d.Select(items.C(recorditem.FieldRecordID)).From(facts).
			Join(items).On(facts.C(factanimal.FieldRecordItemID), items.C(recorditem.FieldID)).
			Where(sql.And(sql.EQ(facts.C(factanimal.FieldAnimalID), id),
				ofFarm(facts.C(factanimal.FieldFarmID)), ofFarm(items.C(recorditem.FieldFarmID)))))
		for i, sp := range spans {
			g, err := uuid.Parse(sp.GroupID)
			if err != nil {
				continue
			}
			start, _ := time.Parse(time.DateOnly, sp.StartDate)
			groups, recs := d.Table(record.GroupsTable), d.Table(record.Table).As(fmt.Sprintf("span%d", i))
			during := []*sql.Predicate{sql.EQ(groups.C(record.GroupsPrimaryKey[1]), g), sql.GTE(recs.C(record.FieldAppliedAt), start),
				ofFarm(groups.C(record.FieldFarmID)), ofFarm(recs.C(record.FieldFarmID))}
			if sp.EndDate != "" {
				end, _ := time.Parse(time.DateOnly, sp.EndDate)
				during = append(during, sql.LT(recs.C(record.FieldAppliedAt), end.AddDate(0, 0, 1)))
			}
			union.Union(d.Select(groups.C(record.GroupsPrimaryKey[0])).From(groups).
				Join(recs).On(groups.C(record.GroupsPrimaryKey[0]), recs.C(record.FieldID)).Where(sql.And(during...)))
		}
		sel.Where(sql.And(ofFarm(sel.C(record.FieldFarmID)), sql.In(sel.C(record.FieldID), union)))
	}
}

// AnimalTimeline lists the active records that touch an animal, newest first (by applied_at,
// then id): records naming it directly, records whose facts name it, and records applied to
// a group on a day its membership facts place it in that group. It returns the page and the
// number of such records, in a constant number of statements. The records come with their
// items and files, or, when edges is not nil, with the edges it names by their aliases (a
// GraphQL document's selection: one statement each, never one per record).
func (s *Service) AnimalTimeline(ctx context.Context, farmID, id uuid.UUID, p Page, edges *RecordEdges) ([]*ent.Record, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals, ScopeReadRecords); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	ok, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.ID(id)).Exist(ctx)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, Errorf(ENOTFOUND, "animal %s not found", id)
	}
	facts, err := s.animalFacts(ctx, farmID, []uuid.UUID{id})
	if err != nil {
		return nil, 0, err
	}
	touching := touchingAnimal(farmID, id, evidence.MembershipSpans(id.String(), "9999-12-31", facts))
	total, err := s.Client(ctx).Record.Query().Where(touching).Count(ctx)
	if err != nil || limit == 0 {
		return []*ent.Record{}, total, err
	}
	q := s.Client(ctx).Record.Query().Where(touching)
	if edges != nil {
		withEdges(q, *edges, farmID)
	} else {
		q.WithItems(answerItems, itemsOf(farmID)).WithFiles(filesOf(farmID))
	}
	recs, err := q.Order(ent.Desc(record.FieldAppliedAt), ent.Desc(record.FieldID)).Offset(offset).Limit(limit).All(ctx)
	return recs, total, err
}

// Groups lists a page of a farm's active groups, oldest first, and their number.
func (s *Service) Groups(ctx context.Context, farmID uuid.UUID, p Page) ([]*ent.Group, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	q := s.Client(ctx).Group.Query().Where(group.FarmID(farmID))
	total, err := q.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []*ent.Group{}, total, err
	}
	gs, err := q.Order(ent.Asc(group.FieldCreatedAt), ent.Asc(group.FieldID)).Offset(offset).Limit(limit).All(ctx)
	return gs, total, err
}

// GroupView is a group with its members as of a date.
type GroupView struct {
	Group   *ent.Group
	AsOf    string
	Members []AnimalProfile
}

// GroupMembers returns a group of the farm and the active animals its membership facts
// place in it on asOf ("" is today), oldest first, with their profiles as of that date. It
// never reads current group links. A constant number of statements.
func (s *Service) GroupMembers(ctx context.Context, farmID, groupID uuid.UUID, asOf string) (GroupView, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return GroupView{}, err
	}
	var fe fieldErrors
	day := s.asOf(&fe, asOf)
	if err := fe.err(); err != nil {
		return GroupView{}, err
	}
	g, members, err := s.groupMembers(ctx, farmID, groupID, day)
	return GroupView{Group: g, AsOf: day, Members: members}, err
}

func (s *Service) groupMembers(ctx context.Context, farmID, groupID uuid.UUID, day string) (*ent.Group, []AnimalProfile, error) {
	c := s.Client(ctx)
	g, err := c.Group.Query().Where(group.FarmID(farmID), group.ID(groupID)).Only(ctx)
	if err != nil {
		return nil, nil, notFound(err, "group", groupID)
	}
	subjects, err := c.RecordItem.Query().
		Where(recorditem.FactKind(string(evidence.KindMembership)), recorditem.FactGroup(groupID),
			recorditem.FactDateLTE(day), itemsOfFarm(farmID, liveRecord(ctx))).
		Select(recorditem.FieldFactSubject).Strings(ctx)
	if err != nil {
		return nil, nil, err
	}
	var candidates []uuid.UUID
	for _, id := range subjects {
		if u, err := uuid.Parse(id); err == nil {
			candidates = append(candidates, u)
		}
	}
	candidates = dedupe(candidates)
	profiles, err := s.profiles(ctx, farmID, candidates, day)
	if err != nil {
		return nil, nil, err
	}
	var members []uuid.UUID
	for id, p := range profiles {
		if slices.Contains(p.GroupIDs, groupID.String()) {
			members = append(members, id)
		}
	}
	if len(members) == 0 {
		return g, []AnimalProfile{}, nil
	}
	animals, err := c.Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(members...)).
		Order(ent.Asc(animal.FieldCreatedAt), ent.Asc(animal.FieldID)).All(ctx)
	if err != nil {
		return nil, nil, err
	}
	out := make([]AnimalProfile, len(animals))
	for i, a := range animals {
		out[i] = AnimalProfile{Animal: a, Profile: profiles[a.ID]}
	}
	return g, out, nil
}

// factBatch bounds the rows of one bulk insert of fact records, far below the statement
// parameter limits of both databases.
const factBatch = 500

// WriteAnimalFacts records dated facts about a farm's animals in one transaction: one record
// per fact (named "Register: <kind>", applied at the fact's date, linked to the animals it
// names) with one item carrying it. The viewer must be an EDITOR with write:animals. Facts
// are validated (errors name facts[i].birth_history.<field>), their animals and groups must
// belong to the farm, identifiers must stay unique, treatments must name the farm's
// medicines (and may not shorten a label's period), and a sale, movement_out or slaughter
// during a meat withdrawal is refused (WithdrawalError) unless acknowledged (see
// WriteAnimalFactsWith). A constant number of statements per 500 facts.
func (s *Service) WriteAnimalFacts(ctx context.Context, farmID uuid.UUID, facts []evidence.Fact) error {
	return s.WriteAnimalFactsWith(ctx, farmID, facts, FactOptions{})
}

// WriteAnimalFactsWith is WriteAnimalFacts with options: AcknowledgeWithdrawal lets
// departures during a meat withdrawal through, and every record written keeps it.
func (s *Service) WriteAnimalFactsWith(ctx context.Context, farmID uuid.UUID, facts []evidence.Fact, opt FactOptions) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteAnimals); err != nil {
		return err
	}
	var fe fieldErrors
	for i := range facts {
		before := len(fe)
		textIn(&fe, fmt.Sprintf("facts[%d].%s", i, FactKey), facts[i], true)
		if len(fe) > before {
			continue
		}
		b, _ := json.Marshal(facts[i])
		f, errs := evidence.ParseFact(b)
		for _, e := range errs {
			fe.add(fmt.Sprintf("facts[%d].%s", i, e.Field), "%s", e.Message)
		}
		facts[i] = f
	}
	if err := fe.err(); err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		ptrs := factPointers(facts)
		if err := s.checkFactReferences(ctx, farmID, ptrs); err != nil {
			return err
		}
		if err := s.checkTreatments(ctx, farmID, ptrs, bulkFact); err != nil {
			return err
		}
		if err := s.writeFacts(ctx, farmID, facts, opt.AcknowledgeWithdrawal); err != nil {
			return err
		}
		// After the write, in its transaction: treatments written with it count, and a
		// refusal rolls everything back.
		if err := s.storeReach(ctx, farmID, ptrs); err != nil {
			return err
		}
		return s.guardWithdrawals(ctx, farmID, ptrs, bulkFact, opt.AcknowledgeWithdrawal)
	})
}

// writeFacts records facts about animals, one record with one item per fact, applied at the
// fact's date and linked to the animals it names, in bulk. It runs in the caller's
// transaction and checks identifiers; the caller checked the facts and their references.
// acknowledged is kept on every record (acknowledge_withdrawal).
func (s *Service) writeFacts(ctx context.Context, farmID uuid.UUID, facts []evidence.Fact, acknowledged bool) error {
	if len(facts) == 0 {
		return nil
	}
	ptrs := factPointers(facts)
	if err := s.checkIdentifiersAt(ctx, farmID, ptrs, func(i int) string {
		return fmt.Sprintf("facts[%d].%s.value", i, FactKey)
	}); err != nil {
		return err
	}
	if err := s.checkHistory(ctx, farmID, ptrs, bulkFact); err != nil {
		return err
	}
	return s.insertFacts(ctx, farmID, facts, ptrs, acknowledged)
}

// insertFacts is writeFacts' insert, once the facts are checked: one record ("Register:
// <kind>") with one item per fact, factBatch facts a statement. ptrs[i] is &facts[i]; each
// learns its record and item ids.
func (s *Service) insertFacts(ctx context.Context, farmID uuid.UUID, facts []evidence.Fact, ptrs []*evidence.Fact, acknowledged bool) error {
	c := s.Client(ctx)
	for lo := 0; lo < len(facts); lo += factBatch {
		hi := min(lo+factBatch, len(facts))
		recs := make([]*ent.RecordCreate, 0, hi-lo)
		var links RecordLinks
		items := make([]RecordItemInput, 0, hi-lo)
		recIDs := make([]uuid.UUID, 0, hi-lo)
		for i := lo; i < hi; i++ {
			f := facts[i]
			typ := record.TypeGENETIC
			switch f.Kind {
			case evidence.KindPurchase, evidence.KindMovementIn, evidence.KindMovementOut, evidence.KindSale:
				typ = record.TypeMOVEMENT
			case evidence.KindDeath, evidence.KindWeight, evidence.KindWeaning:
				typ = record.TypeHEALTH
			}
			applied := s.nowUTC()
			for _, d := range []string{f.Date, f.StartDate, f.BirthDate} {
				if t, err := time.Parse(time.DateOnly, d); err == nil {
					applied = t
					break
				}
			}
			var animals, groups []uuid.UUID
			refs := f.ReferencedAnimals()
			if f.Kind == evidence.KindPedigree {
				// Its parents may be outside animals, which no record links to: the fact's
				// own links (fact_animals) still name them.
				refs = []string{strings.ToLower(f.AnimalID)}
			}
			for _, id := range refs {
				animals = append(animals, uuid.MustParse(id))
			}
			for _, id := range f.ReferencedGroups() {
				groups = append(groups, uuid.MustParse(id))
			}
			name := "Register: " + strings.ReplaceAll(string(f.Kind), "_", " ")
			id := uuid.New()
			recIDs = append(recIDs, id)
			recs = append(recs, c.Record.Create().SetID(id).SetFarmID(farmID).SetName(name).SetType(typ).
				SetAppliedAt(applied).SetAcknowledgeWithdrawal(acknowledged))
			links.Add(c, farmID, id, animals, groups)
			items = append(items, RecordItemInput{Name: &name, Metadata: factMetadata(f)})
		}
		if err := c.Record.CreateBulk(recs...).Exec(ctx); err != nil {
			return err
		}
		if err := links.Save(ctx, c); err != nil {
			return err
		}
		if err := s.createFactItems(ctx, farmID, recIDs, items, ptrs[lo:hi]); err != nil {
			return err
		}
	}
	return nil
}

// factMetadata is the canonical metadata of a fact.
func factMetadata(f evidence.Fact) map[string]any {
	items := []RecordItemInput{{Metadata: map[string]any{}}}
	normalizeFacts(items, []*evidence.Fact{&f})
	return items[0].Metadata
}

// registerFacts turns the biological fields of an AnimalInput into dated facts: a profile
// (sex, breed, birth date) as of the birth date when one is given, else as of today; a birth
// naming the dam (and sire) on the birth date; an EID from the birth date, else from today.
func (s *Service) registerFacts(animalID uuid.UUID, in AnimalInput) []evidence.Fact {
	id := animalID.String()
	today := s.nowUTC().Format(time.DateOnly)
	from := today
	if in.BirthDate != nil {
		from = *in.BirthDate
	}
	var facts []evidence.Fact
	if in.Sex != nil || in.Breed != nil || in.BirthDate != nil {
		f := evidence.Fact{Kind: evidence.KindProfile, AnimalID: id, Date: from}
		if in.Sex != nil {
			f.Sex = *in.Sex
		}
		if in.Breed != nil {
			f.Breed = strings.TrimSpace(*in.Breed)
		}
		if in.BirthDate != nil {
			f.BirthDate = *in.BirthDate
		}
		facts = append(facts, f)
	}
	switch {
	case in.DamID != nil && in.damOnFarm && in.BirthDate != nil:
		f := evidence.Fact{Kind: evidence.KindBirth, DamID: in.DamID.String(), Date: *in.BirthDate, OffspringIDs: []string{id}}
		if in.SireID != nil {
			f.SireID = in.SireID.String()
		}
		if in.geneticDamID != nil {
			f.GeneticDamID = in.geneticDamID.String()
		}
		facts = append(facts, f)
	case in.DamID != nil || in.SireID != nil:
		// Born elsewhere, or of a dam not named: the parents its papers state.
		f := evidence.Fact{Kind: evidence.KindPedigree, AnimalID: id, Date: from}
		if in.DamID != nil {
			f.DamID = in.DamID.String()
		}
		if in.SireID != nil {
			f.SireID = in.SireID.String()
		}
		facts = append(facts, f)
	}
	if in.EID != nil {
		v, _ := evidence.NormalizeEID(*in.EID)
		facts = append(facts, evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: id, Scheme: evidence.SchemeEID, Value: v, StartDate: from})
	}
	return facts
}

// validateRegister checks the biological fields of an AnimalInput.
func (in AnimalInput) validateRegister(fe *fieldErrors) {
	if in.Sex != nil && *in.Sex != evidence.SexMale && *in.Sex != evidence.SexFemale {
		fe.add("sex", "must be male or female")
	}
	if in.BirthDate != nil {
		if t, err := time.Parse(time.DateOnly, *in.BirthDate); err != nil || len(*in.BirthDate) != 10 || t.Year() < 1 {
			fe.add("birth_date", "must be a calendar date in the form YYYY-MM-DD")
		}
	}
	if in.Breed != nil && fe.line("breed", *in.Breed) {
		if n := len([]rune(strings.TrimSpace(*in.Breed))); n < 1 || n > evidence.MaxBreed {
			fe.add("breed", "must be 1 to %d characters", evidence.MaxBreed)
		}
	}
	if in.EID != nil {
		if _, err := eid.Parse(*in.EID); err != nil {
			fe.add("eid", "%s", eidMessage(err))
		}
	}
	if in.DamID != nil && in.SireID != nil && *in.DamID == *in.SireID {
		fe.add("sire_id", "must differ from dam_id")
	}
}

// checkParents makes sure the dam and sire named by an AnimalInput are animals of the farm
// (inactive ones too: a dam may have left) other than the animal itself, or outside animals
// of the farm of the parent's sex (a bought-in animal's parents), and that a dam of the farm
// comes with the birth date of her calving. One query, and one more for parents that are no
// animal of the farm. It notes in in whether the dam is an animal of the farm.
func (s *Service) checkParents(ctx context.Context, farmID uuid.UUID, self uuid.UUID, in *AnimalInput) error {
	var ids []uuid.UUID
	for _, p := range []*uuid.UUID{in.DamID, in.SireID} {
		if p != nil {
			ids = append(ids, *p)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	found, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(ids...)).IDs(IncludeInactive(ctx))
	if err != nil {
		return err
	}
	var away []uuid.UUID
	for _, id := range ids {
		if !slices.Contains(found, id) {
			away = append(away, id)
		}
	}
	outside, err := s.outsideAnimals(ctx, farmID, away)
	if err != nil {
		return err
	}
	var fe fieldErrors
	for field, p := range map[string]*uuid.UUID{"dam_id": in.DamID, "sire_id": in.SireID} {
		sex, role := evidence.SexFemale, "dam"
		if field == "sire_id" {
			sex, role = evidence.SexMale, "sire"
		}
		switch {
		case p == nil:
		case *p == self:
			fe.add(field, "must not name the animal itself")
		case slices.Contains(found, *p):
		case outside[*p] == nil:
			fe.add(field, "animal %s is neither an animal nor an outside animal of this farm", *p)
		case outside[*p].Sex != sex:
			fe.add(field, "outside animal %s (%s) is recorded as %s and cannot be the %s", *p, outside[*p].Name, outside[*p].Sex, role)
		}
	}
	in.damOnFarm = in.DamID != nil && slices.Contains(found, *in.DamID)
	if in.damOnFarm && in.BirthDate == nil {
		fe.add("dam_id", "needs birth_date: a dam of this farm gave birth to it, recorded as a dated birth fact (a bought-in animal's dam not on the farm is an outside animal)")
	}
	slices.SortFunc(fe, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
	return fe.err()
}

// eidField maps an identifier error of a register write to the input's eid field.
func eidField(err error) error {
	fields := ErrorFields(err)
	if fields == nil {
		return err
	}
	out := make([]FieldError, len(fields))
	for i, f := range fields {
		out[i] = f
		if strings.HasSuffix(f.Field, ".value") {
			out[i].Field = "eid"
		}
	}
	return Invalid(out...)
}

// DeleteFarmAnimal soft-deletes an animal of the farm; the viewer must be its OWNER. Records
// and facts that name it keep their history.
func (s *Service) DeleteFarmAnimal(ctx context.Context, farmID, id uuid.UUID) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, ScopeWriteAnimals); err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		a, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.ID(id)).Only(ctx)
		if err != nil {
			return notFound(err, "animal", id)
		}
		_, err = updateAnimalOf(ctx, s.Client(ctx), farmID, a.ID, func(u *ent.AnimalMutation) { u.SetIsActive(false) })
		return err
	})
}

// OffspringConnection pages through the animals whose profiles today name the animal as
// dam or sire (from birth facts and qualified DNA results), in a constant number of
// statements: the animal, its facts, the candidates' facts, and the page.
func (s *Service) OffspringConnection(ctx context.Context, id uuid.UUID, w Window) (*ent.AnimalConnection, error) {
	a, err := s.animalFor(ctx, id, RoleReader, ScopeReadAnimals)
	if err != nil {
		return nil, err
	}
	if err := w.validate(); err != nil {
		return nil, err
	}
	facts, err := s.animalFacts(ctx, a.FarmID, []uuid.UUID{id})
	if err != nil {
		return nil, err
	}
	var candidates []uuid.UUID
	for _, f := range facts {
		var named []string
		switch {
		case f.Kind == evidence.KindBirth && (strings.EqualFold(f.DamID, id.String()) || strings.EqualFold(f.SireID, id.String())):
			named = f.OffspringIDs
		case f.Kind == evidence.KindDNAParentage && strings.EqualFold(f.ParentID, id.String()):
			named = []string{f.OffspringID}
		}
		for _, o := range named {
			if u, err := uuid.Parse(o); err == nil {
				candidates = append(candidates, u)
			}
		}
	}
	profiles, err := s.profiles(ctx, a.FarmID, dedupe(candidates), s.nowUTC().Format(time.DateOnly))
	if err != nil {
		return nil, err
	}
	kept := []uuid.UUID{}
	for o, p := range profiles {
		if (p.DamID != nil && strings.EqualFold(*p.DamID, id.String())) || (p.SireID != nil && strings.EqualFold(*p.SireID, id.String())) {
			kept = append(kept, o)
		}
	}
	first, last := w.page()
	return s.Client(ctx).Animal.Query().Where(animal.FarmID(a.FarmID), animal.IDIn(kept...)).
		Paginate(ctx, w.After, first, w.Before, last, ent.WithAnimalOrder(&ent.AnimalOrder{Direction: entgql.OrderDirectionAsc, Field: ent.AnimalOrderFieldCreatedAt}))
}
