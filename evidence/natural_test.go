package evidence_test

import (
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// Natural service from dated group membership, services as candidates, and the positive
// scan that narrows the conception window (issue 21.2, 21.3). The base birth is 2025-10-18
// with gestation 280 to 290 days: the conception window is 2025-01-01 to 2025-01-11.

func endF(label, animal, group, date string) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: evidence.KindMembershipEnd, AnimalID: uid(animal), GroupID: uid(group), Date: date})
}

func serviceF(label string, kind evidence.Kind, dam, sire, date string) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: kind, DamID: uid(dam), SireID: uid(sire), Date: date})
}

func scanF(label, animal, date string, age int) evidence.Fact {
	return withIDs(label, evidence.Fact{Kind: evidence.KindPregnancyCheck, AnimalID: uid(animal), Date: date,
		Method: evidence.MethodScan, Result: evidence.ResultPregnant, FoetalAgeDays: &age})
}

func reasonWith(c evidence.Candidate, part string) bool {
	for _, r := range c.Reasons {
		if strings.Contains(r, part) {
			return true
		}
	}
	return false
}

func TestNaturalServiceFromMembership(t *testing.T) {
	t.Parallel()
	dam := []evidence.Fact{damProfile(), membershipF("dam-herd", "dam", "herd", "2024-06-01", "")}
	t.Run("BullMovedInAndOut", func(t *testing.T) {
		// His membership of the cows' group is his only record of them: the candidate's
		// days end the day before his move out.
		ev := MustReview(t, baseSettings(), append(dam, bull("bull-a"),
			membershipF("bull-in", "bull-a", "herd", "2024-12-20", ""), endF("bull-out", "bull-a", "herd", "2025-01-05"))...)
		c, ok := candidateOf(ev, "bull-a")
		if !ok || c.Eligibility != evidence.EligibilityPlausible || ev.Sire.Status != evidence.SirePresumed {
			t.Fatalf("evidence = %s", MustJSON(t, ev))
		}
		if got := c.OverlapIntervals; len(got) != 1 || got[0].StartDate != "2025-01-01" || got[0].EndDate != "2025-01-04" {
			t.Fatalf("overlap = %v", got)
		}
		if !reasonWith(c, "Natural service: a member of group "+uid("herd")+" with the dam from 2025-01-01 to 2025-01-04") {
			t.Fatalf("reasons = %v", c.Reasons)
		}
		if len(c.MembershipRecordIDs) != 2 {
			t.Fatalf("membership records = %v", c.MembershipRecordIDs)
		}
		if !strings.HasPrefix(ev.Sire.Provenance, "Presumed from natural service by membership records") {
			t.Fatalf("provenance = %s", ev.Sire.Provenance)
		}
	})
	t.Run("BullLeftBeforeTheWindow", func(t *testing.T) {
		ev := MustReview(t, baseSettings(), append(dam, bull("bull-a"),
			membershipF("bull-in", "bull-a", "herd", "2024-10-01", ""), endF("bull-out", "bull-a", "herd", "2024-12-01"))...)
		if len(ev.Sire.Candidates) != 0 {
			t.Fatalf("candidates = %s", MustJSON(t, ev.Sire.Candidates))
		}
	})
	t.Run("BullMovedToAnotherGroup", func(t *testing.T) {
		// A later membership elsewhere ends the open one the day before; a sale ends it too.
		ev := MustReview(t, baseSettings(), append(dam, bull("bull-a"), bull("bull-b"),
			membershipF("a-in", "bull-a", "herd", "2024-12-20", ""), membershipF("a-bulls", "bull-a", "bulls", "2025-01-03", ""),
			membershipF("b-in", "bull-b", "herd", "2024-12-20", ""), moveF("b-sold", evidence.KindSale, "bull-b", "2025-01-07"))...)
		a, _ := candidateOf(ev, "bull-a")
		b, _ := candidateOf(ev, "bull-b")
		if len(a.OverlapIntervals) != 1 || a.OverlapIntervals[0].EndDate != "2025-01-02" {
			t.Fatalf("bull-a = %s", MustJSON(t, a))
		}
		if len(b.OverlapIntervals) != 1 || b.OverlapIntervals[0].EndDate != "2025-01-07" {
			t.Fatalf("bull-b = %s", MustJSON(t, b))
		}
	})
	t.Run("DamLeavesFirst", func(t *testing.T) {
		ev := MustReview(t, baseSettings(), damProfile(), membershipF("dam-herd", "dam", "herd", "2024-06-01", ""),
			endF("dam-out", "dam", "herd", "2025-01-04"), bull("bull-a"), membershipF("bull-in", "bull-a", "herd", "2024-12-20", ""))
		c, _ := candidateOf(ev, "bull-a")
		if len(c.OverlapIntervals) != 1 || c.OverlapIntervals[0].EndDate != "2025-01-03" {
			t.Fatalf("candidate = %s", MustJSON(t, c))
		}
	})
	t.Run("FemalesAndUnknownSexAreNoCandidates", func(t *testing.T) {
		ev := MustReview(t, baseSettings(), append(dam, profileF("p-cow", "cow", "female", "2020-01-01", "Angus"),
			membershipF("cow-in", "cow", "herd", "2024-01-01", ""), membershipF("calf-in", "calf", "herd", "2024-01-01", ""))...)
		if len(ev.Sire.Candidates) != 0 {
			t.Fatalf("candidates = %s", MustJSON(t, ev.Sire.Candidates))
		}
	})
	t.Run("ExplicitExposureStillCounts", func(t *testing.T) {
		ev := MustReview(t, baseSettings(), append(dam, bull("bull-a"), bull("bull-b"),
			membershipF("a-in", "bull-a", "herd", "2024-12-20", ""),
			exposureGroupF("b-exp", "bull-b", "herd", "2025-01-02", "2025-01-03"))...)
		if len(ev.Sire.Candidates) != 2 || ev.Sire.Status != evidence.SireCandidates {
			t.Fatalf("evidence = %s", MustJSON(t, ev.Sire))
		}
	})
}

