package evidence_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

type elig = map[string]evidence.Eligibility

const (
	plausible = evidence.EligibilityPlausible
	unknown   = evidence.EligibilityUnknown
	excluded  = evidence.EligibilityExcluded
)

func hasLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

func TestReviewSire(t *testing.T) {
	noAge := func(s *evidence.Settings) *evidence.Settings { s.MinimumSireAgeDays = nil; return s }

	tests := []struct {
		name       string
		settings   func(*evidence.Settings) *evidence.Settings
		facts      []evidence.Fact
		status     evidence.SireStatus
		elig       elig
		reason     map[string]string
		unresolved []string
		check      func(t *testing.T, ev evidence.Evidence)
	}{
		{
			name:       "UnknownNoExposure",
			facts:      []evidence.Fact{damProfile(), bull("bull-a")},
			status:     evidence.SireUnknown,
			unresolved: []string{"No exposure fact places a sire with the dam"},
		},
		{
			name:   "UnknownExposureOutsideWindow",
			facts:  []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2024-10-01", "2024-12-31"), exposureDamF("e2", "bull-a", "dam", "2025-01-12", "")},
			status: evidence.SireUnknown,
		},
		{
			name:   "PresumedDirectExposure",
			facts:  []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2024-12-01", "2025-02-01")},
			status: evidence.SirePresumed,
			elig:   elig{"bull-a": plausible},
			reason: map[string]string{"bull-a": "counts as intact"},
			check: func(t *testing.T, ev evidence.Evidence) {
				s := ev.Sire
				if s.AnimalID != uid("bull-a") || *s.Confidence != 0.9 || s.PresumedCross != "Hereford × Angus" {
					t.Errorf("sire = %+v (confidence %v)", s, *s.Confidence)
				}
				if !strings.Contains(s.Provenance, uid("record:e1")) {
					t.Errorf("provenance %q does not name the exposure record", s.Provenance)
				}
				c, _ := candidateOf(ev, "bull-a")
				if want := []evidence.Interval{{StartDate: winFrom, EndDate: winTo}}; !slices.Equal(c.OverlapIntervals, want) {
					t.Errorf("overlap = %v, want %v", c.OverlapIntervals, want)
				}
				if c.Breed != "Hereford" || !slices.Equal(c.ExposureRecordItemIDs, []string{uid("item:e1")}) || len(c.MembershipRecordIDs) != 0 {
					t.Errorf("candidate = %+v", c)
				}
			},
		},
		{
			name:   "PresumedOpenExposureRunsToBirth",
			facts:  []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2024-01-01", "")},
			status: evidence.SirePresumed,
			check: func(t *testing.T, ev evidence.Evidence) {
				c, _ := candidateOf(ev, "bull-a")
				if c.OverlapIntervals[0] != (evidence.Interval{StartDate: winFrom, EndDate: winTo}) {
					t.Errorf("overlap = %v", c.OverlapIntervals)
				}
			},
		},
		{
			name:   "CandidatesTwoPlausible",
			facts:  []evidence.Fact{damProfile(), bull("bull-a"), bull("bull-b"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-05"), exposureDamF("e2", "bull-b", "dam", "2025-01-06", "2025-01-20")},
			status: evidence.SireCandidates,
			elig:   elig{"bull-a": plausible, "bull-b": plausible},
		},
		{
			name:   "ExcludedFemale",
			facts:  []evidence.Fact{damProfile(), profileF("p", "heifer", "female", "2021-01-01", ""), exposureDamF("e1", "heifer", "dam", "2025-01-01", "2025-01-05")},
			status: evidence.SireCandidates,
			elig:   elig{"heifer": excluded},
			reason: map[string]string{"heifer": "Excluded: the profile records this animal as female."},
		},
		{
			name:   "ExcludedCastratedOnOverlapStart",
			facts:  []evidence.Fact{damProfile(), bull("steer"), castrationF("c", "steer", "2025-01-03"), exposureDamF("e1", "steer", "dam", "2025-01-03", "2025-01-09")},
			status: evidence.SireCandidates,
			elig:   elig{"steer": excluded},
			reason: map[string]string{"steer": "Excluded: castrated on 2025-01-03, on or before the overlap began on 2025-01-03."},
		},
		{
			name:   "PlausibleCastratedDuringOverlap",
			facts:  []evidence.Fact{damProfile(), bull("bull-a"), castrationF("c", "bull-a", "2025-01-04"), exposureDamF("e1", "bull-a", "dam", "2025-01-03", "2025-01-09")},
			status: evidence.SirePresumed,
			elig:   elig{"bull-a": plausible},
			reason: map[string]string{"bull-a": "Castrated on 2025-01-04, after the overlap began on 2025-01-03, so intact at its start."},
		},
		{
			name:   "ExcludedTooYoung",
			facts:  []evidence.Fact{damProfile(), profileF("p", "calf", "male", "2024-06-01", ""), exposureDamF("e1", "calf", "dam", "2025-01-01", "2025-01-11")},
			status: evidence.SireCandidates,
			elig:   elig{"calf": excluded},
			reason: map[string]string{"calf": "Excluded: 224 days old when the overlap ended on 2025-01-11, younger than the minimum sire age of 365 days."},
		},
		{
			name:   "PlausibleExactlyMinimumAge",
			facts:  []evidence.Fact{damProfile(), profileF("p", "yearling", "male", "2024-01-12", ""), exposureDamF("e1", "yearling", "dam", "2025-01-01", "2025-01-11")},
			status: evidence.SirePresumed,
			reason: map[string]string{"yearling": "365 days old when the overlap ended on 2025-01-11, at least the minimum sire age of 365 days."},
		},
		{
			name:     "ExcludedBornAfterOverlapWithoutAgeRule",
			settings: noAge,
			facts:    []evidence.Fact{damProfile(), profileF("p", "unborn", "male", "2025-02-01", ""), exposureDamF("e1", "unborn", "dam", "2025-01-01", "2025-01-11")},
			status:   evidence.SireCandidates,
			elig:     elig{"unborn": excluded},
			reason:   map[string]string{"unborn": "Excluded: born on 2025-02-01, after the overlap ended on 2025-01-11."},
		},
		{
			name:   "ExcludedMovedOutBeforeOverlap",
			facts:  []evidence.Fact{damProfile(), bull("bull-a"), moveF("m", evidence.KindMovementOut, "bull-a", "2024-12-20"), exposureDamF("e1", "bull-a", "dam", "2024-12-01", "")},
			status: evidence.SireCandidates,
			elig:   elig{"bull-a": excluded},
			reason: map[string]string{"bull-a": "Excluded: moved off the farm on 2024-12-20, before the overlap began on 2025-01-01, with no return recorded before it ended on 2025-01-11."},
		},
		{
			name: "PlausibleMovedOutAndBackDuringOverlap",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2024-12-01", ""),
				moveF("m1", evidence.KindMovementOut, "bull-a", "2024-12-20"), moveF("m2", evidence.KindMovementIn, "bull-a", "2025-01-06")},
			status: evidence.SirePresumed,
			reason: map[string]string{"bull-a": "Moved off the farm on 2024-12-20 and back on 2025-01-06 (movement_in), during the overlap."},
		},
		{
			name: "PlausibleReturnedBeforeOverlap",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2024-12-01", ""),
				moveF("m1", evidence.KindMovementOut, "bull-a", "2024-11-20"), moveF("m2", evidence.KindPurchase, "bull-a", "2024-11-25")},
			status: evidence.SirePresumed,
		},
		{
			name:   "PlausibleMovedOutOnOverlapStart",
			facts:  []evidence.Fact{damProfile(), bull("bull-a"), moveF("m", evidence.KindMovementOut, "bull-a", "2025-01-01"), exposureDamF("e1", "bull-a", "dam", "2024-12-01", "")},
			status: evidence.SirePresumed,
		},
		{
			name:       "UnknownSexWithoutProfile",
			facts:      []evidence.Fact{damProfile(), exposureDamF("e1", "stranger", "dam", "2025-01-01", "2025-01-11")},
			status:     evidence.SireCandidates,
			elig:       elig{"stranger": unknown},
			reason:     map[string]string{"stranger": "Unknown: no profile fact records the sex of this animal"},
			unresolved: []string{"No profile fact records the sex of candidate " + uid("stranger")},
		},
		{
			name:       "UnknownSexConflictingProfiles",
			facts:      []evidence.Fact{damProfile(), bull("bull-a"), profileF("p2", "bull-a", "female", "", ""), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11")},
			status:     evidence.SireCandidates,
			elig:       elig{"bull-a": unknown},
			unresolved: []string{"disagree on his sex"},
		},
		{
			name:       "UnknownBirthDateWithAgeRule",
			facts:      []evidence.Fact{damProfile(), profileF("p", "bull-x", "male", "", "Angus"), exposureDamF("e1", "bull-x", "dam", "2025-01-01", "2025-01-11")},
			status:     evidence.SireCandidates,
			elig:       elig{"bull-x": unknown},
			reason:     map[string]string{"bull-x": "the minimum sire age of 365 days cannot be checked"},
			unresolved: []string{"No profile fact records the birth date of candidate " + uid("bull-x")},
		},
		{
			name:       "PlausibleBirthDateUnknownWithoutAgeRule",
			settings:   noAge,
			facts:      []evidence.Fact{damProfile(), profileF("p", "bull-x", "male", "", ""), exposureDamF("e1", "bull-x", "dam", "2025-01-01", "2025-01-11")},
			status:     evidence.SirePresumed,
			unresolved: []string{"No minimum sire age is configured", "presumed sire's breed is not known"},
			check: func(t *testing.T, ev evidence.Evidence) {
				if *ev.Sire.Confidence != 0.8 || ev.Sire.PresumedCross != "" {
					t.Errorf("confidence %v, cross %q", *ev.Sire.Confidence, ev.Sire.PresumedCross)
				}
			},
		},
		{
			name: "UnknownDamArrivedAfterWindowBegan",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11"),
				moveF("buy", evidence.KindPurchase, "dam", "2025-01-04")},
			status:     evidence.SireCandidates,
			elig:       elig{"bull-a": unknown},
			reason:     map[string]string{"bull-a": "Unknown: the dam arrived on the farm on 2025-01-04"},
			unresolved: []string{"The dam arrived on the farm on 2025-01-04 (purchase), after the conception window began on 2025-01-01"},
		},
		{
			name: "PlausibleDamArrivedOnWindowStart",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11"),
				moveF("in", evidence.KindMovementIn, "dam", "2025-01-01")},
			status: evidence.SirePresumed,
		},
		{
			name: "UnknownDamLeftDuringWindow",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11"),
				moveF("out", evidence.KindMovementOut, "dam", "2025-01-08")},
			status:     evidence.SireCandidates,
			elig:       elig{"bull-a": unknown},
			unresolved: []string{"The dam left the farm on 2025-01-08, inside the conception window"},
		},
		{
			name: "ExcludedWinsOverUnknown",
			facts: []evidence.Fact{damProfile(), profileF("p", "heifer", "female", "", ""), exposureDamF("e1", "heifer", "dam", "2025-01-01", "2025-01-11"),
				moveF("buy", evidence.KindPurchase, "dam", "2025-01-04")},
			status: evidence.SireCandidates,
			elig:   elig{"heifer": excluded},
		},
		{
			name: "PresumedWithUnknownRival",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11"),
				exposureDamF("e2", "stranger", "dam", "2025-01-02", "2025-01-03"), castrationF("c", "steer", "2020-01-01"), bull("steer"),
				exposureDamF("e3", "steer", "dam", "2025-01-01", "2025-01-11")},
			status: evidence.SirePresumed,
			elig:   elig{"bull-a": plausible, "stranger": unknown, "steer": excluded},
			check: func(t *testing.T, ev evidence.Evidence) {
				if *ev.Sire.Confidence != 0.8 || !strings.Contains(ev.Sire.Provenance, "1 other candidate(s) could be neither confirmed nor ruled out") {
					t.Errorf("sire = %+v", ev.Sire)
				}
				order := []string{uid("bull-a"), uid("stranger"), uid("steer")}
				for i, c := range ev.Sire.Candidates {
					if c.AnimalID != order[i] {
						t.Errorf("candidate %d = %s, want plausible, unknown, excluded order", i, c.AnimalID)
					}
				}
			},
		},
		{
			name: "MergedExposuresOfOneSire",
			facts: []evidence.Fact{damProfile(), bull("bull-a"),
				exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-03"), exposureDamF("e2", "bull-a", "dam", "2025-01-04", "2025-01-06"),
				exposureDamF("e3", "bull-a", "dam", "2025-01-09", "2025-01-20"), exposureDamF("e4", "bull-a", "dam", "2025-01-10", "2025-01-10")},
			status: evidence.SirePresumed,
			check: func(t *testing.T, ev evidence.Evidence) {
				c := ev.Sire.Candidates[0]
				want := []evidence.Interval{{StartDate: "2025-01-01", EndDate: "2025-01-06"}, {StartDate: "2025-01-09", EndDate: "2025-01-11"}}
				if len(ev.Sire.Candidates) != 1 || !slices.Equal(c.OverlapIntervals, want) || len(c.ExposureRecordIDs) != 4 || len(c.ExposureRecordItemIDs) != 4 {
					t.Errorf("candidate = %+v", c)
				}
				if *ev.Sire.Confidence != 0.75 {
					t.Errorf("confidence = %v, want 0.75 (no full coverage)", *ev.Sire.Confidence)
				}
				if !strings.Contains(c.Reasons[0], "on 9 day(s) of the conception window, between 2025-01-01 and 2025-01-11") {
					t.Errorf("reason = %q", c.Reasons[0])
				}
			},
		},
		{
			name: "GroupExposureThroughHistoricalMembership",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), membershipF("m1", "dam", "herd", "2024-06-01", "2025-01-07"),
				exposureGroupF("e1", "bull-a", "herd", "2025-01-05", "")},
			status: evidence.SirePresumed,
			check: func(t *testing.T, ev evidence.Evidence) {
				c := ev.Sire.Candidates[0]
				if c.OverlapIntervals[0] != (evidence.Interval{StartDate: "2025-01-05", EndDate: "2025-01-07"}) ||
					!slices.Equal(c.MembershipRecordIDs, []string{uid("record:m1")}) || !slices.Equal(c.MembershipRecordItemIDs, []string{uid("item:m1")}) {
					t.Errorf("candidate = %+v", c)
				}
				if *ev.Sire.Confidence != 0.6 || !strings.Contains(ev.Sire.Provenance, uid("record:m1")) {
					t.Errorf("sire = %+v (confidence %v)", ev.Sire, *ev.Sire.Confidence)
				}
				if !strings.Contains(c.Reasons[0], "group exposure while the dam was a recorded member") {
					t.Errorf("reason = %q", c.Reasons[0])
				}
			},
		},
		{
			name:       "GroupExposureWithoutMembershipGivesNoCandidate",
			facts:      []evidence.Fact{damProfile(), bull("bull-a"), exposureGroupF("e1", "bull-a", "herd", "2024-12-01", "")},
			status:     evidence.SireUnknown,
			unresolved: []string{"no membership fact places the dam in any group by 2025-01-11"},
		},
		{
			name: "GroupExposureOfAnotherGroup",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), membershipF("m1", "dam", "heifers", "2024-06-01", ""),
				exposureGroupF("e1", "bull-a", "herd", "2024-12-01", "")},
			status: evidence.SireUnknown,
		},
		{
			name: "OpenMembershipEndedByNextMembership",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), bull("bull-b"),
				membershipF("m1", "dam", "herd", "2024-06-01", ""), membershipF("m2", "dam", "heifers", "2025-01-05", ""),
				exposureGroupF("e1", "bull-a", "herd", "2024-12-01", ""), exposureGroupF("e2", "bull-b", "heifers", "2024-12-01", "")},
			status: evidence.SireCandidates,
			elig:   elig{"bull-a": plausible, "bull-b": plausible},
			check: func(t *testing.T, ev evidence.Evidence) {
				a, _ := candidateOf(ev, "bull-a")
				b, _ := candidateOf(ev, "bull-b")
				if a.OverlapIntervals[0] != (evidence.Interval{StartDate: "2025-01-01", EndDate: "2025-01-04"}) {
					t.Errorf("bull-a overlap = %v", a.OverlapIntervals)
				}
				if b.OverlapIntervals[0] != (evidence.Interval{StartDate: "2025-01-05", EndDate: "2025-01-11"}) {
					t.Errorf("bull-b overlap = %v", b.OverlapIntervals)
				}
			},
		},
		{
			name: "OpenMembershipEndedByMovementOutBeforeWindow",
			facts: []evidence.Fact{damProfile(), bull("bull-a"),
				membershipF("m1", "dam", "herd", "2024-06-01", ""), moveF("out", evidence.KindMovementOut, "dam", "2024-12-20"),
				moveF("in", evidence.KindMovementIn, "dam", "2024-12-28"), exposureGroupF("e1", "bull-a", "herd", "2024-12-01", "")},
			status: evidence.SireUnknown,
		},
		{
			name: "OpenMembershipEndedByMovementOutInWindow",
			facts: []evidence.Fact{damProfile(), bull("bull-a"),
				membershipF("m1", "dam", "herd", "2024-06-01", ""), moveF("out", evidence.KindMovementOut, "dam", "2025-01-03"),
				exposureGroupF("e1", "bull-a", "herd", "2024-12-01", "")},
			status: evidence.SireCandidates,
			elig:   elig{"bull-a": unknown},
			check: func(t *testing.T, ev evidence.Evidence) {
				if iv := ev.Sire.Candidates[0].OverlapIntervals; iv[0] != (evidence.Interval{StartDate: "2025-01-01", EndDate: "2025-01-03"}) {
					t.Errorf("overlap = %v", iv)
				}
			},
		},
		{
			name: "DirectAndGroupExposureMerge",
			facts: []evidence.Fact{damProfile(), bull("bull-a"),
				membershipF("m1", "dam", "herd", "2024-06-01", ""), exposureGroupF("e1", "bull-a", "herd", "2025-01-06", ""),
				exposureDamF("e2", "bull-a", "dam", "2024-12-25", "2025-01-05")},
			status: evidence.SirePresumed,
			check: func(t *testing.T, ev evidence.Evidence) {
				c := ev.Sire.Candidates[0]
				if len(c.OverlapIntervals) != 1 || len(c.ExposureRecordIDs) != 2 || len(c.MembershipRecordIDs) != 1 || *ev.Sire.Confidence != 0.9 {
					t.Errorf("candidate = %+v, confidence %v", c, *ev.Sire.Confidence)
				}
			},
		},
		{
			name:       "DamWithoutProfile",
			facts:      []evidence.Fact{bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11")},
			status:     evidence.SirePresumed,
			unresolved: []string{"No profile fact records the dam", "the dam's breed is not known"},
		},
		{
			name:   "BirthFactsDoNotInform",
			facts:  []evidence.Fact{damProfile(), bull("bull-a"), birthF("b", "dam", "2025-01-05"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11")},
			status: evidence.SirePresumed,
		},
		{
			name: "InvalidFactSkipped",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11"),
				withIDs("bad", evidence.Fact{Kind: evidence.KindExposure, SireID: uid("bull-b"), DamID: uid("dam"), StartDate: "2025-02-30"}),
				{Kind: evidence.KindProfile, AnimalID: uid("x"), Sex: "male", RecordID: "nope", RecordItemID: "also nope"}},
			status:     evidence.SirePresumed,
			unresolved: []string{"record item " + uid("item:bad") + " was skipped because it is invalid: birth_history.start_date: must be a calendar date", `record item "also nope" was skipped`},
		},
		{
			name:     "NoSettings",
			settings: func(*evidence.Settings) *evidence.Settings { return nil },
			facts:    []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11")},
			status:   evidence.SireUnknown,
			check: func(t *testing.T, ev evidence.Evidence) {
				if ev.Settings != nil || ev.SettingsStatus != evidence.SettingsNotConfigured || ev.ConceptionWindow != nil {
					t.Errorf("evidence = %+v", ev)
				}
			},
			unresolved: []string{"Birth-history settings are not configured"},
		},
		{
			name:       "NoGestation",
			settings:   func(s *evidence.Settings) *evidence.Settings { s.GestationDays = nil; return s },
			facts:      []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11")},
			status:     evidence.SireUnknown,
			unresolved: []string{"Gestation days are not configured"},
			check: func(t *testing.T, ev evidence.Evidence) {
				if ev.ConceptionWindow != nil || ev.SettingsStatus != evidence.SettingsConfigured {
					t.Errorf("evidence = %+v", ev)
				}
			},
		},
		{
			name:       "InvalidSettingsTreatedAsNotConfigured",
			settings:   func(s *evidence.Settings) *evidence.Settings { s.GestationDays.Min = 300; return s },
			facts:      []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11")},
			status:     evidence.SireUnknown,
			unresolved: []string{"The stored birth-history settings are invalid (gestation_days.max: must not be less than gestation_days.min)"},
			check: func(t *testing.T, ev evidence.Evidence) {
				if ev.Settings != nil || ev.SettingsStatus != evidence.SettingsNotConfigured {
					t.Errorf("evidence = %+v", ev)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := baseSettings()
			if tt.settings != nil {
				s = tt.settings(s)
			}
			ev := MustReview(t, s, tt.facts...)
			if ev.Sire.Status != tt.status {
				t.Errorf("sire.status = %q, want %q", ev.Sire.Status, tt.status)
			}
			for name, want := range tt.elig {
				c, ok := candidateOf(ev, name)
				if !ok {
					t.Errorf("no candidate %s", name)
					continue
				}
				if c.Eligibility != want {
					t.Errorf("%s eligibility = %q, want %q; reasons %q", name, c.Eligibility, want, c.Reasons)
				}
			}
			if tt.elig != nil && len(ev.Sire.Candidates) != len(tt.elig) {
				t.Errorf("%d candidates, want %d", len(ev.Sire.Candidates), len(tt.elig))
			}
			for name, sub := range tt.reason {
				c, _ := candidateOf(ev, name)
				if !hasLine(c.Reasons, sub) {
					t.Errorf("%s reasons %q lack %q", name, c.Reasons, sub)
				}
			}
			for _, sub := range tt.unresolved {
				if !hasLine(ev.Unresolved, sub) {
					t.Errorf("unresolved %q lacks %q", ev.Unresolved, sub)
				}
			}
			if tt.check != nil {
				tt.check(t, ev)
			}
		})
	}
}

func TestReviewPlannedWindow(t *testing.T) {
	tests := []struct {
		name     string
		settings func(*evidence.Settings) *evidence.Settings
		birth    string
		status   evidence.PlannedWindowStatus
		labels   []string
	}{
		{name: "Within", birth: birth, status: evidence.PlannedWithin, labels: []string{"Autumn calving"}},
		{name: "WithinOnLastDay", birth: "2025-11-30", status: evidence.PlannedWithin, labels: []string{"Autumn calving"}},
		{name: "WithinSeveralListsAll", birth: "2025-10-18", status: evidence.PlannedWithin, labels: []string{"Autumn calving", "October", "Day"},
			settings: func(s *evidence.Settings) *evidence.Settings {
				s.BirthWindows = append(s.BirthWindows,
					evidence.Window{Label: "Spring", StartDate: "2025-03-01", EndDate: "2025-05-31"},
					evidence.Window{Label: "October", StartDate: "2025-10-01", EndDate: "2025-10-31"},
					evidence.Window{Label: "Day", StartDate: "2025-10-18", EndDate: "2025-10-18"})
				return s
			}},
		{name: "Outside", birth: "2025-12-01", status: evidence.PlannedOutside},
		{name: "NotConfiguredWithoutWindows", birth: birth, status: evidence.PlannedNotConfigured,
			settings: func(s *evidence.Settings) *evidence.Settings { s.BirthWindows = nil; return s }},
		{name: "NotConfiguredWithoutSettings", birth: birth, status: evidence.PlannedNotConfigured,
			settings: func(*evidence.Settings) *evidence.Settings { return nil }},
		{name: "NotConfiguredWithInvalidBirthDate", birth: "2025-13-01", status: evidence.PlannedNotConfigured},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := baseSettings()
			if tt.settings != nil {
				s = tt.settings(s)
			}
			ev := evidence.Review(evidence.Input{Settings: s, DamID: uid("dam"), BirthDate: tt.birth})
			checkLimits(t, ev)
			if ev.PlannedWindowStatus != tt.status {
				t.Errorf("planned_window_status = %q, want %q", ev.PlannedWindowStatus, tt.status)
			}
			var labels []string
			for _, w := range ev.MatchingBirthWindows {
				labels = append(labels, w.Label)
			}
			if !slices.Equal(labels, tt.labels) {
				t.Errorf("matching windows = %q, want %q", labels, tt.labels)
			}
		})
	}
}

