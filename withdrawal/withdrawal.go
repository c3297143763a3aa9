// Package withdrawal works out when treated animals may go for slaughter and when their milk
// may go into the tank again. It is pure: it reads treatments, the medicine label periods they
// were given under and the farm's dated membership history, and touches no database, so that
// every rule can be checked by hand.
//
// The rules:
//
//   - A course of treatment counts from its last administration (read in the farm's zone
//     as the first is, a bare date or a date-time).
//   - Days are the farm's local days, in its time zone (Treatment.Zone; UTC for treatments
//     recorded before farms had one).
//   - meat_clear_on is the local calendar date of the (last) administration plus its meat
//     withdrawal days: the first local day the animal may go for slaughter.
//   - milk_clear_at is, for a bare-date administration, the end of its local day plus the milk
//     withdrawal hours (the hour of treatment is unknown, so the latest is assumed); for a
//     date-time, that instant plus the hours. Hours are elapsed hours, so a day with a clock
//     change counts as the 23 or 25 hours it has.
//   - Over several treatments of an animal, the latest clear date decides, each of meat and
//     milk on its own.
//   - A group treatment reaches the animals that dated membership facts place in the group on
//     the treatment's date (membership_end facts close a membership), together with the
//     animals stored with it when it was recorded (Treatment.Stored): a later correction of
//     membership may add animals, never take one out.
package withdrawal

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Treatment is one treatment fact with the periods that apply to it: the label's (of the
// medicine version it was given under, for the farm's species) or a longer override.
type Treatment struct {
	RecordID     string
	RecordItemID string
	MedicineID   string
	// MedicineVersion is the version of the medicine the treatment was given under.
	MedicineVersion int
	// Exactly one of AnimalID and GroupID is set.
	AnimalID string
	GroupID  string
	// Day is the treatment's local calendar date (YYYY-MM-DD). At is the moment it was given:
	// the date-time as written, or the start of Day in Zone for a bare date (DateOnly).
	Day       string
	At        time.Time
	DateOnly  bool
	Zone      *time.Location // nil: UTC
	MeatDays  int
	MilkHours int
	// MeatRule and MilkRule say what gave the periods (Periods); OffLabel marks the cascade.
	MeatRule, MilkRule string
	OffLabel           bool
	// MilkFromCalving marks a dry-cow product used as labelled: its milk hours count from the
	// end of the local day of the animal's first calving on or after the treatment, and until
	// then its milk is withheld.
	MilkFromCalving bool
	// LastDay, LastAt and LastDateOnly are the last administration of a course, read as Day,
	// At and DateOnly are (in Zone); empty and zero for a single administration. The
	// withdrawal runs from the last administration (EU 2019/6 Art. 4(34)); who was treated
	// is decided on Day.
	LastDay      string
	LastAt       time.Time
	LastDateOnly bool
	// Stored are the animals a group treatment reached when it was recorded, as stored with
	// it. A treatment reaches the union of these and of the members that dated membership
	// facts place in the group on Day now: a later correction of membership may add animals
	// to a recorded treatment but never takes one out of it.
	Stored []string
}

// ClearFrom is the administration the withdrawal runs from: the course's last, or the only
// one, with whether it was written as a bare date.
func (t Treatment) ClearFrom() (day string, at time.Time, dateOnly bool) {
	if t.LastDay != "" {
		return t.LastDay, t.LastAt, t.LastDateOnly
	}
	return t.Day, t.At, t.DateOnly
}

// Calving is a birth fact naming the animal as dam, on a local day.
type Calving struct {
	DamID string
	Day   string
}

// Membership is one dated membership fact: the animal was in the group from Start to End
// (both YYYY-MM-DD, End included; "" when open).
type Membership struct {
	RecordID     string
	RecordItemID string
	AnimalID     string
	GroupID      string
	Start        string
	End          string
}

