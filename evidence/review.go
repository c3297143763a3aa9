package evidence

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Review answers what the records say about one birth. It is deterministic
// (the same facts in any order give the same Evidence), reads nothing but
// its input and never panics: invalid facts are skipped and reported in
// Unresolved, and invalid settings are treated as not configured.
func Review(in Input) Evidence {
	r := &reviewer{frame: frameOf(in)}
	ev := Evidence{
		EvidenceVersion:      EvidenceVersion,
		SettingsStatus:       SettingsNotConfigured,
		PlannedWindowStatus:  PlannedNotConfigured,
		MatchingBirthWindows: []Window{},
		Sire:                 Sire{Status: SireUnknown, Candidates: []Candidate{}},
		MovementComparisons:  []MovementComparison{},
	}
	r.reviewSettings(&ev, in)
	r.load(in.Facts)
	r.reviewDam(&ev)
	r.reviewSire(&ev)
	ev.Unresolved = r.unresolved()
	return ev
}

// reviewer carries one review from the input to the answer.
type reviewer struct {
	frame

	profiles    map[string][]*pfact
	castrations map[string][]int    // dates, ascending
	moves       map[string][]*pfact // purchase, movement_in, movement_out
	damMembers  []*pfact
	// damMemberEnds are the dam's membership_end facts, which close her spans in a group.
	damMemberEnds []*pfact
	exposures     []*pfact
	leaves        map[string][]*pfact // sale and death, in history order
	damBirths     []*pfact            // the dam's birth facts
	dna           []*pfact            // dna_parentage facts naming a sire
	// services are the dam's services (insemination, hand mating, embryo transfer in which
	// she is the served female); checks her pregnancy checks.
	services []*pfact
	checks   []*pfact
	// members and memberEnds are the membership and membership_end facts of other animals:
	// a male's dated membership of the dam's group is natural service exposure.
	members    map[string][]*pfact
	memberEnds map[string][]*pfact

	damProfile   profile
	dnaExcluded  map[string]*pfact // DNA exclusions of this birth's sire, by parent
	dnaQualified []*pfact          // DNA qualifications of this birth's sire
	// narrowed is the conception window the dam's positive pregnancy checks allow, worked
	// out once (narrowing).
	narrowed             interval
	narrowOK, narrowDone bool
	damArrival           *pfact // the dam's first arrival after the window began
	damDeparture         *pfact // the dam's first departure inside the window

	// Unresolved lines by section, most important first.
	general, damNotes, capNotes, candNotes, skipped []string
}

func (r *reviewer) reviewSettings(ev *Evidence, in Input) {
	if r.dam == "" {
		r.general = append(r.general, fmt.Sprintf("The dam_id %s is not a UUID, so no fact could be tied to the dam.", quoteShort(in.DamID)))
	}
	if !r.birthOK {
		r.general = append(r.general, fmt.Sprintf("The birth_date %s is not a calendar date in the form YYYY-MM-DD, so nothing could be compared with it.", quoteShort(in.BirthDate)))
	}
	switch {
	case in.Settings == nil:
		r.general = append(r.general, "Birth-history settings are not configured for this farm, so there is no conception window and no planned birth window.")
		return
	case r.settingsBad != nil:
		r.general = append(r.general, fmt.Sprintf("The stored birth-history settings are invalid (%s), so the review treated them as not configured.", r.settingsBad[0].Error()))
		return
	}

	s := r.settings
	ev.Settings = s.clone()
	ev.SettingsStatus = SettingsConfigured
	if len(s.BirthWindows) > 0 && r.birthOK {
		ev.PlannedWindowStatus = PlannedOutside
		for _, w := range s.BirthWindows {
			start, _ := parseDate(w.StartDate)
			end, _ := parseDate(w.EndDate)
			if start <= r.birth && r.birth <= end {
				ev.MatchingBirthWindows = append(ev.MatchingBirthWindows, w)
			}
		}
		if len(ev.MatchingBirthWindows) > 0 {
			ev.PlannedWindowStatus = PlannedWithin
		}
	}

	switch {
	case s.GestationDays == nil:
		r.general = append(r.general, "Gestation days are not configured, so there is no conception window and no sire could be placed by exposure.")
	case !r.birthOK:
	case !r.windowOK:
		r.general = append(r.general, "The birth date is too early for a conception window on the supported calendar, which starts at 0001-01-01.")
	default:
		ev.ConceptionWindow = &Interval{StartDate: formatDate(r.ws), EndDate: formatDate(r.we)}
		if r.clamped {
			r.general = append(r.general, "The conception window was cut at 0001-01-01, the first date the review supports.")
		}
	}
}

