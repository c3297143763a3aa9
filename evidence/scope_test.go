package evidence_test

import (
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

func TestScopeOf(t *testing.T) {
	noGestation := baseSettings()
	noGestation.GestationDays = nil
	tests := []struct {
		name         string
		in           evidence.Input
		dam, through string
	}{
		{name: "Window", in: evidence.Input{Settings: baseSettings(), DamID: uid("dam"), BirthDate: birth}, dam: uid("dam"), through: winTo},
		{name: "NoSettings", in: evidence.Input{DamID: uid("dam"), BirthDate: birth}, dam: uid("dam")},
		{name: "NoGestation", in: evidence.Input{Settings: noGestation, DamID: uid("dam"), BirthDate: birth}, dam: uid("dam")},
		{name: "BadQuery", in: evidence.Input{Settings: baseSettings(), DamID: "x", BirthDate: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := evidence.ScopeOf(tt.in)
			if sc.DamID != tt.dam || sc.Through != tt.through {
				t.Errorf("scope = %+v, want dam %q through %q", sc, tt.dam, tt.through)
			}
		})
	}
}

func TestScopeKeep(t *testing.T) {
	sc := evidence.ScopeOf(evidence.Input{Settings: baseSettings(), DamID: uid("dam"), BirthDate: birth})
	tests := []struct {
		name string
		fact evidence.Fact
		keep bool
	}{
		{name: "ProfileAlways", fact: profileF("p", "x", "male", "2030-01-01", ""), keep: true},
		{name: "InvalidAlways", fact: withIDs("bad", evidence.Fact{Kind: "weaning"}), keep: true},
		{name: "DamMovementAfter", fact: moveF("m", evidence.KindMovementOut, "dam", "2030-01-01"), keep: true},
		{name: "OtherMovementThrough", fact: moveF("m", evidence.KindMovementOut, "bull-a", winTo), keep: true},
		{name: "OtherMovementAfter", fact: moveF("m", evidence.KindMovementOut, "bull-a", "2025-01-12"), keep: false},
		{name: "CastrationAfter", fact: castrationF("c", "bull-a", "2025-01-12"), keep: false},
		{name: "OldOpenExposure", fact: exposureDamF("e", "bull-a", "dam", "2019-01-01", ""), keep: true},
		{name: "ExposureAfter", fact: exposureDamF("e", "bull-a", "dam", "2025-01-12", ""), keep: false},
		{name: "DamMembership", fact: membershipF("m", "dam", "herd", "2020-01-01", ""), keep: true},
		{name: "DamMembershipAfter", fact: membershipF("m", "dam", "herd", "2025-01-12", ""), keep: false},
		// Another animal's membership is kept: a male's is natural service exposure.
		{name: "OtherMembership", fact: membershipF("m", "cow", "herd", "2020-01-01", ""), keep: true},
		{name: "OtherMembershipAfter", fact: membershipF("m", "cow", "herd", "2025-01-12", ""), keep: false},
		{name: "Birth", fact: birthF("b", "dam", "2024-01-01"), keep: true},
		{name: "OtherDamBirth", fact: birthF("b2", "cow", "2024-01-01"), keep: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sc.Keep(tt.fact); got != tt.keep {
				t.Errorf("Keep = %v, want %v", got, tt.keep)
			}
		})
	}
}

// TestScopeKeepChangesNothing checks the promise a loader relies on: the
// review of the kept facts is the review of all facts.
func TestScopeKeepChangesNothing(t *testing.T) {
	facts := append(richFacts(),
		exposureDamF("late", "bull-z", "dam", "2025-01-12", ""),
		membershipF("late-m", "dam", "heifers", "2025-02-01", ""),
		castrationF("late-c", "bull-a", "2025-01-12"),
		moveF("late-o", evidence.KindMovementOut, "bull-b", "2025-03-01"),
	)
	for _, s := range []*evidence.Settings{baseSettings(), nil} {
		in := evidence.Input{Settings: s, DamID: uid("dam"), BirthDate: birth, Facts: facts}
		sc := evidence.ScopeOf(in)
		var kept []evidence.Fact
		for _, f := range facts {
			if sc.Keep(f) {
				kept = append(kept, f)
			}
		}
		if len(kept) == len(facts) {
			t.Fatalf("Keep dropped nothing; the test proves nothing")
		}
		all := MustJSON(t, evidence.Review(in))
		in.Facts = kept
		if some := MustJSON(t, evidence.Review(in)); some != all {
			t.Errorf("kept facts changed the review:\n got %s\nwant %s", some, all)
		}
	}
}
