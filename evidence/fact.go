package evidence

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/herdbook/herdbook/registry/scheme"
)

// checkText returns what is wrong with a free-text fact field, or "".
func checkText(s string, max int) string {
	switch {
	case !utf8.ValidString(s):
		return "must be valid UTF-8 text"
	case strings.TrimSpace(s) == "":
		return "must not be blank"
	case utf8.RuneCountInString(s) > max:
		return fmt.Sprintf("must be at most %d characters long", max)
	}
	return ""
}

// Kind names what a birth_history fact records.
type Kind string

// The fact kinds of DESIGN.md. Each record item carries at most one fact.
const (
	// KindProfile records what is known of an animal: sex, and perhaps
	// its birth date and breed.
	KindProfile Kind = "profile"
	// KindCastration records that an animal is not intact from a date on.
	KindCastration Kind = "castration"
	// KindExposure records that a sire ran with a dam or with a group.
	KindExposure Kind = "exposure"
	// KindMembership records that an animal belonged to a group.
	KindMembership Kind = "membership"
	// KindMembershipEnd records that an animal left a group on a date: every membership of
	// the animal in that group that began on or before that date and still ran on it ends
	// the day before. It is how a membership that was written open is closed later without
	// rewriting the fact that opened it.
	KindMembershipEnd Kind = "membership_end"
	// KindPurchase records that an animal was bought onto the farm.
	KindPurchase Kind = "purchase"
	// KindMovementIn records that an animal arrived on the farm.
	KindMovementIn Kind = "movement_in"
	// KindMovementOut records that an animal left the farm.
	KindMovementOut Kind = "movement_out"
	// KindBirth records a birth.
	KindBirth Kind = "birth"
	// KindIdentifier records that an identifier (an EID, a visual tag, a
	// brand or a tattoo) named an animal from a date, perhaps until one.
	KindIdentifier Kind = "identifier"
	// KindDeath records that an animal died: it leaves the farm.
	KindDeath Kind = "death"
	// KindSale records that an animal was sold: it leaves the farm.
	KindSale Kind = "sale"
	// KindWeight records an animal's weight on a date.
	KindWeight Kind = "weight"
	// KindDNAParentage records a laboratory's parentage result: the parent
	// was qualified or excluded as the offspring's dam or sire.
	KindDNAParentage Kind = "dna_parentage"
	// KindTreatment records a medicine given to an animal or to a group (the medicine book;
	// the withdrawal package reads it, the birth review does not).
	KindTreatment Kind = "treatment"
	// KindHeat records that a female was seen in heat (oestrus) on a date.
	KindHeat Kind = "heat"
	// KindInsemination records an artificial insemination of a dam with a sire's semen (the
	// sire may be an outside animal): a service on that date.
	KindInsemination Kind = "insemination"
	// KindHandMating records a supervised natural service of a dam by a sire on a date.
	KindHandMating Kind = "hand_mating"
	// KindEmbryoTransfer records an embryo of a donor dam (DamID, the genetic dam) and a sire
	// placed in a recipient female, who carries it: a service of the recipient on that date.
	KindEmbryoTransfer Kind = "embryo_transfer"
	// KindPregnancyCheck records a pregnancy diagnosis (scan, palpation or blood test).
	KindPregnancyCheck Kind = "pregnancy_check"
	// KindWeaning records that a calf was weaned on a date, with its weaning weight and,
	// optionally, the group it was weaned in (the contemporary group of BIF's 205-day
	// weight). Its weight counts as a weight of the animal on that date.
	KindWeaning Kind = "weaning"
	// KindPedigree records an animal's dam or sire, or both, as its papers state them (a
	// herd-book certificate, the seller's pedigree) for an animal born elsewhere: no birth on
	// this farm. A parent may be an animal of the farm or an outside animal (a dam too). A
	// birth fact's dam and sire and a qualified DNA result outweigh it.
	KindPedigree Kind = "pedigree"
)

// ServiceKinds are the kinds that date a service of a dam by a sire.
var ServiceKinds = []Kind{KindInsemination, KindHandMating, KindEmbryoTransfer}

// IsService reports whether a kind dates a service of a dam by a sire.
func IsService(k Kind) bool {
	return k == KindInsemination || k == KindHandMating || k == KindEmbryoTransfer
}

// The methods and results of a pregnancy_check fact.
const (
	MethodScan      = "scan"
	MethodPalpation = "palpation"
	MethodBlood     = "blood"
	ResultPregnant  = "pregnant"
	ResultEmpty     = "empty"
	ResultRecheck   = "recheck"
	// MaxFoetalAgeDays bounds a foetal age; it is a typing bound, not a gestation length.
	MaxFoetalAgeDays = 2000
)

// PregnancyMethods and PregnancyResults list the values a pregnancy_check takes.
var (
	PregnancyMethods = []string{MethodScan, MethodPalpation, MethodBlood}
	PregnancyResults = []string{ResultPregnant, ResultEmpty, ResultRecheck}
)

// Kinds lists every fact kind in the order DESIGN.md gives them.
var Kinds = []Kind{KindProfile, KindCastration, KindExposure, KindMembership, KindMembershipEnd,
	KindPurchase, KindMovementIn, KindMovementOut, KindBirth,
	KindIdentifier, KindDeath, KindSale, KindWeight, KindDNAParentage, KindTreatment,
	KindHeat, KindInsemination, KindHandMating, KindEmbryoTransfer, KindPregnancyCheck, KindWeaning, KindPedigree}

// The sexes a profile may record.
const (
	SexMale   = "male"
	SexFemale = "female"
)

