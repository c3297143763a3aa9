package evidence_test

import (
	"fmt"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// BenchmarkDue works out the due list of a herd of 10,000 scanned cows, each served once
// (the service layer's cost beyond its constant statements).
func BenchmarkDue(b *testing.B) {
	var facts []evidence.Fact
	for i := 0; i < 10000; i++ {
		cow := fmt.Sprintf("cow-%d", i)
		facts = append(facts,
			withIDs("ins-"+cow, evidence.Fact{Kind: evidence.KindInsemination, DamID: uid(cow), SireID: uid("bull"), Date: fmt.Sprintf("2025-07-%02d", 1+i%28)}),
			withIDs("scan-"+cow, evidence.Fact{Kind: evidence.KindPregnancyCheck, AnimalID: uid(cow), Date: "2025-09-01",
				Method: evidence.MethodScan, Result: evidence.ResultPregnant}))
	}
	s := baseSettings()
	b.ResetTimer()
	for range b.N {
		if got := evidence.Due(s, facts); len(got) != 10000 {
			b.Fatal(len(got))
		}
	}
}

func TestDueFromServiceAndFoetalAge(t *testing.T) {
	t.Parallel()
	s := baseSettings() // gestation 280 to 290 days
	age := 40
	facts := []evidence.Fact{
		// Two services: the scan's foetal age fits the second.
		withIDs("s1", evidence.Fact{Kind: evidence.KindHandMating, DamID: uid("dam"), SireID: uid("bull-a"), Date: "2025-01-02"}),
		withIDs("s2", evidence.Fact{Kind: evidence.KindInsemination, DamID: uid("dam"), SireID: uid("bull-b"), Date: "2025-01-23"}),
		withIDs("c1", evidence.Fact{Kind: evidence.KindPregnancyCheck, AnimalID: uid("dam"), Date: "2025-03-04", Method: "scan", Result: "pregnant", FoetalAgeDays: &age}),
		// An empty cow, and one that calved after her positive check.
		withIDs("c2", evidence.Fact{Kind: evidence.KindPregnancyCheck, AnimalID: uid("cow"), Date: "2025-03-04", Method: "blood", Result: "empty"}),
		withIDs("c3", evidence.Fact{Kind: evidence.KindPregnancyCheck, AnimalID: uid("heifer"), Date: "2024-03-04", Method: "scan", Result: "pregnant"}),
		withIDs("b3", evidence.Fact{Kind: evidence.KindBirth, DamID: uid("heifer"), Date: "2024-10-01"}),
	}
	got := evidence.Due(s, facts)
	if len(got) != 1 || got[0].Basis != evidence.DueFromService || got[0].ServiceDate != "2025-01-23" || got[0].SireID != uid("bull-b") ||
		got[0].ExpectedFrom != "2025-10-30" || got[0].ExpectedTo != "2025-11-09" || got[0].ExpectedDate != "2025-11-04" {
		t.Fatalf("due = %s", MustJSON(t, got))
	}
	// Without settings there is no expected date, and the row still shows.
	if got := evidence.Due(nil, facts); len(got) != 1 || got[0].ExpectedDate != "" {
		t.Fatalf("without settings: %s", MustJSON(t, got))
	}
}