// load validates, orders and indexes the facts: exposures, memberships,
// profiles, castrations, movements, sales and deaths, the dam's births and DNA
// parentage results about sires.
func (r *reviewer) load(in []Fact) {
	facts := make([]*pfact, 0, len(in))
	for _, f := range in {
		p, errs := prepare(f)
		if errs != nil {
			r.skipped = append(r.skipped, skipLine(&f, errs))
			continue
		}
		facts = append(facts, p)
	}
	sortFacts(facts)
	// Invalid facts have no trustworthy date to order them by; sorting the
	// lines keeps the answer independent of the input order.
	sort.Strings(r.skipped)

	r.profiles = map[string][]*pfact{}
	r.castrations = map[string][]int{}
	r.moves = map[string][]*pfact{}
	r.leaves = map[string][]*pfact{}
	r.members = map[string][]*pfact{}
	r.memberEnds = map[string][]*pfact{}
	for _, p := range facts {
		switch p.Kind {
		case KindProfile:
			r.profiles[p.AnimalID] = append(r.profiles[p.AnimalID], p)
		case KindCastration:
			r.castrations[p.AnimalID] = append(r.castrations[p.AnimalID], p.date)
		case KindPurchase, KindMovementIn, KindMovementOut:
			r.moves[p.AnimalID] = append(r.moves[p.AnimalID], p)
		case KindMembership:
			if r.dam != "" && p.AnimalID == r.dam {
				r.damMembers = append(r.damMembers, p)
			} else {
				r.members[p.AnimalID] = append(r.members[p.AnimalID], p)
			}
		case KindMembershipEnd:
			if r.dam != "" && p.AnimalID == r.dam {
				r.damMemberEnds = append(r.damMemberEnds, p)
			} else {
				r.memberEnds[p.AnimalID] = append(r.memberEnds[p.AnimalID], p)
			}
		case KindInsemination, KindHandMating, KindEmbryoTransfer:
			if r.dam != "" && servedFemale(&p.Fact) == r.dam {
				r.services = append(r.services, p)
			}
		case KindPregnancyCheck:
			if r.dam != "" && normID(p.AnimalID) == r.dam {
				r.checks = append(r.checks, p)
			}
		case KindExposure:
			r.exposures = append(r.exposures, p)
		case KindSale, KindDeath:
			r.leaves[p.AnimalID] = append(r.leaves[p.AnimalID], p)
		case KindBirth:
			if r.dam != "" && p.DamID == r.dam {
				r.damBirths = append(r.damBirths, p)
			}
		case KindDNAParentage:
			if p.Relation == RelationSire {
				r.dna = append(r.dna, p)
			}
		}
	}
}

// offspring lists the offspring the dam's birth facts on the reviewed birth date name.
func (r *reviewer) offspring() map[string]bool {
	out := map[string]bool{}
	for _, b := range r.damBirths {
		if r.birthOK && b.date == r.birth {
			for _, o := range b.OffspringIDs {
				out[normID(o)] = true
			}
		}
	}
	return out
}

// dnaOf returns the DNA results about the sire of this birth's offspring: the exclusions
// by parent, and the qualifications in history order.
func (r *reviewer) dnaOf() (excluded map[string]*pfact, qualified []*pfact) {
	kids := r.offspring()
	excluded = map[string]*pfact{}
	for _, d := range r.dna {
		if !kids[d.OffspringID] {
			continue
		}
		if d.Result == ResultExcluded {
			if excluded[d.ParentID] == nil {
				excluded[d.ParentID] = d
			}
		} else {
			qualified = append(qualified, d)
		}
	}
	return excluded, qualified
}

// otherBirths notes every other birth of the dam recorded inside the gestation of the
// reviewed one (from the start of the conception window to the day before the birth): the
// dam cannot have given birth while she carried this offspring, so one date is wrong.
func (r *reviewer) otherBirths() {
	if !r.windowOK || r.dam == "" {
		return
	}
	for _, b := range r.damBirths {
		if b.date >= r.ws && b.date < r.birth {
			r.damNotes = append(r.damNotes, fmt.Sprintf("Another birth of the dam is recorded on %s (record %s), inside the gestation of this birth (from %s to %s): one of the two birth dates may be wrong.",
				b.Date, b.RecordID, formatDate(r.ws), formatDate(r.birth)))
		}
	}
}

