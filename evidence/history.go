package evidence

import (
	"fmt"
	"sort"
	"strings"
)

// HistoryLimits are the farm's limits a write of facts is held to. A nil limit is unset and
// not checked: Herdbook ships no biological defaults.
type HistoryLimits struct {
	// MinimumBreedingAgeFemale and MinimumBreedingAgeMale are the youngest a dam and a sire
	// may be, in days, on the date of a birth they are named in.
	MinimumBreedingAgeFemale *int
	MinimumBreedingAgeMale   *int
	// MinimumCalvingInterval is the fewest days between two births of one dam on different
	// dates (births on one date are one calving: twins).
	MinimumCalvingInterval *int
}

// Violation is a fact of a write that would make an animal's history impossible. Index is
// the position of the written fact the violation is reported on, Field the fact's field
// (date, start_date, dam_id, sire_id, sex, birth_date), and Message a sentence that names
// the animal and the conflicting record.
type Violation struct {
	Index   int
	Field   string
	Message string
}

// CheckHistory holds the facts of a write (news, in the order of the write) to the dated
// histories of the animals they name, given every stored fact that names those animals
// (stored, with their provenance). It returns the violations in which a written fact takes
// part, sorted by index, field and message; impossibilities among stored facts alone are
// not the write's doing and are not reported. label names an animal in messages (its tag).
// A stored fact is named by its record ("record <id>"), or by its RecordID as it is when that
// is not a uuid (the service passes approved births, which are not records, as "approved
// birth <id>").
//
// The rules (docs/history-rules.md):
//   - nothing about an animal is dated before its birth, other than its profile and the
//     birth itself (a parent's birth fact and an exposure count for the parent);
//   - nothing is dated after its death, other than a correction of the death, or after its
//     final departure (a sale or movement_out not followed by an arrival), other than a
//     correction of that departure (another departure); profiles and DNA results are the
//     animal's, not its doings, and a sire need not be alive when his calf is born;
//   - a dam (of a birth or an exposure, or by a qualified DNA result) is female and a sire
//     male, when the animal's sex is known;
//   - a dam is alive and on the farm on the birth date;
//   - a dam and a sire are at least the farm's minimum breeding age on the birth date, when
//     the limit is set and their birth dates are known;
//   - two births of one dam on different dates are at least the farm's minimum calving
//     interval apart, when it is set.
func CheckHistory(news, stored []Fact, limits HistoryLimits, label func(id string) string) []Violation {
	c := &historyCheck{limits: limits, label: label}
	for _, f := range stored {
		if errs := f.Validate(); errs != nil {
			continue
		}
		c.add(f, -1)
	}
	subjects := map[string]bool{}
	for i, f := range news {
		if errs := f.Validate(); errs != nil {
			continue
		}
		c.add(f, i)
		for _, id := range f.ReferencedAnimals() {
			subjects[id] = true
		}
	}
	sort.SliceStable(c.facts, func(i, j int) bool {
		a, b := c.facts[i], c.facts[j]
		if a.key != b.key {
			return a.key < b.key
		}
		return a.order < b.order
	})
	ids := make([]string, 0, len(subjects))
	for id := range subjects {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		c.checkAnimal(id)
	}
	sort.Slice(c.out, func(i, j int) bool {
		a, b := c.out[i], c.out[j]
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Message < b.Message
	})
	out := c.out[:0]
	for i, v := range c.out {
		if i == 0 || v != c.out[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// hfact is a fact in a history check: its sort date, its order among facts of one date
// (stored facts by item id; written facts after them, in the write's order), and the index
// of the write it comes from (-1 when stored).
type hfact struct {
	Fact
	key   string
	day   int
	order string
	index int
}

func (h *hfact) isNew() bool { return h.index >= 0 }

// ref names a fact in a message: its record, or its place in the write.
func (h *hfact) ref() string {
	if h.isNew() {
		return "this write"
	}
	if !isUUID(h.RecordID) {
		return h.RecordID // a source that is not a record names itself ("approved birth …")
	}
	return "record " + h.RecordID
}

type historyCheck struct {
	limits HistoryLimits
	label  func(string) string
	facts  []*hfact
	out    []Violation
}

func (c *historyCheck) add(f Fact, index int) {
	f.AnimalID, f.SireID, f.DamID = normID(f.AnimalID), normID(f.SireID), normID(f.DamID)
	f.OffspringID, f.ParentID = normID(f.OffspringID), normID(f.ParentID)
	for i, o := range f.OffspringIDs {
		f.OffspringIDs[i] = normID(o)
	}
	key := sortDate(&f)
	if len(key) > 10 {
		key = key[:10] // a treatment's date-time counts by its calendar date
	}
	day, _ := parseDate(key)
	order := "0" + normID(f.RecordItemID)
	if index >= 0 {
		order = fmt.Sprintf("1%09d", index)
	}
	c.facts = append(c.facts, &hfact{Fact: f, key: key, day: day, order: order, index: index})
}

// report records a violation when a written fact takes part in it: on the written fact
// itself (at field), else on the written fact that set the bound (at boundField).
func (c *historyCheck) report(f *hfact, field string, bound *hfact, boundField, msg string, args ...any) {
	switch {
	case f.isNew():
		c.out = append(c.out, Violation{Index: f.index, Field: field, Message: fmt.Sprintf(msg, args...)})
	case bound != nil && bound.isNew():
		c.out = append(c.out, Violation{Index: bound.index, Field: boundField, Message: fmt.Sprintf(msg, args...)})
	}
}

// role is the part an animal plays in a fact, for the rules.
type role int

const (
	roleNone      role = iota
	roleSubject        // the animal the fact is about (its date counts)
	roleProfile        // its own profile
	roleOffspring      // born in a birth fact
	roleDam            // dam of a birth
	roleSire           // sire of a birth
	roleExposureSire
	roleExposureDam
	roleDNA // named in a laboratory's result
	// roleServiceSire and roleServiceDam are the sire and the served female of an
	// insemination, a hand mating or an embryo transfer (whose served female is the
	// recipient); roleDonor is an embryo transfer's donor, the genetic dam.
	roleServiceSire
	roleServiceDam
	roleDonor
	// roleGeneticDam is a birth's genetic dam (an embryo-transfer calf's donor).
	roleGeneticDam
	// rolePaperDam and rolePaperSire are the dam and sire a pedigree fact names.
	rolePaperDam
	rolePaperSire
)

func roleOf(f *hfact, id string) role {
	switch f.Kind {
	case KindProfile:
		if f.AnimalID == id {
			return roleProfile
		}
	case KindBirth:
		switch {
		case f.DamID == id:
			return roleDam
		case f.SireID == id:
			return roleSire
		case f.GeneticDamID == id:
			return roleGeneticDam
		}
		for _, o := range f.OffspringIDs {
			if o == id {
				return roleOffspring
			}
		}
	case KindPedigree:
		switch id {
		case f.AnimalID:
			return roleSubject
		case f.DamID:
			return rolePaperDam
		case f.SireID:
			return rolePaperSire
		}
	case KindExposure:
		switch id {
		case f.SireID:
			return roleExposureSire
		case f.DamID:
			return roleExposureDam
		}
	case KindDNAParentage:
		if f.OffspringID == id || f.ParentID == id {
			return roleDNA
		}
	case KindInsemination, KindHandMating, KindEmbryoTransfer:
		switch {
		case f.SireID == id:
			return roleServiceSire
		case f.Kind == KindEmbryoTransfer && f.RecipientID == id:
			return roleServiceDam
		case f.Kind == KindEmbryoTransfer && f.DamID == id:
			return roleDonor
		case f.DamID == id:
			return roleServiceDam
		}
	default:
		if f.AnimalID == id {
			return roleSubject
		}
	}
	return roleNone
}

// dateField is the field that dates a fact.
func dateField(f *hfact) string {
	switch f.Kind {
	case KindExposure, KindMembership, KindIdentifier:
		return "start_date"
	}
	return "date"
}

func kindText(k Kind) string { return strings.ReplaceAll(string(k), "_", " ") }

func isArrival(k Kind) bool   { return k == KindPurchase || k == KindMovementIn }
func isDeparture(k Kind) bool { return k == KindSale || k == KindMovementOut || k == KindDeath }

// life is what an animal's history says of its sex, its birth and its departures.
type life struct {
	sex, sexFrom *hfact // the newest profile that records a sex
	born         *hfact // the newest profile with a birth date, else its birth fact
	bornDay      int
	end          *hfact // its death, else its final departure
	moves        []*hfact
}

func (c *historyCheck) lifeOf(id string, facts []*hfact) life {
	var l life
	var birthFact *hfact
	for _, f := range facts {
		switch roleOf(f, id) {
		case roleProfile:
			if f.Sex != "" {
				l.sexFrom = f
			}
			if f.BirthDate != "" {
				l.born = f
			}
		case roleOffspring:
			birthFact = f
			l.moves = append(l.moves, f)
		case roleSubject:
			if isArrival(f.Kind) || isDeparture(f.Kind) {
				l.moves = append(l.moves, f)
			}
		}
	}
	if l.born != nil {
		l.bornDay, _ = parseDate(l.born.BirthDate)
	} else if birthFact != nil {
		l.born, l.bornDay = birthFact, birthFact.day
	}
	for _, m := range l.moves {
		if m.Kind == KindDeath {
			l.end = m
			break // a death is final
		}
		if isDeparture(m.Kind) {
			l.end = m
		} else {
			l.end = nil // an arrival: it came back
		}
	}
	return l
}

// bornText is the animal's birth for messages.
func (l life) bornText() string {
	if l.born.Kind == KindProfile {
		return l.born.BirthDate
	}
	return l.born.key
}

func bornField(l life) string {
	if l.born.Kind == KindProfile {
		return "birth_date"
	}
	return "date"
}

func (c *historyCheck) checkAnimal(id string) {
	var facts []*hfact
	for _, f := range c.facts {
		if roleOf(f, id) != roleNone {
			facts = append(facts, f)
		}
	}
	l := c.lifeOf(id, facts)
	name := c.label(id)
	sex := ""
	if l.sexFrom != nil {
		sex = l.sexFrom.Sex
	}
	var damBirths []*hfact
	for _, f := range facts {
		r := roleOf(f, id)
		if r == roleProfile || r == roleOffspring || r == roleNone {
			continue
		}
		if r == roleDNA {
			if f.Result == ResultQualified && f.ParentID == id {
				c.checkSex(f, id, name, f.Relation, sex, l.sexFrom, "parent_id")
			}
			continue
		}
		field := dateField(f)
		switch r {
		case roleDam:
			field = "dam_id"
			damBirths = append(damBirths, f)
			c.checkSex(f, id, name, RelationDam, sex, l.sexFrom, field)
		case roleSire:
			field = "sire_id"
			c.checkSex(f, id, name, RelationSire, sex, l.sexFrom, field)
		case roleExposureSire:
			c.checkSex(f, id, name, RelationSire, sex, l.sexFrom, "sire_id")
		case roleExposureDam:
			c.checkSex(f, id, name, RelationDam, sex, l.sexFrom, "dam_id")
		case roleServiceSire:
			field = "sire_id"
			c.checkSex(f, id, name, RelationSire, sex, l.sexFrom, field)
		case roleServiceDam:
			field = "dam_id"
			if f.Kind == KindEmbryoTransfer {
				field = "recipient_id"
			}
			c.checkSex(f, id, name, RelationDam, sex, l.sexFrom, field)
		case roleDonor:
			field = "dam_id"
			c.checkSex(f, id, name, RelationDam, sex, l.sexFrom, field)
		case roleGeneticDam:
			field = "genetic_dam_id"
			c.checkSex(f, id, name, "genetic dam", sex, l.sexFrom, field)
		case rolePaperDam:
			field = "dam_id"
			c.checkSex(f, id, name, RelationDam, sex, l.sexFrom, field)
		case rolePaperSire:
			field = "sire_id"
			c.checkSex(f, id, name, RelationSire, sex, l.sexFrom, field)
		}
		// Nothing before the birth.
		if l.born != nil && f.day < l.bornDay {
			c.report(f, field, l.born, bornField(l), "%s on %s (%s) is dated before %s's birth on %s (%s)",
				c.doing(f, r), f.key, f.ref(), name, l.bornText(), l.born.ref())
			continue
		}
		// Parents old enough.
		if l.born != nil && (r == roleDam || r == roleSire) {
			limit, what := c.limits.MinimumBreedingAgeFemale, "female"
			if r == roleSire {
				limit, what = c.limits.MinimumBreedingAgeMale, "male"
			}
			if limit != nil && f.day-l.bornDay < *limit {
				c.report(f, field, l.born, bornField(l), "%s was %d days old on the birth on %s (%s), younger than the farm's minimum breeding age of %d days for a %s (born %s, %s)",
					name, f.day-l.bornDay, f.key, f.ref(), *limit, what, l.bornText(), l.born.ref())
			}
		}
		// A sire old enough on the day of a service (semen or a mating: the day he is named).
		if l.born != nil && r == roleServiceSire && c.limits.MinimumBreedingAgeMale != nil && f.day-l.bornDay < *c.limits.MinimumBreedingAgeMale {
			c.report(f, field, l.born, bornField(l), "%s was %d days old on the %s on %s (%s), younger than the farm's minimum breeding age of %d days for a male (born %s, %s)",
				name, f.day-l.bornDay, kindText(f.Kind), f.key, f.ref(), *c.limits.MinimumBreedingAgeMale, l.bornText(), l.born.ref())
		}
		// Nothing after the death or the final departure.
		if l.end != nil && f.day > l.end.day && f != l.end && !exemptAfterEnd(f, r, l.end) {
			c.report(f, field, l.end, "date", "%s on %s (%s) is dated after %s's %s on %s (%s)",
				c.doing(f, r), f.key, f.ref(), name, kindText(l.end.Kind), l.end.key, l.end.ref())
			continue
		}
		// A dam is on the farm when she gives birth.
		if r == roleDam {
			c.checkDamPresent(f, id, name, l)
		}
	}
	c.checkCalvingInterval(name, damBirths)
}

// exemptAfterEnd lists the facts an animal's death or final departure does not end: a
// correction of the departure, and a birth it sired.
func exemptAfterEnd(f *hfact, r role, end *hfact) bool {
	switch {
	case f.Kind == KindPedigree:
		return true // papers are recorded when they come, about parents long gone

	case r == roleSire:
		return true // a sire need not be alive, or on the farm, when his calf is born
	case (r == roleServiceSire && f.Kind == KindInsemination) || (r == roleDonor && f.Kind == KindEmbryoTransfer) || r == roleGeneticDam:
		return true // semen and embryos are stored: their animal may be long dead or gone
	case r != roleSubject:
		return false
	case end.Kind == KindDeath:
		return f.Kind == KindDeath
	default:
		return isDeparture(f.Kind)
	}
}

// doing describes what a fact says the animal did, for messages.
func (c *historyCheck) doing(f *hfact, r role) string {
	switch r {
	case roleDam:
		return "a birth as dam"
	case roleSire:
		return "a birth as sire"
	case roleExposureSire:
		return "an exposure as sire"
	case roleExposureDam:
		return "an exposure as dam"
	case roleServiceSire:
		return article(kindText(f.Kind)) + " as sire"
	case roleServiceDam:
		return article(kindText(f.Kind)) + " as the served female"
	case roleDonor:
		return "an embryo transfer as donor"
	case roleGeneticDam:
		return "a birth as genetic dam"
	case rolePaperDam:
		return "a pedigree as dam"
	case rolePaperSire:
		return "a pedigree as sire"
	}
	return "its " + kindText(f.Kind)
}

func (c *historyCheck) checkSex(f *hfact, id, name, relation, sex string, from *hfact, field string) {
	want := SexFemale
	if relation == RelationSire {
		want = SexMale
	}
	if sex == "" || sex == want {
		return
	}
	c.report(f, field, from, "sex", "%s is recorded as %s (%s) and cannot be the %s named on %s (%s); a %s is %s",
		name, sex, from.ref(), relation, f.key, f.ref(), relation, want)
}

// checkDamPresent refuses a birth on a day the dam was away: after a departure she had not
// come back from, or before she first arrived (unless a calf of the birth arrives with her
// later: bought at foot).
func (c *historyCheck) checkDamPresent(f *hfact, id, name string, l life) {
	var last, first *hfact
	for _, m := range l.moves {
		if roleOf(m, id) != roleSubject {
			continue // her own birth is not a move of the farm's
		}
		if first == nil {
			first = m
		}
		if m.day <= f.day {
			last = m
		}
	}
	switch {
	case last != nil && isDeparture(last.Kind) && last.day < f.day:
		c.report(f, "dam_id", last, "date", "%s was not on the farm on the birth on %s (%s): %s on %s (%s)",
			name, f.key, f.ref(), kindText(last.Kind), last.key, last.ref())
	case last == nil && first != nil && isArrival(first.Kind) && (l.born == nil || l.born.Kind == KindProfile):
		for _, o := range f.OffspringIDs {
			for _, g := range c.facts {
				if g.AnimalID == o && isArrival(g.Kind) && g.day >= f.day {
					return
				}
			}
		}
		c.report(f, "dam_id", first, "date", "%s was not yet on the farm on the birth on %s (%s): she arrived by %s on %s (%s)",
			name, f.key, f.ref(), kindText(first.Kind), first.key, first.ref())
	}
}

func (c *historyCheck) checkCalvingInterval(name string, births []*hfact) {
	limit := c.limits.MinimumCalvingInterval
	if limit == nil {
		return
	}
	for i, a := range births {
		for _, b := range births[i+1:] {
			gap := b.day - a.day
			if gap == 0 || gap >= *limit {
				continue
			}
			later := b
			if !b.isNew() {
				later = a
			}
			c.report(later, "date", nil, "", "%s's births on %s (%s) and %s (%s) are %d days apart, closer than the farm's minimum calving interval of %d days",
				name, a.key, a.ref(), b.key, b.ref(), gap, *limit)
		}
	}
}

// article puts "a" or "an" before a noun that starts with a letter.
func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}
