package withdrawal_test

import (
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/withdrawal"
)

func mustWhen(t *testing.T, s string) (string, time.Time, bool) {
	t.Helper()
	day, at, dateOnly, err := withdrawal.ParseWhen(s)
	if err != nil {
		t.Fatalf("ParseWhen(%q): %v", s, err)
	}
	return day, at, dateOnly
}

func treat(t *testing.T, id, animal, group, when string, meat, milk int) withdrawal.Treatment {
	day, at, dateOnly := mustWhen(t, when)
	return withdrawal.Treatment{RecordID: "r" + id, RecordItemID: "i" + id, MedicineID: "med", MedicineVersion: 1,
		AnimalID: animal, GroupID: group, Day: day, At: at, DateOnly: dateOnly, MeatDays: meat, MilkHours: milk}
}

// The expected dates below were worked out by hand, counting days on a calendar. These
// treatments carry no zone (UTC, as before farms had one); a bare date's milk counts from the
// end of its day.
func TestClearDatesByHand(t *testing.T) {
	cases := []struct {
		name, when string
		meat, milk int
		meatOn     string
		milkAt     string
	}{
		{"LeapFebruary", "2024-02-20", 10, 72, "2024-03-01", "2024-02-24T00:00:00Z"},
		{"CommonFebruary", "2023-02-20", 10, 72, "2023-03-02", "2023-02-24T00:00:00Z"},
		{"OntoLeapDay", "2024-02-19", 10, 0, "2024-02-29", "2024-02-20T00:00:00Z"},
		{"FromLeapDayAYear", "2024-02-29", 365, 24, "2025-02-28", "2024-03-02T00:00:00Z"},
		{"MonthEnd31", "2024-01-31", 1, 24, "2024-02-01", "2024-02-02T00:00:00Z"},
		{"MonthEnd30", "2023-04-30", 1, 1, "2023-05-01", "2023-05-01T01:00:00Z"},
		{"YearEnd", "2024-12-25", 7, 168, "2025-01-01", "2025-01-02T00:00:00Z"},
		{"MilkAcrossLeapDay", "2024-02-28T18:00:00Z", 2, 36, "2024-03-01", "2024-03-01T06:00:00Z"},
		{"MilkAcrossMonthEnd", "2023-03-31", 0, 72, "2023-03-31", "2023-04-04T00:00:00Z"},
		{"OffsetKeepsWrittenDate", "2024-03-31T23:30:00+02:00", 1, 48, "2024-04-01", "2024-04-02T21:30:00Z"},
		{"ZeroPeriods", "2025-07-01", 0, 0, "2025-07-01", "2025-07-02T00:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := withdrawal.HitOf(treat(t, "1", "a", "", c.when, c.meat, c.milk))
			if h.MeatClearOn != c.meatOn {
				t.Errorf("meat_clear_on = %s, want %s", h.MeatClearOn, c.meatOn)
			}
			if got := h.MilkClearAt.Format(time.RFC3339); got != c.milkAt {
				t.Errorf("milk_clear_at = %s, want %s", got, c.milkAt)
			}
		})
	}
}

func TestParseWhenRefuses(t *testing.T) {
	for _, s := range []string{"", "2023-02-29", "2024-13-01", "2024-02-30", "2024-02-28T25:00:00Z", "2024-02-28 10:00", "yesterday", "2024-2-28"} {
		if _, _, _, err := withdrawal.ParseWhen(s); err == nil {
			t.Errorf("ParseWhen(%q) accepted", s)
		}
	}
}

