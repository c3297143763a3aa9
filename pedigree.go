package herdbook

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/pedigree"
)

// Pedigree, kinship and inbreeding (docs/pedigree.md). The farm's parentage is read from its
// dated facts as of today: the dam and sire of a birth fact, outweighed by qualified DNA
// results (an excluded parent is no parent), as the register's profiles read them. A birth
// whose sire no fact names is reviewed as the birth review reviews it, and its candidate
// sires stand in for the sire with equal weights over the plausible ones (over the ones the
// review could neither confirm nor rule out, when none is plausible; excluded ones never
// count). The relationships are then Henderson's average relationships over the candidates
// (package pedigree). The whole farm's parentage is loaded in a constant number of statements
// and kept for the request, so that a page of animals asking for their inbreeding costs no
// more than one animal.

// Bounds of a pedigree's depth.
const (
	MinPedigreeDepth     = 1
	MaxPedigreeDepth     = 8
	DefaultPedigreeDepth = 3
)

// AnimalPedigree is an animal's pedigree: its inbreeding coefficient, the animals whose
// uncertain paternity makes that an expectation, and its ancestors to a depth.
type AnimalPedigree struct {
	AnimalID uuid.UUID
	// Inbreeding is Wright's inbreeding coefficient F, the expectation over uncertain sires.
	Inbreeding float64
	// UncertainAncestors are the animal itself, when its paternity is uncertain, and every
	// ancestor at any depth whose paternity is uncertain, older first.
	UncertainAncestors []string
	// Ancestors are the places of the pedigree chart up to the depth asked for.
	Ancestors []pedigree.Ancestor
}

// MatingAdvice is one bull for a dam, with the expected inbreeding of their calf.
type MatingAdvice struct {
	Sire *ent.Animal
	// ExpectedInbreeding is the expected F of the calf: the coancestry of dam and sire.
	ExpectedInbreeding float64
}

// farmParentage is a farm's parentage as of a day, loaded once per request.
type farmParentage struct {
	day   string
	ped   *pedigree.Pedigree
	facts []evidence.Fact

	// The farm's active animals and their profiles as of day, for the mating advice, read
	// once per parentage (activeProfiles).
	mu       sync.Mutex
	animals  []*ent.Animal
	profiles map[string]evidence.Profile
}

// activeProfiles answers the farm's active animals and their profiles as of fp.day, loading
// them with load the first time. A kept parentage belongs to one position of the farm's
// change counter, which every animal's creation or deletion moves, so the animals it saw are
// the farm's for as long as it is used; the profiles of 10,000 animals were most of the
// mating advice's cost.
func (fp *farmParentage) activeProfiles(load func() ([]*ent.Animal, error)) ([]*ent.Animal, map[string]evidence.Profile, error) {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	if fp.profiles == nil {
		animals, err := load()
		if err != nil {
			return nil, nil, err
		}
		ids := make([]string, len(animals))
		for i, a := range animals {
			ids[i] = a.ID.String()
		}
		fp.animals, fp.profiles = animals, evidence.ProfilesOf(ids, fp.day, fp.facts)
	}
	return fp.animals, fp.profiles, nil
}

// parentageKinds are the fact kinds the parentage reads: births, pedigrees (a bought-in
// animal's papers), DNA results and embryo transfers for the parents, and what the birth review (services, scans, memberships) and the
// profiles of bulls need.
var parentageKinds = []string{string(evidence.KindBirth), string(evidence.KindDNAParentage),
	string(evidence.KindProfile), string(evidence.KindCastration), string(evidence.KindExposure),
	string(evidence.KindMembership), string(evidence.KindPurchase), string(evidence.KindMovementIn),
	string(evidence.KindMovementOut), string(evidence.KindSale), string(evidence.KindDeath),
	string(evidence.KindEmbryoTransfer), string(evidence.KindInsemination), string(evidence.KindHandMating),
	string(evidence.KindMembershipEnd), string(evidence.KindPregnancyCheck), string(evidence.KindPedigree)}

// parentage returns the farm's parentage as of today, from the request's scope when it was
// loaded already: two statements (the settings and the facts) otherwise. The caller checked
// the viewer's membership.
func (s *Service) parentage(ctx context.Context, farmID uuid.UUID) (*farmParentage, error) {
	return onceInRequest(ctx, "parentage "+farmID.String(), func() (*farmParentage, error) { return s.loadParentage(ctx, farmID) })
}