func TestServicesAsCandidates(t *testing.T) {
	t.Parallel()
	t.Run("InseminationWithAnOutsideSire", func(t *testing.T) {
		// The AI sire has a profile (the service passes an outside animal's as one) but no
		// birth date and no record on the farm: stored semen needs neither.
		ai := withIDs("p-ai", evidence.Fact{Kind: evidence.KindProfile, AnimalID: uid("ai-bull"), Sex: "male", Breed: "Angus"})
		ins := serviceF("ins", evidence.KindInsemination, "dam", "ai-bull", "2025-01-05")
		ins.Straw, ins.Technician = "ABS 7AN lot 44", "J. Byrne"
		ev := MustReview(t, baseSettings(), damProfile(), ai, ins)
		c, ok := candidateOf(ev, "ai-bull")
		if !ok || c.Eligibility != evidence.EligibilityPlausible || ev.Sire.Status != evidence.SirePresumed || ev.Sire.AnimalID != uid("ai-bull") {
			t.Fatalf("evidence = %s", MustJSON(t, ev))
		}
		if !reasonWith(c, "insemination on 2025-01-05 (straw ABS 7AN lot 44, technician J. Byrne, record "+uid("record:ins")+")") {
			t.Fatalf("reasons = %v", c.Reasons)
		}
		if !strings.HasPrefix(ev.Sire.Provenance, "Presumed from service records "+uid("record:ins")) || ev.Sire.PresumedCross != "Angus × Angus" {
			t.Fatalf("sire = %s", MustJSON(t, ev.Sire))
		}
	})
	t.Run("ServiceOutsideTheWindow", func(t *testing.T) {
		ev := MustReview(t, baseSettings(), damProfile(), bull("bull-a"), serviceF("hm", evidence.KindHandMating, "dam", "bull-a", "2024-12-01"))
		if len(ev.Sire.Candidates) != 0 {
			t.Fatalf("candidates = %s", MustJSON(t, ev.Sire.Candidates))
		}
	})
	t.Run("EmbryoTransferServesTheRecipient", func(t *testing.T) {
		et := withIDs("et", evidence.Fact{Kind: evidence.KindEmbryoTransfer, DamID: uid("donor"), SireID: uid("bull-a"), RecipientID: uid("dam"), Date: "2025-01-08", Embryo: "IVF-31"})
		ev := MustReview(t, baseSettings(), damProfile(), bull("bull-a"), et)
		c, ok := candidateOf(ev, "bull-a")
		if !ok || !reasonWith(c, "embryo transfer on 2025-01-08 (embryo IVF-31, donor "+uid("donor")) {
			t.Fatalf("evidence = %s", MustJSON(t, ev))
		}
	})
	t.Run("HandMatingByADeadBull", func(t *testing.T) {
		ev := MustReview(t, baseSettings(), damProfile(), bull("bull-a"), moveF("died", evidence.KindDeath, "bull-a", "2024-12-01"),
			serviceF("hm", evidence.KindHandMating, "dam", "bull-a", "2025-01-05"))
		if c, _ := candidateOf(ev, "bull-a"); c.Eligibility != evidence.EligibilityExcluded {
			t.Fatalf("candidate = %s", MustJSON(t, c))
		}
	})
}

func TestPositiveScanNarrowsTheWindow(t *testing.T) {
	t.Parallel()
	ai := withIDs("p-ai", evidence.Fact{Kind: evidence.KindProfile, AnimalID: uid("ai-bull"), Sex: "male", Breed: "Angus"})
	facts := []evidence.Fact{damProfile(), ai, bull("bull-a"), membershipF("dam-herd", "dam", "herd", "2024-06-01", ""),
		membershipF("bull-in", "bull-a", "herd", "2024-12-20", ""), endF("bull-out", "bull-a", "herd", "2025-01-03"),
		serviceF("ins", evidence.KindInsemination, "dam", "ai-bull", "2025-01-08")}
	// Without the scan both sires are plausible.
	if ev := MustReview(t, baseSettings(), facts...); ev.Sire.Status != evidence.SireCandidates || len(ev.Sire.Candidates) != 2 {
		t.Fatalf("without a scan: %s", MustJSON(t, ev.Sire))
	}
	// A scan on 2025-03-04 with a foetal age of 55 days dates conception on 2025-01-08.
	ev := MustReview(t, baseSettings(), append(facts, scanF("scan", "dam", "2025-03-04", 55))...)
	if ev.Sire.Status != evidence.SirePresumed || ev.Sire.AnimalID != uid("ai-bull") || len(ev.Sire.Candidates) != 1 {
		t.Fatalf("with the scan: %s", MustJSON(t, ev.Sire))
	}
	if !strings.Contains(strings.Join(ev.Unresolved, "\n"), "narrows conception to 2025-01-08 to 2025-01-08") {
		t.Fatalf("unresolved = %v", ev.Unresolved)
	}
	// A scan that contradicts the window narrows nothing and says so.
	ev = MustReview(t, baseSettings(), append(facts, scanF("scan", "dam", "2025-03-04", 20))...)
	if len(ev.Sire.Candidates) != 2 || !strings.Contains(strings.Join(ev.Unresolved, "\n"), "outside every conception window") {
		t.Fatalf("contradicting scan: %s", MustJSON(t, ev))
	}
}