// The identifier schemes.
const (
	SchemeEID    = "eid"
	SchemeVisual = "visual"
	SchemeBrand  = "brand"
	SchemeTattoo = "tattoo"
)

// Schemes lists the identifier schemes.
var Schemes = []string{SchemeEID, SchemeVisual, SchemeBrand, SchemeTattoo}

// The relations and results of a dna_parentage fact.
const (
	RelationDam        = "dam"
	RelationSire       = "sire"
	ResultQualified    = "qualified"
	ResultExcluded     = "excluded"
	dnaRelationMessage = "must be dam or sire"
)

// Fact is one birth_history fact, as stored under metadata.birth_history of
// a record item, together with the record and record item that carry it.
// String fields that a kind does not use are empty; an empty optional field
// means the fact does not say.
type Fact struct {
	// RecordID and RecordItemID are the provenance of the fact. They are
	// not part of the metadata, so they never appear in its JSON.
	RecordID     string `json:"-"`
	RecordItemID string `json:"-"`

	Kind        Kind   `json:"kind"`
	AnimalID    string `json:"animal_id,omitempty"`
	Sex         string `json:"sex,omitempty"`
	BirthDate   string `json:"birth_date,omitempty"`
	Breed       string `json:"breed,omitempty"`
	Date        string `json:"date,omitempty"`
	SireID      string `json:"sire_id,omitempty"`
	DamID       string `json:"dam_id,omitempty"`
	GroupID     string `json:"group_id,omitempty"`
	StartDate   string `json:"start_date,omitempty"`
	EndDate     string `json:"end_date,omitempty"`
	Scheme      string `json:"scheme,omitempty"`
	Value       string `json:"value,omitempty"`
	Cause       string `json:"cause,omitempty"`
	Buyer       string `json:"buyer,omitempty"`
	Lab         string `json:"lab,omitempty"`
	OffspringID string `json:"offspring_id,omitempty"`
	ParentID    string `json:"parent_id,omitempty"`
	Relation    string `json:"relation,omitempty"`
	Result      string `json:"result,omitempty"`
	// KG is a weight in kilograms, a JSON number kept in its canonical
	// decimal spelling.
	KG           json.Number `json:"kg,omitempty"`
	OffspringIDs []string    `json:"offspring_ids,omitempty"`

	// Treatment fields. Date may then also be an RFC 3339 date-time. MedicineVersion is the
	// version of the medicine the treatment was given under: the service stamps the current
	// one when the author leaves it out. The withdrawal fields override the label's periods
	// and may not be shorter (the service checks that against the medicine).
	MedicineID          string   `json:"medicine_id,omitempty"`
	MedicineVersion     int      `json:"medicine_version,omitempty"`
	Dose                *float64 `json:"dose,omitempty"`
	Unit                string   `json:"unit,omitempty"`
	Route               string   `json:"route,omitempty"`
	Batch               string   `json:"batch,omitempty"`
	AdministeredBy      string   `json:"administered_by,omitempty"`
	WithdrawalMeatDays  *int     `json:"withdrawal_meat_days,omitempty"`
	WithdrawalMilkHours *int     `json:"withdrawal_milk_hours,omitempty"`
	// The rest of the keeper's record of a treatment (EU 2019/6 Art. 108(2), GB VMR 2013
	// regs 17 to 19): the quantity given, per animal and in all, with its unit; the vet who
	// prescribed it and their practice; the last administration of a course (Date is the
	// first), from which the withdrawal runs; and why it was given.
	QuantityPerAnimal   *float64 `json:"quantity_per_animal,omitempty"`
	QuantityTotal       *float64 `json:"quantity_total,omitempty"`
	QuantityUnit        string   `json:"quantity_unit,omitempty"`
	PrescribingVet      string   `json:"prescribing_vet,omitempty"`
	PrescribingPractice string   `json:"prescribing_practice,omitempty"`
	LastAdministration  string   `json:"last_administration,omitempty"`
	Reason              string   `json:"reason,omitempty"`
	// Slaughter marks a death as slaughter, which a meat withdrawal forbids; false is left out.
	Slaughter bool `json:"slaughter,omitempty"`
	// OffLabel is the vet's statement that a treatment is outside the label's terms (the
	// cascade), whatever the label's table says.
	OffLabel bool `json:"off_label,omitempty"`
	// What the service stamps on a treatment from the farm settings when it is written, so that
	// a later change of the settings does not rewrite the book: the farm's IANA time zone
	// (whose local day a bare date is), the rule set of the cascade's minimums, and whether
	// the farm was organic.
	TimeZone        string `json:"time_zone,omitempty"`
	WithdrawalRules string `json:"withdrawal_rules,omitempty"`
	Organic         bool   `json:"organic,omitempty"`

	// Service and pregnancy fields. Straw names the semen batch or straw of an insemination,
	// Technician who inseminated; RecipientID is the female an embryo was placed in (DamID is
	// its donor), Embryo the embryo's batch or id. Method and the foetal age (one number of
	// days, or a range) belong to a pregnancy_check, whose Result is pregnant, empty or
	// recheck.
	Straw            string `json:"straw,omitempty"`
	Technician       string `json:"technician,omitempty"`
	RecipientID      string `json:"recipient_id,omitempty"`
	Embryo           string `json:"embryo,omitempty"`
	Method           string `json:"method,omitempty"`
	FoetalAgeDays    *int   `json:"foetal_age_days,omitempty"`
	FoetalAgeMinDays *int   `json:"foetal_age_min_days,omitempty"`
	FoetalAgeMaxDays *int   `json:"foetal_age_max_days,omitempty"`

	// GeneticDamID is a birth's genetic dam when she is not the dam that gave birth: the
	// donor of an embryo-transfer calf, whose DamID is then the recipient that carried it
	// (the holding register's surrogate dam). She may be an outside animal.
	GeneticDamID string `json:"genetic_dam_id,omitempty"`
	// ExpectedCalvingDate is the calving date a positive pregnancy_check states (the vet's, or
	// the seller's for a female bought in calf): the due list takes it as given.
	ExpectedCalvingDate string `json:"expected_calving_date,omitempty"`

	// The other holding of an arrival or a departure, by its scheme and number as package
	// registry/scheme spells them (a GB CPH such as 34/123/1234), and the disposal route of a
	// death (ICAR's icarDeathDisposalMethodType): what the holding register and the
	// registry's movement and death notices name (docs/registry.md).
	HoldingScheme string `json:"holding_scheme,omitempty"`
	HoldingNumber string `json:"holding_number,omitempty"`
	Disposal      string `json:"disposal,omitempty"`
}

