package withdrawal_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/withdrawal"
)

func n(v int) *int { return &v }

func f(v float64) *float64 { return &v }

// Labels as printed. A nil period is the label's dash: not authorised (NOAH, guide to the
// withdrawal period tables), which is not zero.
var (
	// A sheep-only product: 28 days meat for sheep, a dash for milk (not for ewes producing
	// milk for human consumption), no other species.
	sheepOnly = withdrawal.Label{Lines: []withdrawal.Line{{Species: "SHEEP", MeatDays: n(28)}}}
	// A product for no food-producing animal: a general line of dashes.
	notForFood = withdrawal.Label{Lines: []withdrawal.Line{{}}}
	// Cattle 14 days meat, a dash for lactating cows.
	dashForMilk = withdrawal.Label{Lines: []withdrawal.Line{{Species: "CATTLE", MeatDays: n(14)}}}
	// Zero periods for cattle.
	zeroCattle = withdrawal.Label{Lines: []withdrawal.Line{{Species: "CATTLE", MeatDays: n(0), MilkHours: n(0)}}}
	// Horses only, zero meat.
	horseZero = withdrawal.Label{Lines: []withdrawal.Line{{Species: "HORSE", MeatDays: n(0)}}}
	// Sheep zero meat.
	sheepZero = withdrawal.Label{Lines: []withdrawal.Line{{Species: "SHEEP", MeatDays: n(0), MilkHours: n(0)}}}
	// Periods by dose (NOAH table: 20 mg/kg 28 days, 30 mg/kg 35 days).
	byDose = withdrawal.Label{Lines: []withdrawal.Line{
		{Species: "CATTLE", Dose: &withdrawal.DoseBand{Unit: "mg/kg", Min: 10, Max: 20}, MeatDays: n(28), MilkHours: n(72)},
		{Species: "CATTLE", Dose: &withdrawal.DoseBand{Unit: "mg/kg", Min: 25, Max: 30}, MeatDays: n(35), MilkHours: n(96)},
	}}
	// Periods by route (NOAH table: IV 10 days, IM 31 days).
	byRoute = withdrawal.Label{Lines: []withdrawal.Line{
		{Species: "CATTLE", Route: "intravenous", MeatDays: n(10), MilkHours: n(48)},
		{Species: "CATTLE", Route: "intramuscular", MeatDays: n(31), MilkHours: n(84)},
	}}
	// A general line and a sheep dash.
	generalButSheep = withdrawal.Label{Lines: []withdrawal.Line{
		{MeatDays: n(5), MilkHours: n(60)},
		{Species: "SHEEP"},
	}}
	dryCow = withdrawal.Label{DryCow: true, Lines: []withdrawal.Line{{Species: "CATTLE", MeatDays: n(28), MilkHours: n(96)}}}
)

