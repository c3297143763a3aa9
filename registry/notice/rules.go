package notice

import (
	"slices"
	"time"
)

// The rule sets a holding may report under (docs/registry.md cites each period).
const (
	// GBCTS is Great Britain's cattle rules (England and Wales; BCMS and its Cattle Tracing
	// System): calendar days throughout.
	GBCTS = "gb_cts"
	// DEHITier is Germany's Viehverkehrsverordnung as HI-Tier applies it: 7 days for tags and
	// for every notice.
	DEHITier = "de_hitier"
	// EU2021520 is the EU baseline of Implementing Regulation (EU) 2021/520 art. 3: at most 7
	// days after the event, a period that ends on a Saturday or Sunday running to the next
	// working day (Regulation (EEC, Euratom) No 1182/71 art. 3(4)).
	EU2021520 = "eu_2021_520"
	// NLRVO is the Netherlands' I&R rule as RVO publishes it: 3 working days, the event's day
	// being day 0, Saturdays, Sundays and the recognised public holidays of the Algemene
	// termijnenwet art. 3 not counting.
	NLRVO = "nl_rvo"
)

// RuleSets lists the rule sets a holding may name.
var RuleSets = []string{GBCTS, DEHITier, EU2021520, NLRVO}

// The herd types whose calves' tagging clocks differ under gb_cts.
const (
	HerdBeef  = "beef"
	HerdDairy = "dairy"
)

// HerdTypes lists the herd types a holding may name.
var HerdTypes = []string{HerdBeef, HerdDairy}

// Period is how long after its event a notice or a tag is due.
type Period struct {
	Days int
	// Working counts working days (not Saturdays, Sundays or the rule set's holidays);
	// otherwise calendar days.
	Working bool
	// RollToWorkday moves a calendar deadline that falls on a Saturday or Sunday to the next
	// Monday.
	RollToWorkday bool
	// Source cites the rule.
	Source string
}

// Deadline returns the last day (YYYY-MM-DD) on which what falls due on event is in time.
// The event's day is day 0.
func (p Period) Deadline(event string, holiday func(time.Time) bool) (string, bool) {
	d, err := time.Parse(time.DateOnly, event)
	if err != nil {
		return "", false
	}
	if p.Working {
		for n := 0; n < p.Days; {
			d = d.AddDate(0, 0, 1)
			if workday(d, holiday) {
				n++
			}
		}
		return d.Format(time.DateOnly), true
	}
	d = d.AddDate(0, 0, p.Days)
	if p.RollToWorkday {
		for !workday(d, nil) {
			d = d.AddDate(0, 0, 1)
		}
	}
	return d.Format(time.DateOnly), true
}

func workday(d time.Time, holiday func(time.Time) bool) bool {
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return false
	}
	return holiday == nil || !holiday(d)
}

// Rules is one rule set: the period of each kind of notice.
type Rules struct {
	Name    string
	periods map[Kind]Period
	// dairyTag is the first tag's period of a dairy calf, where it differs.
	dairyTag *Period
	holiday  func(time.Time) bool
}

// Period returns the period of a kind of notice under the rules for a herd type.
func (r Rules) Period(k Kind, herdType string) Period {
	if k == KindTagging && herdType == HerdDairy && r.dairyTag != nil {
		return *r.dairyTag
	}
	return r.periods[k]
}

// Deadline is Period(k, herdType).Deadline(event) with the rule set's holidays.
func (r Rules) Deadline(k Kind, herdType, event string) (string, bool) {
	return r.Period(k, herdType).Deadline(event, r.holiday)
}

