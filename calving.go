package herdbook

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/birthevent"
	"github.com/herdbook/herdbook/ent/birthpreview"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
)

// The calving operation (docs/breeding.md): one request records a dam's calving, creates
// each calf as an animal with its profile facts and parents, and opens the follow-up tasks
// of the farm's protocol, in one transaction. A calving is an approved birth (a BirthEvent,
// whose id is the calving's) with a record of the same id that keeps the calving as it was
// written under the item metadata key CalvingKey.

// CalvingKey is the record-item metadata key under which a calving is kept.
const CalvingKey = "calving"

// The sire bases of a calving: a service fact of the dam that fits the birth (an
// insemination, a hand mating, an embryo transfer, or an exposure), natural service by a bull
// whose dated group membership (or an exposure) placed him with the dam in her conception
// window, a review that presumes the sire and that the farmer confirms, or a laboratory's
// DNA result.
const (
	SireBasisService        = "service"
	SireBasisNaturalService = "natural_service"
	SireBasisReview         = "review"
	SireBasisDNA            = "dna"
)

// SireBases lists the sire bases.
var SireBases = []string{SireBasisService, SireBasisNaturalService, SireBasisReview, SireBasisDNA}

// The statuses of a calf at birth.
const (
	CalfAlive     = "alive"
	CalfStillborn = "stillborn"
)

// Bounds of a calving.
const (
	MaxCalves        = 8
	MaxBirthWeightKG = 1000.0
	MaxDNALab        = 200
)

// CalfInput is one calf of a calving.
type CalfInput struct {
	Tag            string   `json:"tag,omitempty"`
	EID            string   `json:"eid,omitempty"`
	Sex            string   `json:"sex"`
	BirthWeight    *float64 `json:"birth_weight,omitempty"`
	Status         string   `json:"status"`
	CalvingEase    *string  `json:"calving_ease,omitempty"`
	Twin           bool     `json:"twin"`
	Freemartin     bool     `json:"freemartin"`
	GeneticDamID   *string  `json:"genetic_dam_id,omitempty"`
	SurrogateDamID *string  `json:"surrogate_dam_id,omitempty"`
}

// CalvingInput is a calving as the farmer writes it.
type CalvingInput struct {
	DamID     string
	Date      string
	SireID    *string
	SireBasis *string
	// DNALab names the laboratory whose result qualified the sire (sire_basis dna).
	DNALab *string
	Calves []CalfInput

	// preview and requestID, when set, make the calving the approval of a birth preview
	// (ApproveBirthPreview): its birth event is the preview's, under the client's request id.
	preview   *ent.BirthPreview
	requestID string
}

// Calf is one calf of a recorded calving.
type Calf struct {
	AnimalID uuid.UUID `json:"animal_id"`
	CalfInput
}

// CalvingSire is the sire a calving names, and how far it is known.
type CalvingSire struct {
	AnimalID uuid.UUID `json:"animal_id"`
	Basis    string    `json:"basis"`
	// Status is "recorded" (a fitting service or a DNA result: the calves' parent) or
	// "presumed" (a review the farmer confirmed: never a parent, never proven).
	Status string `json:"status"`
	// Provenance names what the sire rests on: the service or DNA fact, or the review's
	// provenance (record ids).
	Provenance []string `json:"provenance"`
}

// Calving is a recorded calving.
type Calving struct {
	ID        uuid.UUID    `json:"id"`
	DamID     uuid.UUID    `json:"dam_id"`
	Date      string       `json:"date"`
	Sire      *CalvingSire `json:"sire"`
	Calves    []Calf       `json:"calves"`
	CreatedAt time.Time    `json:"created_at"`
	// Tasks are the follow-up tasks the calving opened (not stored with the calving).
	Tasks []*ent.FarmTask `json:"-"`
}