func TestReviewConceptionWindow(t *testing.T) {
	ev := MustReview(t, baseSettings())
	if cw := ev.ConceptionWindow; cw == nil || *cw != (evidence.Interval{StartDate: winFrom, EndDate: winTo}) {
		t.Fatalf("conception_window = %v", cw)
	}
	// A birth on the first supported days cannot have a full window.
	early := evidence.Review(evidence.Input{Settings: baseSettings(), DamID: uid("dam"), BirthDate: "0001-10-10"})
	checkLimits(t, early)
	if early.ConceptionWindow == nil || early.ConceptionWindow.StartDate != "0001-01-01" || !hasLine(early.Unresolved, "cut at 0001-01-01") {
		t.Errorf("early window = %v, unresolved %q", early.ConceptionWindow, early.Unresolved)
	}
	tooEarly := evidence.Review(evidence.Input{Settings: baseSettings(), DamID: uid("dam"), BirthDate: "0001-06-01"})
	checkLimits(t, tooEarly)
	if tooEarly.ConceptionWindow != nil || !hasLine(tooEarly.Unresolved, "too early") {
		t.Errorf("too early window = %v, unresolved %q", tooEarly.ConceptionWindow, tooEarly.Unresolved)
	}
}

func TestReviewMovementComparisons(t *testing.T) {
	facts := []evidence.Fact{
		damProfile(),
		moveF("after", evidence.KindMovementOut, "dam", "2025-03-01"),
		moveF("before", evidence.KindPurchase, "dam", "2023-05-01"),
		moveF("within", evidence.KindMovementIn, "dam", "2025-01-11"),
		moveF("edge", evidence.KindMovementOut, "dam", "2025-01-01"),
		moveF("other", evidence.KindMovementOut, "bull-a", "2025-01-05"),
	}
	tests := []struct {
		name     string
		settings func(*evidence.Settings) *evidence.Settings
		want     []evidence.Relation
	}{
		{name: "BeforeWithinAfter", want: []evidence.Relation{evidence.RelationBefore, evidence.RelationWithin, evidence.RelationWithin, evidence.RelationAfter}},
		{name: "UnknownWithoutGestation", settings: func(s *evidence.Settings) *evidence.Settings { s.GestationDays = nil; return s },
			want: []evidence.Relation{evidence.RelationUnknown, evidence.RelationUnknown, evidence.RelationUnknown, evidence.RelationUnknown}},
		{name: "UnknownWithoutSettings", settings: func(*evidence.Settings) *evidence.Settings { return nil },
			want: []evidence.Relation{evidence.RelationUnknown, evidence.RelationUnknown, evidence.RelationUnknown, evidence.RelationUnknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := baseSettings()
			if tt.settings != nil {
				s = tt.settings(s)
			}
			ev := MustReview(t, s, facts...)
			var got []evidence.Relation
			for _, m := range ev.MovementComparisons {
				got = append(got, m.RelationToConception)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("relations = %v, want %v", got, tt.want)
			}
			first := ev.MovementComparisons[0]
			want := evidence.MovementComparison{RecordID: uid("record:before"), RecordItemID: uid("item:before"), Kind: evidence.KindPurchase, Date: "2023-05-01", RelationToConception: tt.want[0]}
			if first != want {
				t.Errorf("first comparison = %+v, want %+v", first, want)
			}
		})
	}
}

