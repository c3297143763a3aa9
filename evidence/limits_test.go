package evidence_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/herdbook/herdbook/evidence"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func parseDay(tb testing.TB, s string) time.Time {
	tb.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		tb.Fatalf("date %q: %v", s, err)
	}
	return d
}

func checkText(tb testing.TB, what, s string, maxLen int) {
	tb.Helper()
	if n := utf8.RuneCountInString(s); n > maxLen {
		tb.Errorf("%s has %d characters, limit %d", what, n, maxLen)
	}
}

func checkIDs(tb testing.TB, what string, ids []string) {
	tb.Helper()
	if ids == nil {
		tb.Errorf("%s is nil", what)
	}
	if len(ids) > evidence.MaxIDs {
		tb.Errorf("%s has %d ids", what, len(ids))
	}
	for i, id := range ids {
		if !uuidRE.MatchString(id) {
			tb.Errorf("%s[%d] = %q is not a lower-case uuid", what, i, id)
		}
		if i > 0 && ids[i-1] >= id {
			tb.Errorf("%s is not sorted and unique", what)
		}
	}
}

// checkLimits asserts every SPEC constraint on a review result, and the
// engine's own promises (non-null arrays, consistent statuses).
func checkLimits(tb testing.TB, ev evidence.Evidence) {
	tb.Helper()
	if ev.EvidenceVersion != 1 {
		tb.Errorf("evidence_version = %d", ev.EvidenceVersion)
	}
	switch ev.SettingsStatus {
	case evidence.SettingsConfigured:
		if ev.Settings == nil {
			tb.Errorf("configured without settings")
		}
	case evidence.SettingsNotConfigured:
		if ev.Settings != nil {
			tb.Errorf("not_configured with settings")
		}
	default:
		tb.Errorf("settings_status = %q", ev.SettingsStatus)
	}
	if ev.Settings != nil {
		if errs := ev.Settings.Validate(ev.Settings.Species); errs != nil {
			tb.Errorf("echoed settings invalid: %v", errs)
		}
		if ev.Settings.BirthWindows == nil {
			tb.Errorf("echoed birth_windows is nil")
		}
	}
	if ev.MatchingBirthWindows == nil || len(ev.MatchingBirthWindows) > evidence.MaxBirthWindows {
		tb.Errorf("matching_birth_windows = %v", ev.MatchingBirthWindows)
	}
	switch ev.PlannedWindowStatus {
	case evidence.PlannedWithin:
		if len(ev.MatchingBirthWindows) == 0 {
			tb.Errorf("within without a matching window")
		}
	case evidence.PlannedOutside, evidence.PlannedNotConfigured:
		if len(ev.MatchingBirthWindows) != 0 {
			tb.Errorf("%s with matching windows", ev.PlannedWindowStatus)
		}
	default:
		tb.Errorf("planned_window_status = %q", ev.PlannedWindowStatus)
	}
	var ws, we time.Time
	if cw := ev.ConceptionWindow; cw != nil {
		ws, we = parseDay(tb, cw.StartDate), parseDay(tb, cw.EndDate)
		if we.Before(ws) {
			tb.Errorf("conception window %v ends before it starts", *cw)
		}
	}

	s := ev.Sire
	// A sire qualified by DNA is presumed whatever the exposure records say.
	byDNA := s.Status == evidence.SirePresumed && strings.HasPrefix(s.Provenance, "Presumed from DNA parentage record ")
	if s.Candidates == nil || len(s.Candidates) > evidence.MaxCandidates {
		tb.Fatalf("candidates: nil or %d items", len(s.Candidates))
	}
	switch s.Status {
	case evidence.SireUnknown:
		if len(s.Candidates) != 0 {
			tb.Errorf("unknown with candidates")
		}
	case evidence.SireCandidates, evidence.SirePresumed:
		if len(s.Candidates) == 0 && !byDNA {
			tb.Errorf("%s without candidates", s.Status)
		}
	default:
		tb.Errorf("sire.status = %q", s.Status)
	}
	if s.Status == evidence.SirePresumed {
		if !uuidRE.MatchString(s.AnimalID) || s.Confidence == nil || *s.Confidence <= 0 || *s.Confidence >= 1 || s.Provenance == "" {
			tb.Errorf("presumed sire incomplete: %+v", s)
		}
		plausible := 0
		for _, c := range s.Candidates {
			if c.Eligibility == evidence.EligibilityPlausible {
				plausible++
				if c.AnimalID != s.AnimalID && !byDNA {
					tb.Errorf("plausible candidate %s is not the presumed sire", c.AnimalID)
				}
			}
		}
		if plausible != 1 && !byDNA {
			tb.Errorf("presumed with %d plausible candidates", plausible)
		}
	} else if s.AnimalID != "" || s.Confidence != nil || s.Provenance != "" || s.PresumedCross != "" {
		tb.Errorf("%s sire carries presumption fields: %+v", s.Status, s)
	}
	checkText(tb, "provenance", s.Provenance, evidence.MaxProvenance)
	checkText(tb, "presumed_cross", s.PresumedCross, evidence.MaxPresumedCross)

	for _, c := range s.Candidates {
		if !uuidRE.MatchString(c.AnimalID) {
			tb.Errorf("candidate id %q", c.AnimalID)
		}
		if !slices.Contains([]evidence.Eligibility{evidence.EligibilityPlausible, evidence.EligibilityUnknown, evidence.EligibilityExcluded}, c.Eligibility) {
			tb.Errorf("eligibility %q", c.Eligibility)
		}
		if len(c.Reasons) == 0 || len(c.Reasons) > evidence.MaxReasons {
			tb.Errorf("candidate %s has %d reasons", c.AnimalID, len(c.Reasons))
		}
		for _, r := range c.Reasons {
			checkText(tb, "reason", r, evidence.MaxReasonLength)
		}
		checkIDs(tb, "exposure_record_ids", c.ExposureRecordIDs)
		checkIDs(tb, "exposure_record_item_ids", c.ExposureRecordItemIDs)
		checkIDs(tb, "membership_record_ids", c.MembershipRecordIDs)
		checkIDs(tb, "membership_record_item_ids", c.MembershipRecordItemIDs)
		if len(c.ExposureRecordIDs) == 0 && len(c.MembershipRecordIDs) == 0 { // natural service has memberships only
			tb.Errorf("candidate %s without exposure records", c.AnimalID)
		}
		if len(c.OverlapIntervals) == 0 || len(c.OverlapIntervals) > evidence.MaxOverlapIntervals {
			tb.Errorf("candidate %s has %d overlap intervals", c.AnimalID, len(c.OverlapIntervals))
		}
		// A candidate judged by his breed's gestation range has that range's window.
		cws, cwe := ws, we
		if g := c.GestationDays; g != nil && ev.Settings != nil && ev.Settings.GestationDays != nil && !we.IsZero() {
			born := we.AddDate(0, 0, ev.Settings.GestationDays.Min)
			if c.GestationBreed != "" {
				cws, cwe = born.AddDate(0, 0, -g.Max), born.AddDate(0, 0, -g.Min)
			}
			if x := c.ImpliedGestationDays; x == nil || x.Min < g.Min || x.Max > g.Max || x.Min > x.Max {
				tb.Errorf("candidate %s: implied gestation %v outside %v", c.AnimalID, x, *g)
			}
		}
		var prevEnd time.Time
		for i, iv := range c.OverlapIntervals {
			a, b := parseDay(tb, iv.StartDate), parseDay(tb, iv.EndDate)
			if b.Before(a) || a.Before(cws) || b.After(cwe) {
				tb.Errorf("interval %v outside the conception window or reversed", iv)
			}
			if i > 0 && !a.After(prevEnd.AddDate(0, 0, 1)) {
				tb.Errorf("intervals %v not merged and sorted", c.OverlapIntervals)
			}
			prevEnd = b
		}
		checkText(tb, "breed", c.Breed, evidence.MaxBreed)
	}

	if ev.MovementComparisons == nil || len(ev.MovementComparisons) > evidence.MaxMovementComparisons {
		tb.Errorf("movement_comparisons: nil or %d", len(ev.MovementComparisons))
	}
	for _, m := range ev.MovementComparisons {
		if !slices.Contains([]evidence.Kind{evidence.KindPurchase, evidence.KindMovementIn, evidence.KindMovementOut}, m.Kind) {
			tb.Errorf("movement kind %q", m.Kind)
		}
		if !uuidRE.MatchString(m.RecordID) || !uuidRE.MatchString(m.RecordItemID) {
			tb.Errorf("movement ids %q %q", m.RecordID, m.RecordItemID)
		}
		parseDay(tb, m.Date)
		if (m.RelationToConception == evidence.RelationUnknown) != (ev.ConceptionWindow == nil) {
			tb.Errorf("relation %q with window %v", m.RelationToConception, ev.ConceptionWindow)
		}
	}

	if ev.Unresolved == nil || len(ev.Unresolved) > evidence.MaxUnresolved {
		tb.Errorf("unresolved: nil or %d", len(ev.Unresolved))
	}
	for _, u := range ev.Unresolved {
		if u == "" {
			tb.Errorf("empty unresolved line")
		}
		checkText(tb, "unresolved line", u, evidence.MaxUnresolvedLength)
	}
}