// The disposal routes of a death, ICAR's icarDeathDisposalMethodType (adewg/ICAR,
// enums/icarDeathDisposalMethodType.json) in the fact vocabulary's spelling: an approved
// collection or disposal service (knackery, renderer, hunt kennel, incinerator), consumption
// (slaughter for the household), on the premises (burial or burning where permitted), other.
const (
	DisposalApprovedService = "approved_service"
	DisposalConsumption     = "consumption"
	DisposalOnPremise       = "on_premise"
	DisposalOther           = "other"
)

// Disposals lists the disposal routes a death may name.
var Disposals = []string{DisposalApprovedService, DisposalConsumption, DisposalOnPremise, DisposalOther}

// Bounds of a treatment's numbers. Withdrawal periods beyond ten years are typing mistakes.
const (
	MaxWithdrawalMeatDays  = 3650
	MaxWithdrawalMilkHours = 87600
	MaxTreatmentText       = 200
	MaxDose                = 1e9
	// MaxCourseDays bounds a course of treatment: the last administration is at most this
	// many days after the first. Longer spans are typing mistakes (a wrong year).
	MaxCourseDays = 366
	// MaxQuantity bounds a quantity given or bought.
	MaxQuantity = 1e9
)

// field enumerates the metadata fields after kind, in the order errors are
// reported.
type field int

const (
	fAnimal field = iota
	fSex
	fBirthDate
	fBreed
	fDate
	fSire
	fDam
	fGroup
	fStart
	fEnd
	fScheme
	fValue
	fCause
	fBuyer
	fLab
	fOffspringID
	fParent
	fRelation
	fResult
	fKG
	fOffspring
	fMedicine
	fMedicineVersion
	fDose
	fUnit
	fRoute
	fBatch
	fAdministeredBy
	fMeatDays
	fMilkHours
	fSlaughter
	fQuantityPerAnimal
	fQuantityTotal
	fQuantityUnit
	fPrescribingVet
	fPrescribingPractice
	fLastAdministration
	fReason
	fOffLabel
	fTimeZone
	fWithdrawalRules
	fOrganic
	fStraw
	fTechnician
	fRecipient
	fEmbryo
	fMethod
	fFoetalAge
	fFoetalAgeMin
	fFoetalAgeMax
	fGeneticDam
	fExpectedCalving
	fHoldingScheme
	fHoldingNumber
	fDisposal
	numFields
)

var fieldNames = [numFields]string{"animal_id", "sex", "birth_date", "breed", "date",
	"sire_id", "dam_id", "group_id", "start_date", "end_date", "scheme", "value", "cause",
	"buyer", "lab", "offspring_id", "parent_id", "relation", "result", "kg", "offspring_ids",
	"medicine_id", "medicine_version", "dose", "unit", "route", "batch", "administered_by",
	"withdrawal_meat_days", "withdrawal_milk_hours", "slaughter",
	"quantity_per_animal", "quantity_total", "quantity_unit", "prescribing_vet", "prescribing_practice",
	"last_administration", "reason", "off_label", "time_zone", "withdrawal_rules", "organic",
	"straw", "technician", "recipient_id", "embryo", "method",
	"foetal_age_days", "foetal_age_min_days", "foetal_age_max_days", "genetic_dam_id", "expected_calving_date",
	"holding_scheme", "holding_number", "disposal"}

// use says whether a kind takes a field.
type use uint8

const (
	unused use = iota
	optional
	required
)