func (s *Service) loadParentage(ctx context.Context, farmID uuid.UUID) (*farmParentage, error) {
	settings, err := s.birthSettings(ctx, farmID)
	if err != nil {
		return nil, err
	}
	// The parsed facts come from records only, so they are kept by the farm's change counter
	// (derived.go): parsing every parentage fact of the farm was most of an animal page's
	// pedigree (60-70 ms on a farm of 1,200). The outside animals' profiles and the settings,
	// which the counter does not follow, are added and applied at each load, to a copy (the
	// kept slice is shared).
	facts, _, err := keptUnless(ctx, s, farmID, "parentage facts", parentageKinds, func() ([]evidence.Fact, error) { return s.parentageFacts(ctx, farmID) })
	if err != nil {
		return nil, err
	}
	facts = slices.Clip(facts)
	kept := len(facts)
	// Outside animals (AI sires, donors) have no facts: their recorded sex and breed stand in
	// for a profile in the reviews, as in the birth review's loader (one more statement, only
	// when a service or an exposure names a sire no profile fact records).
	facts, err = s.withOutsideProfiles(ctx, farmID, facts, func(f evidence.Fact) bool {
		return evidence.IsService(f.Kind) || f.Kind == evidence.KindExposure
	})
	if err != nil {
		return nil, err
	}
	// The parentage built from them is kept too (its pedigree computes its coefficients once,
	// safely shared): the reviews of every presumed sire and the profiles of every animal
	// were most of the mating advice and an animal's pedigree, 100 to 160 ms on 10,000
	// animals at every visit. Its name holds what the counter does not follow: the day, the
	// settings' version and the outside animals' profiles added.
	day := s.nowUTC().Format(time.DateOnly)
	name := fmt.Sprintf("parentage %s %s v%d", day, settings.Species, settings.Version) + profilesKey(facts[kept:])
	fp, _, err := keptUnless(ctx, s, farmID, name, parentageKinds, func() (*farmParentage, error) { return buildParentage(day, settings.Settings, facts) })
	return fp, err
}

// parentageFacts reads and parses the farm's live facts of the parentage's kinds.
func (s *Service) parentageFacts(ctx context.Context, farmID uuid.UUID) ([]evidence.Fact, error) {
	items, err := s.Client(ctx).RecordItem.Query().
		Where(recorditem.FactKindIn(parentageKinds...), itemsOfFarm(farmID, liveRecord(ctx)), withFactJSON).
		Select(recorditem.FieldID, recorditem.FieldRecordID).All(ctx)
	if err != nil {
		return nil, err
	}
	facts := make([]evidence.Fact, 0, len(items))
	for _, it := range items {
		var raw []byte
		if err := scanValue(it, factJSONCol, func(b []byte) error { raw = b; return nil }); err != nil {
			return nil, err
		}
		if raw == nil {
			continue
		}
		f, errs := evidence.ParseFact(raw)
		if len(errs) > 0 {
			continue
		}
		f.RecordID, f.RecordItemID = it.RecordID.String(), it.ID.String()
		facts = append(facts, f)
	}
	return facts, nil
}

