package evidence_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// The base scenario: a cattle farm with a gestation of 280 to 290 days and a
// birth on 2025-10-18, so the conception window is 2025-01-01..2025-01-11.
const (
	birth   = "2025-10-18"
	winFrom = "2025-01-01"
	winTo   = "2025-01-11"
)

// uid derives a stable uuid from a readable name, so tests can talk about
// "dam" and "bull-a" and still pass real uuids.
func uid(name string) string {
	h := sha256.Sum256([]byte(name))
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

func intp(n int) *int { return &n }

// baseSettings returns fresh settings for every test, so no test can leak a
// change into another.
func baseSettings() *evidence.Settings {
	return &evidence.Settings{
		Version:            1,
		Species:            "CATTLE",
		GestationDays:      &evidence.Range{Min: 280, Max: 290},
		MinimumSireAgeDays: intp(365),
		BirthWindows: []evidence.Window{
			{Label: "Autumn calving", StartDate: "2025-09-01", EndDate: "2025-11-30"},
		},
	}
}

// withIDs gives a fact the record and record item ids derived from label.
func withIDs(label string, f evidence.Fact) evidence.Fact {
	f.RecordID = uid("record:" + label)
	f.RecordItemID = uid("item:" + label)
	return f
}

func profileF(label, animal, sex, birthDate, breed string) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: evidence.KindProfile, AnimalID: uid(animal), Sex: sex, BirthDate: birthDate, Breed: breed})
}

func castrationF(label, animal, date string) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: evidence.KindCastration, AnimalID: uid(animal), Date: date})
}

func exposureDamF(label, sire, dam, start, end string) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: evidence.KindExposure, SireID: uid(sire), DamID: uid(dam), StartDate: start, EndDate: end})
}

func exposureGroupF(label, sire, group, start, end string) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: evidence.KindExposure, SireID: uid(sire), GroupID: uid(group), StartDate: start, EndDate: end})
}

func membershipF(label, animal, group, start, end string) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: evidence.KindMembership, AnimalID: uid(animal), GroupID: uid(group), StartDate: start, EndDate: end})
}

func moveF(label string, kind evidence.Kind, animal, date string) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: kind, AnimalID: uid(animal), Date: date})
}

func birthF(label, dam, date string) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: evidence.KindBirth, DamID: uid(dam), Date: date})
}

// bull is a profile of an intact, adult Hereford bull.
func bull(name string) evidence.Fact {
	return profileF("profile:"+name, name, "male", "2021-04-01", "Hereford")
}

// damProfile is the dam's profile.
func damProfile() evidence.Fact {
	return profileF("profile:dam", "dam", "female", "2020-03-01", "Angus")
}

// MustJSON encodes v or fails the test.
func MustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("marshal: %v", err)
	}
	return string(b)
}

// MustReview runs the review of the base dam and birth date.
func MustReview(tb testing.TB, s *evidence.Settings, facts ...evidence.Fact) evidence.Evidence {
	tb.Helper()
	ev := evidence.Review(evidence.Input{Settings: s, DamID: uid("dam"), BirthDate: birth, Facts: facts})
	checkLimits(tb, ev)
	return ev
}

// candidateOf finds the candidate for a named animal.
func candidateOf(ev evidence.Evidence, animal string) (evidence.Candidate, bool) {
	for _, c := range ev.Sire.Candidates {
		if c.AnimalID == uid(animal) {
			return c, true
		}
	}
	return evidence.Candidate{}, false
}
