package withdrawal_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/herdbook/herdbook/withdrawal"
)

// benchHistory is a farm of groups×members animals, each group treated treatments times,
// with every animal moving groups once.
func benchHistory(groups, members, treatments int) withdrawal.History {
	var h withdrawal.History
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for g := range groups {
		group := fmt.Sprint("g", g)
		for m := range members {
			animal := fmt.Sprintf("a%d-%d", g, m)
			h.Memberships = append(h.Memberships,
				withdrawal.Membership{RecordItemID: animal + "-1", AnimalID: animal, GroupID: group, Start: "2024-06-01"},
				withdrawal.Membership{RecordItemID: animal + "-2", AnimalID: animal, GroupID: fmt.Sprint("g", (g+1)%groups), Start: "2025-07-01"})
		}
		for t := range treatments {
			at := start.AddDate(0, 0, t*7)
			h.Treatments = append(h.Treatments, withdrawal.Treatment{RecordID: fmt.Sprint("r", g, t), RecordItemID: fmt.Sprint("i", g, t),
				MedicineID: "m", MedicineVersion: 1, GroupID: group, Day: at.Format(time.DateOnly), At: at, MeatDays: 28, MilkHours: 96})
		}
	}
	return h
}

func BenchmarkWithheld(b *testing.B) {
	for _, size := range []struct{ groups, members, treatments int }{{10, 100, 10}, {20, 500, 20}} {
		h := benchHistory(size.groups, size.members, size.treatments)
		b.Run(fmt.Sprintf("animals=%d,treatments=%d", size.groups*size.members, size.groups*size.treatments), func(b *testing.B) {
			for b.Loop() {
				if len(h.Withheld("2025-03-01")) == 0 {
					b.Fatal("nobody withheld")
				}
			}
		})
	}
}

func BenchmarkBlocking(b *testing.B) {
	h := benchHistory(20, 500, 20)
	for b.Loop() {
		h.Blocking("a3-17", "2025-03-01")
	}
}
