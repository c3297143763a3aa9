package withdrawal_test

import (
	"testing"
	"time"

	"github.com/herdbook/herdbook/withdrawal"
)

// In Europe/London the clocks went back from 02:00 BST to 01:00 GMT on Sunday 25 October 2026
// (01:00 UTC), and forward from 01:00 GMT to 02:00 BST on Sunday 29 March 2026: 25 October
// has 25 hours, 29 March 23. Every expected moment below was worked out by hand.
func TestClearDatesInTheFarmsZone(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	cases := []struct {
		name, when string
		meat, milk int
		meatOn     string
		milkAt     string
	}{
		// A cow tubed at 18:00 on Saturday 24 October, written as a bare date: the hour is not
		// known, so milk counts from the end of that local day, 00:00 BST on the 25th
		// (2026-10-24T23:00Z); 36 elapsed hours later, across the 25-hour day, it is 11:00
		// GMT on the 26th. Counting from 00:00 UTC of the 24th, as before, cleared it at
		// 12:00 UTC on the 25th, 23 hours early.
		{"BareDateBeforeOctoberChange", "2026-10-24", 2, 36, "2026-10-26", "2026-10-26T11:00:00Z"},
		// The same tubing written with its hour: 17:00Z plus 36 hours.
		{"DateTimeBeforeOctoberChange", "2026-10-24T18:00:00+01:00", 2, 36, "2026-10-26", "2026-10-26T05:00:00Z"},
		// A bare date on the 25-hour day itself: its end is 00:00 GMT on the 26th.
		{"BareDateOnTheLongDay", "2026-10-25", 1, 24, "2026-10-26", "2026-10-27T00:00:00Z"},
		// A date-time whose UTC date is the 24th but whose local date is the 25th (00:30
		// BST): the farm's day counts for meat.
		{"LocalDateDecidesMeat", "2026-10-24T23:30:00Z", 1, 0, "2026-10-26", "2026-10-24T23:30:00Z"},
		// The March change: the end of Saturday 28 March is 00:00 GMT on the 29th; 36 hours
		// later is 2026-03-30T12:00Z, 13:00 BST.
		{"BareDateBeforeMarchChange", "2026-03-28", 0, 36, "2026-03-28", "2026-03-30T12:00:00Z"},
		// A summer bare date: the end of 1 July is 2026-07-01T23:00Z (00:00 BST).
		{"BareDateInSummer", "2026-07-01", 3, 12, "2026-07-04", "2026-07-02T11:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			day, at, dateOnly, err := withdrawal.ParseWhenIn(c.when, london)
			if err != nil {
				t.Fatal(err)
			}
			h := withdrawal.HitOf(withdrawal.Treatment{Day: day, At: at, DateOnly: dateOnly, Zone: london, MeatDays: c.meat, MilkHours: c.milk})
			if h.MeatClearOn != c.meatOn {
				t.Errorf("meat_clear_on = %s, want %s", h.MeatClearOn, c.meatOn)
			}
			if got := h.MilkClearAt.UTC().Format(time.RFC3339); got != c.milkAt {
				t.Errorf("milk_clear_at = %s, want %s", got, c.milkAt)
			}
		})
	}
}

// "Not clear for the whole of a day" is asked of the farm's day: milk clear at 23:30 UTC on
// 1 July is 00:30 BST on 2 July, so in London the milk is withheld on 2 July, in UTC it is not.
func TestMilkWithheldOnTheFarmsDay(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	clear := time.Date(2026, 7, 1, 23, 30, 0, 0, time.UTC)
	if !(withdrawal.Status{MilkClearAt: clear, Zone: london}).MilkWithheldOn("2026-07-02") {
		t.Error("in London the milk is not clear for the whole of 2 July")
	}
	if (withdrawal.Status{MilkClearAt: clear}).MilkWithheldOn("2026-07-02") {
		t.Error("in UTC the milk is clear for the whole of 2 July")
	}
	if (withdrawal.Status{MilkClearAt: clear, Zone: london}).MilkWithheldOn("2026-07-03") {
		t.Error("the milk is clear on 3 July")
	}
}

// A dry-cow product (its label counts the milk period from calving) given on 2026-08-01 with
// 96 hours: the milk is withheld until the cow calves; she calves on 2026-10-24, so the milk
// clears at the end of that local day (2026-10-24T23:00Z) plus 96 elapsed hours,
// 2026-10-28T23:00Z (23:00 GMT on the 28th, after the October clock change).
func TestDryCowMilkFromCalving(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	day, at, dateOnly, _ := withdrawal.ParseWhenIn("2026-08-01", london)
	h := withdrawal.History{Zone: london, Treatments: []withdrawal.Treatment{{RecordItemID: "i", AnimalID: "cow", Day: day, At: at,
		DateOnly: dateOnly, Zone: london, MeatDays: 28, MilkHours: 96, MilkFromCalving: true}}}
	s := h.AsOf("2026-10-20")["cow"]
	if !s.MilkUntilCalving || !s.MilkWithheldOn("2026-10-20") || s.MeatClearOn != "2026-08-29" {
		t.Fatalf("before calving: %+v", s)
	}
	h.Calvings = []withdrawal.Calving{{DamID: "cow", Day: "2026-07-01"}, {DamID: "cow", Day: "2026-10-24"}, {DamID: "other", Day: "2026-08-02"}}
	s = h.AsOf("2026-10-30")["cow"]
	if s.MilkUntilCalving || s.MilkClearAt.UTC().Format(time.RFC3339) != "2026-10-28T23:00:00Z" {
		t.Fatalf("after calving: %+v", s)
	}
	if !s.MilkWithheldOn("2026-10-28") || s.MilkWithheldOn("2026-10-29") {
		t.Error("the milk clears during 28 October and is clear for the whole of the 29th")
	}
	// As of a day before the calving was recorded to have happened, it is still withheld.
	if s := h.AsOf("2026-10-23")["cow"]; !s.MilkUntilCalving {
		t.Errorf("as of 2026-10-23: %+v", s)
	}
}