// TestReviewBackdatedFacts checks that history is read by date, not by the
// order in which records were written.
func TestReviewBackdatedFacts(t *testing.T) {
	tests := []struct {
		name  string
		facts []evidence.Fact
		want  evidence.Eligibility
	}{
		{
			// Written last, the return happened first: the sire left
			// after it, before the overlap, and stayed away.
			name: "ReturnBackdatedBeforeDeparture",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2024-12-01", ""),
				moveF("out", evidence.KindMovementOut, "bull-a", "2024-12-20"), moveF("in", evidence.KindMovementIn, "bull-a", "2024-11-01")},
			want: excluded,
		},
		{
			name: "DepartureBackdatedBeforeReturn",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureDamF("e1", "bull-a", "dam", "2024-12-01", ""),
				moveF("in", evidence.KindMovementIn, "bull-a", "2024-12-20"), moveF("out", evidence.KindMovementOut, "bull-a", "2024-11-01")},
			want: plausible,
		},
		{
			// The later membership was recorded first; it still closes
			// the earlier open one, so the herd bull never met the dam.
			name: "MembershipBackdated",
			facts: []evidence.Fact{damProfile(), bull("bull-a"), exposureGroupF("e1", "bull-a", "herd", "2025-01-08", ""), exposureDamF("e2", "bull-a", "dam", "2025-01-01", "2025-01-02"),
				membershipF("m2", "dam", "heifers", "2024-12-01", ""), membershipF("m1", "dam", "herd", "2024-06-01", "")},
			want: plausible,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := MustReview(t, baseSettings(), tt.facts...)
			c, ok := candidateOf(ev, "bull-a")
			if !ok || c.Eligibility != tt.want {
				t.Fatalf("candidate = %+v, want %s", c, tt.want)
			}
			if tt.name == "MembershipBackdated" && (len(c.MembershipRecordIDs) != 0 || len(c.OverlapIntervals) != 1) {
				t.Errorf("the closed herd membership was used: %+v", c)
			}
		})
	}
}