func TestLatestClearDateDecides(t *testing.T) {
	h := withdrawal.History{Treatments: []withdrawal.Treatment{
		treat(t, "1", "a", "", "2025-03-01", 28, 12),          // meat 2025-03-29, milk 03-02T12
		treat(t, "2", "a", "", "2025-03-10T08:00:00Z", 5, 96), // meat 2025-03-15, milk 03-14T08
	}}
	s := h.AsOf("2025-03-12")["a"]
	if s == nil || s.MeatClearOn != "2025-03-29" || s.MilkClearAt.Format(time.RFC3339) != "2025-03-14T08:00:00Z" || len(s.Hits) != 2 {
		t.Fatalf("status = %+v", s)
	}
	// As of a day before the second treatment, only the first counts.
	s = h.AsOf("2025-03-09")["a"]
	if s == nil || len(s.Hits) != 1 || s.MilkClearAt.Format(time.RFC3339) != "2025-03-02T12:00:00Z" {
		t.Fatalf("status before the second treatment = %+v", s)
	}
	if !s.MeatWithheldOn("2025-03-28") || s.MeatWithheldOn("2025-03-29") {
		t.Error("meat must be withheld up to the day before meat_clear_on and clear on it")
	}
	if got := len(h.Blocking("a", "2025-03-16")); got != 1 {
		t.Errorf("blocking on 2025-03-16 = %d treatments, want 1 (the 28-day one)", got)
	}
	if got := len(h.Blocking("a", "2025-03-29")); got != 0 {
		t.Errorf("blocking on the clear day = %d, want 0", got)
	}
	// A sale dated before any treatment is not blocked by later treatments.
	if got := len(h.Blocking("a", "2025-02-28")); got != 0 {
		t.Errorf("blocking before treatment = %d, want 0", got)
	}
}

func TestWithheldListsMeatOrMilk(t *testing.T) {
	h := withdrawal.History{Treatments: []withdrawal.Treatment{
		treat(t, "1", "meat", "", "2025-03-01", 10, 0),
		treat(t, "2", "milk", "", "2025-03-01T06:00:00Z", 0, 240),
		treat(t, "3", "done", "", "2025-02-01", 3, 24),
	}}
	got := h.Withheld("2025-03-05")
	if len(got) != 2 || got[0].AnimalID != "meat" || got[1].AnimalID != "milk" {
		t.Fatalf("withheld = %+v", got)
	}
	// Milk clears at 2025-03-11T06:00Z: not clear for the whole of 03-11, clear for 03-12.
	if len(h.Withheld("2025-03-11")) != 1 || len(h.Withheld("2025-03-12")) != 0 {
		t.Errorf("milk edge: %d on 03-11, %d on 03-12", len(h.Withheld("2025-03-11")), len(h.Withheld("2025-03-12")))
	}
}

func member(id, animal, group, start, end string) withdrawal.Membership {
	return withdrawal.Membership{RecordID: "r" + id, RecordItemID: "i" + id, AnimalID: animal, GroupID: group, Start: start, End: end}
}

func TestGroupTreatmentReachesMembersOfThatDay(t *testing.T) {
	const day = "2025-06-10"
	h := withdrawal.History{
		Treatments: []withdrawal.Treatment{treat(t, "t", "", "herd", day, 14, 48)},
		Memberships: []withdrawal.Membership{
			member("1", "left-day-before", "herd", "2025-01-01", "2025-06-09"),
			member("2", "joined-day-after", "herd", "2025-06-11", ""),
			member("3", "joined-that-day", "herd", "2025-06-10", ""),
			member("4", "left-that-day", "herd", "2025-01-01", "2025-06-10"),
			member("5", "moved-groups", "herd", "2025-01-01", ""),
			member("6", "moved-groups", "yard", "2025-06-10", ""),
			member("7", "sold-before", "herd", "2025-01-01", ""),
			member("8", "other-group", "yard", "2025-01-01", ""),
			member("9", "open-member", "herd", "2024-05-01", ""),
		},
		Departures: []withdrawal.Departure{{AnimalID: "sold-before", Day: "2025-06-05"}},
	}
	var got []string
	for _, r := range h.Reached(h.Treatments[0]) {
		got = append(got, r.AnimalID)
	}
	want := []string{"joined-that-day", "left-that-day", "open-member"}
	if len(got) != len(want) {
		t.Fatalf("reached %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("reached %v, want %v", got, want)
		}
	}
	st := h.AsOf("2025-06-12")
	if st["joined-that-day"].MeatClearOn != "2025-06-24" || st["left-day-before"] != nil || st["joined-day-after"] != nil {
		t.Errorf("statuses: %+v", st)
	}
}

