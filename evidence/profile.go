package evidence

import (
	"math"
	"sort"
	"strconv"
)

// The statuses of an animal in its profile.
const (
	StatusOnFarm   = "on_farm"
	StatusSold     = "sold"
	StatusDied     = "died"
	StatusMovedOut = "moved_out"
	// StatusNotYet is the status of an animal not yet on the farm on the profile's date: it
	// was born on the farm, or first arrived, later.
	StatusNotYet = "not_yet"
)

// Statuses lists the profile statuses.
var Statuses = []string{StatusOnFarm, StatusSold, StatusDied, StatusMovedOut, StatusNotYet}

// Identifier is an identifier of an animal valid on a profile's date.
type Identifier struct {
	Scheme string `json:"scheme"`
	Value  string `json:"value"`
}

// Profile is who an animal is as of a date, computed from its dated facts only. Nil fields
// are unknown on that date. New fields may be added; callers should not build it positionally.
type Profile struct {
	// AsOf is the date the profile describes, YYYY-MM-DD.
	AsOf string `json:"as_of"`
	// Sex, BirthDate and Breed come from the newest profile fact dated on or before AsOf that
	// records each; the birth date falls back to a birth fact naming the animal as offspring.
	Sex       *string `json:"sex"`
	BirthDate *string `json:"birth_date"`
	Breed     *string `json:"breed"`
	// DamID and SireID come from birth facts naming the animal as offspring, else from its
	// newest pedigree fact (the papers of an animal born elsewhere), and from qualified
	// dna_parentage facts; a DNA exclusion of a parent removes that parent, and a qualified
	// result outweighs both. A sire presumed by a review never counts.
	DamID  *string `json:"dam_id"`
	SireID *string `json:"sire_id"`
	// GeneticDamID and SurrogateDamID are the holding register's genetic and surrogate dam
	// of an embryo-transfer calf (docs/breeding.md): set only when its birth fact names a
	// genetic_dam_id. The genetic dam is a qualified DNA result's dam, else that
	// genetic_dam_id (the donor, who may be an outside animal); the surrogate dam is the dam
	// that carried and gave birth to the calf, which DamID names too. For any other animal
	// both are nil: DamID is then its genetic dam, and it has no surrogate.
	GeneticDamID   *string `json:"genetic_dam_id"`
	SurrogateDamID *string `json:"surrogate_dam_id"`
	// Intact is false after a castration fact, true when the sex is known and no castration
	// is recorded, and nil when the sex is unknown.
	Intact *bool `json:"intact"`
	// Status is on_farm, sold, died or moved_out, from the newest arrival or departure fact
	// (death is final); StatusDate is that fact's date (nil when no fact set the status).
	// It is not_yet, with a nil StatusDate, when the animal's entry onto the farm (EntryDate)
	// comes after AsOf.
	Status     string  `json:"status"`
	StatusDate *string `json:"status_date"`
	// GroupIDs are the groups the membership facts place the animal in on AsOf, sorted.
	GroupIDs []string `json:"group_ids"`
	// Identifiers are the identifiers valid on AsOf, sorted by scheme and value.
	Identifiers []Identifier `json:"identifiers"`
	// WeightKG and WeighedOn are the newest weight fact; ADGKG is the average daily gain in
	// kilograms between the two newest weights on different dates.
	WeightKG  *float64 `json:"weight_kg"`
	WeighedOn *string  `json:"weighed_on"`
	ADGKG     *float64 `json:"adg_kg"`
}

// ProfileOf computes one animal's profile as of asOf (YYYY-MM-DD) from facts, which may
// be the farm's facts or only those that name the animal, in any order. Facts dated after
// asOf do not count; invalid facts are skipped.
func ProfileOf(animalID, asOf string, facts []Fact) Profile {
	return ProfilesOf([]string{animalID}, asOf, facts)[normID(animalID)]
}