// Every expected period below was worked out by hand from the rule named in its case.
func TestResolveByHand(t *testing.T) {
	gb, eu := withdrawal.GBVMR2013, withdrawal.EU2019_6
	bull := withdrawal.Use{Species: "CATTLE"}
	cases := []struct {
		name     string
		in       withdrawal.Inputs
		meat     int
		milk     int
		meatRule string // a part of the rule that must be named
		milkRule string
		offLabel bool
	}{
		// Labels as printed.
		{"LabelGeneralLine", withdrawal.Inputs{Label: generalButSheep, Use: withdrawal.Use{Species: "GOAT"}}, 5, 60, "label", "label", false},
		{"LabelZeroIsAuthorised", withdrawal.Inputs{Label: zeroCattle, Use: bull}, 0, 0, "label", "label", false},
		{"DoseBand20mgkg", withdrawal.Inputs{Label: byDose, Use: withdrawal.Use{Species: "CATTLE", Dose: f(20), Unit: "mg/kg"}}, 28, 72, "label", "label", false},
		{"DoseBand30mgkg", withdrawal.Inputs{Label: byDose, Use: withdrawal.Use{Species: "CATTLE", Dose: f(30), Unit: " MG/kg"}}, 35, 96, "label", "label", false},
		{"RouteIV", withdrawal.Inputs{Label: byRoute, Use: withdrawal.Use{Species: "CATTLE", Route: "intravenous"}}, 10, 48, "label", "label", false},
		{"RouteIM", withdrawal.Inputs{Label: byRoute, Use: withdrawal.Use{Species: "CATTLE", Route: "Intramuscular"}}, 31, 84, "label", "label", false},

		// GB VMR 2013 Sch. 4 para 2(3): the cascade minimums.
		// A sheep-only product given to a bull: meat 1.5 × 28 = 42 days (c)(i); no milk period
		// for any species: 7 days = 168 hours (b)(ii).
		{"GBSheepOnlyToBull", withdrawal.Inputs{Label: sheepOnly, Use: bull, Rules: gb}, 42, 168, "2(3)(c)(i)", "2(3)(b)(ii)", true},
		// Not authorised for food-producing animals: 28 days (c)(ii), 7 days (b)(ii).
		{"GBNotForFood", withdrawal.Inputs{Label: notForFood, Use: bull, Rules: gb}, 28, 168, "2(3)(c)(ii)", "2(3)(b)(ii)", true},
		// A dash for lactating cows: meat as labelled, milk 7 days (b)(ii).
		{"GBDashForMilk", withdrawal.Inputs{Label: dashForMilk, Use: bull, Rules: gb}, 14, 168, "label", "2(3)(b)(ii)", true},
		// Zero on the label, used off-label by the vet: meat 1.5 × 0 = 0; milk 1 day (b)(iii).
		{"GBZeroMilkIsOneDay", withdrawal.Inputs{Label: zeroCattle, Use: withdrawal.Use{Species: "CATTLE", OffLabel: true}, Rules: gb}, 0, 24, "2(3)(c)(i)", "2(3)(b)(iii)", true},
		// A dose outside every band: 1.5 × the longest meat (35) = 52.5, rounded up to 53;
		// milk 1.5 × 96 = 144 hours.
		{"GBDoseOutsideBands", withdrawal.Inputs{Label: byDose, Use: withdrawal.Use{Species: "CATTLE", Dose: f(40), Unit: "mg/kg"}, Rules: gb}, 53, 144, "2(3)(c)(i)", "2(3)(b)(i)", true},
		// A route the label does not give: 1.5 × 31 = 46.5 → 47 days; 1.5 × 84 = 126 hours.
		{"GBRouteNotOnLabel", withdrawal.Inputs{Label: byRoute, Use: withdrawal.Use{Species: "CATTLE", Route: "subcutaneous"}, Rules: gb}, 47, 126, "2(3)(c)(i)", "2(3)(b)(i)", true},
		// The sheep's dash under a general line: 1.5 × 5 = 7.5 → 8 days; 1.5 × 60 = 90 hours.
		{"GBSpeciesDash", withdrawal.Inputs{Label: generalButSheep, Use: withdrawal.Use{Species: "SHEEP"}, Rules: gb}, 8, 90, "2(3)(c)(i)", "2(3)(b)(i)", true},
		// The vet's longer period wins; a shorter one does not shorten the minimum.
		{"GBVetLonger", withdrawal.Inputs{Label: sheepOnly, Use: bull, Rules: gb, VetMeatDays: n(60), VetMilkHours: n(200)}, 60, 200, "vet", "vet", true},
		{"GBVetShorter", withdrawal.Inputs{Label: sheepOnly, Use: bull, Rules: gb, VetMeatDays: n(30), VetMilkHours: n(100)}, 42, 168, "2(3)(c)(i)", "2(3)(b)(ii)", true},
		{"GBHorseZeroToCattle", withdrawal.Inputs{Label: horseZero, Use: bull, Rules: gb}, 0, 168, "2(3)(c)(i)", "2(3)(b)(ii)", true},

		// EU 2019/6 Art. 115(1): the same scheme, and (a)(iii) one day for a zero meat period
		// used in another taxonomic family.
		{"EUSheepOnlyToBull", withdrawal.Inputs{Label: sheepOnly, Use: bull, Rules: eu}, 42, 168, "115(1)(a)(i)", "115(1)(b)(ii)", true},
		{"EUNotForFood", withdrawal.Inputs{Label: notForFood, Use: bull, Rules: eu}, 28, 168, "115(1)(a)(ii)", "115(1)(b)(ii)", true},
		{"EUZeroMilkIsOneDay", withdrawal.Inputs{Label: zeroCattle, Use: withdrawal.Use{Species: "CATTLE", OffLabel: true}, Rules: eu}, 0, 24, "115(1)(a)(i)", "115(1)(b)(iii)", true},
		// Horse (Equidae) zero meat used in cattle (Bovidae): 1 day.
		{"EUZeroMeatOtherFamily", withdrawal.Inputs{Label: horseZero, Use: bull, Rules: eu}, 1, 168, "115(1)(a)(iii)", "115(1)(b)(ii)", true},
		// Sheep zero meat used in goats, the same family (Bovidae): 1.5 × 0 = 0.
		{"EUZeroMeatSameFamily", withdrawal.Inputs{Label: sheepZero, Use: withdrawal.Use{Species: "GOAT"}, Rules: eu}, 0, 24, "115(1)(a)(i)", "115(1)(b)(iii)", true},

		// Organic (EU 2018/848): doubled, 48 hours where the period is zero.
		{"OrganicLabel", withdrawal.Inputs{Label: dryCow, Use: bull, Organic: true}, 56, 192, "organic", "organic", false},
		{"OrganicZero", withdrawal.Inputs{Label: zeroCattle, Use: bull, Organic: true}, 2, 48, "organic", "organic", false},
		{"OrganicCascade", withdrawal.Inputs{Label: sheepOnly, Use: bull, Rules: gb, Organic: true}, 84, 336, "2(3)(c)(i)", "organic", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := withdrawal.Resolve(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.MeatDays != c.meat || p.MilkHours != c.milk || p.OffLabel != c.offLabel {
				t.Errorf("periods = %d days, %d hours, off-label %v; want %d, %d, %v", p.MeatDays, p.MilkHours, p.OffLabel, c.meat, c.milk, c.offLabel)
			}
			if !strings.Contains(p.MeatRule, c.meatRule) || !strings.Contains(p.MilkRule, c.milkRule) {
				t.Errorf("rules = %q, %q; want them to name %q, %q", p.MeatRule, p.MilkRule, c.meatRule, c.milkRule)
			}
			if c.offLabel && p.Reason == "" {
				t.Error("an off-label use must say why")
			}
		})
	}
}