// validate checks the shape of a calving against the farm's settings.
func (in CalvingInput) validate(st FarmSettings) error {
	var fe fieldErrors
	if _, err := uuid.Parse(in.DamID); err != nil {
		fe.add("dam_id", "must be an id")
	}
	if _, err := time.Parse(time.DateOnly, in.Date); err != nil || len(in.Date) != 10 {
		fe.add("date", "must be a calendar date in the form YYYY-MM-DD")
	}
	switch {
	case in.SireID != nil && in.SireBasis == nil:
		fe.add("sire_basis", "is required with sire_id: one of %s", strings.Join(SireBases, ", "))
	case in.SireID == nil && in.SireBasis != nil:
		fe.add("sire_id", "is required with sire_basis")
	case in.SireID != nil:
		if _, err := uuid.Parse(*in.SireID); err != nil {
			fe.add("sire_id", "must be an id")
		}
		if !slices.Contains(SireBases, *in.SireBasis) {
			fe.add("sire_basis", "must be one of %s", strings.Join(SireBases, ", "))
		}
		if *in.SireBasis == SireBasisDNA {
			if in.DNALab == nil {
				fe.add("dna_lab", "is required with sire_basis dna: the laboratory whose result qualified the sire")
			} else {
				validateName(&fe, "dna_lab", *in.DNALab, 1, MaxDNALab)
			}
		}
	}
	if in.DNALab != nil && (in.SireBasis == nil || *in.SireBasis != SireBasisDNA) {
		fe.add("dna_lab", "is only taken with sire_basis dna")
	}
	if len(in.Calves) < 1 || len(in.Calves) > MaxCalves {
		fe.add("calves", "must have 1 to %d calves", MaxCalves)
	}
	tags := map[string]int{}
	for i, c := range in.Calves {
		at := fmt.Sprintf("calves[%d]", i)
		if c.Tag == "" && c.EID == "" {
			fe.add(at+".tag", "is required when eid is not given")
		}
		if c.Tag != "" {
			validateName(&fe, at+".tag", c.Tag, 1, 100)
			if _, err := normalizeTag(c.Tag); err != nil {
				fe.add(at+".tag", "%s", err.Error())
			}
			if j, ok := tags[strings.ToLower(c.Tag)]; ok {
				fe.add(at+".tag", "repeats calves[%d]'s tag", j)
			}
			tags[strings.ToLower(c.Tag)] = i
		}
		if c.EID != "" {
			validateName(&fe, at+".eid", c.EID, 1, 100)
		}
		if c.Sex != evidence.SexMale && c.Sex != evidence.SexFemale {
			fe.add(at+".sex", "must be male or female")
		}
		if c.Status != CalfAlive && c.Status != CalfStillborn {
			fe.add(at+".status", "must be alive or stillborn")
		}
		if w := c.BirthWeight; w != nil && (math.IsNaN(*w) || *w <= 0 || *w > MaxBirthWeightKG) {
			fe.add(at+".birth_weight", "must be more than 0 and at most %g kg", MaxBirthWeightKG)
		}
		if e := c.CalvingEase; e != nil {
			switch {
			case st.CalvingEaseScale == nil:
				fe.add(at+".calving_ease", "the farm has no calving-ease scale: set calving_ease_scale in the farm's settings first")
			case !slices.ContainsFunc(st.CalvingEaseScale, func(g schematype.CalvingEaseGrade) bool { return g.Code == *e }):
				codes := make([]string, len(st.CalvingEaseScale))
				for i, g := range st.CalvingEaseScale {
					codes[i] = g.Code
				}
				fe.add(at+".calving_ease", "must be a code of the farm's calving-ease scale: %s", strings.Join(codes, ", "))
			}
		}
		if c.Twin && len(in.Calves) < 2 {
			fe.add(at+".twin", "a twin needs another calf in the same calving")
		}
		if c.Freemartin && (c.Sex != evidence.SexFemale || !c.Twin) {
			fe.add(at+".freemartin", "only a female twin can be a freemartin")
		}
		for _, d := range []struct {
			name string
			id   *string
		}{{"genetic_dam_id", c.GeneticDamID}, {"surrogate_dam_id", c.SurrogateDamID}} {
			if d.id == nil {
				continue
			}
			if u, err := uuid.Parse(*d.id); err != nil {
				fe.add(at+"."+d.name, "must be an id")
			} else if u.String() == strings.ToLower(in.DamID) {
				fe.add(at+"."+d.name, "is the calving's dam: leave it out")
			}
		}
	}
	return fe.err()
}

// calvingRequestID is the request id of a calving's birth event: one per dam and day, so
// that the unique (farm, request id) index keeps a second calving of the same dam and day
// from being recorded twice even by two requests at once.
func calvingRequestID(dam uuid.UUID, date string) string {
	return "calving:" + dam.String() + ":" + date
}