// kindFields is DESIGN.md's fact table. An exposure takes dam_id or
// group_id; which one is checked separately because the table cannot say
// "exactly one".
var kindFields = map[Kind][numFields]use{
	KindProfile:       {fAnimal: required, fSex: optional, fBirthDate: optional, fBreed: optional, fDate: optional},
	KindCastration:    {fAnimal: required, fDate: required},
	KindExposure:      {fSire: required, fDam: optional, fGroup: optional, fStart: required, fEnd: optional},
	KindMembership:    {fAnimal: required, fGroup: required, fStart: required, fEnd: optional},
	KindMembershipEnd: {fAnimal: required, fGroup: required, fDate: required},
	KindPurchase:      {fAnimal: required, fDate: required, fHoldingScheme: optional, fHoldingNumber: optional},
	KindMovementIn:    {fAnimal: required, fDate: required, fHoldingScheme: optional, fHoldingNumber: optional},
	KindMovementOut:   {fAnimal: required, fDate: required, fHoldingScheme: optional, fHoldingNumber: optional},
	KindBirth:         {fDam: required, fDate: required, fOffspring: optional, fSire: optional, fGeneticDam: optional},
	KindIdentifier:    {fAnimal: required, fScheme: required, fValue: required, fStart: required, fEnd: optional},
	KindDeath:         {fAnimal: required, fDate: required, fCause: optional, fSlaughter: optional, fDisposal: optional},
	KindSale:          {fAnimal: required, fDate: required, fBuyer: optional, fHoldingScheme: optional, fHoldingNumber: optional},
	KindWeight:        {fAnimal: required, fDate: required, fKG: required},
	KindWeaning:       {fAnimal: required, fDate: required, fKG: required, fGroup: optional},
	KindDNAParentage: {fOffspringID: required, fParent: required, fRelation: required, fResult: required,
		fLab: optional, fDate: required},
	KindTreatment: {fMedicine: required, fAnimal: optional, fGroup: optional, fDate: required,
		fMedicineVersion: optional, fDose: optional, fUnit: optional, fRoute: optional, fBatch: optional,
		fAdministeredBy: optional, fMeatDays: optional, fMilkHours: optional,
		fQuantityPerAnimal: optional, fQuantityTotal: optional, fQuantityUnit: optional, fPrescribingVet: optional,
		fPrescribingPractice: optional, fLastAdministration: optional, fReason: optional, fOffLabel: optional,
		fTimeZone: optional, fWithdrawalRules: optional, fOrganic: optional},
	KindHeat:           {fAnimal: required, fDate: required},
	KindInsemination:   {fDam: required, fSire: required, fDate: required, fStraw: optional, fTechnician: optional},
	KindHandMating:     {fDam: required, fSire: required, fDate: required},
	KindPedigree:       {fAnimal: required, fDam: optional, fSire: optional, fDate: required},
	KindEmbryoTransfer: {fDam: required, fSire: required, fRecipient: required, fDate: required, fEmbryo: optional},
	KindPregnancyCheck: {fAnimal: required, fDate: required, fMethod: required, fResult: required,
		fFoetalAge: optional, fFoetalAgeMin: optional, fFoetalAgeMax: optional, fExpectedCalving: optional},
}

// str returns the value of a string field.
func (f *Fact) str(fl field) string {
	switch fl {
	case fAnimal:
		return f.AnimalID
	case fSex:
		return f.Sex
	case fBirthDate:
		return f.BirthDate
	case fBreed:
		return f.Breed
	case fDate:
		return f.Date
	case fSire:
		return f.SireID
	case fDam:
		return f.DamID
	case fGroup:
		return f.GroupID
	case fStart:
		return f.StartDate
	case fEnd:
		return f.EndDate
	case fScheme:
		return f.Scheme
	case fValue:
		return f.Value
	case fCause:
		return f.Cause
	case fBuyer:
		return f.Buyer
	case fLab:
		return f.Lab
	case fOffspringID:
		return f.OffspringID
	case fParent:
		return f.ParentID
	case fRelation:
		return f.Relation
	case fResult:
		return f.Result
	case fKG:
		return string(f.KG)
	case fMedicine:
		return f.MedicineID
	case fUnit:
		return f.Unit
	case fRoute:
		return f.Route
	case fBatch:
		return f.Batch
	case fAdministeredBy:
		return f.AdministeredBy
	case fQuantityUnit:
		return f.QuantityUnit
	case fPrescribingVet:
		return f.PrescribingVet
	case fPrescribingPractice:
		return f.PrescribingPractice
	case fLastAdministration:
		return f.LastAdministration
	case fReason:
		return f.Reason
	case fTimeZone:
		return f.TimeZone
	case fWithdrawalRules:
		return f.WithdrawalRules
	case fStraw:
		return f.Straw
	case fTechnician:
		return f.Technician
	case fRecipient:
		return f.RecipientID
	case fEmbryo:
		return f.Embryo
	case fMethod:
		return f.Method
	case fGeneticDam:
		return f.GeneticDamID
	case fExpectedCalving:
		return f.ExpectedCalvingDate
	case fHoldingScheme:
		return f.HoldingScheme
	case fHoldingNumber:
		return f.HoldingNumber
	case fDisposal:
		return f.Disposal
	}
	return ""
}

// setStr stores the value of a string field.
func (f *Fact) setStr(fl field, v string) {
	switch fl {
	case fAnimal:
		f.AnimalID = v
	case fSex:
		f.Sex = v
	case fBirthDate:
		f.BirthDate = v
	case fBreed:
		f.Breed = v
	case fDate:
		f.Date = v
	case fSire:
		f.SireID = v
	case fDam:
		f.DamID = v
	case fGroup:
		f.GroupID = v
	case fStart:
		f.StartDate = v
	case fEnd:
		f.EndDate = v
	case fScheme:
		f.Scheme = v
	case fValue:
		f.Value = v
	case fCause:
		f.Cause = v
	case fBuyer:
		f.Buyer = v
	case fLab:
		f.Lab = v
	case fOffspringID:
		f.OffspringID = v
	case fParent:
		f.ParentID = v
	case fRelation:
		f.Relation = v
	case fResult:
		f.Result = v
	case fKG:
		f.KG = json.Number(v)
	case fMedicine:
		f.MedicineID = v
	case fUnit:
		f.Unit = v
	case fRoute:
		f.Route = v
	case fBatch:
		f.Batch = v
	case fAdministeredBy:
		f.AdministeredBy = v
	case fQuantityUnit:
		f.QuantityUnit = v
	case fPrescribingVet:
		f.PrescribingVet = v
	case fPrescribingPractice:
		f.PrescribingPractice = v
	case fLastAdministration:
		f.LastAdministration = v
	case fReason:
		f.Reason = v
	case fTimeZone:
		f.TimeZone = v
	case fWithdrawalRules:
		f.WithdrawalRules = v
	case fStraw:
		f.Straw = v
	case fTechnician:
		f.Technician = v
	case fRecipient:
		f.RecipientID = v
	case fEmbryo:
		f.Embryo = v
	case fMethod:
		f.Method = v
	case fGeneticDam:
		f.GeneticDamID = v
	case fExpectedCalving:
		f.ExpectedCalvingDate = v
	case fHoldingScheme:
		f.HoldingScheme = v
	case fHoldingNumber:
		f.HoldingNumber = v
	case fDisposal:
		f.Disposal = v
	}
}