// buildParentage works out every animal's dam and sires from the facts, as of day.
func buildParentage(day string, settings *evidence.Settings, facts []evidence.Fact) (*farmParentage, error) {
	// The offspring any birth or DNA fact names, and the births by offspring.
	type birth struct{ dam, date string }
	births := map[string][]birth{}
	// Embryo transfers by recipient: a calf she carried is the donor's and the transfer's
	// sire's (genetic parents), not hers.
	transfers := map[string][]evidence.Fact{}
	calved := map[string][]string{} // the days each dam gave birth to a calf the facts name
	var offspring []string
	seen := map[string]bool{}
	note := func(id string) {
		id = strings.ToLower(id)
		if !seen[id] {
			seen[id] = true
			offspring = append(offspring, id)
		}
	}
	for _, f := range facts {
		switch f.Kind {
		case evidence.KindBirth:
			if f.Date > day {
				continue
			}
			for _, o := range f.OffspringIDs {
				note(o)
				births[strings.ToLower(o)] = append(births[strings.ToLower(o)], birth{strings.ToLower(f.DamID), f.Date})
				calved[strings.ToLower(f.DamID)] = append(calved[strings.ToLower(f.DamID)], f.Date)
			}
		case evidence.KindDNAParentage:
			if f.Date <= day {
				note(f.OffspringID)
			}
		case evidence.KindPedigree:
			if f.Date <= day {
				note(f.AnimalID)
			}
		case evidence.KindEmbryoTransfer:
			if f.Date <= day {
				transfers[strings.ToLower(f.RecipientID)] = append(transfers[strings.ToLower(f.RecipientID)], f)
			}
		}
	}
	slices.Sort(offspring)
	profiles := evidence.ProfilesOf(offspring, day, facts)
	fp := &farmParentage{day: day, facts: facts}
	var index *evidence.Index
	reviewed := map[[2]string][]pedigree.Sire{} // twins share their review
	animals := make([]pedigree.Animal, 0, len(offspring))
	for _, id := range offspring {
		p := profiles[id]
		a := pedigree.Animal{ID: id}
		if p.DamID != nil {
			a.Dam = *p.DamID
		}
		// The newest birth of this dam that names the animal.
		var on string
		for _, b := range births[id] {
			if b.dam == a.Dam && b.date > on {
				on = b.date
			}
		}
		// An embryo-transfer calf is its genetic dam's: the one its birth names
		// (genetic_dam_id, as the calving records it, or a DNA result's dam), else the donor
		// of the transfer its dam carried. The surrogate's own services did not sire it.
		et := transferCarried(transfers[a.Dam], calved[a.Dam], on, settings)
		carried := p.GeneticDamID != nil || et != nil
		switch {
		case p.GeneticDamID != nil:
			a.Dam = strings.ToLower(*p.GeneticDamID)
		case et != nil:
			a.Dam = strings.ToLower(et.DamID)
		}
		if et != nil && strings.EqualFold(et.DamID, a.Dam) && p.SireID == nil {
			a.Sires = []pedigree.Sire{{ID: strings.ToLower(et.SireID), Probability: 1}}
		}
		switch {
		case p.SireID != nil:
			a.Sires = []pedigree.Sire{{ID: *p.SireID, Probability: 1}}
		case a.Sires != nil:
			// The embryo transfer's sire.
		case a.Dam != "" && on != "" && !carried && settings != nil && settings.GestationDays != nil:
			if index == nil {
				index = evidence.NewIndex(settings, facts)
			}
			key := [2]string{a.Dam, on}
			if _, ok := reviewed[key]; !ok {
				reviewed[key] = candidateSires(index, a.Dam, on)
			}
			a.Sires = reviewed[key]
			a.Presumed = len(a.Sires) > 0
		}
		animals = append(animals, a)
	}
	ped, err := pedigree.New(animals)
	if errors.Is(err, pedigree.ErrLoop) {
		return nil, Errorf(ECONFLICT, "the farm's birth and DNA facts make an animal its own ancestor (%s); correct those facts", strings.TrimPrefix(err.Error(), "pedigree: "))
	}
	if err != nil {
		return nil, err
	}
	fp.ped = ped
	return fp, nil
}

// transferCarried returns the embryo transfer that gave the calf its recipient dam bore on
// the day born: her newest transfer before that birth and after her previous one, no further
// back than the farm's longest gestation when that is set. Nil when she carried her own calf
// (no transfer), or when the birth is not known (born empty).
func transferCarried(ets []evidence.Fact, calved []string, born string, settings *evidence.Settings) *evidence.Fact {
	if born == "" || len(ets) == 0 {
		return nil
	}
	var previous string // her newest other birth before this one
	for _, day := range calved {
		if day < born && day > previous {
			previous = day
		}
	}
	var earliest string
	if settings != nil && settings.GestationDays != nil {
		if t, err := time.Parse(time.DateOnly, born); err == nil {
			earliest = t.AddDate(0, 0, -settings.GestationDays.Max).Format(time.DateOnly)
		}
	}
	var out *evidence.Fact
	for i := range ets {
		et := &ets[i]
		if et.Date >= born || et.Date <= previous || et.Date < earliest {
			continue
		}
		if out == nil || et.Date > out.Date {
			out = et
		}
	}
	return out
}

// candidateSires reviews the birth of dam on date as the birth review does, from the farm's
// facts in memory (evidence.Index picks what the review reads), and weighs its candidate
// sires: equally over the plausible ones, or over the unknown ones when none is plausible.
func candidateSires(x *evidence.Index, dam, date string) []pedigree.Sire {
	ev := evidence.Review(x.Input(dam, date))
	var plausible, unknown []string
	for _, c := range ev.Sire.Candidates {
		id := strings.ToLower(c.AnimalID)
		if id == dam {
			continue
		}
		switch c.Eligibility {
		case evidence.EligibilityPlausible:
			plausible = append(plausible, id)
		case evidence.EligibilityUnknown:
			unknown = append(unknown, id)
		}
	}
	if len(plausible) == 0 {
		plausible = unknown
	}
	var out []pedigree.Sire
	for _, s := range plausible {
		out = append(out, pedigree.Sire{ID: s, Probability: 1 / float64(len(plausible))})
	}
	return out
}