// richFacts is a busy farm used by the determinism, scope and benchmark
// tests.
func richFacts() []evidence.Fact {
	return []evidence.Fact{
		damProfile(), bull("bull-a"), bull("bull-b"), bull("steer"), castrationF("c", "steer", "2023-01-01"),
		profileF("p-calf", "calf", "male", "2024-06-01", "Angus"), profileF("p-heifer", "heifer", "female", "", ""),
		membershipF("m1", "dam", "herd", "2024-06-01", ""), membershipF("m2", "dam", "heifers", "2025-01-05", "2025-01-09"),
		membershipF("m3", "dam", "herd", "2025-01-10", ""), membershipF("mx", "heifer", "herd", "2024-01-01", ""),
		exposureGroupF("e1", "bull-a", "herd", "2024-11-01", ""), exposureGroupF("e2", "bull-b", "heifers", "2024-12-01", "2025-02-01"),
		exposureDamF("e3", "steer", "dam", "2025-01-01", "2025-01-02"), exposureDamF("e4", "calf", "dam", "2025-01-03", "2025-01-04"),
		exposureDamF("e5", "stranger", "dam", "2025-01-05", ""), exposureGroupF("e6", "heifer", "herd", "2025-01-01", ""),
		exposureDamF("e7", "bull-a", "dam", "2025-02-01", ""), exposureDamF("e8", "bull-b", "other-dam", "2025-01-01", ""),
		moveF("d1", evidence.KindPurchase, "dam", "2022-03-01"), moveF("d2", evidence.KindMovementOut, "dam", "2026-01-01"),
		moveF("s1", evidence.KindMovementOut, "bull-b", "2024-10-01"), moveF("s2", evidence.KindMovementIn, "bull-b", "2025-01-06"),
		castrationF("c2", "bull-a", "2025-06-01"), birthF("b1", "dam", "2024-04-01"),
		withIDs("bad", evidence.Fact{Kind: "weaning", AnimalID: uid("dam")}),
	}
}

