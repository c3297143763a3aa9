package herdbook

import (
	"context"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
)

// Weaning and growth (docs/breeding.md): an animal's weights as a dated series, the daily
// gain between any two of them, and the 205-day adjusted weaning weight of the Beef
// Improvement Federation's Guidelines for Uniform Beef Improvement Programs (BIF, 9th ed.,
// weaning weight): adjusted = (weaning weight − birth weight) / age in days × 205 + birth
// weight, plus the farm's own age-of-dam adjustment where it configures one. Nothing is
// assumed: without a recorded birth weight, birth date or weaning there is no adjusted
// weight, and the answer says which is missing.

// BIFStandardAgeDays is the age BIF standardises weaning weights to.
const BIFStandardAgeDays = 205

// WeightPoint is one weighing of an animal.
type WeightPoint struct {
	Date string  `json:"date"`
	KG   float64 `json:"kg"`
	// Kind is weight, or weaning for the weaning fact's weight.
	Kind     string    `json:"kind"`
	RecordID uuid.UUID `json:"record_id"`
}

// Gain is the daily gain between two weighings on different dates. Weighings on one date
// count as their mean, so the answer does not depend on the order they were recorded in.
type Gain struct {
	From        string  `json:"from"`
	To          string  `json:"to"`
	Days        int     `json:"days"`
	FromKG      float64 `json:"from_kg"`
	ToKG        float64 `json:"to_kg"`
	DailyGainKG float64 `json:"daily_gain_kg"`
}

// AdjustedWeaning is an animal's 205-day adjusted weaning weight and what it was made of.
type AdjustedWeaning struct {
	BirthDate   string  `json:"birth_date"`
	BirthKG     float64 `json:"birth_kg"`
	WeaningDate string  `json:"weaning_date"`
	WeaningKG   float64 `json:"weaning_kg"`
	AgeDays     int     `json:"age_days"`
	// AgeOfDamDays is the dam's age on the calf's birth date, when both are known.
	AgeOfDamDays *int `json:"age_of_dam_days"`
	// AgeOfDamAdjustmentKG is the farm's adjustment that applied (0 when none does).
	AgeOfDamAdjustmentKG float64 `json:"age_of_dam_adjustment_kg"`
	AdjustedKG           float64 `json:"adjusted_kg"`
	// GroupID is the weaning group (BIF's contemporary group), when the fact names one.
	GroupID *uuid.UUID `json:"group_id"`
}

// AnimalWeights is an animal's weight series for charts, the gains between consecutive
// weighing dates, and its adjusted weaning weight or why there is none.
type AnimalWeights struct {
	AnimalID uuid.UUID     `json:"animal_id"`
	Weights  []WeightPoint `json:"weights"`
	Gains    []Gain        `json:"gains"`
	// Gain is the daily gain between the two dates asked for, when asked.
	Gain                  *Gain            `json:"gain,omitempty"`
	AdjustedWeaningWeight *AdjustedWeaning `json:"adjusted_weaning_weight"`
	// AdjustedWeaningMissing names what the adjusted weight lacks, when there is none.
	AdjustedWeaningMissing []string `json:"adjusted_weaning_missing"`
}

// AnimalWeights answers an animal's weights. With from and to (dates of two weighings), it
// also answers the daily gain between them.
func (s *Service) AnimalWeights(ctx context.Context, farmID, animalID uuid.UUID, from, to string) (*AnimalWeights, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals, ScopeReadRecords); err != nil {
		return nil, err
	}
	var fe fieldErrors
	checkPeriod(&fe, from, to)
	if (from == "") != (to == "") {
		fe.add("to", "from and to are asked for together: the dates of two weighings")
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	ok, err := s.isFarmAnimal(ctx, farmID, animalID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, Errorf(ENOTFOUND, "animal %s not found", animalID)
	}
	st, err := s.settings(ctx, farmID)
	if err != nil {
		return nil, err
	}
	facts, err := s.animalFacts(ctx, farmID, []uuid.UUID{animalID})
	if err != nil {
		return nil, err
	}
	// The dam's facts, for her age at calving (only when the farm adjusts for it).
	if st.WeaningAgeOfDam != nil {
		p := evidence.ProfileOf(animalID.String(), "9999-12-31", facts)
		if p.DamID != nil {
			dam, err := uuid.Parse(*p.DamID)
			if err == nil {
				more, err := s.animalFactsOf(ctx, farmID, []uuid.UUID{dam}, []string{string(evidence.KindProfile), string(evidence.KindBirth)})
				if err != nil {
					return nil, err
				}
				facts = append(facts, more...)
			}
		}
	}
	g := growthOf(animalID, facts, st.WeaningAgeOfDam)
	if from != "" {
		gain, ok := gainBetween(g.Weights, from, to)
		if !ok {
			return nil, Invalid(FieldError{Field: "from", Message: "from and to must each be the date of a weighing of the animal"})
		}
		g.Gain = &gain
	}
	return g, nil
}

