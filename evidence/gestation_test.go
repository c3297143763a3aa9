package evidence_test

import (
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// Gestation depends on the sire's breed: Angus calves are carried about 281 days, Hereford
// 285, continental breeds (Charolais, Simmental, Limousin) about 289 (Torell, UNR Extension;
// BIF guidelines). A farm may give each sire breed its own range (gestation_days_by_breed);
// other sires keep the farm's gestation_days.

// charolais is the base settings with Charolais sires' calves carried 285 to 300 days: their
// conception window for the base birth (2025-10-18) is 2024-12-22..2025-01-06, where the
// farm's is 2025-01-01..2025-01-11.
func charolais() *evidence.Settings {
	s := baseSettings()
	s.GestationDaysByBreed = map[string]evidence.Range{"charolais ": {Min: 285, Max: 300}}
	return s
}

func TestGestationBySireBreed(t *testing.T) {
	facts := []evidence.Fact{
		damProfile(),
		profileF("p-char", "bull-char", "male", "2021-04-01", "Charolais"),
		bull("bull-here"),
		// Both ran with the dam from 2024-12-20 to 2024-12-31: before the farm's window, but
		// within the Charolais window.
		exposureDamF("e1", "bull-char", "dam", "2024-12-20", "2024-12-31"),
		exposureDamF("e2", "bull-here", "dam", "2024-12-20", "2024-12-31"),
	}
	ev := MustReview(t, charolais(), facts...)
	if ev.ConceptionWindow == nil || ev.ConceptionWindow.StartDate != winFrom || ev.ConceptionWindow.EndDate != winTo {
		t.Fatalf("conception window %+v: the farm's range still sets it", ev.ConceptionWindow)
	}
	if _, ok := candidateOf(ev, "bull-here"); ok {
		t.Errorf("the Hereford bull ran with the dam only before the farm's window, yet is a candidate")
	}
	c, ok := candidateOf(ev, "bull-char")
	if !ok {
		t.Fatalf("the Charolais bull is no candidate: %s", MustJSON(t, ev))
	}
	if c.Eligibility != evidence.EligibilityPlausible || ev.Sire.Status != evidence.SirePresumed || ev.Sire.PresumedCross != "Charolais × Angus" {
		t.Errorf("candidate %+v, sire %+v", c, ev.Sire)
	}
	if len(c.OverlapIntervals) != 1 || c.OverlapIntervals[0] != (evidence.Interval{StartDate: "2024-12-22", EndDate: "2024-12-31"}) {
		t.Errorf("overlap %v, want 2024-12-22..2024-12-31", c.OverlapIntervals)
	}
	// 2025-10-18 is 291 days after 2024-12-31 and 300 after 2024-12-22.
	if c.GestationBreed != "charolais " || *c.GestationDays != (evidence.Range{Min: 285, Max: 300}) ||
		*c.ImpliedGestationDays != (evidence.Range{Min: 291, Max: 300}) {
		t.Errorf("gestation %+v (%q), implied %+v", *c.GestationDays, c.GestationBreed, *c.ImpliedGestationDays)
	}
	if !strings.Contains(c.Reasons[0], "for a charolais  sire (285 to 300 days") && !strings.Contains(c.Reasons[0], "285 to 300 days of gestation") {
		t.Errorf("reason %q does not name the breed's range", c.Reasons[0])
	}

	// Without the map, the farm's range applies to him too: no candidate.
	if ev := MustReview(t, baseSettings(), facts...); len(ev.Sire.Candidates) != 0 {
		t.Errorf("candidates without a breed range: %+v", ev.Sire.Candidates)
	}

	// A sire of a breed the map does not name shows the farm's range.
	ev = MustReview(t, charolais(), damProfile(), bull("bull-here"), exposureDamF("e2", "bull-here", "dam", "2025-01-05", "2025-01-20"))
	if c, _ := candidateOf(ev, "bull-here"); c.GestationBreed != "" || *c.GestationDays != (evidence.Range{Min: 280, Max: 290}) ||
		*c.ImpliedGestationDays != (evidence.Range{Min: 280, Max: 286}) || ev.Sire.PresumedCross != "Hereford × Angus" {
		t.Errorf("Hereford candidate %+v, cross %q", c, ev.Sire.PresumedCross)
	}
}

func TestScopeWidensForSireBreeds(t *testing.T) {
	sc := evidence.ScopeOf(evidence.Input{Settings: charolais(), DamID: uid("dam"), BirthDate: birth})
	if sc.From != "2024-12-22" || sc.Through != winTo {
		t.Errorf("scope %s..%s, want 2024-12-22..%s", sc.From, sc.Through, winTo)
	}
	short := baseSettings()
	short.GestationDaysByBreed = map[string]evidence.Range{"Jersey": {Min: 270, Max: 285}}
	sc = evidence.ScopeOf(evidence.Input{Settings: short, DamID: uid("dam"), BirthDate: birth})
	if sc.From != winFrom || sc.Through != "2025-01-21" {
		t.Errorf("scope %s..%s, want %s..2025-01-21", sc.From, sc.Through, winFrom)
	}
}

func TestGestationByBreedValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		by    map[string]evidence.Range
		farm  bool
		field string
	}{
		{"ErrNeedsFarmRange", map[string]evidence.Range{"Angus": {Min: 275, Max: 290}}, false, "gestation_days_by_breed"},
		{"ErrMinAboveMax", map[string]evidence.Range{"Angus": {Min: 290, Max: 275}}, true, "gestation_days_by_breed.Angus.max"},
		{"ErrOutOfRange", map[string]evidence.Range{"Angus": {Min: 0, Max: 275}}, true, "gestation_days_by_breed.Angus.min"},
		{"ErrSameBreedTwice", map[string]evidence.Range{"Angus": {Min: 275, Max: 290}, " angus": {Min: 275, Max: 290}}, true, "gestation_days_by_breed.Angus"},
		{"ErrEmptyBreed", map[string]evidence.Range{" ": {Min: 275, Max: 290}}, true, "gestation_days_by_breed. "},
		{"ErrLongBreed", map[string]evidence.Range{strings.Repeat("x", evidence.MaxBreed+1): {Min: 275, Max: 290}}, true, "gestation_days_by_breed.xxx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := baseSettings()
			if !tc.farm {
				s.GestationDays = nil
			}
			s.GestationDaysByBreed = tc.by
			errs := s.Validate("CATTLE")
			found := false
			for _, e := range errs {
				found = found || strings.HasPrefix(e.Field, tc.field)
			}
			if !found {
				t.Errorf("errors %+v do not name %s", errs, tc.field)
			}
		})
	}
	s := charolais()
	if errs := s.Validate("CATTLE"); errs != nil {
		t.Errorf("valid settings: %+v", errs)
	}
	// The review echoes a copy: changing the answer leaves the farm's settings alone.
	ev := MustReview(t, s, damProfile())
	ev.Settings.GestationDaysByBreed["charolais "] = evidence.Range{Min: 1, Max: 2}
	if s.GestationDaysByBreed["charolais "].Min != 285 {
		t.Error("the review's settings share the map with the input")
	}
}
