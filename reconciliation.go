package herdbook

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/eid"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/registrycredential"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/breed"
	"github.com/herdbook/herdbook/registry/cts"
	"github.com/herdbook/herdbook/registry/notice"
	"github.com/herdbook/herdbook/registry/reconcile"
)

// Reconciliation (docs/registry.md): the registry's copy of a farm's holding, as a caller
// imports it (from the registry's web service or its herd list file), compared with the
// farm's register as of a date and as the book stood at a moment, by package
// registry/reconcile.

// MaxRegistryCopy bounds the animals of one registry copy.
const MaxRegistryCopy = 50000

// RegistryAnimal is one animal of a registry's copy; empty fields are unknown.
type RegistryAnimal struct {
	Tag       string `json:"tag"`
	Sex       string `json:"sex"`
	BirthDate string `json:"birth_date"`
	OnDate    string `json:"on_date"`
	Breed     string `json:"breed"`
	Dam       string `json:"dam"`
}

// RegistryCopy is a registry's copy of a holding and the view of the book to compare it with.
type RegistryCopy struct {
	// AsOf is the register's date (YYYY-MM-DD, "" today). The moment the book is read as it
	// stood comes with the context (Service.KnownAt).
	AsOf    string
	Animals []RegistryAnimal
	// HerdList is the registry's copy as the text of a CTS herd list (one animal a line,
	// "TAG BREED SEX BORN ARRIVED", as cts.ParseList reads it), for a caller that has the file
	// and not the animals: a keeper pasting or picking the list in the app. It is read here, so
	// every transport reads it alike; it is refused alongside Animals (one copy at a time).
	HerdList string
	// FromRegistry reads the registry's copy from the registry itself, through the adapter
	// the operator configured for the holding's scheme, with the keeper's saved credentials
	// (EDITOR of the farm: it speaks to the registry in the keeper's name).
	FromRegistry bool
}

// readHerdList puts the animals of in.HerdList into in.Animals, or says why it cannot.
func (in *RegistryCopy) readHerdList(fe *fieldErrors) {
	if in.HerdList == "" {
		return
	}
	if len(in.Animals) > 0 {
		fe.add("herd_list", "gives the registry's copy a second time: send the animals or the herd list, not both")
		return
	}
	list, err := cts.ParseList(strings.NewReader(in.HerdList))
	if err != nil {
		fe.add("herd_list", "is not a CTS herd list: %s", err.Error())
		return
	}
	in.Animals = make([]RegistryAnimal, len(list))
	for i, a := range list {
		in.Animals[i] = RegistryAnimal{Tag: a.Tag, Sex: a.Sex, BirthDate: a.BirthDate, OnDate: a.OnDate, Breed: a.Breed}
	}
}

// Reconciliation is the differences between a registry's copy and the book.
type Reconciliation struct {
	HoldingID   uuid.UUID
	AsOf        string
	Differences []reconcile.Difference
}

func (in RegistryCopy) validate(fe *fieldErrors) {
	if len(in.Animals) > MaxRegistryCopy {
		fe.add("animals", "must hold at most %d animals", MaxRegistryCopy)
		return
	}
	date := func(field, v string) {
		if v == "" {
			return
		}
		if _, err := time.Parse(time.DateOnly, v); err != nil || len(v) != 10 {
			fe.add(field, "must be a calendar date in the form YYYY-MM-DD")
		}
	}
	for i, a := range in.Animals {
		p := "animals[" + strconv.Itoa(i) + "]."
		validateName(fe, p+"tag", a.Tag, 1, 40)
		switch a.Sex {
		case "", "M", "F", "male", "female":
		default:
			fe.add(p+"sex", "must be M, F, male or female")
		}
		date(p+"birth_date", a.BirthDate)
		date(p+"on_date", a.OnDate)
		if a.Breed != "" {
			validateName(fe, p+"breed", a.Breed, 1, 20)
		}
		if a.Dam != "" {
			validateName(fe, p+"dam", a.Dam, 1, 40)
		}
		if len(*fe) >= maxTextFindings {
			return
		}
	}
}