func TestReviewDeterministic(t *testing.T) {
	facts := richFacts()
	want := MustJSON(t, MustReview(t, baseSettings(), facts...))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		shuffled := slices.Clone(facts)
		rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		if got := MustJSON(t, MustReview(t, baseSettings(), shuffled...)); got != want {
			t.Fatalf("shuffle %d changed the result:\n got %s\nwant %s", i, got, want)
		}
	}
	if !reflect.DeepEqual(facts, richFacts()) {
		t.Errorf("Review modified its input")
	}
}

// TestReviewUppercaseIDs checks that ids written in upper case name the
// same animals as lower-case ones.
func TestReviewUppercaseIDs(t *testing.T) {
	e := exposureDamF("e1", "bull-a", "dam", "2025-01-01", "2025-01-11")
	e.SireID, e.DamID, e.RecordID = strings.ToUpper(e.SireID), strings.ToUpper(e.DamID), strings.ToUpper(e.RecordID)
	ev := evidence.Review(evidence.Input{Settings: baseSettings(), DamID: strings.ToUpper(uid("dam")), BirthDate: birth, Facts: []evidence.Fact{damProfile(), bull("bull-a"), e}})
	checkLimits(t, ev)
	if ev.Sire.Status != evidence.SirePresumed || ev.Sire.AnimalID != uid("bull-a") {
		t.Errorf("sire = %+v", ev.Sire)
	}
}

