package withdrawal

import (
	"fmt"
	"math"
	"sort"
)

// Periods are the withdrawal periods that apply to one treatment, and the rule that gave
// each, as the medicine book shows them.
type Periods struct {
	MeatDays  int
	MilkHours int
	// MeatRule and MilkRule say what gave each period: "label", "vet", or the rule set's
	// minimum with its article; "; doubled for organic (EU 2018/848)" when the farm is organic.
	MeatRule string
	MilkRule string
	// OffLabel is set when either period comes from the cascade; Reason says why the use is
	// off-label.
	OffLabel bool
	Reason   string
	// MilkFromCalving is set for a dry-cow product used as labelled: its milk period counts
	// from calving, not from the treatment.
	MilkFromCalving bool
}

// RuleSet is a named set of statutory minimum withdrawal periods for a product used outside
// the terms of its label (the cascade). Meat returns the minimum in days for a product given
// to species, Milk the minimum in hours; each says which rule gave it.
type RuleSet struct {
	Name  string
	Title string
	Meat  func(l Label, species string) (days int, rule string)
	Milk  func(l Label, species string) (hours int, rule string)
}

var ruleSets = map[string]RuleSet{}

// Register adds a rule set under its name; a name taken twice is a programming error.
func Register(rs RuleSet) {
	if _, dup := ruleSets[rs.Name]; dup || rs.Name == "" || rs.Meat == nil || rs.Milk == nil {
		panic("withdrawal: rule set " + rs.Name + " registered twice or incomplete")
	}
	ruleSets[rs.Name] = rs
}

// Rules returns the rule set of a name.
func Rules(name string) (RuleSet, bool) {
	rs, ok := ruleSets[name]
	return rs, ok
}