// ReconcileRegistryCopy compares a registry's copy of the farm's holding with the farm's
// register (READER of the farm, read:animals), given as animals or as a CTS herd list's text
// (in.HerdList): the animals on the farm on in.AsOf, as the
// book stood at the context's known-at moment (Service.KnownAt). A farm on no holding is answered ENOTFOUND. It costs a constant
// number of statements whatever the herd.
//
// The book's side of each animal: its official tag (the animal's tag, or an official visual
// identifier), sex, birth date, genetic dam's tag (the dam's otherwise), and whether the book
// records its birth on the farm, and its breed's official code under the registry's breed
// list (registry/breed; a breed the list does not know stays unknown, so it never differs).
func (s *Service) ReconcileRegistryCopy(ctx context.Context, farmID uuid.UUID, in RegistryCopy) (*Reconciliation, error) {
	role := RoleReader
	if in.FromRegistry {
		role = RoleEditor
	}
	if _, _, err := s.authorizeFarm(ctx, farmID, role, ScopeReadAnimals); err != nil {
		return nil, err
	}
	var fe fieldErrors
	asOf := s.asOf(&fe, in.AsOf)
	if in.FromRegistry && (len(in.Animals) > 0 || in.HerdList != "") {
		fe.add("from_registry", "reads the registry's copy from the registry: send it without animals or a herd list")
	}
	in.readHerdList(&fe)
	in.validate(&fe)
	if err := fe.err(); err != nil {
		return nil, err
	}
	h, err := s.holdingOfFarm(ctx, farmID)
	if err != nil {
		return nil, err
	}
	if in.FromRegistry {
		if in.Animals, err = s.registryCopy(ctx, h); err != nil {
			return nil, err
		}
	}
	p, err := s.statusPredicate(ctx, farmID, asOf, evidence.StatusOnFarm)
	if err != nil {
		return nil, err
	}
	animals, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), p).All(ctx)
	if err != nil {
		return nil, err
	}
	profiles, err := s.withProfiles(ctx, farmID, animals, asOf)
	if err != nil {
		return nil, err
	}
	damTags, err := s.damTagsOf(ctx, farmID, profiles)
	if err != nil {
		return nil, err
	}
	b, err := s.deriveNotices(ctx, h, []uuid.UUID{farmID})
	if err != nil {
		return nil, err
	}
	bornHere := map[string]bool{}
	for _, n := range b.notices {
		if n.Kind == notice.KindBirth {
			bornHere[n.AnimalID] = true
		}
	}
	arrived := arrivals(b.entries, asOf)
	breeds, hasBreeds := breed.OfHolding(h.Scheme)
	book := make([]reconcile.Animal, 0, len(profiles))
	for _, ap := range profiles {
		id := ap.Animal.ID.String()
		a := reconcile.Animal{Tag: officialTag(ap.Animal.Tag, ap.Profile.Identifiers), BornHere: bornHere[id],
			Dam: damTags[ap.Animal.ID], OnDate: arrived[id]}
		if v := ap.Profile.Sex; v != nil {
			a.Sex = *v
		}
		if v := ap.Profile.BirthDate; v != nil {
			a.BirthDate = *v
		}
		if v := ap.Profile.Breed; v != nil && hasBreeds {
			a.Breed, _ = breed.Code(breeds, *v)
		}
		book = append(book, a)
	}
	reg := make([]reconcile.Animal, len(in.Animals))
	for i, a := range in.Animals {
		reg[i] = reconcile.Animal{Tag: officialTag(a.Tag, nil), Sex: a.Sex, BirthDate: a.BirthDate, OnDate: a.OnDate, Breed: a.Breed,
			Dam: officialTag(a.Dam, nil)}
		// The registry's code in its list's spelling (HI-Tier's 1 is its 01); a code the list
		// does not know is compared as given.
		if code, ok := breed.Code(breeds, a.Breed); ok && hasBreeds {
			reg[i].Breed = code
		}
	}
	return &Reconciliation{HoldingID: h.ID, AsOf: asOf, Differences: reconcile.Compare(reg, book)}, nil
}