// RecordCalving records a calving. It is idempotent on (dam, date): the second call answers
// the calving already recorded (created false) and writes nothing.
func (s *Service) RecordCalving(ctx context.Context, farmID uuid.UUID, in CalvingInput) (*Calving, bool, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords, ScopeWriteAnimals)
	if err != nil {
		return nil, false, err
	}
	if err := checkTextIn(in); err != nil {
		return nil, false, err
	}
	st, err := s.settings(ctx, farmID)
	if err != nil {
		return nil, false, err
	}
	if err := in.validate(st); err != nil {
		return nil, false, err
	}
	dam := uuid.MustParse(strings.ToLower(in.DamID))
	var out *Calving
	created := false
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		if first, err := s.sameBirth(ctx, farmID, dam, in.Date); err != nil {
			return err
		} else if first != nil {
			out, err = s.calving(ctx, farmID, first.ID)
			if ErrorCode(err) == ENOTFOUND {
				return Errorf(ECONFLICT, "a birth of this dam on %s was already approved from a birth preview, without its calves", in.Date)
			}
			return err
		}
		ev, settingsVersion, err := s.review(ctx, farmID, in.DamID, in.Date)
		if err != nil {
			return err
		}
		names, err := s.checkCalvingParties(ctx, farmID, dam, in, ev)
		if err != nil {
			return err
		}
		sire, donor, err := calvingSire(in, ev, names)
		if err != nil {
			return err
		}
		if err := s.checkBirthHistory(ctx, farmID, dam, in.Date); err != nil {
			return err
		}
		proto, err := s.protocol(ctx, farmID, 0)
		if err != nil {
			return err
		}
		// A calving approves a preview: the farmer's (ApproveBirthPreview), or one of its own.
		prev, requestID := in.preview, in.requestID
		if prev == nil {
			prev, err = c.BirthPreview.Create().SetFarmID(farmID).SetDamID(dam).SetBirthDate(in.Date).
				SetSettingsVersion(settingsVersion).SetProtocolVersion(proto.Version).SetEvidence(ev).
				SetTasks(plannedTasks(proto.Steps, in.Date, false)).SetCreatedBy(v.UserID).Save(ctx)
			if err != nil {
				return err
			}
			requestID = calvingRequestID(dam, in.Date)
		}
		be, err := c.BirthEvent.Create().SetFarmID(farmID).SetDamID(dam).SetBirthDate(in.Date).
			SetPreviewID(prev.ID).SetRequestID(requestID).SetSettingsVersion(settingsVersion).
			SetProtocolVersion(proto.Version).SetCreatedBy(v.UserID).Save(ctx)
		if err != nil {
			return constraint(err, "this calving was recorded at the same time; retry to get its answer")
		}
		// By id and farm, not UpdateOneID, which names the id alone: one shard on a cluster.
		if err := c.BirthPreview.Update().Where(birthpreview.ID(prev.ID), birthpreview.FarmID(farmID)).
			SetApprovedAt(s.nowUTC()).SetBirthEventID(be.ID).Exec(ctx); err != nil {
			return err
		}
		out = &Calving{ID: be.ID, DamID: dam, Date: in.Date, Sire: sire, CreatedAt: be.CreatedAt}
		// The calves: each an animal with its profile, identifier and birth facts (the
		// sire on the birth fact only when the basis makes him a parent).
		var parentSire string
		if sire != nil && (sire.Basis == SireBasisService || sire.Basis == SireBasisNaturalService) {
			parentSire = sire.AnimalID.String()
		}
		sex := func(s string) *string { return &s }
		animals := []uuid.UUID{dam}
		var items []RecordItemInput
		item := func(name string, f evidence.Fact) {
			b, _ := json.Marshal(f)
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			items = append(items, RecordItemInput{Name: &name, Metadata: map[string]any{FactKey: m}})
		}
		for i, cin := range in.Calves {
			tag := cin.Tag
			if tag == "" {
				tag = cin.EID
			}
			// The birth fact is the calving record's (below), so that its sire and genetic
			// dam may be outside animals.
			ain := AnimalInput{Tag: tag, Sex: sex(cin.Sex), BirthDate: &in.Date}
			if cin.EID != "" {
				e := cin.EID
				ain.EID = &e
			}
			a, err := s.CreateAnimal(ctx, farmID, ain)
			if err != nil {
				return prefixFields(err, fmt.Sprintf("calves[%d].", i))
			}
			animals = append(animals, a.ID)
			if cin.GeneticDamID == nil && donor != "" {
				// The embryo transfer that fits the birth names the calf's genetic dam.
				d := donor
				cin.GeneticDamID = &d
			}
			birth := evidence.Fact{Kind: evidence.KindBirth, DamID: dam.String(), Date: in.Date,
				OffspringIDs: []string{a.ID.String()}, SireID: parentSire}
			if cin.GeneticDamID != nil {
				birth.GeneticDamID = strings.ToLower(*cin.GeneticDamID)
			}
			item("Calving: birth", birth)
			out.Calves = append(out.Calves, Calf{AnimalID: a.ID, CalfInput: cin})
			if cin.BirthWeight != nil {
				item("Calving: birth weight", evidence.Fact{Kind: evidence.KindWeight, AnimalID: a.ID.String(), Date: in.Date,
					KG: json.Number(formatKG(*cin.BirthWeight))})
			}
			if cin.Status == CalfStillborn {
				item("Calving: stillborn", evidence.Fact{Kind: evidence.KindDeath, AnimalID: a.ID.String(), Date: in.Date, Cause: "stillborn"})
			}
			if sire != nil && sire.Basis == SireBasisDNA {
				item("Calving: DNA parentage", evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: a.ID.String(),
					ParentID: sire.AnimalID.String(), Relation: evidence.RelationSire, Result: evidence.ResultQualified,
					Lab: *in.DNALab, Date: in.Date})
			}
		}
		kept, err := json.Marshal(out)
		if err != nil {
			return err
		}
		var keptMap map[string]any
		if err := json.Unmarshal(kept, &keptMap); err != nil {
			return err
		}
		name := "Calving"
		items = append(items, RecordItemInput{Name: &name, Metadata: map[string]any{CalvingKey: keptMap}})
		applied, _ := time.Parse(time.DateOnly, in.Date)
		if _, err := s.CreateRecord(ctx, farmID, RecordInput{id: be.ID, AnimalIDs: animals, Name: "Calving",
			Type: "GENETIC", AppliedAt: &applied, Items: items}); err != nil {
			return err
		}
		// The follow-up tasks: a step without a sex is the dam's, once; a step with one is
		// each live calf's of that sex.
		var builders []*ent.FarmTaskCreate
		var links []*ent.FarmTaskAnimalCreate
		born, _ := time.Parse(time.DateOnly, in.Date)
		for i, step := range proto.Steps {
			due := born.AddDate(0, 0, step.OffsetDays)
			task := func(animal uuid.UUID) *ent.FarmTaskCreate {
				id := uuid.New()
				links = append(links, TaskAnimalLinks(c, farmID, id, animal)...)
				return c.FarmTask.Create().SetID(id).SetFarmID(farmID).SetBirthEventID(be.ID).SetName(step.Name).
					SetDueDate(due).SetProtocolVersion(proto.Version).SetStep(i)
			}
			if step.Sex == "" {
				builders = append(builders, task(dam))
				continue
			}
			for _, calf := range out.Calves {
				if calf.Sex == step.Sex && calf.Status == CalfAlive {
					builders = append(builders, task(calf.AnimalID))
				}
			}
		}
		if len(builders) > 0 {
			if err := c.FarmTask.CreateBulk(builders...).Exec(ctx); err != nil {
				return err
			}
			if err := c.FarmTaskAnimal.CreateBulk(links...).Exec(ctx); err != nil {
				return err
			}
		}
		created = true
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	if created {
		// Read back as any later call reads it, tasks included.
		out, err = s.calving(ctx, farmID, out.ID)
	}
	return out, created, err
}