// skipLine reports an invalid fact. A malformed item id is quoted, never
// trusted as an id.
func skipLine(f *Fact, errs []FieldError) string {
	item := f.RecordItemID
	if !isUUID(item) {
		item = quoteShort(item)
	}
	if len(errs) > 3 {
		errs = errs[:3]
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Sprintf("A birth_history fact in record item %s was skipped because it is invalid: %s.", item, strings.Join(msgs, "; "))
}

// profile is what an animal's profile facts say when read together. Where
// two profiles disagree the value is treated as unknown: the review does
// not pick a side.
type profile struct {
	found                                 bool
	sex, breed                            string
	birth                                 int
	birthKnown                            bool
	sexConflict, birthConflict, breedDiff bool
}

func (r *reviewer) profileOf(id string) profile {
	var pr profile
	var birthDate string
	for _, p := range r.profiles[id] {
		pr.found = true
		switch {
		case p.Sex == "":
			// This profile does not record the sex.
		case pr.sex == "":
			pr.sex = p.Sex
		case p.Sex != pr.sex:
			pr.sexConflict = true
		}
		if p.hasBirth {
			switch {
			case birthDate == "":
				birthDate, pr.birth = p.BirthDate, p.birth
			case p.BirthDate != birthDate:
				pr.birthConflict = true
			}
		}
		if p.Breed != "" {
			switch {
			case pr.breed == "":
				pr.breed = p.Breed
			case p.Breed != pr.breed:
				pr.breedDiff = true
			}
		}
	}
	if pr.sexConflict {
		pr.sex = ""
	}
	pr.birthKnown = birthDate != "" && !pr.birthConflict
	if pr.breedDiff {
		pr.breed = ""
	}
	pr.breed = truncate(pr.breed, MaxBreed)
	return pr
}

func (r *reviewer) reviewDam(ev *Evidence) {
	if r.dam == "" {
		return
	}
	r.damProfile = r.profileOf(r.dam)
	switch {
	case !r.damProfile.found:
		r.damNotes = append(r.damNotes, "No profile fact records the dam, so her breed is unknown.")
	case r.damProfile.sex == SexMale:
		r.damNotes = append(r.damNotes, "The dam's profile records a male; check that dam_id names the dam.")
	case r.damProfile.sexConflict:
		r.damNotes = append(r.damNotes, "The dam's profiles disagree on her sex.")
	}

	moves := r.moves[r.dam]
	for _, m := range moves {
		rel := RelationUnknown
		if r.windowOK {
			switch {
			case m.date < r.ws:
				rel = RelationBefore
			case m.date > r.we:
				rel = RelationAfter
			default:
				rel = RelationWithin
			}
			if m.Kind != KindMovementOut && m.date > r.ws && m.date <= r.birth && r.damArrival == nil {
				r.damArrival = m
			}
			if m.Kind == KindMovementOut && rel == RelationWithin && r.damDeparture == nil {
				r.damDeparture = m
			}
		}
		if len(ev.MovementComparisons) < MaxMovementComparisons {
			ev.MovementComparisons = append(ev.MovementComparisons, MovementComparison{
				RecordID: m.RecordID, RecordItemID: m.RecordItemID, Kind: m.Kind, Date: m.Date, RelationToConception: rel,
			})
		}
	}
	if len(moves) > MaxMovementComparisons {
		r.capNotes = append(r.capNotes, fmt.Sprintf("Only the first %d of the dam's %d purchase and movement facts are compared, the limit of movement_comparisons.", MaxMovementComparisons, len(moves)))
	}
	if a := r.damArrival; a != nil {
		r.damNotes = append(r.damNotes, fmt.Sprintf("The dam arrived on the farm on %s (%s), after the conception window began on %s: exposure before her arrival is not on record.", a.Date, a.Kind, formatDate(r.ws)))
	}
	if d := r.damDeparture; d != nil {
		r.damNotes = append(r.damNotes, fmt.Sprintf("The dam left the farm on %s, inside the conception window: exposure while she was away is not on record.", d.Date))
	}
}

// interval is an inclusive range of day numbers.
type interval struct{ a, b int }

// membership is one span of the dam in a group, built from a membership fact.
type membership struct {
	fact *pfact
	span interval
}

// damMemberships turns the dam's membership facts into spans. An open
// membership ends the day before her next membership fact with a later
// start (in any group), or on the day of her first movement_out on or after
// its start, whichever comes first. Current group membership is not an
// input at all: only these dated facts can place the dam in a group.
func (r *reviewer) damMemberships() map[string][]membership {
	var outs []int
	for _, m := range r.moves[r.dam] {
		if m.Kind == KindMovementOut {
			outs = append(outs, m.date)
		}
	}
	return membershipSpans(r.damMembers, r.damMemberEnds, outs)
}

// mateMemberships is damMemberships for another animal: his spans in each group, where
// a sale or a death ends an open membership as a movement_out does.
func (r *reviewer) mateMemberships(id string) map[string][]membership {
	var outs []int
	for _, m := range r.moves[id] {
		if m.Kind == KindMovementOut {
			outs = append(outs, m.date)
		}
	}
	for _, l := range r.leaves[id] {
		outs = append(outs, l.date)
	}
	sort.Ints(outs)
	return membershipSpans(r.members[id], r.memberEnds[id], outs)
}

// membershipSpans turns one animal's membership facts (in history order) into spans by
// group; outs are the days it left the farm, ascending.
func membershipSpans(members, ends []*pfact, outs []int) map[string][]membership {
	byGroup := map[string][]membership{}
	for i, m := range members {
		end := m.end
		if m.EndDate == "" {
			for _, next := range members[i+1:] {
				if next.start > m.start {
					end = next.start - 1
					break
				}
			}
			for _, o := range outs {
				if o >= m.start {
					end = min(end, o)
					break
				}
			}
		}
		end = cutByEnds(ends, m.GroupID, m.start, end)
		if end < m.start {
			continue // ended on the day it began: no day in the group
		}
		byGroup[m.GroupID] = append(byGroup[m.GroupID], membership{fact: m, span: interval{m.start, end}})
	}
	return byGroup
}

// servedFemale is the female a service served: an embryo transfer's recipient, else its dam.
func servedFemale(f *Fact) string {
	if f.Kind == KindEmbryoTransfer {
		return normID(f.RecipientID)
	}
	return normID(f.DamID)
}

// candidate gathers the evidence for one sire across all his exposures.
type candidate struct {
	id               string
	spans            []interval
	expRec, expItem  []string
	memRec, memItem  []string
	direct, viaGroup bool
	exposed          bool // by an exposure fact with the dam (direct is also set by a service)
	// services are the dam's services by him in his window; shared are the spans he and
	// the dam were members of one group (natural service), with the group and both facts.
	services       []*pfact
	shared         []sharedSpan
	merged         []interval
	elig           Eligibility
	reasons, notes []string
	breed          string
	breedDiff      bool
	// win is his conception window: the farm's, or his breed's (gestation_days_by_breed),
	// with the range it comes from and the breed as the settings name it.
	win       interval
	gestation Range
	gestBreed string
}

// sharedSpan is a stretch of days a male and the dam were both members of a group.
type sharedSpan struct {
	group     string
	span      interval
	his, hers *pfact
}

func (r *reviewer) reviewSire(ev *Evidence) {
	if !r.windowOK {
		return
	}
	groups := map[string][]membership{}
	if r.dam != "" {
		groups = r.damMemberships()
	}
	earlyMembership := false
	for _, m := range r.damMembers {
		if m.start <= r.swe {
			earlyMembership = true
			break
		}
	}

	bySire := map[string]*candidate{}
	get := func(id string) *candidate {
		c := bySire[id]
		if c == nil {
			c = r.newCandidate(id)
			bySire[id] = c
		}
		return c
	}
	// windows holds each sire's conception window, which his breed may set.
	windows := map[string]interval{}
	untiedGroupExposure := false
	narrowed, narrowOK := r.narrowing()
	for _, e := range r.exposures {
		window, ok := windows[e.SireID]
		if !ok {
			window = r.newCandidate(e.SireID).win
			windows[e.SireID] = window
		}
		if narrowOK {
			if window, ok = intersect(window, narrowed); !ok {
				continue
			}
		}
		x, ok := intersect(interval{e.start, e.end}, window)
		if !ok {
			continue
		}
		switch {
		case r.dam != "" && e.DamID == r.dam:
			c := get(e.SireID)
			c.spans = append(c.spans, x)
			c.expRec, c.expItem = append(c.expRec, e.RecordID), append(c.expItem, e.RecordItemID)
			c.direct, c.exposed = true, true
		case e.GroupID != "":
			if !earlyMembership {
				untiedGroupExposure = true
			}
			for _, m := range groups[e.GroupID] {
				y, ok := intersect(x, m.span)
				if !ok {
					continue
				}
				c := get(e.SireID)
				c.spans = append(c.spans, y)
				c.expRec, c.expItem = append(c.expRec, e.RecordID), append(c.expItem, e.RecordItemID)
				c.memRec, c.memItem = append(c.memRec, m.fact.RecordID), append(c.memItem, m.fact.RecordItemID)
				c.viaGroup = true
			}
		}
	}
	narrow, hasNarrow := r.narrowing()
	windowOf := func(id string) (interval, bool) {
		window, ok := windows[id]
		if !ok {
			window = r.newCandidate(id).win
			windows[id] = window
		}
		if hasNarrow {
			return intersect(window, narrow)
		}
		return window, true
	}
	// Services: a day of direct exposure, named in the reasons.
	for _, sv := range r.services {
		window, ok := windowOf(sv.SireID)
		if !ok || sv.date < window.a || sv.date > window.b {
			continue
		}
		c := get(sv.SireID)
		c.spans = append(c.spans, interval{sv.date, sv.date})
		c.expRec, c.expItem = append(c.expRec, sv.RecordID), append(c.expItem, sv.RecordItemID)
		c.direct = true
		c.services = append(c.services, sv)
	}
	// Natural service: a male's dated membership of a group while the dam was a member.
	if len(groups) > 0 {
		mates := make([]string, 0, len(r.members))
		for id := range r.members {
			mates = append(mates, id)
		}
		sort.Strings(mates)
		for _, id := range mates {
			if pr := r.profileOf(id); pr.sex != SexMale {
				continue // only a recorded male can serve; a female or unknown co-member is no candidate
			}
			window, ok := windowOf(id)
			if !ok {
				continue
			}
			for group, spans := range r.mateMemberships(id) {
				for _, his := range spans {
					x, ok := intersect(his.span, window)
					if !ok {
						continue
					}
					for _, hers := range groups[group] {
						y, ok := intersect(x, hers.span)
						if !ok {
							continue
						}
						c := get(id)
						c.spans = append(c.spans, y)
						c.memRec = append(c.memRec, his.fact.RecordID, hers.fact.RecordID)
						c.memItem = append(c.memItem, his.fact.RecordItemID, hers.fact.RecordItemID)
						c.shared = append(c.shared, sharedSpan{group: group, span: y, his: his.fact, hers: hers.fact})
					}
				}
			}
		}
	}
	r.otherBirths()
	r.dnaExcluded, r.dnaQualified = r.dnaOf()
	if untiedGroupExposure && r.dam != "" {
		r.damNotes = append(r.damNotes, fmt.Sprintf("Group exposures overlap the conception window, but no membership fact places the dam in any group by %s, so they could not be tied to her.", formatDate(r.we)))
	}
	if len(bySire) == 0 {
		r.damNotes = append(r.damNotes, fmt.Sprintf("No exposure fact places a sire with the dam in the conception window from %s to %s.", formatDate(r.ws), formatDate(r.we)))
		r.presumeByDNA(ev, nil)
		return
	}
	if r.settings.MinimumSireAgeDays == nil {
		r.damNotes = append(r.damNotes, "No minimum sire age is configured, so the ages of the candidates were not checked.")
	}

	cands := make([]*candidate, 0, len(bySire))
	for _, c := range bySire {
		c.merged = mergeIntervals(c.spans)
		r.judge(c)
		cands = append(cands, c)
	}
	sort.Slice(cands, func(i, j int) bool {
		ri, rj := eligRank(cands[i].elig), eligRank(cands[j].elig)
		if ri != rj {
			return ri < rj
		}
		return cands[i].id < cands[j].id
	})

	var plausible []*candidate
	unknownOthers := 0
	for _, c := range cands {
		switch c.elig {
		case EligibilityPlausible:
			plausible = append(plausible, c)
		case EligibilityUnknown:
			unknownOthers++
		}
	}
	ev.Sire.Status = SireCandidates
	if len(plausible) == 1 {
		r.presume(ev, plausible[0], unknownOthers)
	}
	r.presumeByDNA(ev, bySire)

	if len(cands) > MaxCandidates {
		r.capNotes = append(r.capNotes, fmt.Sprintf("Only %d of %d sire candidates are listed, the limit of candidates; the rest are left out, excluded ones first.", MaxCandidates, len(cands)))
		cands = cands[:MaxCandidates]
	}
	for _, c := range cands {
		ev.Sire.Candidates = append(ev.Sire.Candidates, r.output(c))
		r.candNotes = append(r.candNotes, c.notes...)
	}
}

// newCandidate starts a candidate with his conception window: the farm's, or that of his
// breed when gestation_days_by_breed names it.
func (r *reviewer) newCandidate(id string) *candidate {
	c := &candidate{id: id, win: interval{r.ws, r.we}}
	pr := r.profileOf(id)
	c.gestation, c.gestBreed = r.settings.gestationFor(pr.breed)
	if c.gestBreed != "" {
		c.win = interval{max(r.birth-c.gestation.Max, minDay), r.birth - c.gestation.Min}
	}
	return c
}

func eligRank(e Eligibility) int {
	switch e {
	case EligibilityPlausible:
		return 0
	case EligibilityUnknown:
		return 1
	}
	return 2
}

func intersect(x, y interval) (interval, bool) {
	z := interval{max(x.a, y.a), min(x.b, y.b)}
	return z, z.a <= z.b
}

// mergeIntervals sorts spans and joins those that overlap or touch, so a
// sire seen through several exposures gets one clean list of days.
func mergeIntervals(spans []interval) []interval {
	s := append([]interval(nil), spans...)
	sort.Slice(s, func(i, j int) bool {
		if s[i].a != s[j].a {
			return s[i].a < s[j].a
		}
		return s[i].b < s[j].b
	})
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && x.a <= out[n-1].b+1 {
			out[n-1].b = max(out[n-1].b, x.b)
			continue
		}
		out = append(out, x)
	}
	return out
}