// ProfilesOf computes the profiles of many animals as of asOf in one pass over facts. The
// map is keyed by lower-cased animal id and has an entry for every id asked for.
func ProfilesOf(animalIDs []string, asOf string, facts []Fact) map[string]Profile {
	day, _ := parseDate(asOf)
	want := make(map[string]*profileState, len(animalIDs))
	for _, id := range animalIDs {
		want[normID(id)] = &profileState{}
	}
	for _, p := range prepared(asOf, facts) {
		switch p.Kind {
		case KindBirth:
			for _, o := range p.OffspringIDs {
				if st := want[normID(o)]; st != nil {
					st.add(p)
				}
			}
		case KindDNAParentage:
			if st := want[p.OffspringID]; st != nil {
				st.add(p)
			}
		default:
			if st := want[p.AnimalID]; st != nil {
				st.add(p)
			}
		}
	}
	entries := EntryDates(animalIDs, facts)
	out := make(map[string]Profile, len(want))
	for id, st := range want {
		pr := st.profile(asOf, day)
		if e := entries[id]; e != "" && e > asOf {
			pr.Status, pr.StatusDate = StatusNotYet, nil
		}
		out[id] = pr
	}
	return out
}

// EntryDates returns, for each animal that facts (of any date) say when it came onto the
// farm, that day, keyed by lower-cased id: its first arrival (its birth fact, a purchase or
// a movement_in), else the birth date of its newest profile that records one (an animal
// whose history starts with its profile was there from birth). An animal whose facts say
// neither has no entry, and is taken to have been on the farm all along.
func EntryDates(animalIDs []string, facts []Fact) map[string]string {
	want := make(map[string]bool, len(animalIDs))
	for _, id := range animalIDs {
		want[normID(id)] = true
	}
	arrival := map[string]string{}
	profile := map[string]*pfact{}
	arrive := func(id, date string) {
		if want[id] && (arrival[id] == "" || date < arrival[id]) {
			arrival[id] = date
		}
	}
	for _, f := range facts {
		p, errs := prepare(f)
		if errs != nil {
			continue
		}
		switch p.Kind {
		case KindBirth:
			for _, o := range p.OffspringIDs {
				arrive(normID(o), p.Date)
			}
		case KindPurchase, KindMovementIn:
			arrive(p.AnimalID, p.Date)
		case KindProfile:
			if want[p.AnimalID] && p.BirthDate != "" {
				if q := profile[p.AnimalID]; q == nil || compareFacts(q, p) < 0 {
					profile[p.AnimalID] = p
				}
			}
		}
	}
	out := make(map[string]string, len(arrival)+len(profile))
	for id, p := range profile {
		out[id] = p.BirthDate
	}
	for id, d := range arrival {
		out[id] = d
	}
	return out
}

// prepared validates the facts dated on or before asOf and puts them in history order.
func prepared(asOf string, facts []Fact) []*pfact {
	ps := make([]*pfact, 0, len(facts))
	for _, f := range facts {
		p, errs := prepare(f)
		if errs != nil || p.key > asOf {
			continue
		}
		p.OffspringID, p.ParentID = normID(p.OffspringID), normID(p.ParentID)
		ps = append(ps, p)
	}
	sortFacts(ps)
	return ps
}

// profileState gathers one animal's facts, already in history order.
type profileState struct {
	sex, birthDate, breed, bornOn string
	birthDam, birthSire           string
	birthGeneticDam               string
	paperDam, paperSire           string                     // from the newest pedigree fact
	qualified                     map[string]string          // relation → parent
	excluded                      map[string]map[string]bool // relation → parents
	castrated, dead               bool
	status, statusDate            string
	members                       []*pfact
	memberEnds                    []*pfact
	departures                    []int
	identifiers                   []*pfact
	weights                       []*pfact
}