// formatKG spells a weight as the facts keep it: its shortest decimal.
func formatKG(kg float64) string { return fmt.Sprintf("%g", kg) }

// prefixFields names an invalid calf's fields under its place in the calving.
func prefixFields(err error, prefix string) error {
	fields := ErrorFields(err)
	if len(fields) == 0 {
		return err
	}
	var fe fieldErrors
	for _, f := range fields {
		fe.add(prefix+f.Field, "%s", f.Message)
	}
	return fe.err()
}

// calvingNames are the names a calving's refusals use: the tags of the farm's animals and
// the names of its outside animals, by id.
type calvingNames map[uuid.UUID]string

func (n calvingNames) of(id string) string {
	if u, err := uuid.Parse(id); err == nil && n[u] != "" {
		return n[u]
	}
	return id
}

// checkCalvingParties checks the animals a calving names besides its dam: the sire is an
// animal of the farm or one of its outside animals (an AI sire), a genetic dam likewise (an
// embryo donor), a surrogate (foster) dam an animal of the farm; an outside sire is male, an
// outside genetic dam female. It answers the names of the dam, of each and of the review's
// candidate sires, for the refusals. Two statements at most.
func (s *Service) checkCalvingParties(ctx context.Context, farmID, dam uuid.UUID, in CalvingInput, ev evidence.Evidence) (calvingNames, error) {
	ids := []uuid.UUID{dam}
	for _, c := range append(ev.Sire.Candidates, evidence.Candidate{AnimalID: ev.Sire.AnimalID}) {
		if u, err := uuid.Parse(c.AnimalID); err == nil {
			ids = append(ids, u)
		}
	}
	id := func(p *string) uuid.UUID { return uuid.MustParse(strings.ToLower(*p)) }
	if in.SireID != nil {
		ids = append(ids, id(in.SireID))
	}
	for _, c := range in.Calves {
		for _, d := range []*string{c.GeneticDamID, c.SurrogateDamID} {
			if d != nil {
				ids = append(ids, id(d))
			}
		}
	}
	ids = dedupe(ids)
	found, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(ids...)).
		Select(animal.FieldID, animal.FieldTag).All(IncludeInactive(ctx))
	if err != nil {
		return nil, err
	}
	names := calvingNames{}
	for _, a := range found {
		names[a.ID] = a.Tag
	}
	var missing []uuid.UUID
	for _, u := range ids {
		if _, ok := names[u]; !ok {
			missing = append(missing, u)
		}
	}
	outside, err := s.outsideAnimals(ctx, farmID, missing)
	if err != nil {
		return nil, err
	}
	for u, a := range outside {
		names[u] = a.Name
	}
	if in.SireID != nil {
		u := id(in.SireID)
		if _, ok := names[u]; !ok {
			return nil, Errorf(ENOTFOUND, "sire %s is neither an animal of this farm nor one of its outside sires: add an AI sire under the outside animals first, or leave the sire out for the birth review to presume one", u)
		}
		if a := outside[u]; a != nil && a.Sex != evidence.SexMale {
			return nil, Invalid(FieldError{Field: "sire_id", Message: fmt.Sprintf("%s is an outside animal recorded as %s, and a sire is male", a.Name, a.Sex)})
		}
	}
	for i, c := range in.Calves {
		at := fmt.Sprintf("calves[%d].", i)
		if c.GeneticDamID != nil {
			u := id(c.GeneticDamID)
			if _, ok := names[u]; !ok {
				return nil, Errorf(ENOTFOUND, "%sgenetic_dam_id: %s is neither an animal of this farm nor one of its outside animals: add the embryo donor under the outside animals first", at, u)
			}
			if a := outside[u]; a != nil && a.Sex != evidence.SexFemale {
				return nil, Invalid(FieldError{Field: at + "genetic_dam_id", Message: fmt.Sprintf("%s is an outside animal recorded as %s, and a genetic dam is female", a.Name, a.Sex)})
			}
		}
		if c.SurrogateDamID != nil {
			u := id(c.SurrogateDamID)
			if _, ok := names[u]; !ok || outside[u] != nil {
				return nil, Errorf(ENOTFOUND, "%ssurrogate_dam_id: animal %s is not an animal of this farm: the cow that rears the calf stands on the farm", at, u)
			}
		}
	}
	return names, nil
}