// judge applies the eligibility rules to one candidate. Any recorded fact
// that rules him out excludes him; otherwise any missing fact the rules
// need leaves him unknown; otherwise he is plausible. Each rule that decided
// or informed the verdict leaves one reason.
func (r *reviewer) judge(c *candidate) {
	first, last := c.merged[0].a, c.merged[len(c.merged)-1].b
	a, z := formatDate(first), formatDate(last)
	days := 0
	for _, x := range c.merged {
		days += x.b - x.a + 1
	}
	how := "direct exposure with the dam"
	switch {
	case len(c.shared) > 0 || len(c.services) > 0:
		var ways []string
		if len(c.services) > 0 {
			ways = append(ways, "service")
		}
		if c.exposed {
			ways = append(ways, "direct exposure with the dam")
		}
		if c.viaGroup {
			ways = append(ways, "group exposure while the dam was a recorded member")
		}
		if len(c.shared) > 0 {
			ways = append(ways, "membership of a group shared with the dam (natural service)")
		}
		how = strings.Join(ways, " and ")
	case c.direct && c.viaGroup:
		how = "direct exposure and group exposure while the dam was a recorded member"
	case c.viaGroup:
		how = "group exposure while the dam was a recorded member"
	}

	excluded, unknown := false, false
	reasons := []string{fmt.Sprintf("Exposure facts place this animal with the dam on %d day(s) of the conception window, between %s and %s, by %s.", days, a, z, how)}
	if c.gestBreed != "" {
		reasons[0] = fmt.Sprintf("Exposure facts place this animal with the dam on %d day(s) of the conception window for a %s sire (%d to %d days of gestation: %s to %s), between %s and %s, by %s.",
			days, c.gestBreed, c.gestation.Min, c.gestation.Max, formatDate(c.win.a), formatDate(c.win.b), a, z, how)
	}
	reasons = append(reasons, r.serviceReasons(c)...)
	var notes []string
	exclude := func(s string) { excluded = true; reasons = append(reasons, "Excluded: "+s) }
	var unknownAt []int // which reasons only say something is missing
	unsure := func(s, note string) {
		unknown = true
		unknownAt = append(unknownAt, len(reasons))
		reasons = append(reasons, "Unknown: "+s)
		if note != "" {
			notes = append(notes, note)
		}
	}

	pr := r.profileOf(c.id)
	c.breed, c.breedDiff = pr.breed, pr.breedDiff
	switch {
	case pr.sexConflict:
		unsure("the profiles of this animal disagree on its sex.", fmt.Sprintf("The profiles of candidate %s disagree on his sex.", c.id))
	case pr.sex == SexFemale:
		exclude("the profile records this animal as female.")
	case pr.sex == SexMale:
		reasons = append(reasons, "The profile records this animal as male.")
	default:
		unsure("no profile fact records the sex of this animal, so neither sex nor intact status is established.", fmt.Sprintf("No profile fact records the sex of candidate %s.", c.id))
	}

	if cs := r.castrations[c.id]; len(cs) > 0 && cs[0] <= last {
		if cs[0] <= first {
			exclude(fmt.Sprintf("castrated on %s, on or before the overlap began on %s.", formatDate(cs[0]), a))
		} else {
			reasons = append(reasons, fmt.Sprintf("Castrated on %s, after the overlap began on %s, so intact at its start.", formatDate(cs[0]), a))
		}
	} else if pr.sex == SexMale {
		reasons = append(reasons, fmt.Sprintf("No castration is recorded by %s; castration is a recorded event, so this male counts as intact.", z))
	}

	// Semen and embryos are stored: a sire known only by inseminations and embryo transfers
	// need not have been on the farm, or alive, on their day, and was mature when collected.
	stored := len(c.services) > 0 && !c.exposed && !c.viaGroup && len(c.shared) == 0
	for _, sv := range c.services {
		stored = stored && sv.Kind != KindHandMating
	}
	minAge := r.settings.MinimumSireAgeDays
	switch {
	case stored && !pr.birthKnown:
	case pr.birthKnown && pr.birth > last:
		exclude(fmt.Sprintf("born on %s, after the overlap ended on %s.", formatDate(pr.birth), z))
	case pr.birthKnown && minAge != nil:
		age := last - pr.birth
		if age < *minAge {
			exclude(fmt.Sprintf("%d days old when the overlap ended on %s, younger than the minimum sire age of %d days.", age, z, *minAge))
		} else {
			reasons = append(reasons, fmt.Sprintf("%d days old when the overlap ended on %s, at least the minimum sire age of %d days.", age, z, *minAge))
		}
	case minAge != nil && pr.birthConflict:
		unsure("the profiles of this animal disagree on its birth date, so the minimum sire age cannot be checked.", fmt.Sprintf("The profiles of candidate %s disagree on his birth date.", c.id))
	case minAge != nil:
		unsure(fmt.Sprintf("no profile records the birth date of this animal, so the minimum sire age of %d days cannot be checked.", *minAge), fmt.Sprintf("No profile fact records the birth date of candidate %s, which the minimum sire age needs.", c.id))
	}

	var lastMove *pfact
	for _, m := range r.moves[c.id] {
		if m.date >= first {
			break
		}
		lastMove = m
	}
	if lastMove != nil && lastMove.Kind == KindMovementOut && !stored {
		var back *pfact
		for _, m := range r.moves[c.id] {
			if m.Kind != KindMovementOut && m.date >= first && m.date <= last {
				back = m
				break
			}
		}
		if back == nil {
			exclude(fmt.Sprintf("moved off the farm on %s, before the overlap began on %s, with no return recorded before it ended on %s.", lastMove.Date, a, z))
		} else {
			reasons = append(reasons, fmt.Sprintf("Moved off the farm on %s and back on %s (%s), during the overlap.", lastMove.Date, back.Date, back.Kind))
		}
	}

	if l := r.firstLeave(c.id, first); l != nil && !stored {
		exclude(fmt.Sprintf("%s on %s (record %s), before the overlap began on %s.", leaveVerb(l), l.Date, l.RecordID, a))
	} else if l := r.firstLeave(c.id, last); l != nil {
		reasons = append(reasons, fmt.Sprintf("%s on %s (record %s), during the overlap: only the days up to then count.", leaveVerb(l), l.Date, l.RecordID))
	}
	if d := r.dnaExcluded[c.id]; d != nil {
		exclude(fmt.Sprintf("a DNA parentage test%s on %s (record %s) excluded this animal as sire of offspring %s: result %s.", labText(d), d.Date, d.RecordID, d.OffspringID, d.Result))
	}

	if d := r.damArrival; d != nil {
		unsure(fmt.Sprintf("the dam arrived on the farm on %s, after the conception window began on %s, so exposure before her arrival is not on record.", d.Date, formatDate(r.ws)), "")
	}
	if d := r.damDeparture; d != nil {
		unsure(fmt.Sprintf("the dam left the farm on %s, inside the conception window, so exposure while she was away is not on record.", d.Date), "")
	}

	switch {
	case excluded:
		// A recorded fact settled it: what is missing neither decided nor
		// limited the verdict, so it is not reported for this candidate.
		c.elig = EligibilityExcluded
		notes = nil
		kept := reasons[:0]
		for i, s := range reasons {
			if !slices.Contains(unknownAt, i) {
				kept = append(kept, s)
			}
		}
		reasons = kept
	case unknown:
		c.elig = EligibilityUnknown
	default:
		c.elig = EligibilityPlausible
	}
	c.reasons, c.notes = reasons, notes
}

