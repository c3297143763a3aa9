package herdbook

import (
	"context"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/holding"
	"github.com/herdbook/herdbook/ent/holdingfarm"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/registry/breed"
)

// The passport (docs/registry.md, "Passport"): what a GB cattle passport carries, as the book
// knows it on a date — the official ear tag, birth date, sex, breed and its official code,
// the genetic and surrogate dams, the sire, and the animal's movements with the holdings
// they were from and to. Everything is computed from the dated facts, as the register's
// profiles are; nothing here is stored.

// Movement events of a passport.
const (
	PassportBirth     = "birth"
	PassportArrival   = "arrival"
	PassportDeparture = "departure"
)

// Passport is an animal's passport as of a date.
type Passport struct {
	AnimalID uuid.UUID
	FarmID   uuid.UUID
	AsOf     string
	// OfficialTag is the official ear tag number (the tag, or an official visual
	// identifier valid on AsOf), in its printed spacing; Tag is the farm's tag as written.
	OfficialTag string
	Tag         string
	Name        *string
	BirthDate   *string
	Sex         *string
	// Breed is the breed as the book records it; BreedCode its official code under
	// BreedScheme, the breed list of the registry of the farm's holding (registry/breed).
	// BreedCode is nil when the breed is unknown to that list, or the farm is on no holding
	// whose registry's list Herdbook has; BreedScheme is nil in the latter case.
	Breed       *string
	BreedCode   *string
	BreedScheme *string
	// GeneticDam is the animal's genetic dam (the donor of an embryo-transfer calf, else its
	// dam); SurrogateDam the dam that carried an embryo-transfer calf (nil otherwise); Sire
	// its sire. Each is nil when the book names none.
	GeneticDam   *PassportParent
	SurrogateDam *PassportParent
	Sire         *PassportParent
	// Holding is the holding the farm is on (nil when on none): the holding of every
	// movement of this passport.
	Holding *PassportHolding
	// Movements are the animal's births, arrivals and departures recorded on this farm,
	// dated on or before AsOf, oldest first.
	Movements []PassportMovement
}

// PassportParent is a parent as a passport names it: an animal of the farm by its official
// tag, or an outside animal (an AI sire, a donor) by its name and registration.
type PassportParent struct {
	AnimalID uuid.UUID
	// Outside is true for an outside animal (outsideanimal.go).
	Outside            bool
	Tag                *string
	Name               *string
	Registry           *string
	RegistrationNumber *string
}

// PassportHolding is a holding by its scheme and number (registry/scheme's spelling).
type PassportHolding struct {
	Scheme string
	Number string
}

// PassportMovement is one movement of a passport.
type PassportMovement struct {
	// Event is birth (on this holding), arrival or departure; Kind the fact's kind (birth,
	// purchase, movement_in, sale, movement_out, death).
	Event string
	Kind  string
	Date  string
	// From and To are the holdings moved between: for a birth To is this farm's holding; for
	// an arrival From is the other holding the fact names and To this farm's; a departure the
	// reverse. Either is nil when unknown (a farm on no holding, a fact naming no holding, a
	// death).
	From *PassportHolding
	To   *PassportHolding
	// Disposal is a death's disposal route, when recorded.
	Disposal *string
}

// passportKinds orders movements of one day: a birth, then arrivals, then departures.
var passportKinds = map[evidence.Kind]struct {
	event string
	order int
}{
	evidence.KindBirth:       {PassportBirth, 0},
	evidence.KindPurchase:    {PassportArrival, 1},
	evidence.KindMovementIn:  {PassportArrival, 1},
	evidence.KindSale:        {PassportDeparture, 2},
	evidence.KindMovementOut: {PassportDeparture, 2},
	evidence.KindDeath:       {PassportDeparture, 2},
}