func TestResolveRefuses(t *testing.T) {
	cases := []struct {
		name, field string
		in          withdrawal.Inputs
	}{
		// No hidden default: an off-label use without the farm's rule set is refused.
		{"OffLabelWithoutRules", "withdrawal_rules", withdrawal.Inputs{Label: sheepOnly, Use: withdrawal.Use{Species: "CATTLE"}}},
		{"VetOffLabelWithoutRules", "withdrawal_rules", withdrawal.Inputs{Label: zeroCattle, Use: withdrawal.Use{Species: "CATTLE", OffLabel: true}}},
		{"UnknownRules", "withdrawal_rules", withdrawal.Inputs{Label: sheepOnly, Use: withdrawal.Use{Species: "CATTLE"}, Rules: "mars_2099"}},
		{"RouteMissing", "route", withdrawal.Inputs{Label: byRoute, Use: withdrawal.Use{Species: "CATTLE"}, Rules: withdrawal.GBVMR2013}},
		{"DoseMissing", "dose", withdrawal.Inputs{Label: byDose, Use: withdrawal.Use{Species: "CATTLE"}, Rules: withdrawal.GBVMR2013}},
		{"DoseInOtherUnit", "dose", withdrawal.Inputs{Label: byDose, Use: withdrawal.Use{Species: "CATTLE", Dose: f(20), Unit: "ml"}, Rules: withdrawal.GBVMR2013}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := withdrawal.Resolve(c.in)
			var ne *withdrawal.NeedsError
			if !errors.As(err, &ne) || ne.Field != c.field {
				t.Fatalf("err = %v, want one naming %s", err, c.field)
			}
		})
	}
	// An authorised use needs no rule set.
	if _, err := withdrawal.Resolve(withdrawal.Inputs{Label: sheepOnly, Use: withdrawal.Use{Species: "SHEEP"}}); err == nil {
		t.Error("the sheep's milk dash is off-label for milk: without rules it must be refused too")
	}
	if _, err := withdrawal.Resolve(withdrawal.Inputs{Label: zeroCattle, Use: withdrawal.Use{Species: "CATTLE"}}); err != nil {
		t.Errorf("an authorised use without rules: %v", err)
	}
}

func TestDryCowMilkCountsFromCalving(t *testing.T) {
	p, err := withdrawal.Resolve(withdrawal.Inputs{Label: dryCow, Use: withdrawal.Use{Species: "CATTLE"}})
	if err != nil || !p.MilkFromCalving || p.MilkHours != 96 {
		t.Fatalf("periods = %+v, %v", p, err)
	}
}

func TestRuleSetsRegistered(t *testing.T) {
	got := strings.Join(withdrawal.RuleSetNames(), ",")
	if got != "eu_2019_6,gb_vmr_2013" {
		t.Fatalf("rule sets = %s", got)
	}
}