// RuleSetNames lists the registered rule sets, sorted.
func RuleSetNames() []string {
	out := make([]string, 0, len(ruleSets))
	for n := range ruleSets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Names of the built-in rule sets.
const (
	GBVMR2013 = "gb_vmr_2013"
	EU2019_6  = "eu_2019_6"
)

// oneAndAHalf multiplies a period by 1.5, rounding a fraction up: a period rounded down would
// fall below the statutory minimum.
func oneAndAHalf(n int) int { return int(math.Ceil(float64(n) * 1.5)) }

func init() {
	// GB: The Veterinary Medicines Regulations 2013 (SI 2013/2033), Schedule 4 paragraph
	// 2(3), as amended by SI 2024/567: (b) milk, (c) meat from mammals and poultry.
	Register(RuleSet{
		Name:  GBVMR2013,
		Title: "GB Veterinary Medicines Regulations 2013, Schedule 4 paragraph 2(3)",
		Meat: func(l Label, _ string) (int, string) {
			if d, ok := l.longestMeat(); ok {
				return oneAndAHalf(d), fmt.Sprintf("gb_vmr_2013 Sch. 4 para 2(3)(c)(i): 1.5 × the label's longest meat period (%d days)", d)
			}
			return 28, "gb_vmr_2013 Sch. 4 para 2(3)(c)(ii): 28 days, not authorised for food-producing animals"
		},
		Milk: func(l Label, _ string) (int, string) {
			h, ok := l.longestMilk()
			switch {
			case !ok:
				return 7 * 24, "gb_vmr_2013 Sch. 4 para 2(3)(b)(ii): 7 days, not authorised for milk-producing animals"
			case h == 0:
				return 24, "gb_vmr_2013 Sch. 4 para 2(3)(b)(iii): 1 day, the label's milk period is zero"
			}
			return oneAndAHalf(h), fmt.Sprintf("gb_vmr_2013 Sch. 4 para 2(3)(b)(i): 1.5 × the label's longest milk period (%d hours)", h)
		},
	})
	// EU: Regulation (EU) 2019/6, Article 115(1): (a) meat and offal from mammals and
	// poultry, (b) milk.
	Register(RuleSet{
		Name:  EU2019_6,
		Title: "Regulation (EU) 2019/6, Article 115(1)",
		Meat: func(l Label, species string) (int, string) {
			d, ok := l.longestMeat()
			switch {
			case !ok:
				return 28, "eu_2019_6 Art. 115(1)(a)(ii): 28 days, not authorised for food-producing animals"
			case d == 0 && !l.sameFamily(species):
				return 1, "eu_2019_6 Art. 115(1)(a)(iii): 1 day, zero on the label and used in another taxonomic family"
			}
			return oneAndAHalf(d), fmt.Sprintf("eu_2019_6 Art. 115(1)(a)(i): 1.5 × the label's longest meat period (%d days)", d)
		},
		Milk: func(l Label, _ string) (int, string) {
			h, ok := l.longestMilk()
			switch {
			case !ok:
				return 7 * 24, "eu_2019_6 Art. 115(1)(b)(ii): 7 days, not authorised for milk-producing animals"
			case h == 0:
				return 24, "eu_2019_6 Art. 115(1)(b)(iii): 1 day, the label's milk period is zero"
			}
			return oneAndAHalf(h), fmt.Sprintf("eu_2019_6 Art. 115(1)(b)(i): 1.5 × the label's longest milk period (%d hours)", h)
		},
	})
}

// families are the taxonomic families of the farm species, for Art. 115(1)(a)(iii). OTHER
// has none: it is never taken to be of a labelled species' family.
var families = map[string]string{
	"CATTLE": "Bovidae", "SHEEP": "Bovidae", "GOAT": "Bovidae", "BISON": "Bovidae",
	"ELK": "Cervidae", "HORSE": "Equidae",
}

// sameFamily reports whether species belongs to the family of a species the label gives a
// meat period for (a general line covers every species).
func (l Label) sameFamily(species string) bool {
	f := families[species]
	for _, ln := range l.Lines {
		if ln.MeatDays == nil {
			continue
		}
		if ln.Species == "" || (f != "" && families[ln.Species] == f) {
			return true
		}
	}
	return false
}

// Inputs are what decides a treatment's periods: the label of the medicine version it was
// given under, the use, the farm's rule set name ("" when the farm has none set), whether the
// farm is organic, and the periods the vet set, if any.
type Inputs struct {
	Label        Label
	Use          Use
	Rules        string
	Organic      bool
	VetMeatDays  *int
	VetMilkHours *int
}

// Resolve works out a treatment's periods:
//
//   - A use that matches an authorised line of the label gets that line's periods ("label").
//   - A use that matches no line, or a line whose period for meat or milk is a dash, or that
//     the vet marked off-label, gets the rule set's statutory minimum for that produce (GB VMR
//     2013 Sch. 4 para 2(3); EU 2019/6 Art. 115(1)). Without a rule set it is refused with an
//     error naming withdrawal_rules: there is no default.
//   - A longer period set by the vet replaces either ("vet"). The service refuses a vet's
//     period shorter than the label's; a shorter one never shortens the result here.
//   - On an organic farm each period is doubled, and a zero becomes 48 hours (EU 2018/848,
//     Annex II Part II, veterinary treatment of organic livestock; the FVE's letter on the
//     48-hour period).
func Resolve(in Inputs) (Periods, error) {
	m, err := in.Label.Match(in.Use)
	if err != nil {
		return Periods{}, err
	}
	var p Periods
	meatOff := m.Line == nil || m.Line.MeatDays == nil
	milkOff := m.Line == nil || m.Line.MilkHours == nil
	if meatOff || milkOff {
		p.OffLabel = true
		p.Reason = m.Reason
		if m.Line != nil {
			switch {
			case meatOff && milkOff:
				p.Reason = fmt.Sprintf("the label does not authorise it for %s", speciesName(in.Use.Species))
			case meatOff:
				p.Reason = fmt.Sprintf("the label does not authorise it for meat of %s", speciesName(in.Use.Species))
			default:
				p.Reason = fmt.Sprintf("the label does not authorise it for milk of %s", speciesName(in.Use.Species))
			}
		}
		if in.Rules == "" {
			return Periods{}, &NeedsError{"withdrawal_rules", fmt.Sprintf("the use is off-label (%s) and the farm has not named the rule set of its statutory minimum periods: set withdrawal_rules in the farm settings", p.Reason)}
		}
		rs, ok := Rules(in.Rules)
		if !ok {
			return Periods{}, &NeedsError{"withdrawal_rules", fmt.Sprintf("%q is not a known rule set", in.Rules)}
		}
		if meatOff {
			p.MeatDays, p.MeatRule = rs.Meat(in.Label, in.Use.Species)
		}
		if milkOff {
			p.MilkHours, p.MilkRule = rs.Milk(in.Label, in.Use.Species)
		}
	}
	if !meatOff {
		p.MeatDays, p.MeatRule = *m.Line.MeatDays, "label"
	}
	if !milkOff {
		p.MilkHours, p.MilkRule = *m.Line.MilkHours, "label"
		p.MilkFromCalving = in.Label.DryCow
	}
	if in.VetMeatDays != nil && *in.VetMeatDays > p.MeatDays {
		p.MeatDays, p.MeatRule = *in.VetMeatDays, "vet"
	}
	if in.VetMilkHours != nil && *in.VetMilkHours > p.MilkHours {
		p.MilkHours, p.MilkRule = *in.VetMilkHours, "vet"
		p.MilkFromCalving = false
	}
	if in.Organic {
		p.MeatDays, p.MilkHours = Organic(p.MeatDays, p.MilkHours)
		p.MeatRule += "; doubled for organic (EU 2018/848)"
		p.MilkRule += "; doubled for organic (EU 2018/848)"
	}
	return p, nil
}

// Organic doubles both periods; a zero becomes 48 hours, which is 2 days of meat (EU 2018/848).
func Organic(meatDays, milkHours int) (int, int) {
	meatDays, milkHours = 2*meatDays, 2*milkHours
	if meatDays == 0 {
		meatDays = 2
	}
	if milkHours == 0 {
		milkHours = 48
	}
	return meatDays, milkHours
}