// farmAnimalsExist checks, in one statement, that every id is an animal of the farm (deleted
// ones included: a pedigree outlives its animals); the first that is not gives ENOTFOUND.
func (s *Service) farmAnimalsExist(ctx context.Context, farmID uuid.UUID, ids ...uuid.UUID) error {
	found, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(dedupe(ids)...)).IDs(IncludeInactive(ctx))
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !slices.Contains(found, id) {
			return Errorf(ENOTFOUND, "animal %s not found", id)
		}
	}
	return nil
}

// Pedigree answers an animal's pedigree to depth generations (0 means the default).
func (s *Service) Pedigree(ctx context.Context, farmID, animalID uuid.UUID, depth int) (AnimalPedigree, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return AnimalPedigree{}, err
	}
	if err := checkDepth(&depth); err != nil {
		return AnimalPedigree{}, err
	}
	if err := s.farmAnimalsExist(ctx, farmID, animalID); err != nil {
		return AnimalPedigree{}, err
	}
	return s.pedigreeOf(ctx, farmID, animalID, depth)
}

// PedigreeOf is Pedigree for an animal already loaded, as GraphQL has it: a page of animals
// asking for their pedigrees shares one load of the farm's parentage.
func (s *Service) PedigreeOf(ctx context.Context, a *ent.Animal, depth int) (AnimalPedigree, error) {
	if _, _, err := s.authorizeFarm(ctx, a.FarmID, RoleReader, ScopeReadAnimals); err != nil {
		return AnimalPedigree{}, err
	}
	if err := checkDepth(&depth); err != nil {
		return AnimalPedigree{}, err
	}
	return s.pedigreeOf(ctx, a.FarmID, a.ID, depth)
}

// checkDepth validates a pedigree's depth, setting the default for 0.
func checkDepth(depth *int) error {
	if *depth == 0 {
		*depth = DefaultPedigreeDepth
	}
	if *depth < MinPedigreeDepth || *depth > MaxPedigreeDepth {
		return Invalid(FieldError{Field: "depth", Message: fmt.Sprintf("must be an integer from %d to %d", MinPedigreeDepth, MaxPedigreeDepth)})
	}
	return nil
}

func (s *Service) pedigreeOf(ctx context.Context, farmID, animalID uuid.UUID, depth int) (AnimalPedigree, error) {
	fp, err := s.parentage(ctx, farmID)
	if err != nil {
		return AnimalPedigree{}, err
	}
	id := animalID.String()
	sub := fp.ped.Sub(id)
	f, _ := sub.Inbreeding(id)
	out := AnimalPedigree{AnimalID: animalID, Inbreeding: f, UncertainAncestors: sub.UncertainAncestry(id),
		Ancestors: sub.Ancestors(id, depth)}
	if out.UncertainAncestors == nil {
		out.UncertainAncestors = []string{}
	}
	if out.Ancestors == nil {
		out.Ancestors = []pedigree.Ancestor{}
	}
	return out, nil
}

// Inbreeding answers an animal's inbreeding coefficient F. Every animal of a farm asked in
// one request shares one load of the farm's parentage and one computation.
func (s *Service) Inbreeding(ctx context.Context, a *ent.Animal) (float64, error) {
	if _, _, err := s.authorizeFarm(ctx, a.FarmID, RoleReader, ScopeReadAnimals); err != nil {
		return 0, err
	}
	fp, err := s.parentage(ctx, a.FarmID)
	if err != nil {
		return 0, err
	}
	f, _ := fp.ped.Inbreeding(a.ID.String())
	return f, nil
}

// Kinship answers the coancestry of two animals of the farm: the probability that an allele
// drawn from one is identical by descent with one drawn from the other, half their additive
// relationship (Falconer & Mackay, ch. 5).
func (s *Service) Kinship(ctx context.Context, farmID, a, b uuid.UUID) (float64, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return 0, err
	}
	if err := s.farmAnimalsExist(ctx, farmID, a, b); err != nil {
		return 0, err
	}
	fp, err := s.parentage(ctx, farmID)
	if err != nil {
		return 0, err
	}
	return fp.ped.Sub(a.String(), b.String()).Coancestry(a.String(), b.String()), nil
}