// calvingSire checks the sire a calving names against its basis and the review of the
// birth, reusing the review's judgement of each candidate (evidence.Review: the conception
// window, exposures, shared group memberships and services), and answers him with, when the
// service that fits is an embryo transfer, its donor (the calves' genetic dam). Nil when the
// calving names no sire. A refusal says in the farmer's words why, and what to choose
// instead.
func calvingSire(in CalvingInput, ev evidence.Evidence, names calvingNames) (*CalvingSire, string, error) {
	if in.SireID == nil {
		return nil, "", nil
	}
	sire := uuid.MustParse(strings.ToLower(*in.SireID))
	out := &CalvingSire{AnimalID: sire, Basis: *in.SireBasis, Status: "recorded", Provenance: []string{}}
	him, her := names.of(sire.String()), names.of(in.DamID)
	blank := "leave the sire out for the birth review to presume one"
	refuse := func(format string, args ...any) (*CalvingSire, string, error) {
		return nil, "", Invalid(FieldError{Field: "sire_id", Message: fmt.Sprintf(format, args...)})
	}
	var cand *evidence.Candidate
	for i, c := range ev.Sire.Candidates {
		if c.AnimalID == sire.String() {
			cand = &ev.Sire.Candidates[i]
		}
	}
	switch *in.SireBasis {
	case SireBasisService, SireBasisNaturalService:
		if ev.ConceptionWindow == nil {
			return nil, "", Invalid(FieldError{Field: "sire_basis", Message: "a service cannot be judged to fit this birth: the farm's birth-history settings have no gestation_days. Set them, or " + blank + " or name him with sire_basis dna"})
		}
		window := fmt.Sprintf("her conception window (%s to %s)", ev.ConceptionWindow.StartDate, ev.ConceptionWindow.EndDate)
		natural := *in.SireBasis == SireBasisNaturalService
		switch {
		case cand == nil && natural:
			return refuse("%s did not run with %s in %s: no exposure, and no dated membership of a group she was in, is recorded for him then. Record his group membership (or an exposure) first, choose sire_basis service if she was inseminated or hand-mated, or %s", him, her, window, blank)
		case cand == nil:
			return refuse("no insemination, hand mating, embryo transfer or exposure of %s by %s is recorded in %s (see the birth evidence). Record the service first, choose sire_basis natural_service if he ran with her, dna with a laboratory's result, or %s", her, him, window, blank)
		case cand.Eligibility == evidence.EligibilityExcluded:
			return refuse("the birth review rules %s out as the sire: %s Choose sire_basis dna if a laboratory's result names him, or %s", him, strings.Join(cand.Reasons, " "), blank)
		}
		if !natural {
			if len(cand.Services) == 0 && !cand.Exposed {
				run := cand.Shared[0]
				return refuse("no service of %s by %s is recorded in %s, but he ran with her in a group from %s to %s: choose sire_basis natural_service, or %s", her, him, window, run.StartDate, run.EndDate, blank)
			}
			out.Provenance = append(out.Provenance, cand.ExposureRecordIDs...)
			donor := ""
			for _, sv := range cand.Services {
				if sv.Kind == evidence.KindEmbryoTransfer {
					donor = sv.DamID
				}
			}
			return out, donor, nil
		}
		if !cand.Exposed && len(cand.Shared) == 0 {
			return refuse("%s did not run with %s in %s: he is known there only by a recorded %s. Choose sire_basis service, or %s", him, her, window, strings.ReplaceAll(string(cand.Services[0].Kind), "_", " "), blank)
		}
		for _, other := range ev.Sire.Candidates {
			if other.AnimalID != sire.String() && other.Eligibility != evidence.EligibilityExcluded {
				return refuse("%s ran with %s in %s as well, so natural service cannot tell which of them sired the calf (see the birth evidence). Choose sire_basis dna with a laboratory's result, or %s", names.of(other.AnimalID), her, window, blank)
			}
		}
		out.Provenance = append(out.Provenance, cand.ExposureRecordIDs...)
		out.Provenance = append(out.Provenance, cand.MembershipRecordIDs...)
		out.Provenance = sortedUnique(out.Provenance)
		return out, "", nil
	case SireBasisReview:
		if ev.Sire.Status != evidence.SirePresumed || ev.Sire.AnimalID != sire.String() {
			what := "presumes no sire"
			if ev.Sire.Status == evidence.SirePresumed {
				what = "presumes " + names.of(ev.Sire.AnimalID)
			}
			return refuse("the birth review %s, not %s (see the birth evidence). Choose the basis the farm recorded (service, natural_service, dna), or %s", what, him, blank)
		}
		out.Status = "presumed"
		if ev.Sire.Provenance != "" {
			out.Provenance = append(out.Provenance, ev.Sire.Provenance)
		}
		return out, "", nil
	default: // dna
		out.Provenance = append(out.Provenance, "dna:"+*in.DNALab)
		return out, "", nil
	}
}