func TestBackdatedMembershipChangesWhoWasTreated(t *testing.T) {
	h := withdrawal.History{
		Treatments:  []withdrawal.Treatment{treat(t, "t", "", "herd", "2025-06-10", 14, 0)},
		Memberships: []withdrawal.Membership{member("1", "cow", "herd", "2025-01-01", "")},
	}
	if len(h.Blocking("cow", "2025-06-15")) != 1 {
		t.Fatal("the open member must have been treated")
	}
	// Recorded later: the cow had moved to the yard on 2025-06-01.
	h.Memberships = append(h.Memberships, member("2", "cow", "yard", "2025-06-01", ""))
	if len(h.Blocking("cow", "2025-06-15")) != 0 {
		t.Fatal("a backdated move out of the group must take the cow out of the treatment")
	}
	// And a backdated membership can put an animal into it.
	h.Memberships = append(h.Memberships, member("3", "heifer", "herd", "2025-05-20", "2025-06-30"))
	if len(h.Blocking("heifer", "2025-06-15")) != 1 {
		t.Fatal("a backdated membership must put the heifer into the treatment")
	}
}

// TestStoredReachNeverShrinks is issue 20's scenario: a group treatment recorded on
// 2026-05-02 reached calf C12, and its reach was stored with it. A membership correction
// entered later and backdated (C12 had moved to the weaned group on 2026-05-01) no longer
// places C12 in the group that day: the treatment keeps reaching C12 (its withdrawal and the
// sale guard stand) and reports C12 as dropped, a conflict for someone to amend with a reason
// (a food-safety record never shrinks silently: VMR 2013 reg. 17–19; EU 2019/6 Art. 108).
func TestStoredReachNeverShrinks(t *testing.T) {
	tr := treat(t, "t", "", "calves", "2026-05-02", 10, 0)
	tr.Stored = []string{"c12"}
	h := withdrawal.History{
		Treatments:  []withdrawal.Treatment{tr},
		Memberships: []withdrawal.Membership{member("1", "c12", "calves", "2026-03-01", ""), member("2", "c13", "calves", "2026-03-01", "")},
	}
	if got := h.Dropped(tr); len(got) != 0 {
		t.Fatalf("dropped %v before the correction", got)
	}
	h.Memberships = append(h.Memberships, member("3", "c12", "weaned", "2026-05-01", ""))
	if got := h.Blocking("c12", "2026-05-08"); len(got) != 1 || got[0].MeatClearOn != "2026-05-12" {
		t.Fatalf("C12's withdrawal after the correction: %+v; want the treatment, clear on 2026-05-12", got)
	}
	if got := h.Dropped(tr); len(got) != 1 || got[0] != "c12" {
		t.Fatalf("dropped %v, want [c12]", got)
	}
	// C13 is a member by the facts, so it is reached although the stored reach does not
	// name it: reach is the union.
	var ids []string
	for _, r := range h.Reached(tr) {
		ids = append(ids, r.AnimalID)
	}
	if strings.Join(ids, " ") != "c12 c13" {
		t.Fatalf("reached %v, want the union c12 c13", ids)
	}
}

// TestLeaveEndsMembership: a membership_end takes the animal out of the group from its date.
func TestLeaveEndsMembership(t *testing.T) {
	h := withdrawal.History{
		Treatments:  []withdrawal.Treatment{treat(t, "t1", "", "herd", "2026-02-28", 14, 0), treat(t, "t2", "", "herd", "2026-03-01", 14, 0)},
		Memberships: []withdrawal.Membership{member("1", "cow", "herd", "2026-01-01", "")},
		Leaves:      []withdrawal.Leave{{AnimalID: "cow", GroupID: "herd", Day: "2026-03-01"}},
	}
	if got := h.Blocking("cow", "2026-03-02"); len(got) != 1 || got[0].Treatment.RecordID != "rt1" {
		t.Fatalf("blocking %+v; want only the treatment of the day before the cow left", got)
	}
}