func (f *Fact) present(fl field) bool {
	switch fl {
	case fOffspring:
		return len(f.OffspringIDs) > 0
	case fMedicineVersion:
		return f.MedicineVersion != 0
	case fDose:
		return f.Dose != nil
	case fQuantityPerAnimal:
		return f.QuantityPerAnimal != nil
	case fQuantityTotal:
		return f.QuantityTotal != nil
	case fMeatDays:
		return f.WithdrawalMeatDays != nil
	case fMilkHours:
		return f.WithdrawalMilkHours != nil
	case fSlaughter:
		return f.Slaughter
	case fOffLabel:
		return f.OffLabel
	case fOrganic:
		return f.Organic
	case fFoetalAge:
		return f.FoetalAgeDays != nil
	case fFoetalAgeMin:
		return f.FoetalAgeMinDays != nil
	case fFoetalAgeMax:
		return f.FoetalAgeMaxDays != nil
	}
	return f.str(fl) != ""
}

func isIDField(fl field) bool {
	return fl == fAnimal || fl == fSire || fl == fDam || fl == fGroup || fl == fOffspringID || fl == fParent || fl == fMedicine ||
		fl == fRecipient || fl == fGeneticDam
}

func isTextField(fl field) bool {
	return fl == fUnit || fl == fRoute || fl == fBatch || fl == fAdministeredBy ||
		fl == fQuantityUnit || fl == fPrescribingVet || fl == fPrescribingPractice || fl == fReason ||
		fl == fTimeZone || fl == fWithdrawalRules || fl == fStraw || fl == fTechnician || fl == fEmbryo
}

func isDateField(fl field) bool {
	return fl == fBirthDate || fl == fDate || fl == fStart || fl == fEnd || fl == fExpectedCalving
}

// ParseFact decodes and validates the value of metadata.birth_history. Ids
// are lower-cased so that one animal has one spelling. Unknown fields are
// refused rather than ignored, because a misspelt key such as "end" would
// otherwise silently turn a closed exposure into an open one. Field names in
// the errors are relative to the metadata, such as "birth_history.date".
func ParseFact(raw json.RawMessage) (Fact, []FieldError) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return Fact{}, []FieldError{{Field: "birth_history", Message: "must be a JSON object"}}
	}

	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	var (
		f       Fact
		errs    []FieldError
		badType = map[string]bool{}
	)
	for _, k := range keys {
		v := obj[k]
		name := "birth_history." + k
		if k == "kind" {
			s, ok := decodeString(v)
			if !ok {
				errs = append(errs, FieldError{Field: name, Message: "must be a string"})
				badType[name] = true
			}
			f.Kind = Kind(s)
			continue
		}
		fl, known := fieldByName(k)
		switch {
		case !known:
			errs = append(errs, FieldError{Field: "birth_history." + truncate(k, 64), Message: "is not a known field"})
		case fl == fOffspring:
			ids, ok := decodeStrings(v)
			if !ok {
				errs = append(errs, FieldError{Field: name, Message: "must be an array of strings"})
				badType[name] = true
			}
			for i := range ids {
				ids[i] = normID(ids[i])
			}
			f.OffspringIDs = ids
		case fl == fKG:
			n, ok := decodeNumber(v)
			if !ok {
				errs = append(errs, FieldError{Field: name, Message: "must be a number"})
				badType[name] = true
			}
			f.KG = n
		case fl == fSlaughter || fl == fOffLabel || fl == fOrganic:
			var b *bool
			if json.Unmarshal(v, &b) != nil {
				errs = append(errs, FieldError{Field: name, Message: "must be true or false"})
				badType[name] = true
			}
			switch fl {
			case fSlaughter:
				f.Slaughter = b != nil && *b
			case fOffLabel:
				f.OffLabel = b != nil && *b
			default:
				f.Organic = b != nil && *b
			}
		case fl == fDose || fl == fQuantityPerAnimal || fl == fQuantityTotal:
			var n *float64
			if json.Unmarshal(v, &n) != nil {
				errs = append(errs, FieldError{Field: name, Message: "must be a number"})
				badType[name] = true
			}
			switch fl {
			case fDose:
				f.Dose = n
			case fQuantityPerAnimal:
				f.QuantityPerAnimal = n
			default:
				f.QuantityTotal = n
			}
		case fl == fFoetalAge || fl == fFoetalAgeMin || fl == fFoetalAgeMax:
			var n *int
			if json.Unmarshal(v, &n) != nil {
				errs = append(errs, FieldError{Field: name, Message: "must be a whole number"})
				badType[name] = true
				n = nil
			}
			switch fl {
			case fFoetalAge:
				f.FoetalAgeDays = n
			case fFoetalAgeMin:
				f.FoetalAgeMinDays = n
			default:
				f.FoetalAgeMaxDays = n
			}
		case fl == fMedicineVersion || fl == fMeatDays || fl == fMilkHours:
			var n *int
			if json.Unmarshal(v, &n) != nil {
				errs = append(errs, FieldError{Field: name, Message: "must be a whole number"})
				badType[name] = true
				n = nil
			}
			switch fl {
			case fMedicineVersion:
				if n != nil {
					f.MedicineVersion = *n
					if *n == 0 {
						// 0 is not a version; keep it visible to Validate.
						f.MedicineVersion = -1
					}
				}
			case fMeatDays:
				f.WithdrawalMeatDays = n
			default:
				f.WithdrawalMilkHours = n
			}
		default:
			s, ok := decodeString(v)
			if !ok {
				errs = append(errs, FieldError{Field: name, Message: "must be a string"})
				badType[name] = true
			}
			if isIDField(fl) {
				s = normID(s)
			}
			f.setStr(fl, s)
		}
	}

	f.canonicalize()
	for _, e := range f.Validate() {
		if !badType[e.Field] {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return f, errs
	}
	return f, nil
}