const (
	srcGBTag      = "gov.uk, What to do after a calf is born (tags before 21 days old); Guide to cross compliance in England, SMR 7 (within 20 days)"
	srcGBDairyTag = "gov.uk, What to do after a calf is born (a dairy calf's primary tag before it is 36 hours old; counted from the start of its birth day)"
	srcGBBirth    = "gov.uk, What to do after a calf is born; Guide to cross compliance in England, SMR 7 (passport application within 27 days of birth)"
	srcGBMove     = "gov.uk, Report and record cattle movements (tell BCMS within 3 days); gov.wales, Movement reporting (three calendar days)"
	srcGBDeath    = "gov.uk, Keep a holding register for cattle; cattle death reporting to BCMS (within 7 days)"
	srcGBRetag    = "Guide to cross compliance in England, SMR 7 (a replacement tag no later than 28 days after the loss is noticed)"
	srcDE         = "Viehverkehrsverordnung §§ 27, 29 (ear tags within 7 days of birth; births, arrivals, departures and deaths to HI-Tier within 7 days)"
	srcEU         = "Implementing Regulation (EU) 2021/520 art. 3 (within 7 days of the event); Regulation (EEC, Euratom) No 1182/71 art. 3(4) (a period ending on a Saturday or Sunday ends with the next working day)"
	srcEUTag      = "Implementing Regulation (EU) 2021/520, time periods for the application of means of identification of bovine animals (20 days from birth)"
	srcNL         = "RVO, Runderen melden: wat en wanneer (within 3 working days, the event's day is day 0; Saturdays, Sundays and recognised public holidays do not count); Algemene termijnenwet art. 3 (the holidays)"
)

// ByName returns a rule set by its name.
func ByName(name string) (Rules, bool) {
	switch name {
	case GBCTS:
		p := func(days int, src string) Period { return Period{Days: days, Source: src} }
		dairy := p(1, srcGBDairyTag)
		return Rules{Name: name, dairyTag: &dairy, periods: map[Kind]Period{
			KindBirth: p(27, srcGBBirth), KindTagging: p(20, srcGBTag), KindDeath: p(7, srcGBDeath),
			KindMoveOn: p(3, srcGBMove), KindMoveOff: p(3, srcGBMove), KindTagReplacement: p(28, srcGBRetag),
		}}, true
	case DEHITier:
		p := Period{Days: 7, Source: srcDE}
		return Rules{Name: name, periods: map[Kind]Period{
			KindBirth: p, KindTagging: p, KindDeath: p, KindMoveOn: p, KindMoveOff: p, KindTagReplacement: p,
		}}, true
	case EU2021520:
		p := Period{Days: 7, RollToWorkday: true, Source: srcEU}
		return Rules{Name: name, periods: map[Kind]Period{
			KindBirth: p, KindTagging: {Days: 20, RollToWorkday: true, Source: srcEUTag}, KindDeath: p,
			KindMoveOn: p, KindMoveOff: p, KindTagReplacement: p,
		}}, true
	case NLRVO:
		p := Period{Days: 3, Working: true, Source: srcNL}
		return Rules{Name: name, holiday: DutchHoliday, periods: map[Kind]Period{
			KindBirth: p, KindTagging: p, KindDeath: p, KindMoveOn: p, KindMoveOff: p, KindTagReplacement: p,
		}}, true
	}
	return Rules{}, false
}

// ValidRuleSet reports whether a rule set name is known.
func ValidRuleSet(name string) bool { return slices.Contains(RuleSets, name) }

// DutchHoliday reports whether a day is one of the generally recognised public holidays of
// the Algemene termijnenwet art. 3: New Year's Day, Easter Monday, Ascension Day, Whit
// Monday, King's Day (27 April, or 26 April when the 27th is a Sunday), 5 May and both
// Christmas days.
func DutchHoliday(d time.Time) bool {
	y, m, day := d.Date()
	switch {
	case m == time.January && day == 1, m == time.May && day == 5,
		m == time.December && (day == 25 || day == 26):
		return true
	case m == time.April && (day == 26 || day == 27):
		kings := time.Date(y, time.April, 27, 0, 0, 0, 0, time.UTC)
		if kings.Weekday() == time.Sunday {
			return day == 26
		}
		return day == 27
	}
	e := Easter(y)
	for _, off := range []int{1, 39, 50} { // Easter Monday, Ascension, Whit Monday
		h := e.AddDate(0, 0, off)
		if h.Month() == m && h.Day() == day {
			return true
		}
	}
	return false
}

// Easter returns Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm,
// Meeus/Jones/Butcher).
func Easter(y int) time.Time {
	a := y % 19
	b, c := y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return time.Date(y, time.Month(month), day, 0, 0, 0, 0, time.UTC)
}