func (st *profileState) add(p *pfact) {
	switch p.Kind {
	case KindProfile:
		if p.Sex != "" {
			st.sex = p.Sex
		}
		if p.BirthDate != "" {
			st.birthDate = p.BirthDate
		}
		if p.Breed != "" {
			st.breed = p.Breed
		}
	case KindBirth:
		st.bornOn, st.birthDam, st.birthSire, st.birthGeneticDam = p.Date, p.DamID, p.SireID, p.GeneticDamID
		st.setStatus(StatusOnFarm, p.Date)
	case KindPedigree:
		st.paperDam, st.paperSire = p.DamID, p.SireID
	case KindDNAParentage:
		if st.qualified == nil {
			st.qualified, st.excluded = map[string]string{}, map[string]map[string]bool{}
		}
		if st.excluded[p.Relation] == nil {
			st.excluded[p.Relation] = map[string]bool{}
		}
		if p.Result == ResultQualified {
			st.qualified[p.Relation] = p.ParentID
			delete(st.excluded[p.Relation], p.ParentID)
		} else {
			st.excluded[p.Relation][p.ParentID] = true
			if st.qualified[p.Relation] == p.ParentID {
				delete(st.qualified, p.Relation)
			}
		}
	case KindCastration:
		st.castrated = true
	case KindPurchase, KindMovementIn:
		st.setStatus(StatusOnFarm, p.Date)
	case KindMovementOut:
		st.setStatus(StatusMovedOut, p.Date)
		st.departures = append(st.departures, p.date)
	case KindSale:
		st.setStatus(StatusSold, p.Date)
		st.departures = append(st.departures, p.date)
	case KindDeath:
		st.setStatus(StatusDied, p.Date)
		st.dead = true
		st.departures = append(st.departures, p.date)
	case KindMembership:
		st.members = append(st.members, p)
	case KindMembershipEnd:
		st.memberEnds = append(st.memberEnds, p)
	case KindIdentifier:
		st.identifiers = append(st.identifiers, p)
	case KindWeight, KindWeaning:
		st.weights = append(st.weights, p)
	}
}

// setStatus records the newest status; a death is final.
func (st *profileState) setStatus(status, date string) {
	if st.dead {
		return
	}
	st.status, st.statusDate = status, date
}

func (st *profileState) profile(asOf string, day int) Profile {
	pr := Profile{AsOf: asOf, Status: StatusOnFarm, GroupIDs: []string{}, Identifiers: []Identifier{}}
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	pr.Sex, pr.Breed = str(st.sex), str(st.breed)
	pr.BirthDate = str(st.birthDate)
	if pr.BirthDate == nil {
		pr.BirthDate = str(st.bornOn)
	}
	dam, sire := st.birthDam, st.birthSire
	if dam == "" {
		dam = st.paperDam
	}
	if sire == "" {
		sire = st.paperSire
	}
	pr.DamID = str(st.parent(RelationDam, dam))
	pr.SireID = str(st.parent(RelationSire, sire))
	// The holding register's pair for an embryo-transfer calf: the genetic dam (a
	// DNA-qualified dam, else the birth's genetic dam) and the surrogate dam that carried it
	// (the birth's dam). Both stay nil for a calf its genetic dam carried.
	if st.birthGeneticDam != "" {
		pr.GeneticDamID = str(st.parent(RelationDam, st.birthGeneticDam))
		if st.birthDam != "" && (pr.GeneticDamID == nil || *pr.GeneticDamID != st.birthDam) {
			pr.SurrogateDamID = str(st.birthDam)
		}
	}
	switch {
	case st.castrated:
		pr.Intact = new(bool)
	case st.sex != "":
		t := true
		pr.Intact = &t
	}
	if st.status != "" {
		pr.Status, pr.StatusDate = st.status, str(st.statusDate)
	}
	pr.GroupIDs = st.groupsOn(day)
	for _, p := range st.identifiers {
		if p.start <= day && day <= p.end {
			pr.Identifiers = append(pr.Identifiers, Identifier{Scheme: p.Scheme, Value: p.Value})
		}
	}
	sort.Slice(pr.Identifiers, func(i, j int) bool {
		a, b := pr.Identifiers[i], pr.Identifiers[j]
		if a.Scheme != b.Scheme {
			return a.Scheme < b.Scheme
		}
		return a.Value < b.Value
	})
	pr.Identifiers = compactIdentifiers(pr.Identifiers)
	if n := len(st.weights); n > 0 {
		last := st.weights[n-1]
		kg, _ := strconv.ParseFloat(string(last.KG), 64)
		pr.WeightKG, pr.WeighedOn = &kg, str(last.Date)
		for i := n - 2; i >= 0; i-- {
			prev := st.weights[i]
			if prev.date < last.date {
				was, _ := strconv.ParseFloat(string(prev.KG), 64)
				adg := math.Round((kg-was)/float64(last.date-prev.date)*1000) / 1000
				pr.ADGKG = &adg
				break
			}
		}
	}
	return pr
}