// Departure is a movement_out (or any fact that ends an animal's open memberships).
type Departure struct {
	AnimalID string
	Day      string
}

// Leave is a membership_end fact: the animal left the group on Day, so its memberships of
// that group that began on or before Day and still ran end the day before.
type Leave struct {
	AnimalID string
	GroupID  string
	Day      string
}

// History is everything the computation reads. Zone is the farm's time zone, whose days
// "as of" means (nil: UTC). Calvings are read for dry-cow products.
type History struct {
	Treatments  []Treatment
	Memberships []Membership
	Departures  []Departure
	Leaves      []Leave
	Calvings    []Calving
	Zone        *time.Location
}

// Hit is one treatment that reached an animal, with the clear dates it gives.
// MilkUntilCalving is set for a dry-cow product whose animal has not calved yet: its milk is
// withheld until then, and MilkClearAt is not known.
type Hit struct {
	Treatment        Treatment
	MeatClearOn      string
	MilkClearAt      time.Time
	MilkUntilCalving bool
}

// HitFor is the clear dates one treatment gives one animal, as of day: HitOf, with a dry-cow
// product's milk counted from the animal's first calving on or after the treatment's day and
// on or before day (the end of that local day plus the hours), or withheld until it calves.
func HitFor(t Treatment, animal, day string, calvings []Calving) Hit {
	h := HitOf(t)
	if !t.MilkFromCalving {
		return h
	}
	first := ""
	for _, c := range calvings {
		if c.DamID == animal && c.Day >= t.Day && c.Day <= day && (first == "" || c.Day < first) {
			first = c.Day
		}
	}
	if first == "" {
		h.MilkClearAt, h.MilkUntilCalving = time.Time{}, true
		return h
	}
	h.MilkClearAt = MilkClearAfterDay(first, t.Zone, t.MilkHours)
	return h
}

// Status is an animal's withdrawal as of a date: the latest clear dates over every treatment
// that reached it on or before that date.
type Status struct {
	AnimalID    string
	MeatClearOn string
	MilkClearAt time.Time
	// Hits are the treatments behind the status, in (date, moment, record item id) order.
	Hits []Hit
	// Zone is the farm's time zone, whose days MilkWithheldOn asks about (nil: UTC).
	Zone *time.Location
	// MilkUntilCalving is set while a dry-cow product withholds the milk until calving.
	MilkUntilCalving bool
}

// MeatWithheldOn reports whether the animal may not go for slaughter on day.
func (s Status) MeatWithheldOn(day string) bool { return s.MeatClearOn > day }

// MilkWithheldOn reports whether the milk is not clear for the whole of day: its clear moment
// lies after the start of that day in the farm's zone.
func (s Status) MilkWithheldOn(day string) bool {
	if s.MilkUntilCalving {
		return true
	}
	d, err := DayStart(day, s.Zone)
	if err != nil {
		return false
	}
	return s.MilkClearAt.After(d)
}

// DayStart is the moment a local calendar day begins in loc (UTC when nil).
func DayStart(day string, loc *time.Location) (time.Time, error) {
	d, err := ParseDay(day)
	if err != nil {
		return time.Time{}, err
	}
	if loc == nil {
		return d, nil
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc).UTC(), nil
}

// DayEnd is the moment a local calendar day ends in loc (UTC when nil): the start of the next.
func DayEnd(day string, loc *time.Location) (time.Time, error) {
	d, err := ParseDay(day)
	if err != nil {
		return time.Time{}, err
	}
	if loc == nil {
		loc = time.UTC
	}
	return time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc).UTC(), nil
}

// MilkClearAfterDay is the moment the milk of an animal treated on a bare local date is clear
// again: the end of that day in loc plus the hours.
func MilkClearAfterDay(day string, loc *time.Location, milkHours int) time.Time {
	end, err := DayEnd(day, loc)
	if err != nil {
		return time.Time{}
	}
	return end.Add(time.Duration(milkHours) * time.Hour)
}