// presume names the sole plausible candidate as the presumed sire.
func (r *reviewer) presume(ev *Evidence, c *candidate, unknownOthers int) {
	s := &ev.Sire
	s.Status = SirePresumed
	s.AnimalID = c.id
	conf := confidence(c, c.win.a, c.win.b, unknownOthers, r.settings.MinimumSireAgeDays != nil)
	s.Confidence = &conf

	text := "Presumed from exposure records " + listIDs(sortedSet(c.expRec), 10)
	switch {
	case len(c.expRec) == 0:
		text = "Presumed from natural service"
	case len(c.services) == len(c.expRec):
		text = "Presumed from service records " + listIDs(sortedSet(c.expRec), 10)
	case len(c.services) > 0:
		text = "Presumed from service and exposure records " + listIDs(sortedSet(c.expRec), 10)
	}
	if len(c.memRec) > 0 {
		if len(c.expRec) == 0 {
			text += " by membership records " + listIDs(sortedSet(c.memRec), 10)
		} else {
			text += " and membership records " + listIDs(sortedSet(c.memRec), 10)
		}
	}
	text += fmt.Sprintf(": the only plausible candidate with the dam in the conception window from %s to %s.", formatDate(r.ws), formatDate(r.we))
	if unknownOthers > 0 {
		text += fmt.Sprintf(" %d other candidate(s) could be neither confirmed nor ruled out.", unknownOthers)
	}
	text += " This is a review score from the records, not a DNA result."
	s.Provenance = truncate(text, MaxProvenance)

	damBreed := r.damProfile.breed
	switch {
	case damBreed != "" && c.breed != "":
		s.PresumedCross = truncate(c.breed+" × "+damBreed, MaxPresumedCross) // the sire first, as breeders write it
	case damBreed == "" && c.breed == "":
		r.damNotes = append(r.damNotes, "presumed_cross is left out because neither the dam's breed nor the presumed sire's breed is known.")
	case damBreed == "":
		r.damNotes = append(r.damNotes, "presumed_cross is left out because the dam's breed is not known.")
	default:
		r.damNotes = append(r.damNotes, "presumed_cross is left out because the presumed sire's breed is not known.")
	}
}

