package evidence_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

const (
	daisy      = "d0000000-0000-4000-8000-000000000001"
	bruno      = "b0000000-0000-4000-8000-000000000002"
	samson     = "5a000000-0000-4000-8000-000000000003"
	summerHerd = "90000000-0000-4000-8000-000000000004"
	winterYard = "90000000-0000-4000-8000-000000000005"
)

// workedExample returns the settings and facts of the worked example in
// docs/birth-history.md. Each fact sits in its own record item; record ids
// end in the fact's number so the provenance is easy to follow.
func workedExample() (*evidence.Settings, []evidence.Fact) {
	n := 0
	fact := func(f evidence.Fact) evidence.Fact {
		n++
		f.RecordID = fmt.Sprintf("a0000000-0000-4000-8000-%012d", n)
		f.RecordItemID = fmt.Sprintf("c0000000-0000-4000-8000-%012d", n)
		return f
	}
	facts := []evidence.Fact{
		fact(evidence.Fact{Kind: evidence.KindProfile, AnimalID: daisy, Sex: "female", BirthDate: "2020-04-02", Breed: "Angus"}),
		fact(evidence.Fact{Kind: evidence.KindPurchase, AnimalID: daisy, Date: "2024-10-01"}),
		fact(evidence.Fact{Kind: evidence.KindProfile, AnimalID: bruno, Sex: "male", BirthDate: "2022-03-10", Breed: "Hereford"}),
		fact(evidence.Fact{Kind: evidence.KindProfile, AnimalID: samson, Sex: "male", BirthDate: "2022-05-01", Breed: "Angus"}),
		fact(evidence.Fact{Kind: evidence.KindCastration, AnimalID: samson, Date: "2023-01-15"}),
		fact(evidence.Fact{Kind: evidence.KindMembership, AnimalID: daisy, GroupID: summerHerd, StartDate: "2025-05-01"}),
		fact(evidence.Fact{Kind: evidence.KindMembership, AnimalID: daisy, GroupID: winterYard, StartDate: "2025-09-15"}),
		fact(evidence.Fact{Kind: evidence.KindExposure, SireID: samson, GroupID: summerHerd, StartDate: "2025-05-01"}),
		fact(evidence.Fact{Kind: evidence.KindExposure, SireID: bruno, DamID: daisy, StartDate: "2025-06-01", EndDate: "2025-07-15"}),
	}
	settings := &evidence.Settings{
		Version:            1,
		Species:            "CATTLE",
		GestationDays:      &evidence.Range{Min: 275, Max: 295},
		MinimumSireAgeDays: intp(365),
		BirthWindows:       []evidence.Window{{Label: "Spring calving", StartDate: "2026-03-01", EndDate: "2026-04-30"}},
	}
	return settings, facts
}