// parent is a DNA-qualified parent, else the birth fact's parent unless DNA excluded it.
func (st *profileState) parent(relation, fromBirth string) string {
	if p := st.qualified[relation]; p != "" {
		return p
	}
	if fromBirth != "" && st.excluded[relation][fromBirth] {
		return ""
	}
	return fromBirth
}

// GroupSpan is a span of days during which an animal's membership facts place it in a
// group; EndDate is "" while the span is open.
type GroupSpan struct {
	GroupID   string
	StartDate string
	EndDate   string
}

// MembershipSpans returns the spans an animal's membership facts (as of asOf) place it in
// groups, in history order, by the same rules as the profile's group_ids.
func MembershipSpans(animalID, asOf string, facts []Fact) []GroupSpan {
	id := normID(animalID)
	st := &profileState{}
	for _, p := range prepared(asOf, facts) {
		if p.Kind != KindBirth && p.Kind != KindDNAParentage && p.AnimalID == id {
			st.add(p)
		}
	}
	var out []GroupSpan
	for _, sp := range st.spans() {
		if sp.b < sp.a {
			continue // ended on the day it began
		}
		g := GroupSpan{GroupID: sp.group, StartDate: formatDate(sp.a)}
		if sp.b != openEnd {
			g.EndDate = formatDate(sp.b)
		}
		out = append(out, g)
	}
	return out
}

type groupSpan struct {
	group string
	interval
}

// spans turns the membership facts into spans. As in the review, an open membership ends
// the day before the animal's next membership with a later start. Unlike the review, which
// keeps the dam in her group on the day she leaves, every membership (open or closed) ends
// the day before the animal left the farm (moved out, sold or died) on or after its start:
// on that day the register already shows it gone. A membership that starts after the
// departure (the animal came back) is not cut by it.
func (st *profileState) spans() []groupSpan {
	out := make([]groupSpan, 0, len(st.members))
	for i, m := range st.members {
		end := m.end
		if m.EndDate == "" {
			for _, next := range st.members[i+1:] {
				if next.start > m.start {
					end = next.start - 1
					break
				}
			}
		}
		for _, d := range st.departures {
			if d >= m.start {
				end = min(end, d-1)
				break
			}
		}
		end = cutByEnds(st.memberEnds, m.GroupID, m.start, end)
		out = append(out, groupSpan{m.GroupID, interval{m.start, end}})
	}
	return out
}

// cutByEnds ends a membership span of group [start, end] the day before the first
// membership_end of that group dated within it (start included): the animal left the group
// that day. A span that an end fact dates on its first day becomes empty (end < start).
func cutByEnds(ends []*pfact, group string, start, end int) int {
	for _, e := range ends {
		if e.GroupID == group && e.date >= start && e.date <= end {
			return e.date - 1
		}
	}
	return end
}

// GroupKinds are the kinds of fact that place an animal in groups (spans reads no other):
// memberships, their ends, and the departures that end them. A profile's GroupIDs derived
// from an animal's facts of these kinds alone is its GroupIDs from all of them
// (TestGroupKindsDecideGroups), so a count of a group's members need not read, nor parse,
// the members' weights and treatments.
var GroupKinds = []Kind{KindMembership, KindMembershipEnd, KindMovementOut, KindSale, KindDeath}

// groupsOn lists the groups the animal's membership spans cover on day, sorted.
func (st *profileState) groupsOn(day int) []string {
	groups := []string{}
	for _, sp := range st.spans() {
		if sp.a <= day && day <= sp.b {
			groups = append(groups, sp.group)
		}
	}
	sort.Strings(groups)
	return compactStrings(groups)
}

func compactIdentifiers(ids []Identifier) []Identifier {
	if len(ids) < 2 {
		return ids
	}
	w := 1
	for i := 1; i < len(ids); i++ {
		if ids[i] != ids[w-1] {
			ids[w] = ids[i]
			w++
		}
	}
	return ids[:w]
}
