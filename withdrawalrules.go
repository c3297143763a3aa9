package herdbook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	_ "time/tzdata" // farms name IANA zones; a static binary may have no zone database

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/withdrawal"
)

// How long a withdrawal lasts: the treatment's label line, the cascade and organic rules of
// the farm (package withdrawal), and the farm's time zone. Which animals a treatment reached
// is treatment.go's business.

// withdrawalSettings is what the medicine book reads of the farm settings: the farm's time
// zone (nil until set), the rule set of its cascade minimums ("" until set) and whether it is
// organic.
type withdrawalSettings struct {
	zone     *time.Location
	zoneName string
	rules    string
	organic  bool
}

// withdrawalSettingsOf reads the farm settings the medicine book needs.
func (s *Service) withdrawalSettingsOf(ctx context.Context, farmID uuid.UUID) (withdrawalSettings, error) {
	fs, err := s.settings(ctx, farmID)
	if err != nil {
		return withdrawalSettings{}, err
	}
	return withdrawalSettings{zone: fs.Location, zoneName: fs.TimeZone, rules: fs.WithdrawalRules, organic: fs.Organic}, nil
}

var zones sync.Map // IANA name -> *time.Location

// zoneOf returns the location a treatment was stamped with; nil (UTC, the reading before farms
// had a time zone) when it has none or an unknown one.
func zoneOf(name string) *time.Location {
	if name == "" {
		return nil
	}
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil
	}
	zones.Store(name, l)
	return l
}

// stampTreatment writes the farm settings that decide a treatment's periods into its fact, so
// that a later change of the settings never rewrites the book, and refuses what the settings
// do not allow yet: a bare date before the farm has a time zone (the local day it names is
// not known; never a silent UTC). A value the author sent must be the farm's.
func stampTreatment(fe *fieldErrors, p string, f *evidence.Fact, set withdrawalSettings) {
	stamp := func(field, got, want string, apply func()) {
		if got != "" && got != want {
			fe.add(p+field, "is stamped from the farm settings (%q), not sent; leave it out", want)
			return
		}
		apply()
	}
	stamp("time_zone", f.TimeZone, set.zoneName, func() { f.TimeZone = set.zoneName })
	stamp("withdrawal_rules", f.WithdrawalRules, set.rules, func() { f.WithdrawalRules = set.rules })
	if f.Organic && !set.organic {
		fe.add(p+"organic", "is stamped from the farm settings (false), not sent; leave it out")
	}
	f.Organic = set.organic
	// A bare date, of the treatment or of a course's last administration (from which the
	// withdrawal runs), is a local day of the farm.
	if len(f.Date) == len(time.DateOnly) && set.zone == nil {
		fe.add("time_zone", "must be set in the farm settings before a treatment is dated with a bare date (%s, %s): a bare date is a local day of the farm, and its milk withdrawal ends at the end of that day; or give the date-time of the treatment", p+"date", f.Date)
	} else if len(f.LastAdministration) == len(time.DateOnly) && set.zone == nil {
		fe.add("time_zone", "must be set in the farm settings before a course's last administration is dated with a bare date (%s, %s): a bare date is a local day of the farm, and the milk withdrawal ends at the end of that day; or give the date-time of the last administration", p+"last_administration", f.LastAdministration)
	}
}

// useOf is how a treatment fact was given, for matching it to the label.
func useOf(f evidence.Fact, species string) withdrawal.Use {
	return withdrawal.Use{Species: species, Route: f.Route, Dose: f.Dose, Unit: f.Unit, OffLabel: f.OffLabel}
}

// resolvePeriods works out a treatment's periods from its medicine version's label, the farm's
// species and what was stamped on it (rule set, organic), with the vet's longer periods.
func (b *medicineBook) resolvePeriods(f evidence.Fact) (withdrawal.Periods, bool, error) {
	id, err := uuid.Parse(f.MedicineID)
	if err != nil {
		return withdrawal.Periods{}, false, nil
	}
	v := b.versions[id][f.MedicineVersion]
	if v == nil {
		return withdrawal.Periods{}, false, nil
	}
	p, err := withdrawal.Resolve(withdrawal.Inputs{Label: labelOf(v), Use: useOf(f, b.species), Rules: f.WithdrawalRules,
		Organic: f.Organic, VetMeatDays: f.WithdrawalMeatDays, VetMilkHours: f.WithdrawalMilkHours})
	return p, true, err
}

// strictest is the fallback for a stored treatment whose periods cannot be resolved as it
// stands (a fact written before its label needed a route or a rule set): the longest minimum
// of every registered rule set, never shorter than the vet's. A withdrawal is never dropped.
func (b *medicineBook) strictest(f evidence.Fact) withdrawal.Periods {
	f.OffLabel = true
	var out withdrawal.Periods
	for _, name := range withdrawal.RuleSetNames() {
		f.WithdrawalRules = name
		p, ok, err := b.resolvePeriods(f)
		if !ok || err != nil {
			continue
		}
		if p.MeatDays >= out.MeatDays {
			out.MeatDays, out.MeatRule = p.MeatDays, p.MeatRule
		}
		if p.MilkHours >= out.MilkHours {
			out.MilkHours, out.MilkRule = p.MilkHours, p.MilkRule
		}
		out.OffLabel, out.Reason = true, "the periods of the stored treatment could not be resolved; the strictest statutory minimum applies"
	}
	return out
}

// checkPeriods resolves a treatment at write time and refuses what cannot be resolved, naming
// the field: route or dose when the label's periods depend on them, withdrawal_rules (the
// farm setting) when the use is off-label and the farm has no rule set, and a vet's period
// shorter than the one that applies.
func checkPeriods(fe *fieldErrors, p string, b *medicineBook, f evidence.Fact) {
	vetMeat, vetMilk := f.WithdrawalMeatDays, f.WithdrawalMilkHours
	f.WithdrawalMeatDays, f.WithdrawalMilkHours = nil, nil
	per, ok, err := b.resolvePeriods(f)
	if !ok {
		return
	}
	var ne *withdrawal.NeedsError
	if errors.As(err, &ne) {
		if ne.Field == "withdrawal_rules" {
			fe.add("withdrawal_rules", "must be set in the farm settings (%s): %s", p+"medicine_id", ne.Message)
		} else {
			fe.add(p+ne.Field, "%s", ne.Message)
		}
		return
	} else if err != nil {
		fe.add(p+"medicine_id", "%s", err.Error())
		return
	}
	name := b.names[uuid.MustParse(f.MedicineID)]
	if vetMeat != nil && *vetMeat < per.MeatDays {
		fe.add(p+"withdrawal_meat_days", "must not be shorter than the %d days of %s (version %d) that apply: %s", per.MeatDays, name, f.MedicineVersion, ruleText(per.MeatRule))
	}
	if vetMilk != nil && *vetMilk < per.MilkHours {
		fe.add(p+"withdrawal_milk_hours", "must not be shorter than the %d hours of %s (version %d) that apply: %s", per.MilkHours, name, f.MedicineVersion, ruleText(per.MilkRule))
	}
}

func ruleText(rule string) string {
	if rule == "label" {
		return "the label's period"
	}
	return fmt.Sprintf("the statutory minimum, %s", rule)
}