// sortedUnique sorts ids and drops repeats.
func sortedUnique(ids []string) []string {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// plannedTasks are the tasks of steps for a birth on day; with calves false, only the dam's
// steps (a step with a sex waits for calves a preview does not know).
func plannedTasks(steps []schematype.ProtocolStep, day string, calves bool) []schematype.PlannedTask {
	born, _ := time.Parse(time.DateOnly, day)
	tasks := []schematype.PlannedTask{}
	for _, st := range steps {
		if st.Sex != "" && !calves {
			continue
		}
		tasks = append(tasks, schematype.PlannedTask{Name: st.Name, OffsetDays: st.OffsetDays, DueDate: born.AddDate(0, 0, st.OffsetDays).Format(time.DateOnly)})
	}
	return tasks
}

// Calving returns one calving of the farm.
func (s *Service) Calving(ctx context.Context, farmID, id uuid.UUID) (*Calving, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	return s.calving(ctx, farmID, id)
}

func (s *Service) calving(ctx context.Context, farmID, id uuid.UUID) (*Calving, error) {
	out, err := s.calvings(ctx, farmID, []uuid.UUID{id})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, Errorf(ENOTFOUND, "calving %s not found", id)
	}
	return out[0], nil
}

// CalvingQuery pages the calving list: newest calving first.
type CalvingQuery struct {
	Skip, Take *int
	From, To   string
}