// ParseMetadata finds and parses the birth_history fact of a record item's
// metadata. ok is false when the metadata carries no birth_history key (or
// is not a JSON object at all), because other metadata is not this
// package's business.
func ParseMetadata(metadata json.RawMessage) (f Fact, ok bool, errs []FieldError) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(metadata, &obj) != nil {
		return Fact{}, false, nil
	}
	raw, ok := obj["birth_history"]
	if !ok {
		return Fact{}, false, nil
	}
	f, errs = ParseFact(raw)
	return f, true, errs
}

func fieldByName(name string) (field, bool) {
	for i, n := range fieldNames {
		if n == name {
			return field(i), true
		}
	}
	return 0, false
}

// decodeString accepts a JSON string or null (read as absent).
func decodeString(v json.RawMessage) (string, bool) {
	var s *string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	if s == nil {
		return "", true
	}
	return *s, true
}

// decodeNumber accepts a JSON number or null (read as absent).
func decodeNumber(v json.RawMessage) (json.Number, bool) {
	if string(v) == "null" {
		return "", true
	}
	var n json.Number
	d := json.NewDecoder(strings.NewReader(string(v)))
	d.UseNumber()
	var x any
	if d.Decode(&x) != nil {
		return "", false
	}
	n, ok := x.(json.Number)
	return n, ok
}

// canonicalize spells the values that have several accepted spellings in
// their one stored form: an EID in any reader form becomes its 15 digits,
// a weight its shortest decimal. Values that do not parse are left as they
// are for Validate to report.
func (f *Fact) canonicalize() {
	if f.Kind == KindIdentifier && f.Scheme == SchemeEID {
		if v, ok := NormalizeEID(f.Value); ok {
			f.Value = v
		}
	}
	if f.Kind == KindIdentifier && f.Scheme != SchemeEID {
		f.Value = strings.TrimSpace(f.Value)
	}
	if f.HoldingNumber != "" {
		if v, err := scheme.Canonical(f.HoldingScheme, f.HoldingNumber); err == nil {
			f.HoldingNumber = v
		}
	}
	if f.KG != "" {
		if x, err := strconv.ParseFloat(string(f.KG), 64); err == nil && !math.IsInf(x, 0) {
			f.KG = json.Number(strconv.FormatFloat(x, 'f', -1, 64))
		}
	}
}

// decodeStrings accepts a JSON array of strings or null (read as absent).
func decodeStrings(v json.RawMessage) ([]string, bool) {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) != nil {
			return nil, false
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, true
	}
	return out, true
}

