package withdrawal_test

import (
	"testing"
	"time"

	"github.com/herdbook/herdbook/withdrawal"
)

// TestCourseRunsFromLastAdministration: the withdrawal period is the time between the LAST
// administration and food production (EU 2019/6 Art. 4(34)); dates worked by hand.
func TestCourseRunsFromLastAdministration(t *testing.T) {
	cases := []struct {
		name, first, last string
		meat, milk        int
		meatOn, milkAt    string
	}{
		// 3-day course 2024-02-27 .. 2024-02-29, 10 meat days: 1 March to 10 March. Milk: a
		// bare last date clears at the end of that day (1 March 00:00) plus 72 hours.
		{"LeapCourse", "2024-02-27", "2024-02-29", 10, 72, "2024-03-10", "2024-03-04T00:00:00Z"},
		// The same course and periods one year on: 2025-03-01 + 10 = 2025-03-11.
		{"CommonCourse", "2025-02-27", "2025-03-01", 10, 72, "2025-03-11", "2025-03-05T00:00:00Z"},
		// Twice a day for two days: milk counts from the last injection, 18:00 on the 2nd.
		{"DateTimes", "2025-06-01T06:00:00Z", "2025-06-02T18:00:00Z", 0, 60, "2025-06-02", "2025-06-05T06:00:00Z"},
		// A single administration: the last is left out and the first counts (end of its day).
		{"Single", "2025-06-01", "", 5, 24, "2025-06-06", "2025-06-03T00:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := treat(t, "1", "a", "", c.first, c.meat, c.milk)
			if c.last != "" {
				tr.LastDay, tr.LastAt, tr.LastDateOnly = mustWhen(t, c.last)
			}
			h := withdrawal.HitOf(tr)
			if h.MeatClearOn != c.meatOn {
				t.Errorf("meat_clear_on = %s, want %s", h.MeatClearOn, c.meatOn)
			}
			if got := h.MilkClearAt.Format(time.RFC3339); got != c.milkAt {
				t.Errorf("milk_clear_at = %s, want %s", got, c.milkAt)
			}
			// A course counts as history from its first day.
			if st := (withdrawal.History{Treatments: []withdrawal.Treatment{tr}}).AsOf(tr.Day)["a"]; st == nil || st.MeatClearOn != c.meatOn {
				t.Errorf("as of the first day: %+v", st)
			}
		})
	}
}