// AnimalPassport returns an animal's passport as of asOf (YYYY-MM-DD, "" today), as the book
// stood at the context's known-at moment (READER of the farm, read:animals). An animal of
// another farm is ENOTFOUND. It reads the book in a constant number of statements whatever
// the animal's history: the permission, the animal, the farm's holding, the facts naming the
// animal, and, when the book names parents, the parents on the farm and the outside ones.
func (s *Service) AnimalPassport(ctx context.Context, farmID, animalID uuid.UUID, asOf string) (*Passport, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	var fe fieldErrors
	day := s.asOf(&fe, asOf)
	if err := fe.err(); err != nil {
		return nil, err
	}
	a, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.ID(animalID)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "animal", animalID)
	}
	h, err := s.Client(ctx).Holding.Query().Where(holding.HasFarmsWith(holdingfarm.FarmID(farmID))).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	facts, err := s.animalFacts(ctx, farmID, []uuid.UUID{animalID})
	if err != nil {
		return nil, err
	}
	key := animalID.String()
	prof := evidence.ProfilesOf([]string{key}, day, facts)[key]
	p := &Passport{AnimalID: animalID, FarmID: farmID, AsOf: day, OfficialTag: officialTag(a.Tag, prof.Identifiers), Tag: a.Tag,
		Name: a.Name, BirthDate: prof.BirthDate, Sex: prof.Sex, Breed: prof.Breed}
	if h != nil {
		p.Holding = &PassportHolding{Scheme: h.Scheme, Number: h.Identifier}
		if bs, ok := breed.OfHolding(h.Scheme); ok {
			p.BreedScheme = new(string(bs))
			if prof.Breed != nil {
				if code, ok := breed.Code(bs, *prof.Breed); ok {
					p.BreedCode = &code
				}
			}
		}
	}
	if err := s.passportParents(ctx, farmID, p, prof); err != nil {
		return nil, err
	}
	p.Movements = passportMovements(key, day, facts, p.Holding)
	return p, nil
}

// passportParents fills the dams and the sire: the farm's animals among them in one
// statement, the outside ones in another, each only when named.
func (s *Service) passportParents(ctx context.Context, farmID uuid.UUID, p *Passport, prof evidence.Profile) error {
	genetic, surrogate := prof.DamID, (*string)(nil)
	if prof.GeneticDamID != nil {
		genetic, surrogate = prof.GeneticDamID, prof.SurrogateDamID
	}
	named := map[*PassportParent]uuid.UUID{}
	var ids []uuid.UUID
	name := func(v *string, into **PassportParent) {
		if v == nil {
			return
		}
		id, err := uuid.Parse(*v)
		if err != nil {
			return
		}
		*into = &PassportParent{AnimalID: id}
		named[*into] = id
		ids = append(ids, id)
	}
	name(genetic, &p.GeneticDam)
	name(surrogate, &p.SurrogateDam)
	name(prof.SireID, &p.Sire)
	if len(ids) == 0 {
		return nil
	}
	onFarm, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(dedupe(ids)...)).All(ctx)
	if err != nil {
		return err
	}
	byID := make(map[uuid.UUID]*ent.Animal, len(onFarm))
	var rest []uuid.UUID
	for _, a := range onFarm {
		byID[a.ID] = a
	}
	for _, id := range ids {
		if byID[id] == nil {
			rest = append(rest, id)
		}
	}
	outside, err := s.outsideAnimals(ctx, farmID, rest)
	if err != nil {
		return err
	}
	for pp, id := range named {
		if a := byID[id]; a != nil {
			pp.Tag = new(officialTag(a.Tag, nil))
			pp.Name = a.Name
		} else if o := outside[id]; o != nil {
			pp.Outside, pp.Name, pp.Registry, pp.RegistrationNumber = true, &o.Name, o.Registry, o.RegistrationNumber
		}
	}
	return nil
}

// passportMovements lists the births, arrivals and departures of the animal dated on or
// before asOf, oldest first; facts that do not validate are skipped, as the profiles skip
// them.
func passportMovements(animalID, asOf string, facts []evidence.Fact, here *PassportHolding) []PassportMovement {
	type dated struct {
		m     PassportMovement
		order int
	}
	var out []dated
	for _, f := range facts {
		k, ok := passportKinds[f.Kind]
		if !ok || len(f.Date) < 10 || f.Date[:10] > asOf || len(f.Validate()) > 0 {
			continue
		}
		if f.Kind == evidence.KindBirth {
			if !slices.ContainsFunc(f.OffspringIDs, func(o string) bool { return strings.EqualFold(o, animalID) }) {
				continue
			}
		} else if !strings.EqualFold(f.AnimalID, animalID) {
			continue
		}
		m := PassportMovement{Event: k.event, Kind: string(f.Kind), Date: f.Date[:10]}
		var other *PassportHolding
		if f.HoldingScheme != "" && f.HoldingNumber != "" {
			other = &PassportHolding{Scheme: f.HoldingScheme, Number: f.HoldingNumber}
		}
		switch k.event {
		case PassportBirth:
			m.To = here
		case PassportArrival:
			m.From, m.To = other, here
		default:
			m.From, m.To = here, other
		}
		if f.Disposal != "" {
			m.Disposal = new(f.Disposal)
		}
		out = append(out, dated{m, k.order})
	}
	slices.SortStableFunc(out, func(a, b dated) int {
		if c := strings.Compare(a.m.Date, b.m.Date); c != 0 {
			return c
		}
		return a.order - b.order
	})
	ms := make([]PassportMovement, len(out))
	for i, d := range out {
		ms[i] = d.m
	}
	return ms
}