// Validate checks one fact against DESIGN.md's vocabulary: a known kind,
// the fields that kind requires and no others, well-formed uuids, a sex of
// male or female, real calendar dates, and a start no later than its end.
// It returns nil when the fact is valid. Provenance ids are not checked
// here: they are the caller's, not the author's.
func (f Fact) Validate() []FieldError {
	var errs []FieldError
	add := func(fl field, format string, args ...any) {
		errs = append(errs, FieldError{Field: "birth_history." + fieldNames[fl], Message: fmt.Sprintf(format, args...)})
	}

	if f.Kind == "" {
		return []FieldError{{Field: "birth_history.kind", Message: "is required"}}
	}
	uses, ok := kindFields[f.Kind]
	if !ok {
		names := make([]string, len(Kinds))
		for i, k := range Kinds {
			names[i] = string(k)
		}
		return []FieldError{{Field: "birth_history.kind", Message: "must be one of " + strings.Join(names, ", ")}}
	}

	fine := [numFields]bool{}
	for fl := field(0); fl < numFields; fl++ {
		has := f.present(fl)
		switch {
		case uses[fl] == unused && has:
			add(fl, "is not used by kind %s", f.Kind)
		case uses[fl] == required && !has:
			add(fl, "is required for kind %s", f.Kind)
		case has:
			if msg := f.checkFormat(fl); msg != "" {
				add(fl, "%s", msg)
			} else {
				fine[fl] = true
			}
		}
	}

	if fine[fStart] && fine[fEnd] && f.EndDate < f.StartDate {
		// YYYY-MM-DD strings order like the dates they spell.
		add(fEnd, "must not be before start_date")
	}
	if (f.HoldingScheme == "") != (f.HoldingNumber == "") {
		if f.HoldingScheme == "" {
			add(fHoldingScheme, "is required when holding_number is given")
		} else {
			add(fHoldingNumber, "is required when holding_scheme is given")
		}
	}
	if f.Kind == KindExposure {
		switch {
		case f.DamID != "" && f.GroupID != "":
			add(fGroup, "must be left out when dam_id is given: an exposure is with a dam or with a group")
		case f.DamID == "" && f.GroupID == "":
			add(fDam, "is required for kind exposure unless group_id is given")
		}
	}
	if f.Kind == KindPedigree {
		switch {
		case f.DamID == "" && f.SireID == "":
			add(fSire, "is required for kind pedigree unless dam_id is given")
		case f.DamID != "" && normID(f.DamID) == normID(f.SireID):
			add(fSire, "must differ from dam_id")
		}
		for fl, id := range map[field]string{fDam: f.DamID, fSire: f.SireID} {
			if id != "" && normID(id) == normID(f.AnimalID) {
				add(fl, "must not name the animal itself")
			}
		}
	}
	if fine[fParent] && fine[fOffspringID] && normID(f.ParentID) == normID(f.OffspringID) {
		add(fParent, "must differ from offspring_id")
	}
	if f.Kind == KindTreatment {
		if (fine[fQuantityPerAnimal] || fine[fQuantityTotal]) && f.QuantityUnit == "" {
			add(fQuantityUnit, "is required when quantity_per_animal or quantity_total is given")
		}
		if fine[fLastAdministration] && fine[fDate] {
			if msg := courseError(f.Date, f.LastAdministration); msg != "" {
				add(fLastAdministration, "%s", msg)
			}
		}
		switch {
		case f.AnimalID != "" && f.GroupID != "":
			add(fGroup, "must be left out when animal_id is given: a treatment is of an animal or of a group")
		case f.AnimalID == "" && f.GroupID == "":
			add(fAnimal, "is required for kind treatment unless group_id is given")
		}
	}
	if f.Kind == KindPregnancyCheck {
		switch {
		case f.FoetalAgeDays != nil && (f.FoetalAgeMinDays != nil || f.FoetalAgeMaxDays != nil):
			add(fFoetalAge, "must be left out when foetal_age_min_days or foetal_age_max_days is given: a foetal age is one number or a range")
		case (f.FoetalAgeMinDays != nil) != (f.FoetalAgeMaxDays != nil):
			if f.FoetalAgeMinDays == nil {
				add(fFoetalAgeMin, "is required when foetal_age_max_days is given")
			} else {
				add(fFoetalAgeMax, "is required when foetal_age_min_days is given")
			}
		case fine[fFoetalAgeMin] && fine[fFoetalAgeMax] && *f.FoetalAgeMaxDays < *f.FoetalAgeMinDays:
			add(fFoetalAgeMax, "must not be less than foetal_age_min_days")
		}
		if fine[fResult] && f.Result != ResultPregnant && (f.FoetalAgeDays != nil || f.FoetalAgeMinDays != nil || f.FoetalAgeMaxDays != nil) {
			add(fResult, "must be pregnant when a foetal age is given")
		}
		if fine[fResult] && f.Result != ResultPregnant && f.ExpectedCalvingDate != "" {
			add(fExpectedCalving, "must be left out unless result is pregnant: only a pregnancy has a calving date")
		}
		if fine[fExpectedCalving] && fine[fDate] {
			c, _ := parseDate(f.ExpectedCalvingDate)
			d, _ := parseDate(f.Date)
			if c <= d || c-d > MaxFoetalAgeDays {
				add(fExpectedCalving, "must be after the check's date and at most %d days after it", MaxFoetalAgeDays)
			}
		}
	}
	if fine[fRecipient] && fine[fDam] && normID(f.RecipientID) == normID(f.DamID) {
		add(fRecipient, "must differ from dam_id: the recipient carries another dam's embryo")
	}
	if fine[fRecipient] && fine[fSire] && normID(f.RecipientID) == normID(f.SireID) {
		add(fRecipient, "must differ from sire_id")
	}
	if fine[fGeneticDam] && fine[fDam] && normID(f.GeneticDamID) == normID(f.DamID) {
		add(fGeneticDam, "must differ from dam_id: leave it out when the dam that gave birth is the genetic dam")
	}
	if fine[fGeneticDam] && fine[fSire] && normID(f.GeneticDamID) == normID(f.SireID) {
		add(fGeneticDam, "must differ from sire_id")
	}
	if fine[fSire] && fine[fDam] && normID(f.SireID) == normID(f.DamID) {
		add(fSire, "must differ from dam_id")
	}
	if fine[fOffspring] {
		for i, id := range f.OffspringIDs {
			n := normID(id)
			if (f.DamID != "" && n == normID(f.DamID)) || (f.SireID != "" && n == normID(f.SireID)) || (f.GeneticDamID != "" && n == normID(f.GeneticDamID)) {
				errs = append(errs, FieldError{Field: fmt.Sprintf("birth_history.offspring_ids[%d]", i), Message: "must not name the dam or the sire"})
			}
		}
	}
	return errs
}

