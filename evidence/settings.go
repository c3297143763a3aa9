package evidence

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Species lists the farm species that BirthHistorySettings may be bound to,
// in the order SPEC.md gives them.
var Species = []string{"BISON", "CATTLE", "ELK", "GOAT", "HORSE", "OTHER", "SHEEP"}

// Settings are a farm's BirthHistorySettings. They carry no biological
// defaults: what the farm has not configured stays unconfigured, and the
// review says so instead of guessing.
type Settings struct {
	// Version is always SettingsVersion.
	Version int `json:"version"`
	// Species must equal the farm's species, so settings written for
	// cattle are never applied to a flock of sheep.
	Species string `json:"species"`
	// GestationDays is the range of gestation lengths, in days, that the
	// farm accepts for its species. Without it no conception window exists.
	GestationDays *Range `json:"gestation_days,omitempty"`
	// GestationDaysByBreed maps a sire's breed to the gestation range of the calves he
	// sires: a continental sire's calves are carried longer than a British one's (Torell,
	// UNR Extension; BIF guidelines: DOMAIN.md). A candidate whose profile names one of
	// these breeds (compared without case and surrounding spaces) is judged by his breed's
	// range; any other candidate, and one of unknown breed, by GestationDays, which the map
	// needs.
	GestationDaysByBreed map[string]Range `json:"gestation_days_by_breed,omitempty"`
	// MinimumSireAgeDays is the youngest age, in days, at which a male is
	// considered able to sire. Without it ages are not checked.
	MinimumSireAgeDays *int `json:"minimum_sire_age_days,omitempty"`
	// BirthWindows are the farm's planned birth seasons. An empty list
	// means no planned windows.
	BirthWindows []Window `json:"birth_windows"`
}

// Range is an inclusive range of whole days.
type Range struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Window is a named, inclusive range of calendar dates in which the farm
// plans its births.
type Window struct {
	Label     string `json:"label"`
	StartDate string `json:"start_date"`
	EndDate   string `json:"end_date"`
}

// Validate checks the settings against SPEC.md and against the species of
// the farm they are written for. It returns nil when the settings are valid,
// otherwise one FieldError per problem, in field order.
func (s Settings) Validate(farmSpecies string) []FieldError {
	var errs []FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}

	if s.Version != SettingsVersion {
		add("version", "must be %d", SettingsVersion)
	}
	switch {
	case !knownSpecies(s.Species):
		add("species", "must be one of %s", strings.Join(Species, ", "))
	case s.Species != farmSpecies:
		add("species", "must match the farm's species")
	}

	checkRange := func(at string, g Range) {
		minOK := g.Min >= MinGestationDays && g.Min <= MaxGestationDays
		maxOK := g.Max >= MinGestationDays && g.Max <= MaxGestationDays
		if !minOK {
			add(at+".min", "must be between %d and %d", MinGestationDays, MaxGestationDays)
		}
		if !maxOK {
			add(at+".max", "must be between %d and %d", MinGestationDays, MaxGestationDays)
		}
		if minOK && maxOK && g.Min > g.Max {
			add(at+".max", "must not be less than %s.min", at)
		}
	}
	if g := s.GestationDays; g != nil {
		checkRange("gestation_days", *g)
	}
	if by := s.GestationDaysByBreed; len(by) > 0 {
		if s.GestationDays == nil {
			add("gestation_days_by_breed", "needs gestation_days: sires of other breeds, or of unknown breed, are judged by the farm's range")
		}
		if len(by) > MaxBreedGestations {
			add("gestation_days_by_breed", "must name at most %d breeds", MaxBreedGestations)
		}
		breeds := make([]string, 0, len(by))
		for b := range by {
			breeds = append(breeds, b)
		}
		sort.Strings(breeds)
		seen := map[string]string{}
		for _, b := range breeds {
			at := "gestation_days_by_breed." + b
			key := breedKey(b)
			switch n := utf8.RuneCountInString(key); {
			case !utf8.ValidString(b):
				add("gestation_days_by_breed", "breed names must be valid UTF-8 text")
				continue
			case n < 1 || n > MaxBreed:
				add(at, "the breed must be 1 to %d characters long", MaxBreed)
			case seen[key] != "":
				add(at, "names the same breed as %q", seen[key])
			}
			seen[key] = b
			checkRange(at, by[b])
		}
	}

	if a := s.MinimumSireAgeDays; a != nil && (*a < MinSireAgeDays || *a > MaxSireAgeDays) {
		add("minimum_sire_age_days", "must be between %d and %d", MinSireAgeDays, MaxSireAgeDays)
	}

	if len(s.BirthWindows) > MaxBirthWindows {
		add("birth_windows", "must have at most %d items", MaxBirthWindows)
	}
	for i, w := range s.BirthWindows {
		at := fmt.Sprintf("birth_windows[%d]", i)
		if !utf8.ValidString(w.Label) {
			add(at+".label", "must be valid UTF-8 text")
		} else if n := utf8.RuneCountInString(w.Label); n < 1 || n > MaxWindowLabel {
			add(at+".label", "must be 1 to %d characters long", MaxWindowLabel)
		}
		start, startOK := parseDate(w.StartDate)
		end, endOK := parseDate(w.EndDate)
		if !startOK {
			add(at+".start_date", "must be a calendar date in the form YYYY-MM-DD")
		}
		if !endOK {
			add(at+".end_date", "must be a calendar date in the form YYYY-MM-DD")
		}
		if startOK && endOK && end < start {
			add(at+".end_date", "must not be before start_date")
		}
	}
	return errs
}

func knownSpecies(s string) bool {
	for _, v := range Species {
		if v == s {
			return true
		}
	}
	return false
}

// clone copies the settings for the evidence result, so that the caller's
// value is never shared with the answer and the window list is never null.
func (s Settings) clone() *Settings {
	c := s
	if s.GestationDays != nil {
		g := *s.GestationDays
		c.GestationDays = &g
	}
	if s.MinimumSireAgeDays != nil {
		a := *s.MinimumSireAgeDays
		c.MinimumSireAgeDays = &a
	}
	if s.GestationDaysByBreed != nil {
		c.GestationDaysByBreed = make(map[string]Range, len(s.GestationDaysByBreed))
		for b, g := range s.GestationDaysByBreed {
			c.GestationDaysByBreed[b] = g
		}
	}
	c.BirthWindows = append(make([]Window, 0, len(s.BirthWindows)), s.BirthWindows...)
	return &c
}

// breedKey is a breed as gestation_days_by_breed compares it: without case and surrounding
// spaces.
func breedKey(b string) string { return strings.ToLower(strings.TrimSpace(b)) }

// gestationFor is the gestation range a sire of breed is judged by, and the breed as the
// settings name it ("" when the farm's range applies). The settings must be valid and have
// gestation_days.
func (s *Settings) gestationFor(breed string) (Range, string) {
	if breed != "" {
		key := breedKey(breed)
		for b, g := range s.GestationDaysByBreed {
			if breedKey(b) == key {
				return g, b
			}
		}
	}
	return *s.GestationDays, ""
}