// confidence is the review score of a presumed sire, in hundredths so that
// the figure is exact and identical on every platform:
//
//	40  base: exactly one plausible candidate
//	+15 at least one exposure was directly with the dam
//	+15 the exposures cover the whole conception window
//	+10 no other candidate is left unknown
//	+10 a minimum sire age is configured, so his age was checked
//
// The highest score is 0.90: records never prove parentage.
func confidence(c *candidate, ws, we, unknownOthers int, ageChecked bool) float64 {
	score := 40
	if c.direct {
		score += 15
	}
	if len(c.merged) == 1 && c.merged[0].a == ws && c.merged[0].b == we {
		score += 15
	}
	if unknownOthers == 0 {
		score += 10
	}
	if ageChecked {
		score += 10
	}
	return float64(score) / 100
}

// listIDs lists up to n ids and counts the rest.
func listIDs(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}

// output turns a candidate into its JSON form, applying every SPEC cap and
// noting each cut.
func (r *reviewer) output(c *candidate) Candidate {
	var cut []string
	capIDs := func(name string, ids []string) []string {
		ids = sortedSet(ids)
		if len(ids) > MaxIDs {
			cut = append(cut, fmt.Sprintf("%s (%d)", name, len(ids)))
			ids = ids[:MaxIDs]
		}
		return ids
	}
	out := Candidate{
		AnimalID:                c.id,
		Eligibility:             c.elig,
		ExposureRecordIDs:       capIDs("exposure_record_ids", c.expRec),
		ExposureRecordItemIDs:   capIDs("exposure_record_item_ids", c.expItem),
		MembershipRecordIDs:     capIDs("membership_record_ids", c.memRec),
		MembershipRecordItemIDs: capIDs("membership_record_item_ids", c.memItem),
		OverlapIntervals:        []Interval{},
		Breed:                   c.breed,
		GestationDays:           &Range{Min: c.gestation.Min, Max: c.gestation.Max},
		GestationBreed:          c.gestBreed,
	}
	for _, sv := range c.services {
		out.Services = append(out.Services, sv.Fact)
	}
	out.Exposed = c.exposed || c.viaGroup
	for _, sh := range c.shared {
		out.Shared = append(out.Shared, SharedRun{GroupID: sh.group, Interval: Interval{StartDate: formatDate(sh.span.a), EndDate: formatDate(sh.span.b)}})
	}
	if len(c.merged) > 0 {
		// From the birth back to the last and the first day of his overlaps.
		out.ImpliedGestationDays = &Range{Min: r.birth - c.merged[len(c.merged)-1].b, Max: r.birth - c.merged[0].a}
	}
	merged := c.merged
	if len(merged) > MaxOverlapIntervals {
		cut = append(cut, fmt.Sprintf("overlap_intervals (%d)", len(merged)))
		merged = merged[:MaxOverlapIntervals]
	}
	for _, x := range merged {
		out.OverlapIntervals = append(out.OverlapIntervals, Interval{StartDate: formatDate(x.a), EndDate: formatDate(x.b)})
	}
	reasons := c.reasons
	if len(reasons) > MaxReasons {
		cut = append(cut, fmt.Sprintf("reasons (%d)", len(reasons)))
		reasons = reasons[:MaxReasons]
	}
	out.Reasons = make([]string, len(reasons))
	for i, s := range reasons {
		out.Reasons[i] = truncate(s, MaxReasonLength)
	}
	if len(cut) > 0 {
		r.capNotes = append(r.capNotes, fmt.Sprintf("For candidate %s these lists were cut to their limit, the first entries kept: %s.", c.id, strings.Join(cut, ", ")))
	}
	if c.breedDiff {
		r.candNotes = append(r.candNotes, fmt.Sprintf("The profiles of candidate %s disagree on his breed, so it is left out.", c.id))
	}
	return out
}