// KinshipOf is Kinship for two animals named by id alone, as GraphQL asks: both must be
// animals of one farm the viewer is a member of.
func (s *Service) KinshipOf(ctx context.Context, a, b uuid.UUID) (*ent.Animal, *ent.Animal, float64, error) {
	x, err := s.animalFor(ctx, a, RoleReader, ScopeReadAnimals)
	if err != nil {
		return nil, nil, 0, err
	}
	y, err := s.animalFor(ctx, b, RoleReader, ScopeReadAnimals)
	if err != nil {
		return nil, nil, 0, err
	}
	if x.FarmID != y.FarmID {
		return nil, nil, 0, Invalid(FieldError{Field: "b", Message: "must be an animal of the same farm as a"})
	}
	k, err := s.Kinship(ctx, x.FarmID, a, b)
	return x, y, k, err
}

// MatingAdvice lists each bull of the farm available to serve the dam today, with the
// expected inbreeding of their calf, lowest first (then by tag). A bull is available when his
// profile says male, intact and on the farm, and, when the farm sets a minimum breeding age
// for males, when he is known to be at least that old. first, when given, keeps the best
// first of them (1 to MaxConnectionPage).
func (s *Service) MatingAdvice(ctx context.Context, farmID, damID uuid.UUID, first *int) ([]*MatingAdvice, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	if first != nil && (*first < 1 || *first > MaxConnectionPage) {
		return nil, Invalid(FieldError{Field: "first", Message: fmt.Sprintf("must be between 1 and %d", MaxConnectionPage)})
	}
	fp, err := s.parentage(ctx, farmID)
	if err != nil {
		return nil, err
	}
	animals, profiles, err := fp.activeProfiles(func() ([]*ent.Animal, error) {
		return s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID)).All(ctx)
	})
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(animals, func(a *ent.Animal) bool { return a.ID == damID }) {
		return nil, Errorf(ENOTFOUND, "animal %s not found", damID)
	}
	minAge, err := s.minimumMaleBreedingAge(ctx, farmID)
	if err != nil {
		return nil, err
	}
	dam := damID.String()
	if p := profiles[dam]; p.Sex != nil && *p.Sex == evidence.SexMale {
		return nil, Invalid(FieldError{Field: "damID", Message: "animal " + dam + " is male"})
	}
	today, _ := time.Parse(time.DateOnly, fp.day)
	var bulls []*ent.Animal
	var bullIDs []string
	for _, a := range animals {
		p := profiles[a.ID.String()]
		if a.ID == damID || p.Sex == nil || *p.Sex != evidence.SexMale || p.Intact == nil || !*p.Intact || p.Status != evidence.StatusOnFarm {
			continue
		}
		if minAge != nil {
			if p.BirthDate == nil {
				continue
			}
			born, err := time.Parse(time.DateOnly, *p.BirthDate)
			if err != nil || born.AddDate(0, 0, *minAge).After(today) {
				continue
			}
		}
		bulls = append(bulls, a)
		bullIDs = append(bullIDs, a.ID.String())
	}
	rel := fp.ped.Sub(append([]string{dam}, bullIDs...)...).RelationshipsTo(dam, bullIDs...)
	out := make([]*MatingAdvice, len(bulls))
	for i, b := range bulls {
		out[i] = &MatingAdvice{Sire: b, ExpectedInbreeding: rel[i] / 2}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].ExpectedInbreeding != out[j].ExpectedInbreeding {
			return out[i].ExpectedInbreeding < out[j].ExpectedInbreeding
		}
		if out[i].Sire.Tag != out[j].Sire.Tag {
			return out[i].Sire.Tag < out[j].Sire.Tag
		}
		return out[i].Sire.ID.String() < out[j].Sire.ID.String()
	})
	if first != nil && len(out) > *first {
		out = out[:*first]
	}
	return out, nil
}

// minimumMaleBreedingAge is the farm's minimum breeding age for males in days (farm
// settings, docs/settings.md), nil when unset: no default is shipped.
func (s *Service) minimumMaleBreedingAge(ctx context.Context, farmID uuid.UUID) (*int, error) {
	st, err := s.settings(ctx, farmID)
	if err != nil {
		return nil, err
	}
	return st.MinimumBreedingAgeDays.Male, nil
}
