package evidence_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/evidence"
)

func TestReviewCaps(t *testing.T) {
	wide := func() *evidence.Settings {
		s := baseSettings()
		s.GestationDays = &evidence.Range{Min: 1, Max: 2000}
		return s
	}
	day := func(i int) string {
		return time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.DateOnly)
	}

	tests := []struct {
		name     string
		settings *evidence.Settings
		facts    func() []evidence.Fact
		check    func(t *testing.T, ev evidence.Evidence)
	}{
		{
			name: "Candidates",
			facts: func() []evidence.Fact {
				var fs []evidence.Fact
				for i := range 200 {
					fs = append(fs, exposureDamF(fmt.Sprint("e", i), fmt.Sprint("sire", i), "dam", winFrom, winTo))
				}
				return append(fs, damProfile())
			},
			check: func(t *testing.T, ev evidence.Evidence) {
				if len(ev.Sire.Candidates) != evidence.MaxCandidates || !hasLine(ev.Unresolved, "Only 128 of 200 sire candidates are listed") {
					t.Errorf("%d candidates, unresolved %q", len(ev.Sire.Candidates), ev.Unresolved)
				}
				if n := len(ev.Unresolved); n != evidence.MaxUnresolved || !strings.Contains(ev.Unresolved[n-1], "further unresolved lines were left out") {
					t.Errorf("unresolved has %d lines, last %q", n, ev.Unresolved[n-1])
				}
			},
		},
		{
			name: "MovementComparisons",
			facts: func() []evidence.Fact {
				var fs []evidence.Fact
				for i := range 200 {
					fs = append(fs, moveF(fmt.Sprint("m", i), evidence.KindMovementIn, "dam", day(i)))
				}
				return fs
			},
			check: func(t *testing.T, ev evidence.Evidence) {
				if len(ev.MovementComparisons) != evidence.MaxMovementComparisons || ev.MovementComparisons[0].Date != day(0) ||
					!hasLine(ev.Unresolved, "Only the first 128 of the dam's 200 purchase and movement facts") {
					t.Errorf("%d comparisons, unresolved %q", len(ev.MovementComparisons), ev.Unresolved)
				}
			},
		},
		{
			name:     "CandidateListsAndProvenance",
			settings: wide(),
			facts: func() []evidence.Fact {
				fs := []evidence.Fact{damProfile(), bull("bull-a")}
				for i := range 200 {
					fs = append(fs, exposureDamF(fmt.Sprint("e", i), "bull-a", "dam", day(2*i), day(2*i)))
				}
				return fs
			},
			check: func(t *testing.T, ev evidence.Evidence) {
				c := ev.Sire.Candidates[0]
				if len(c.OverlapIntervals) != 128 || len(c.ExposureRecordIDs) != 128 || len(c.ExposureRecordItemIDs) != 128 {
					t.Errorf("lists: %d intervals, %d records, %d items", len(c.OverlapIntervals), len(c.ExposureRecordIDs), len(c.ExposureRecordItemIDs))
				}
				if c.OverlapIntervals[0].StartDate != day(0) {
					t.Errorf("the earliest intervals should be kept, got %v", c.OverlapIntervals[0])
				}
				if !hasLine(ev.Unresolved, "exposure_record_ids (200), exposure_record_item_ids (200), overlap_intervals (200)") {
					t.Errorf("unresolved %q", ev.Unresolved)
				}
				if ev.Sire.Status != evidence.SirePresumed || !strings.Contains(ev.Sire.Provenance, "and 190 more") {
					t.Errorf("sire %+v", ev.Sire)
				}
			},
		},
		{
			name: "UnresolvedLines",
			facts: func() []evidence.Fact {
				var fs []evidence.Fact
				for i := range 100 {
					fs = append(fs, withIDs(fmt.Sprint("bad", i), evidence.Fact{Kind: evidence.KindPurchase, AnimalID: uid("dam"), Date: strings.Repeat("9", 5000)}))
				}
				return fs
			},
			check: func(t *testing.T, ev evidence.Evidence) {
				n := len(ev.Unresolved)
				if n != 64 || ev.Unresolved[n-1] != "39 further unresolved lines were left out, the limit of unresolved." {
					t.Errorf("unresolved has %d lines, last %q", n, ev.Unresolved[n-1])
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.settings
			if s == nil {
				s = baseSettings()
			}
			ev := MustReview(t, s, tt.facts()...)
			tt.check(t, ev)
		})
	}
}
