package evidence

import "slices"

// Index holds a farm's facts so that the input of any birth's review can be picked from them
// in memory, as the service's loader picks it from the database: the dam's own facts (her
// profile, moves, memberships, services, scans and births), the exposures and memberships of
// every group she was a member of, and, for every animal those exposures, memberships and
// services name as a possible sire, his profile, castrations, moves, sales, deaths and
// memberships; the DNA results about the reviewed birth's offspring. Review of Index.Input
// gives the same sire, candidates and reasons as Review over every fact of the farm
// (FuzzIndex holds it to that); only a note about group exposures that no membership ties
// to the dam can differ, as it does for the database loader.
//
// It serves a caller that reviews many births of one farm at once from facts it loaded
// already (the pedigree weighs the candidates of every birth without a sire), so that the
// review runs once per birth with no statement of its own and no second reading of the
// rules. Facts that do not parse are left out.
type Index struct {
	settings *Settings
	facts    []Fact
	prepared []*pfact
	byAnimal map[string][]int // facts naming an animal in any role
	byGroup  map[string][]int // exposures and memberships of a group
	// male holds the animals whose profiles, read as the review reads them, record a male:
	// only they can serve by sharing a group with the dam.
	male map[string]bool
}

// sireFactKinds are the facts of a possible sire that the review reads.
var sireFactKinds = map[Kind]bool{KindProfile: true, KindCastration: true, KindPurchase: true,
	KindMovementIn: true, KindMovementOut: true, KindSale: true, KindDeath: true,
	KindMembership: true, KindMembershipEnd: true}

// NewIndex indexes facts for reviews under settings.
func NewIndex(settings *Settings, facts []Fact) *Index {
	x := &Index{settings: settings, byAnimal: map[string][]int{}, byGroup: map[string][]int{}, male: map[string]bool{}}
	profiles := &reviewer{profiles: map[string][]*pfact{}}
	for _, f := range facts {
		p, errs := prepare(f)
		if errs != nil {
			continue
		}
		i := len(x.facts)
		x.facts, x.prepared = append(x.facts, f), append(x.prepared, p)
		seen := map[string]bool{}
		add := func(id string) {
			if id = normID(id); id != "" && !seen[id] {
				seen[id] = true
				x.byAnimal[id] = append(x.byAnimal[id], i)
			}
		}
		add(p.AnimalID)
		add(p.DamID)
		add(p.SireID)
		add(p.RecipientID)
		add(p.OffspringID)
		switch p.Kind {
		case KindProfile:
			profiles.profiles[p.AnimalID] = append(profiles.profiles[p.AnimalID], p)
		case KindExposure, KindMembership:
			if p.GroupID != "" {
				x.byGroup[p.GroupID] = append(x.byGroup[p.GroupID], i)
			}
		}
	}
	for id, ps := range profiles.profiles {
		sortFacts(ps)
		x.male[id] = profiles.profileOf(id).sex == SexMale
	}
	return x
}

// Input is the input of the review of dam's birth on birthDate: the index's settings and
// the facts that can bear on it.
func (x *Index) Input(dam, birthDate string) Input {
	dam = normID(dam)
	in := Input{Settings: x.settings, DamID: dam, BirthDate: birthDate}
	scope := ScopeOf(in)
	taken := map[int]bool{}
	var picked []int
	take := func(i int) bool {
		if taken[i] || !scope.keep(x.prepared[i]) {
			return false
		}
		taken[i] = true
		picked = append(picked, i)
		return true
	}
	sires := map[string]bool{}
	var kids []string
	for _, i := range x.byAnimal[dam] {
		if !take(i) {
			continue
		}
		f := &x.facts[i]
		switch {
		case f.Kind == KindMembership && normID(f.AnimalID) == dam:
			for _, j := range x.byGroup[normID(f.GroupID)] {
				// A span that ended before the widest conception window began places no
				// sire in it (the database loader skips it alike).
				// Only a recorded male's membership can place a sire (the database loader
				// reads no other).
				if g := x.prepared[j]; g.EndDate != "" && g.EndDate < scope.From || g.Kind == KindMembership && !x.male[g.AnimalID] {
					continue
				}
				if take(j) {
					switch g := x.prepared[j]; {
					case g.Kind == KindExposure:
						sires[g.SireID] = true
					case x.male[g.AnimalID]:
						sires[g.AnimalID] = true // natural service by a co-member
					}
				}
			}
		case f.Kind == KindExposure && normID(f.DamID) == dam, IsService(f.Kind) && servedFemale(f) == dam:
			sires[normID(f.SireID)] = true
		case f.Kind == KindBirth && normID(f.DamID) == dam && f.Date == birthDate:
			kids = append(kids, f.OffspringIDs...)
		}
	}
	delete(sires, "")
	delete(sires, dam)
	for s := range sires {
		for _, i := range x.byAnimal[s] {
			f := &x.facts[i]
			if sireFactKinds[f.Kind] && normID(f.AnimalID) == s {
				take(i)
			}
		}
	}
	for _, k := range kids {
		for _, i := range x.byAnimal[normID(k)] {
			if f := &x.facts[i]; f.Kind == KindDNAParentage && normID(f.OffspringID) == normID(k) {
				take(i)
			}
		}
	}
	// The review sorts its facts itself; they are handed over in the index's order all the
	// same, so that the input does not follow the map of sires from run to run.
	slices.Sort(picked)
	in.Facts = make([]Fact, len(picked))
	for k, i := range picked {
		in.Facts[k] = x.facts[i]
	}
	return in
}