// The worked example of docs/birth-history.md: Daisy calves on 2026-03-20.
// Bruno ran with her directly; Samson, a steer, ran with the summer herd
// while she belonged to it.
func ExampleReview() {
	settings, facts := workedExample()
	ev := evidence.Review(evidence.Input{Settings: settings, DamID: daisy, BirthDate: "2026-03-20", Facts: facts})

	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(ev)
	// Output:
	// {
	//   "evidence_version": 1,
	//   "settings": {
	//     "version": 1,
	//     "species": "CATTLE",
	//     "gestation_days": {
	//       "min": 275,
	//       "max": 295
	//     },
	//     "minimum_sire_age_days": 365,
	//     "birth_windows": [
	//       {
	//         "label": "Spring calving",
	//         "start_date": "2026-03-01",
	//         "end_date": "2026-04-30"
	//       }
	//     ]
	//   },
	//   "settings_status": "configured",
	//   "planned_window_status": "within",
	//   "matching_birth_windows": [
	//     {
	//       "label": "Spring calving",
	//       "start_date": "2026-03-01",
	//       "end_date": "2026-04-30"
	//     }
	//   ],
	//   "conception_window": {
	//     "start_date": "2025-05-29",
	//     "end_date": "2025-06-18"
	//   },
	//   "sire": {
	//     "status": "presumed",
	//     "animal_id": "b0000000-0000-4000-8000-000000000002",
	//     "confidence": 0.75,
	//     "provenance": "Presumed from exposure records a0000000-0000-4000-8000-000000000009: the only plausible candidate with the dam in the conception window from 2025-05-29 to 2025-06-18. This is a review score from the records, not a DNA result.",
	//     "presumed_cross": "Hereford × Angus",
	//     "candidates": [
	//       {
	//         "animal_id": "b0000000-0000-4000-8000-000000000002",
	//         "eligibility": "plausible",
	//         "reasons": [
	//           "Exposure facts place this animal with the dam on 18 day(s) of the conception window, between 2025-06-01 and 2025-06-18, by direct exposure with the dam.",
	//           "The profile records this animal as male.",
	//           "No castration is recorded by 2025-06-18; castration is a recorded event, so this male counts as intact.",
	//           "1196 days old when the overlap ended on 2025-06-18, at least the minimum sire age of 365 days."
	//         ],
	//         "exposure_record_ids": [
	//           "a0000000-0000-4000-8000-000000000009"
	//         ],
	//         "exposure_record_item_ids": [
	//           "c0000000-0000-4000-8000-000000000009"
	//         ],
	//         "membership_record_ids": [],
	//         "membership_record_item_ids": [],
	//         "overlap_intervals": [
	//           {
	//             "start_date": "2025-06-01",
	//             "end_date": "2025-06-18"
	//           }
	//         ],
	//         "breed": "Hereford",
	//         "gestation_days": {
	//           "min": 275,
	//           "max": 295
	//         },
	//         "implied_gestation_days": {
	//           "min": 275,
	//           "max": 292
	//         }
	//       },
	//       {
	//         "animal_id": "5a000000-0000-4000-8000-000000000003",
	//         "eligibility": "excluded",
	//         "reasons": [
	//           "Exposure facts place this animal with the dam on 21 day(s) of the conception window, between 2025-05-29 and 2025-06-18, by group exposure while the dam was a recorded member.",
	//           "The profile records this animal as male.",
	//           "Excluded: castrated on 2023-01-15, on or before the overlap began on 2025-05-29.",
	//           "1144 days old when the overlap ended on 2025-06-18, at least the minimum sire age of 365 days."
	//         ],
	//         "exposure_record_ids": [
	//           "a0000000-0000-4000-8000-000000000008"
	//         ],
	//         "exposure_record_item_ids": [
	//           "c0000000-0000-4000-8000-000000000008"
	//         ],
	//         "membership_record_ids": [
	//           "a0000000-0000-4000-8000-000000000006"
	//         ],
	//         "membership_record_item_ids": [
	//           "c0000000-0000-4000-8000-000000000006"
	//         ],
	//         "overlap_intervals": [
	//           {
	//             "start_date": "2025-05-29",
	//             "end_date": "2025-06-18"
	//           }
	//         ],
	//         "breed": "Angus",
	//         "gestation_days": {
	//           "min": 275,
	//           "max": 295
	//         },
	//         "implied_gestation_days": {
	//           "min": 275,
	//           "max": 295
	//         }
	//       }
	//     ]
	//   },
	//   "movement_comparisons": [
	//     {
	//       "record_id": "a0000000-0000-4000-8000-000000000002",
	//       "record_item_id": "c0000000-0000-4000-8000-000000000002",
	//       "kind": "purchase",
	//       "date": "2024-10-01",
	//       "relation_to_conception": "before"
	//     }
	//   ],
	//   "unresolved": []
	// }
}

// TestWorkedExampleVariants checks the "what would change it" paragraph of
// docs/birth-history.md.
func TestWorkedExampleVariants(t *testing.T) {
	tests := []struct {
		name   string
		edit   func([]evidence.Fact) []evidence.Fact
		status evidence.SireStatus
		elig   map[string]evidence.Eligibility
	}{
		{name: "AsRecorded", edit: func(fs []evidence.Fact) []evidence.Fact { return fs },
			status: evidence.SirePresumed, elig: map[string]evidence.Eligibility{bruno: plausible, samson: excluded}},
		{name: "DaisyBoughtInsideWindow", edit: func(fs []evidence.Fact) []evidence.Fact { fs[1].Date = "2025-06-01"; return fs },
			status: evidence.SireCandidates, elig: map[string]evidence.Eligibility{bruno: unknown, samson: excluded}},
		{name: "CastrationNotRecorded", edit: func(fs []evidence.Fact) []evidence.Fact { return slices.Delete(fs, 4, 5) },
			status: evidence.SireCandidates, elig: map[string]evidence.Eligibility{bruno: plausible, samson: plausible}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings, facts := workedExample()
			ev := evidence.Review(evidence.Input{Settings: settings, DamID: daisy, BirthDate: "2026-03-20", Facts: tt.edit(facts)})
			checkLimits(t, ev)
			if ev.Sire.Status != tt.status {
				t.Errorf("status = %s, want %s", ev.Sire.Status, tt.status)
			}
			for _, c := range ev.Sire.Candidates {
				if c.Eligibility != tt.elig[c.AnimalID] {
					t.Errorf("%s is %s, want %s", c.AnimalID, c.Eligibility, tt.elig[c.AnimalID])
				}
			}
		})
	}
}