// unresolved assembles the unresolved lines, most important first, within
// the SPEC cap. When lines must be dropped the last slot says how many.
func (r *reviewer) unresolved() []string {
	var all []string
	for _, part := range [][]string{r.general, r.damNotes, r.capNotes, r.candNotes, r.skipped} {
		all = append(all, part...)
	}
	if len(all) > MaxUnresolved {
		dropped := len(all) - (MaxUnresolved - 1)
		all = append(all[:MaxUnresolved-1], fmt.Sprintf("%d further unresolved lines were left out, the limit of unresolved.", dropped))
	}
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = truncate(s, MaxUnresolvedLength)
	}
	return out
}

// firstLeave returns the animal's first sale or death dated before day, or nil.
func (r *reviewer) firstLeave(id string, day int) *pfact {
	for _, l := range r.leaves[id] {
		if l.date < day {
			return l
		}
		break
	}
	return nil
}

func leaveVerb(l *pfact) string {
	if l.Kind == KindDeath {
		return "Died"
	}
	return "Sold"
}

func labText(d *pfact) string {
	if d.Lab == "" {
		return ""
	}
	return " by " + d.Lab
}

// presumeByDNA makes a sire qualified by a DNA parentage test of this birth's offspring the
// presumed sire, whatever the exposure records say, with provenance naming the DNA record.
// Conflicting qualifications (two sires) leave the status as it is, with a line.
func (r *reviewer) presumeByDNA(ev *Evidence, cands map[string]*candidate) {
	if len(r.dnaQualified) == 0 {
		return
	}
	parents := map[string]bool{}
	for _, d := range r.dnaQualified {
		parents[d.ParentID] = true
	}
	if len(parents) > 1 {
		r.damNotes = append(r.damNotes, fmt.Sprintf("DNA parentage tests qualify %d different sires for this birth's offspring, so none is presumed from them.", len(parents)))
		return
	}
	d := r.dnaQualified[len(r.dnaQualified)-1]
	if x := r.dnaExcluded[d.ParentID]; x != nil {
		r.damNotes = append(r.damNotes, fmt.Sprintf("DNA parentage records both qualify (record %s) and exclude (record %s) animal %s as sire, so none is presumed from them.", d.RecordID, x.RecordID, d.ParentID))
		return
	}
	s := &ev.Sire
	s.Status = SirePresumed
	s.AnimalID = d.ParentID
	// The score's top: a qualified DNA result is the most direct record the review reads.
	// It is still a review score, not the laboratory's probability.
	conf := 0.90
	s.Confidence = &conf
	s.Provenance = truncate(fmt.Sprintf("Presumed from DNA parentage record %s (record item %s): a test%s on %s qualified this animal as sire of offspring %s.",
		d.RecordID, d.RecordItemID, labText(d), d.Date, d.OffspringID), MaxProvenance)
	s.PresumedCross = ""
	if c := cands[d.ParentID]; c != nil && c.elig == EligibilityExcluded {
		r.damNotes = append(r.damNotes, fmt.Sprintf("The DNA-qualified sire %s is excluded by the records (%s); check those records.", d.ParentID, strings.TrimPrefix(lastExcluded(c.reasons), "Excluded: ")))
	}
	breed := r.profileOf(d.ParentID).breed
	if damBreed := r.damProfile.breed; damBreed != "" && breed != "" {
		s.PresumedCross = truncate(breed+" × "+damBreed, MaxPresumedCross)
	}
}

