package withdrawal

import (
	"fmt"
	"sort"
	"strings"
)

// Line is one line of a medicine label's withdrawal table: the periods for one species (or for
// every species the label gives no line of its own, when Species is empty), optionally for one
// route and one dose band. A nil period is the label's dash: the product is not authorised for
// that produce of that species, which is not the same as zero (NOAH, guide to the withdrawal
// tables: "–" means no withdrawal period is given, the product is not authorised there).
type Line struct {
	Species   string
	Route     string    // "" for every route
	Dose      *DoseBand // nil for every dose
	MeatDays  *int
	MilkHours *int
}

// DoseBand is a range of doses, both ends included, in one unit as printed (mg/kg, ml/10 kg).
type DoseBand struct {
	Unit string  `json:"unit"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// Label is a medicine label's withdrawal table as printed. DryCow marks a dry-cow product
// (given at drying off), whose milk period the label counts from calving.
type Label struct {
	Lines  []Line
	DryCow bool
}

// Use is how a treatment was given: to which species, by which route, at which dose. OffLabel
// is the vet's statement that the use is outside the label (a changed dose interval, a
// combination), whatever the table says.
type Use struct {
	Species  string
	Route    string
	Dose     *float64
	Unit     string
	OffLabel bool
}

// norm compares routes and units as words, whatever their case and spacing.
func norm(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

func (b *DoseBand) holds(dose float64, unit string) bool {
	return norm(b.Unit) == norm(unit) && b.Min <= dose && dose <= b.Max
}

// String renders a band as printed: "20-30 mg/kg".
func (b DoseBand) String() string { return fmt.Sprintf("%g-%g %s", b.Min, b.Max, b.Unit) }

// Match is the label line a use falls under. Line is nil when none does; Reason then says why
// the use is off-label.
type Match struct {
	Line   *Line
	Reason string
}

// NeedsError is a use the label cannot place because the treatment leaves out what the label's
// periods depend on: the route (Field "route") or the dose in the label's unit (Field "dose").
type NeedsError struct {
	Field   string
	Message string
}

func (e *NeedsError) Error() string { return e.Field + ": " + e.Message }

// Match finds the label line of a use. The species' own lines apply when the label gives the
// species any; the general lines (Species "") otherwise. Among them, a line applies when its
// route is empty or the use's, and its dose band is empty or holds the use's dose in the
// band's unit. When several apply, the longest periods are kept. A use that no line fits, or
// that the vet marked off-label, has no line. The label cannot be matched, and an error names
// the field, when its lines depend on a route or a dose the use does not give.
func (l Label) Match(u Use) (Match, error) {
	if u.OffLabel {
		return Match{Reason: "the vet marked the use off-label"}, nil
	}
	var lines []Line
	for _, ln := range l.Lines {
		if ln.Species == u.Species {
			lines = append(lines, ln)
		}
	}
	if len(lines) == 0 {
		for _, ln := range l.Lines {
			if ln.Species == "" {
				lines = append(lines, ln)
			}
		}
	}
	if len(lines) == 0 {
		return Match{Reason: fmt.Sprintf("the label has no line for %s", speciesName(u.Species))}, nil
	}
	var routes, units []string
	for _, ln := range lines {
		if ln.Route != "" {
			routes = appendNew(routes, ln.Route)
		}
		if ln.Dose != nil {
			units = appendNew(units, ln.Dose.Unit)
		}
	}
	if len(routes) > 0 && norm(u.Route) == "" {
		return Match{}, &NeedsError{"route", fmt.Sprintf("the label gives periods per route (%s): name the route", strings.Join(routes, ", "))}
	}
	if len(units) > 0 && (u.Dose == nil || !containsNorm(units, u.Unit)) {
		return Match{}, &NeedsError{"dose", fmt.Sprintf("the label gives periods per dose in %s: give the dose and its unit as on the label", strings.Join(units, ", "))}
	}
	var best *Line
	for i := range lines {
		ln := &lines[i]
		if ln.Route != "" && norm(ln.Route) != norm(u.Route) {
			continue
		}
		if ln.Dose != nil && !ln.Dose.holds(*u.Dose, u.Unit) {
			continue
		}
		if best == nil {
			c := *ln
			best = &c
			continue
		}
		best.MeatDays = longer(best.MeatDays, ln.MeatDays)
		best.MilkHours = longer(best.MilkHours, ln.MilkHours)
	}
	if best == nil {
		what := []string{}
		if len(routes) > 0 {
			what = append(what, "route "+u.Route)
		}
		if len(units) > 0 {
			what = append(what, fmt.Sprintf("dose %g %s", *u.Dose, u.Unit))
		}
		return Match{Reason: fmt.Sprintf("the label has no line for %s by %s", speciesName(u.Species), strings.Join(what, " at "))}, nil
	}
	return Match{Line: best}, nil
}

// longer keeps the longer of two periods; a dash loses to a number, since a number on any
// matching line authorises the use.
func longer(a, b *int) *int {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case *b > *a:
		return b
	}
	return a
}

func appendNew(list []string, s string) []string {
	if !containsNorm(list, s) {
		list = append(list, s)
	}
	sort.Strings(list)
	return list
}

func containsNorm(list []string, s string) bool {
	for _, x := range list {
		if norm(x) == norm(s) {
			return true
		}
	}
	return false
}

func speciesName(s string) string {
	if s == "" {
		return "this species"
	}
	return strings.ToLower(s)
}

// longestMeat is the longest meat period on the label for any species; ok is false when no
// line authorises the product for meat.
func (l Label) longestMeat() (days int, ok bool) {
	for _, ln := range l.Lines {
		if ln.MeatDays != nil && (!ok || *ln.MeatDays > days) {
			days, ok = *ln.MeatDays, true
		}
	}
	return days, ok
}

// longestMilk is the longest milk period on the label for any species; ok is false when no
// line authorises the product for milk-producing animals.
func (l Label) longestMilk() (hours int, ok bool) {
	for _, ln := range l.Lines {
		if ln.MilkHours != nil && (!ok || *ln.MilkHours > hours) {
			hours, ok = *ln.MilkHours, true
		}
	}
	return hours, ok
}

// authorisedFor reports whether the label names species (a line of its own with a period),
// or has a general line with a period.
func (l Label) authorisedFor(species string, meat bool) bool {
	for _, ln := range l.Lines {
		p := ln.MilkHours
		if meat {
			p = ln.MeatDays
		}
		if p != nil && (ln.Species == species || ln.Species == "") {
			return true
		}
	}
	return false
}
