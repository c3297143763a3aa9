package herdbook

import (
	"fmt"
	"slices"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// TestReportMembershipsIgnoreFactOrder: an animal's stays in groups (memberships, which the
// gain and calving reports read) do not depend on the order its facts are read in. They did:
// an animal whose first fact read was a membership_end or a departure had no stays at all, so
// a report derived over the farm and one patched from the animal's facts disagreed
// (TestKeptAnswersMatchDerived found it).
func TestReportMembershipsIgnoreFactOrder(t *testing.T) {
	cow, herd := "8c1f2e44-54b8-4c55-9d49-0d7fd1b3c001", "8c1f2e44-54b8-4c55-9d49-0d7fd1b3c0aa"
	facts := []evidence.Fact{
		{Kind: evidence.KindMembershipEnd, AnimalID: cow, GroupID: herd, Date: "2025-06-30"},
		{Kind: evidence.KindMembership, AnimalID: cow, GroupID: herd, StartDate: "2025-01-01"},
		{Kind: evidence.KindSale, AnimalID: cow, Date: "2025-09-01"},
	}
	for i := range facts { // a fact is read with its record and item
		facts[i].RecordID = fmt.Sprintf("8c1f2e44-54b8-4c55-9d49-0d7fd1b3d00%d", i)
		facts[i].RecordItemID = fmt.Sprintf("8c1f2e44-54b8-4c55-9d49-0d7fd1b3e00%d", i)
	}
	want := []span{{cow, herd, "2025-01-01", "2025-06-29"}} // a membership_end ends the stay the day before
	for _, order := range [][]int{{0, 1, 2}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}} {
		in := make([]evidence.Fact, len(order))
		for i, j := range order {
			in[i] = facts[j]
		}
		if got := memberships(in); !slices.Equal(got, want) {
			t.Errorf("facts in the order %v: stays %+v, want %+v", order, got, want)
		}
	}
}