func lastExcluded(reasons []string) string {
	for i := len(reasons) - 1; i >= 0; i-- {
		if strings.HasPrefix(reasons[i], "Excluded: ") {
			return reasons[i]
		}
	}
	return ""
}

// serviceReasons names each service and each shared membership that made c a candidate, in
// history order: "Service: insemination on 2025-06-10 (straw …, record …)." and "Natural
// service: member of group … with the dam from … to … (records …, …)."
func (r *reviewer) serviceReasons(c *candidate) []string {
	var out []string
	for _, sv := range c.services {
		var details []string
		switch sv.Kind {
		case KindInsemination:
			if sv.Straw != "" {
				details = append(details, "straw "+sv.Straw)
			}
			if sv.Technician != "" {
				details = append(details, "technician "+sv.Technician)
			}
		case KindEmbryoTransfer:
			if sv.Embryo != "" {
				details = append(details, "embryo "+sv.Embryo)
			}
			details = append(details, "donor "+sv.DamID)
		}
		details = append(details, "record "+sv.RecordID)
		out = append(out, fmt.Sprintf("Service: %s on %s (%s).", kindText(sv.Kind), sv.Date, strings.Join(details, ", ")))
	}
	shared := slices.Clone(c.shared)
	sort.Slice(shared, func(i, j int) bool {
		if shared[i].span.a != shared[j].span.a {
			return shared[i].span.a < shared[j].span.a
		}
		return shared[i].group < shared[j].group
	})
	for _, sh := range shared {
		out = append(out, fmt.Sprintf("Natural service: a member of group %s with the dam from %s to %s (membership records %s and %s).",
			sh.group, formatDate(sh.span.a), formatDate(sh.span.b), sh.his.RecordID, sh.hers.RecordID))
	}
	return out
}

// narrowing is the conception window a positive pregnancy check of the dam allows: a check
// that found her pregnant on day D with a foetal age of a to b days (one number: a = b) says
// she conceived between D − b and D − a; without a foetal age, on or before D. Only checks
// between the start of the widest window and the birth count (a check before it is of an
// earlier pregnancy); several narrow together. ok is false when no check narrows, or when
// the checks contradict the window (then a line says so and nothing is narrowed).
func (r *reviewer) narrowing() (interval, bool) {
	if r.narrowDone {
		return r.narrowed, r.narrowOK
	}
	r.narrowDone = true
	x := interval{minDay, r.birth}
	found := false
	var used []string
	for _, ck := range r.checks {
		if ck.Result != ResultPregnant || ck.date < r.sws || ck.date >= r.birth {
			continue
		}
		y := interval{minDay, ck.date}
		switch {
		case ck.FoetalAgeDays != nil:
			y = interval{ck.date - *ck.FoetalAgeDays, ck.date - *ck.FoetalAgeDays}
		case ck.FoetalAgeMinDays != nil && ck.FoetalAgeMaxDays != nil:
			y = interval{ck.date - *ck.FoetalAgeMaxDays, ck.date - *ck.FoetalAgeMinDays}
		}
		z, ok := intersect(x, y)
		if !ok {
			r.damNotes = append(r.damNotes, fmt.Sprintf("The pregnancy checks of the dam (records %s) disagree on when she conceived, so none narrowed the conception window.", strings.Join(append(used, ck.RecordID), ", ")))
			return interval{}, false
		}
		x, found = z, true
		used = append(used, ck.RecordID)
	}
	if !found {
		return interval{}, false
	}
	if _, ok := intersect(x, interval{r.sws, r.swe}); !ok {
		r.damNotes = append(r.damNotes, fmt.Sprintf("The positive pregnancy check(s) of the dam (records %s) date her conception from %s to %s, outside every conception window of this birth, so they did not narrow it.",
			strings.Join(used, ", "), formatDate(x.a), formatDate(x.b)))
		return interval{}, false
	}
	r.damNotes = append(r.damNotes, fmt.Sprintf("A positive pregnancy check (records %s) narrows conception to %s to %s.", strings.Join(used, ", "), formatDate(max(x.a, r.sws)), formatDate(min(x.b, r.swe))))
	r.narrowed, r.narrowOK = x, true
	return x, true
}