// Calvings lists the farm's calvings, newest first, in three statements whatever the page.
func (s *Service) Calvings(ctx context.Context, farmID uuid.UUID, q CalvingQuery) ([]*Calving, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, err
	}
	skip, take, err := farmTaskBounds(FarmTaskQuery{Skip: q.Skip, Take: q.Take})
	fe := fieldErrors(ErrorFields(err))
	checkPeriod(&fe, q.From, q.To)
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	query := s.Client(ctx).BirthEvent.Query().Where(birthevent.FarmID(farmID), calvingEvent(farmID))
	if q.From != "" {
		query.Where(birthevent.BirthDateGTE(q.From))
	}
	if q.To != "" {
		query.Where(birthevent.BirthDateLTE(q.To))
	}
	total, err := query.Clone().Count(ctx)
	if err != nil || skip >= total {
		return []*Calving{}, total, err
	}
	ids, err := query.Order(ent.Desc(birthevent.FieldBirthDate), ent.Asc(birthevent.FieldID)).Offset(skip).Limit(take).IDs(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := s.calvings(ctx, farmID, ids)
	return out, total, err
}

// checkPeriod checks optional from and to dates.
func checkPeriod(fe *fieldErrors, from, to string) {
	for _, d := range []struct{ name, v string }{{"from", from}, {"to", to}} {
		if d.v == "" {
			continue
		}
		if t, err := time.Parse(time.DateOnly, d.v); err != nil || t.Format(time.DateOnly) != d.v {
			fe.add(d.name, "must be a calendar date in the form YYYY-MM-DD")
		}
	}
	if from != "" && to != "" && to < from {
		fe.add("to", "must not be before from")
	}
}

// calvings loads the calvings of ids, in their order, with their tasks: two statements.
func (s *Service) calvings(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) ([]*Calving, error) {
	c := s.Client(ctx)
	items, err := c.RecordItem.Query().Where(recorditem.RecordIDIn(ids...), recorditem.FactKindIsNil(),
		itemsOfFarm(farmID)).
		All(IncludeInactive(ctx))
	if err != nil {
		return nil, err
	}
	byID := map[uuid.UUID]*Calving{}
	for _, it := range items {
		raw := it.Metadata.Field(CalvingKey)
		if raw == nil {
			continue
		}
		var cv Calving
		if err := json.Unmarshal(raw, &cv); err != nil {
			return nil, err
		}
		if cv.ID != it.RecordID {
			continue
		}
		cv.Tasks = []*ent.FarmTask{}
		byID[cv.ID] = &cv
	}
	if len(byID) == 0 {
		return []*Calving{}, nil
	}
	tasks, err := c.FarmTask.Query().Where(farmtask.FarmID(farmID), farmtask.BirthEventIDIn(ids...)).
		Order(ent.Asc(farmtask.FieldStep), ent.Asc(farmtask.FieldCreatedAt), ent.Asc(farmtask.FieldID)).
		WithAnimals(taskAnimalsOf(farmID)).All(IncludeInactive(ctx))
	if err != nil {
		return nil, err
	}
	for _, t := range tasks {
		if cv := byID[t.BirthEventID]; cv != nil {
			cv.Tasks = append(cv.Tasks, t)
		}
	}
	out := make([]*Calving, 0, len(ids))
	for _, id := range ids {
		if cv := byID[id]; cv != nil {
			out = append(out, cv)
		}
	}
	return out, nil
}