func TestReviewInvalidQuery(t *testing.T) {
	tests := []struct {
		name, dam, birth, line string
	}{
		{name: "DamNotUUID", dam: "cow-17", birth: birth, line: `The dam_id "cow-17" is not a UUID`},
		{name: "BirthNotDate", dam: uid("dam"), birth: "2025-02-29", line: `The birth_date "2025-02-29" is not a calendar date`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := evidence.Review(evidence.Input{Settings: baseSettings(), DamID: tt.dam, BirthDate: tt.birth, Facts: richFacts()})
			checkLimits(t, ev)
			if !hasLine(ev.Unresolved, tt.line) {
				t.Errorf("unresolved %q lacks %q", ev.Unresolved, tt.line)
			}
			if ev.Sire.Status != evidence.SireUnknown {
				t.Errorf("sire = %+v", ev.Sire)
			}
		})
	}
}

func TestInputValidate(t *testing.T) {
	tests := []struct {
		name   string
		in     evidence.Input
		fields []string
	}{
		{name: "OK", in: evidence.Input{DamID: uid("dam"), BirthDate: birth}},
		{name: "ErrDamID", in: evidence.Input{DamID: "x", BirthDate: birth}, fields: []string{"dam_id"}},
		{name: "ErrBirthDate", in: evidence.Input{DamID: uid("dam"), BirthDate: "2025-1-1"}, fields: []string{"birth_date"}},
		{name: "ErrBoth", in: evidence.Input{}, fields: []string{"dam_id", "birth_date"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fieldsOf(tt.in.Validate()); !slices.Equal(got, tt.fields) {
				t.Errorf("fields = %q, want %q", got, tt.fields)
			}
		})
	}
}

func fieldsOf(errs []evidence.FieldError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field)
	}
	return out
}