// growthOf computes an animal's weights from facts that name it (and, for the age-of-dam
// adjustment, its dam's profile and birth facts).
func growthOf(animalID uuid.UUID, facts []evidence.Fact, ageOfDam []schematype.AgeOfDamAdjustment) *AnimalWeights {
	id := animalID.String()
	out := &AnimalWeights{AnimalID: animalID, Weights: []WeightPoint{}, Gains: []Gain{}, AdjustedWeaningMissing: []string{}}
	var weaning *evidence.Fact
	for i := range facts {
		f := &facts[i]
		if f.AnimalID != id || (f.Kind != evidence.KindWeight && f.Kind != evidence.KindWeaning) {
			continue
		}
		kg, err := strconv.ParseFloat(f.KG.String(), 64)
		if err != nil {
			continue
		}
		rid, _ := uuid.Parse(f.RecordID)
		out.Weights = append(out.Weights, WeightPoint{Date: f.Date, KG: kg, Kind: string(f.Kind), RecordID: rid})
		// The first weaning counts; on one date, the heavier record (any fixed rule would do:
		// the answer must not depend on the order of recording).
		if f.Kind == evidence.KindWeaning && (weaning == nil || f.Date < weaning.Date ||
			(f.Date == weaning.Date && f.KG.String() > weaning.KG.String())) {
			weaning = f
		}
	}
	sort.Slice(out.Weights, func(i, j int) bool {
		a, b := out.Weights[i], out.Weights[j]
		if a.Date != b.Date {
			return a.Date < b.Date
		}
		if a.KG != b.KG {
			return a.KG < b.KG
		}
		return a.RecordID.String() < b.RecordID.String()
	})
	days := byDate(out.Weights)
	for i := 1; i < len(days); i++ {
		out.Gains = append(out.Gains, gainOf(days[i-1], days[i]))
	}

	p := evidence.ProfileOf(id, "9999-12-31", facts)
	if p.BirthDate == nil {
		out.AdjustedWeaningMissing = append(out.AdjustedWeaningMissing, "birth_date")
	}
	var birthKG *float64
	if p.BirthDate != nil {
		for _, d := range days {
			if d.date == *p.BirthDate {
				birthKG = &d.kg
			}
		}
	}
	if birthKG == nil {
		out.AdjustedWeaningMissing = append(out.AdjustedWeaningMissing, "birth_weight")
	}
	if weaning == nil {
		out.AdjustedWeaningMissing = append(out.AdjustedWeaningMissing, "weaning")
	}
	if len(out.AdjustedWeaningMissing) > 0 {
		return out
	}
	wkg, _ := strconv.ParseFloat(weaning.KG.String(), 64)
	age := daysBetween(*p.BirthDate, weaning.Date)
	if age <= 0 {
		out.AdjustedWeaningMissing = append(out.AdjustedWeaningMissing, "weaning_after_birth")
		return out
	}
	adj := &AdjustedWeaning{BirthDate: *p.BirthDate, BirthKG: *birthKG, WeaningDate: weaning.Date, WeaningKG: wkg, AgeDays: age}
	if g, err := uuid.Parse(weaning.GroupID); err == nil {
		adj.GroupID = &g
	}
	if p.DamID != nil {
		dp := evidence.ProfileOf(*p.DamID, "9999-12-31", facts)
		if dp.BirthDate != nil {
			d := daysBetween(*dp.BirthDate, *p.BirthDate)
			adj.AgeOfDamDays = &d
			for _, l := range ageOfDam {
				if d >= l.MinDays && d <= l.MaxDays {
					if p.Sex != nil && *p.Sex == evidence.SexMale {
						adj.AgeOfDamAdjustmentKG = l.MaleKG
					} else if p.Sex != nil && *p.Sex == evidence.SexFemale {
						adj.AgeOfDamAdjustmentKG = l.FemaleKG
					}
				}
			}
		}
	}
	adj.AdjustedKG = round3(Adjusted205(*birthKG, wkg, age) + adj.AgeOfDamAdjustmentKG)
	out.AdjustedWeaningWeight = adj
	return out
}

// Adjusted205 is BIF's 205-day adjusted weaning weight before any age-of-dam adjustment:
// (weaning − birth) / age × 205 + birth.
func Adjusted205(birthKG, weaningKG float64, ageDays int) float64 {
	return (weaningKG-birthKG)/float64(ageDays)*BIFStandardAgeDays + birthKG
}

type dayWeight struct {
	date string
	kg   float64
}

// byDate is the weighings' mean per date, in date order (points must be sorted).
func byDate(points []WeightPoint) []dayWeight {
	var out []dayWeight
	n := 0
	for _, p := range points {
		if len(out) > 0 && out[len(out)-1].date == p.Date {
			last := &out[len(out)-1]
			last.kg = (last.kg*float64(n) + p.KG) / float64(n+1)
			n++
			continue
		}
		out = append(out, dayWeight{p.Date, p.KG})
		n = 1
	}
	return out
}

func gainOf(a, b dayWeight) Gain {
	d := daysBetween(a.date, b.date)
	return Gain{From: a.date, To: b.date, Days: d, FromKG: round3(a.kg), ToKG: round3(b.kg), DailyGainKG: round3((b.kg - a.kg) / float64(d))}
}

// gainBetween is the gain between the weighings of two dates.
func gainBetween(points []WeightPoint, from, to string) (Gain, bool) {
	var a, b *dayWeight
	for _, d := range byDate(points) {
		d := d
		if d.date == from {
			a = &d
		}
		if d.date == to {
			b = &d
		}
	}
	if a == nil || b == nil || from == to {
		return Gain{}, false
	}
	return gainOf(*a, *b), true
}

func daysBetween(from, to string) int {
	a, err1 := time.Parse(time.DateOnly, from)
	b, err2 := time.Parse(time.DateOnly, to)
	if err1 != nil || err2 != nil {
		return 0
	}
	return int(math.Round(b.Sub(a).Hours() / 24))
}

// round3 rounds to grams, so answers compare exactly with a hand calculation.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