// MeatClearOn is the first day an animal treated on day may go for slaughter.
func MeatClearOn(day string, meatDays int) string {
	d, err := ParseDay(day)
	if err != nil {
		return ""
	}
	return d.AddDate(0, 0, meatDays).Format(time.DateOnly)
}

// MilkClearAt is the moment the milk of an animal treated at at is clear again.
func MilkClearAt(at time.Time, milkHours int) time.Time {
	return at.UTC().Add(time.Duration(milkHours) * time.Hour)
}

// ParseDay reads a strict YYYY-MM-DD calendar date as 00:00 UTC of that day.
func ParseDay(s string) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || t.Format(time.DateOnly) != s {
		return time.Time{}, fmt.Errorf("must be a calendar date in the form YYYY-MM-DD")
	}
	return t, nil
}

// ParseWhen reads a treatment's date: a calendar date (YYYY-MM-DD, meaning 00:00 UTC) or an
// RFC 3339 date-time. day is the calendar date as written, at the moment (in UTC). It is the
// reading of treatments recorded before farms had a time zone; ParseWhenIn reads the others.
func ParseWhen(s string) (day string, at time.Time, dateOnly bool, err error) {
	return ParseWhenIn(s, nil)
}

// ParseWhenIn reads a treatment's date as the farm's local date in loc: a bare calendar date
// is that local day (at is its start in loc), a date-time is the instant written and its day
// is the local date of that instant in loc. With a nil loc, days are UTC and a date-time keeps
// the date as written (the rule before farms had a time zone).
func ParseWhenIn(s string, loc *time.Location) (day string, at time.Time, dateOnly bool, err error) {
	if len(s) == len(time.DateOnly) {
		t, err := DayStart(s, loc)
		if err != nil {
			return "", time.Time{}, false, err
		}
		return s, t, true, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil || t.Year() < 1 || t.Year() > 9999 {
		return "", time.Time{}, false, fmt.Errorf("must be a calendar date (YYYY-MM-DD) or an RFC 3339 date-time")
	}
	if loc == nil {
		return s[:10], t.UTC(), false, nil
	}
	return t.In(loc).Format(time.DateOnly), t.UTC(), false, nil
}

// span is a closed interval of days, End "" when open.
type span struct {
	start, end string
	m          Membership
}

// MembersOn returns the animals that h's membership facts place in group on day, sorted,
// each with the membership fact that placed it there. The rules are the birth review's: a
// membership with an end date runs to that date; an open one ends the day before the same
// animal's next membership with a later start (in any group), or on the day of its first
// departure on or after its start.
func (h History) MembersOn(group, day string) map[string]Membership {
	return membersOn(byGroup(h.spans()), group, day)
}

// byGroup indexes resolved spans by group, so that a group's members on a day are found
// among that group's memberships only.
func byGroup(spans map[string][]span) map[string][]span {
	out := map[string][]span{}
	for _, ss := range spans {
		for _, s := range ss {
			out[s.m.GroupID] = append(out[s.m.GroupID], s)
		}
	}
	return out
}

func membersOn(groups map[string][]span, group, day string) map[string]Membership {
	out := map[string]Membership{}
	for _, s := range groups[group] {
		if _, seen := out[s.m.AnimalID]; !seen && s.start <= day && (s.end == "" || day <= s.end) {
			out[s.m.AnimalID] = s.m
		}
	}
	return out
}

// spans resolves every animal's memberships into closed or open intervals.
func (h History) spans() map[string][]span {
	byAnimal := map[string][]Membership{}
	for _, m := range h.Memberships {
		byAnimal[m.AnimalID] = append(byAnimal[m.AnimalID], m)
	}
	departures := map[string][]string{}
	for _, d := range h.Departures {
		departures[d.AnimalID] = append(departures[d.AnimalID], d.Day)
	}
	leaves := map[string][]Leave{}
	for _, l := range h.Leaves {
		leaves[l.AnimalID] = append(leaves[l.AnimalID], l)
	}
	out := make(map[string][]span, len(byAnimal))
	for animal, ms := range byAnimal {
		sort.Slice(ms, func(i, j int) bool {
			if ms[i].Start != ms[j].Start {
				return ms[i].Start < ms[j].Start
			}
			return ms[i].RecordItemID < ms[j].RecordItemID
		})
		deps := departures[animal]
		sort.Strings(deps)
		for i, m := range ms {
			s := span{start: m.Start, end: m.End, m: m}
			if s.end == "" {
				for _, n := range ms[i+1:] {
					if n.Start > m.Start {
						s.end = dayBefore(n.Start)
						break
					}
				}
				for _, d := range deps {
					if d >= m.Start {
						if s.end == "" || d < s.end {
							s.end = d
						}
						break
					}
				}
			}
			// The earliest membership_end of the group dated within the span cuts it.
			cut := ""
			for _, l := range leaves[animal] {
				if l.GroupID == m.GroupID && l.Day >= s.start && (s.end == "" || l.Day <= s.end) && (cut == "" || l.Day < cut) {
					cut = l.Day
				}
			}
			if cut != "" {
				if cut == s.start {
					continue // left on the day it joined: never a member
				}
				s.end = dayBefore(cut)
			}
			out[animal] = append(out[animal], s)
		}
	}
	return out
}

func dayBefore(day string) string {
	d, err := ParseDay(day)
	if err != nil {
		return day
	}
	return d.AddDate(0, 0, -1).Format(time.DateOnly)
}

// Reach is one animal a treatment reached; Membership is the fact that placed it in the
// treated group (zero for a treatment of the animal itself).
type Reach struct {
	AnimalID   string
	Membership Membership
}

// Reached returns the animals a treatment reached, sorted by id: the animal itself, or the
// members of the group on the treatment's date together with those stored with it.
func (h History) Reached(t Treatment) []Reach { return reached(byGroup(h.spans()), t) }

func reached(spans map[string][]span, t Treatment) []Reach {
	if t.AnimalID != "" {
		return []Reach{{AnimalID: t.AnimalID}}
	}
	members := membersOn(spans, t.GroupID, t.Day)
	out := make([]Reach, 0, len(members)+len(t.Stored))
	for a, m := range members {
		out = append(out, Reach{AnimalID: a, Membership: m})
	}
	for _, a := range t.Stored {
		if _, ok := members[a]; !ok {
			members[a] = Membership{}
			out = append(out, Reach{AnimalID: a})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AnimalID < out[j].AnimalID })
	return out
}

// Dropped returns the animals stored with a group treatment that the membership facts no
// longer place in the group on its date, sorted: the treatment still reaches them (their
// withdrawal stands), but its record and the facts disagree until someone amends one of them.
func (h History) Dropped(t Treatment) []string { return dropped(byGroup(h.spans()), t) }

func dropped(spans map[string][]span, t Treatment) []string {
	if t.GroupID == "" || len(t.Stored) == 0 {
		return nil
	}
	members := membersOn(spans, t.GroupID, t.Day)
	var out []string
	for _, a := range t.Stored {
		if _, ok := members[a]; !ok {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// HitOf returns the clear dates one treatment gives.
func HitOf(t Treatment) Hit {
	day, at, dateOnly := t.ClearFrom()
	milk := MilkClearAt(at, t.MilkHours)
	if dateOnly {
		milk = MilkClearAfterDay(day, t.Zone, t.MilkHours)
	}
	return Hit{Treatment: t, MeatClearOn: MeatClearOn(day, t.MeatDays), MilkClearAt: milk}
}

// AsOf returns the withdrawal status of every animal that a treatment dated on or before day
// reached, keyed by animal id. Treatments after day are not history yet.
func (h History) AsOf(day string) map[string]*Status {
	out := map[string]*Status{}
	spans := byGroup(h.spans())
	for _, t := range h.Treatments {
		if t.Day > day {
			continue
		}
		for _, r := range reached(spans, t) {
			hit := HitFor(t, r.AnimalID, day, h.Calvings)
			s := out[r.AnimalID]
			if s == nil {
				s = &Status{AnimalID: r.AnimalID, MeatClearOn: hit.MeatClearOn, MilkClearAt: hit.MilkClearAt, Zone: h.Zone}
				if s.Zone == nil {
					// A farm's treatments carry its zone: its days are theirs.
					s.Zone = t.Zone
				}
				out[r.AnimalID] = s
			}
			if hit.MeatClearOn > s.MeatClearOn {
				s.MeatClearOn = hit.MeatClearOn
			}
			if hit.MilkClearAt.After(s.MilkClearAt) {
				s.MilkClearAt = hit.MilkClearAt
			}
			s.MilkUntilCalving = s.MilkUntilCalving || hit.MilkUntilCalving
			s.Hits = append(s.Hits, hit)
		}
	}
	for _, s := range out {
		sort.Slice(s.Hits, func(i, j int) bool {
			a, b := s.Hits[i].Treatment, s.Hits[j].Treatment
			if a.Day != b.Day {
				return a.Day < b.Day
			}
			if !a.At.Equal(b.At) {
				return a.At.Before(b.At)
			}
			return a.RecordItemID < b.RecordItemID
		})
	}
	return out
}

// Withheld returns the animals still under withdrawal on day, meat or milk, sorted by id.
func (h History) Withheld(day string) []*Status {
	var out []*Status
	for _, s := range h.AsOf(day) {
		if s.MeatWithheldOn(day) || s.MilkWithheldOn(day) {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AnimalID < out[j].AnimalID })
	return out
}

// Blocking returns the treatments whose meat withdrawal has not ended on day for animal: the
// ones that make a sale, a movement off the farm or a slaughter on day break a withdrawal.
func (h History) Blocking(animal, day string) []Hit {
	// Only this animal's memberships can place it in a treated group.
	mine := History{Treatments: h.Treatments, Zone: h.Zone, Calvings: h.Calvings}
	for _, m := range h.Memberships {
		if m.AnimalID == animal {
			mine.Memberships = append(mine.Memberships, m)
		}
	}
	for _, d := range h.Departures {
		if d.AnimalID == animal {
			mine.Departures = append(mine.Departures, d)
		}
	}
	for _, l := range h.Leaves {
		if l.AnimalID == animal {
			mine.Leaves = append(mine.Leaves, l)
		}
	}
	s := mine.AsOf(day)[animal]
	if s == nil {
		return nil
	}
	var out []Hit
	for _, hit := range s.Hits {
		if hit.MeatClearOn > day {
			out = append(out, hit)
		}
	}
	return out
}

// Describe renders blocking hits as one sentence for an error message.
func Describe(animal string, hits []Hit, medicineName func(id string) string) string {
	parts := make([]string, len(hits))
	for i, h := range hits {
		parts[i] = fmt.Sprintf("%s (treated %s) clears for slaughter on %s", medicineName(h.Treatment.MedicineID), h.Treatment.Day, h.MeatClearOn)
	}
	return fmt.Sprintf("animal %s is under meat withdrawal: %s", animal, strings.Join(parts, "; "))
}

// Reacher returns Reached with the membership history resolved once, for callers that ask
// about many treatments.
func (h History) Reacher() func(Treatment) []Reach {
	spans := byGroup(h.spans())
	return func(t Treatment) []Reach { return reached(spans, t) }
}

// Dropper returns Dropped with the membership history resolved once.
func (h History) Dropper() func(Treatment) []string {
	spans := byGroup(h.spans())
	return func(t Treatment) []string { return dropped(spans, t) }
}
