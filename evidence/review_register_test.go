package evidence_test

import (
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// The review reads the register's facts: DNA results, other births, deaths and sales.
func TestReviewRegisterFacts(t *testing.T) {
	calf := uid("calf")
	birthOf := withIDs("birth", evidence.Fact{Kind: evidence.KindBirth, DamID: uid("dam"), Date: birth, OffspringIDs: []string{calf}})
	dna := func(label, sire, result string) evidence.Fact {
		return withIDs(label, evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: calf, ParentID: uid(sire),
			Relation: "sire", Result: result, Lab: "GeneLab", Date: "2025-11-20"})
	}
	base := []evidence.Fact{damProfile(), bull("bull-a"), bull("bull-b"), birthOf,
		exposureDamF("exp-a", "bull-a", "dam", winFrom, winTo), exposureDamF("exp-b", "bull-b", "dam", winFrom, winTo)}
	with := func(extra ...evidence.Fact) []evidence.Fact {
		return append(append([]evidence.Fact{}, base...), extra...)
	}

	t.Run("DNAExclusion", func(t *testing.T) {
		ev := MustReview(t, baseSettings(), with(dna("dna-b", "bull-b", "excluded"))...)
		b, _ := candidateOf(ev, "bull-b")
		if b.Eligibility != evidence.EligibilityExcluded || !strings.Contains(strings.Join(b.Reasons, " "), "result excluded") ||
			!strings.Contains(strings.Join(b.Reasons, " "), uid("record:dna-b")) {
			t.Fatalf("bull-b: %+v", b)
		}
		if ev.Sire.Status != evidence.SirePresumed || ev.Sire.AnimalID != uid("bull-a") {
			t.Fatalf("the other bull is the only plausible one: %+v", ev.Sire)
		}
	})
	t.Run("DNAQualified", func(t *testing.T) {
		ev := MustReview(t, baseSettings(), with(dna("dna-a", "bull-a", "qualified"))...)
		if ev.Sire.Status != evidence.SirePresumed || ev.Sire.AnimalID != uid("bull-a") ||
			!strings.Contains(ev.Sire.Provenance, "DNA parentage record "+uid("record:dna-a")) {
			t.Fatalf("sire %+v", ev.Sire)
		}
		// Without DNA two plausible bulls leave the status at candidates.
		if ev := MustReview(t, baseSettings(), base...); ev.Sire.Status != evidence.SireCandidates {
			t.Fatalf("without DNA: %s", ev.Sire.Status)
		}
		// A DNA result about another birth's offspring says nothing here.
		other := withIDs("dna-x", evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: uid("someone"), ParentID: uid("bull-a"),
			Relation: "sire", Result: "qualified", Date: "2025-11-20"})
		if ev := MustReview(t, baseSettings(), with(other)...); ev.Sire.Status != evidence.SireCandidates {
			t.Fatalf("another offspring's DNA: %s", ev.Sire.Status)
		}
	})
	t.Run("OtherBirthInGestation", func(t *testing.T) {
		ev := MustReview(t, baseSettings(), with(birthF("early", "dam", "2025-06-01"))...)
		found := false
		for _, u := range ev.Unresolved {
			found = found || strings.Contains(u, "Another birth of the dam is recorded on 2025-06-01")
		}
		if !found {
			t.Fatalf("unresolved %v", ev.Unresolved)
		}
		ev = MustReview(t, baseSettings(), with(birthF("long-ago", "dam", "2024-06-01"))...)
		for _, u := range ev.Unresolved {
			if strings.Contains(u, "Another birth") {
				t.Fatalf("a birth before the window is not a conflict: %v", u)
			}
		}
	})
	t.Run("DeadOrSoldBeforeOverlap", func(t *testing.T) {
		for _, kind := range []evidence.Kind{evidence.KindDeath, evidence.KindSale} {
			gone := withIDs("gone", evidence.Fact{Kind: kind, AnimalID: uid("bull-b"), Date: "2024-12-31"})
			ev := MustReview(t, baseSettings(), with(gone)...)
			b, _ := candidateOf(ev, "bull-b")
			if b.Eligibility != evidence.EligibilityExcluded || ev.Sire.AnimalID != uid("bull-a") {
				t.Fatalf("%s before the overlap: %+v / %+v", kind, b, ev.Sire)
			}
			// Leaving during the overlap does not exclude him.
			during := withIDs("during", evidence.Fact{Kind: kind, AnimalID: uid("bull-b"), Date: "2025-01-05"})
			ev = MustReview(t, baseSettings(), with(during)...)
			if b, _ := candidateOf(ev, "bull-b"); b.Eligibility != evidence.EligibilityPlausible {
				t.Fatalf("%s during the overlap: %+v", kind, b)
			}
		}
	})
}