// arrivals returns the day each animal came onto the farm, as of asOf: its latest arrival
// (a purchase or a move in) on or before that day, else its birth there (CTS's OnDate of a
// calf born on the holding is its birth date); animals with neither are left out (unknown).
func arrivals(entries []notice.Entry, asOf string) map[string]string {
	out := map[string]string{}
	born := map[string]string{}
	for _, e := range entries {
		f := e.Fact
		if !e.Live || f.Date == "" || f.Date > asOf {
			continue
		}
		switch f.Kind {
		case evidence.KindPurchase, evidence.KindMovementIn:
			if f.Date > out[f.AnimalID] {
				out[f.AnimalID] = f.Date
			}
		case evidence.KindBirth:
			for _, o := range f.OffspringIDs {
				born[o] = f.Date
			}
		}
	}
	for a, d := range born {
		if _, ok := out[a]; !ok {
			out[a] = d
		}
	}
	return out
}

// registryCopy reads the registry's copy of a holding through the adapter configured for
// its scheme, with the keeper's saved credentials.
func (s *Service) registryCopy(ctx context.Context, h *ent.Holding) ([]RegistryAnimal, error) {
	a := s.registries.adapterFor(h.Scheme)
	cr, ok := a.(registry.CopyReader)
	if !ok || s.registries.key() == nil {
		return nil, Errorf(ECONFLICT, "this server reads no registry's copy of %s holdings: its operator has configured no registry service that offers one (docs/registry.md); import the registry's herd list instead", h.Scheme)
	}
	cred, err := s.Client(ctx).RegistryCredential.Query().Where(registrycredential.HoldingID(h.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, Errorf(ECONFLICT, "the holding has no registry credentials: its OWNER saves the keeper's user name and password first")
	}
	if err != nil {
		return nil, err
	}
	rh, err := s.registryHolding(h, cred)
	if err != nil {
		return nil, Errorf(ECONFLICT, "%s", err.Error())
	}
	list, err := cr.Copy(ctx, rh)
	if err != nil {
		if registry.Temporary(err) {
			return nil, Errorf(EUNAVAILABLE, "the registry could not be reached; try again later (%s)", err.Error())
		}
		return nil, Errorf(ECONFLICT, "the registry refused to give its copy: %s", err.Error())
	}
	if len(list) > MaxRegistryCopy {
		return nil, Errorf(ECONFLICT, "the registry's copy holds %d animals, more than the %d one reconciliation compares", len(list), MaxRegistryCopy)
	}
	out := make([]RegistryAnimal, len(list))
	for i, r := range list {
		out[i] = RegistryAnimal{Tag: r.Tag, Sex: r.Sex, BirthDate: r.BirthDate, OnDate: r.OnDate, Breed: r.Breed, Dam: r.Dam}
	}
	return out, nil
}

// damTagsOf returns, for each profiled animal of the farm whose profile names a genetic dam
// (else a dam), that dam's official tag, reading the dams in one statement.
func (s *Service) damTagsOf(ctx context.Context, farmID uuid.UUID, aps []AnimalProfile) (map[uuid.UUID]string, error) {
	damOf := make(map[uuid.UUID]uuid.UUID, len(aps))
	var ids []uuid.UUID
	for _, ap := range aps {
		if d := damOfProfile(ap.Profile); d != uuid.Nil {
			damOf[ap.Animal.ID] = d
			ids = append(ids, d)
		}
	}
	out := make(map[uuid.UUID]string, len(damOf))
	if len(ids) == 0 {
		return out, nil
	}
	dams, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	tags := make(map[uuid.UUID]string, len(dams))
	for _, d := range dams {
		tags[d.ID] = officialTag(d.Tag, nil)
	}
	for a, d := range damOf {
		if t, ok := tags[d]; ok {
			out[a] = t
		}
	}
	return out, nil
}

// officialTag returns an animal's official ear tag number in its printed spacing: its tag
// when that is one, else the first official visual identifier, else its tag as written.
func officialTag(tag string, ids []evidence.Identifier) string {
	if t, err := eid.ParseTag(tag); err == nil && t.Scheme != "" {
		return t.Value
	}
	for _, id := range ids {
		if t, err := eid.ParseTag(id.Value); err == nil && t.Scheme != "" && id.Scheme != evidence.SchemeEID {
			return t.Value
		}
	}
	return strings.TrimSpace(tag)
}