// checkFormat returns what is wrong with a present field, or "".
func (f *Fact) checkFormat(fl field) string {
	switch {
	case isIDField(fl):
		if !isUUID(f.str(fl)) {
			return "must be a UUID"
		}
	case (fl == fDate && f.Kind == KindTreatment) || fl == fLastAdministration:
		if v := f.str(fl); !isDate(v) && !isDateTime(v) {
			return "must be a calendar date (YYYY-MM-DD) or an RFC 3339 date-time"
		}
	case isDateField(fl):
		if !isDate(f.str(fl)) {
			return "must be a calendar date in the form YYYY-MM-DD"
		}
	case fl == fSex:
		if f.Sex != SexMale && f.Sex != SexFemale {
			return "must be male or female"
		}
	case fl == fBreed:
		return checkText(f.Breed, MaxBreed)
	case fl == fCause || fl == fBuyer || fl == fLab:
		return checkText(f.str(fl), MaxFactText)
	case fl == fScheme:
		if !slices.Contains(Schemes, f.Scheme) {
			return "must be one of " + strings.Join(Schemes, ", ")
		}
	case fl == fValue:
		if f.Scheme == SchemeEID {
			return eidProblem(f.Value)
		}
		return checkText(f.Value, MaxIdentifier)
	case fl == fRelation:
		if f.Relation != RelationDam && f.Relation != RelationSire {
			return dnaRelationMessage
		}
	case fl == fResult && f.Kind == KindPregnancyCheck:
		if !slices.Contains(PregnancyResults, f.Result) {
			return "must be one of " + strings.Join(PregnancyResults, ", ")
		}
	case fl == fResult:
		if f.Result != ResultQualified && f.Result != ResultExcluded {
			return "must be qualified or excluded"
		}
	case fl == fHoldingScheme:
		if !slices.Contains(scheme.Schemes, f.HoldingScheme) {
			return "must be one of " + strings.Join(scheme.Schemes, ", ")
		}
	case fl == fHoldingNumber:
		if !slices.Contains(scheme.Schemes, f.HoldingScheme) {
			return ""
		}
		if _, err := scheme.Canonical(f.HoldingScheme, f.HoldingNumber); err != nil {
			return err.Error()
		}
	case fl == fDisposal:
		if !slices.Contains(Disposals, f.Disposal) {
			return "must be one of " + strings.Join(Disposals, ", ")
		}
	case fl == fMethod:
		if !slices.Contains(PregnancyMethods, f.Method) {
			return "must be one of " + strings.Join(PregnancyMethods, ", ")
		}
	case fl == fFoetalAge || fl == fFoetalAgeMin || fl == fFoetalAgeMax:
		n := f.FoetalAgeDays
		if fl == fFoetalAgeMin {
			n = f.FoetalAgeMinDays
		} else if fl == fFoetalAgeMax {
			n = f.FoetalAgeMaxDays
		}
		if *n < 1 || *n > MaxFoetalAgeDays {
			return fmt.Sprintf("must be between 1 and %d", MaxFoetalAgeDays)
		}
	case fl == fKG:
		x, err := strconv.ParseFloat(string(f.KG), 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) || x <= 0 || x > MaxWeightKG {
			return fmt.Sprintf("must be a number greater than 0 and at most %d", MaxWeightKG)
		}
	case isTextField(fl):
		v := f.str(fl)
		switch {
		case !utf8.ValidString(v):
			return "must be valid UTF-8 text"
		case strings.TrimSpace(v) == "":
			return "must not be blank"
		case utf8.RuneCountInString(v) > MaxTreatmentText:
			return fmt.Sprintf("must be at most %d characters long", MaxTreatmentText)
		}
	case fl == fMedicineVersion:
		if f.MedicineVersion < 1 {
			return "must be 1 or more"
		}
	case fl == fDose:
		if !(*f.Dose > 0 && *f.Dose <= MaxDose) {
			return fmt.Sprintf("must be more than 0 and at most %g", float64(MaxDose))
		}
	case fl == fQuantityPerAnimal || fl == fQuantityTotal:
		n := f.QuantityPerAnimal
		if fl == fQuantityTotal {
			n = f.QuantityTotal
		}
		if !(*n > 0 && *n <= MaxQuantity) {
			return fmt.Sprintf("must be more than 0 and at most %g", float64(MaxQuantity))
		}
	case fl == fMeatDays:
		if *f.WithdrawalMeatDays < 0 || *f.WithdrawalMeatDays > MaxWithdrawalMeatDays {
			return fmt.Sprintf("must be between 0 and %d", MaxWithdrawalMeatDays)
		}
	case fl == fMilkHours:
		if *f.WithdrawalMilkHours < 0 || *f.WithdrawalMilkHours > MaxWithdrawalMilkHours {
			return fmt.Sprintf("must be between 0 and %d", MaxWithdrawalMilkHours)
		}
	case fl == fOffspring:
		if len(f.OffspringIDs) > MaxOffspringIDs {
			return fmt.Sprintf("must have at most %d items", MaxOffspringIDs)
		}
		seen := make(map[string]bool, len(f.OffspringIDs))
		for _, id := range f.OffspringIDs {
			if !isUUID(id) {
				return "must hold only UUIDs"
			}
			n := normID(id)
			if seen[n] {
				return "must not repeat an id"
			}
			seen[n] = true
		}
	}
	return ""
}

// ReferencedAnimals returns every animal id the fact names (animal, sire,
// dam and offspring), lower-cased, de-duplicated and sorted. A write path
// checks them against the farm's animals before storing the fact.
func (f Fact) ReferencedAnimals() []string {
	ids := []string{f.AnimalID, f.SireID, f.DamID, f.OffspringID, f.ParentID, f.RecipientID, f.GeneticDamID}
	ids = append(ids, f.OffspringIDs...)
	return sortedSet(ids)
}

// ReferencedGroups returns every group id the fact names, lower-cased.
func (f Fact) ReferencedGroups() []string {
	return sortedSet([]string{f.GroupID})
}

// sortedSet lower-cases, de-duplicates and sorts ids, dropping empty ones.
// The result is never nil so that it encodes as an empty JSON array.
func sortedSet(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" {
			out = append(out, normID(id))
		}
	}
	sort.Strings(out)
	return compactStrings(out)
}

func compactStrings(s []string) []string {
	if len(s) < 2 {
		return s
	}
	w := 1
	for i := 1; i < len(s); i++ {
		if s[i] != s[w-1] {
			s[w] = s[i]
			w++
		}
	}
	return s[:w]
}
