package notice_test

import (
	"testing"
	"time"

	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/registry/notice"
)

// TestDeadlines checks each rule set's periods against dates computed by hand from the
// rules docs/registry.md cites. 2026-03-06 is a Friday; 2026-04-27 (King's Day) a Monday;
// Easter 2026 is 5 April, so Ascension Day is 14 May.
func TestDeadlines(t *testing.T) {
	rules := func(name string) notice.Rules {
		r, ok := notice.ByName(name)
		if !ok {
			t.Fatalf("no rule set %s", name)
		}
		return r
	}
	cases := []struct {
		name, rules, herd string
		kind              notice.Kind
		event, want       string
	}{
		// gov.uk: a beef calf's tags before it is 21 days old (within 20 days, SMR 7): day 20.
		{"GBBeefTag", notice.GBCTS, notice.HerdBeef, notice.KindTagging, "2026-03-06", "2026-03-26"},
		// gov.uk: a dairy calf's primary tag before 36 hours old, from the start of its birth day.
		{"GBDairyTag", notice.GBCTS, notice.HerdDairy, notice.KindTagging, "2026-03-06", "2026-03-07"},
		// gov.uk: the birth registered (passport application) within 27 days.
		{"GBBirth", notice.GBCTS, notice.HerdBeef, notice.KindBirth, "2026-03-06", "2026-04-02"},
		// gov.uk / gov.wales: a move reported within 3 calendar days: a weekend counts.
		{"GBMoveOverWeekend", notice.GBCTS, notice.HerdBeef, notice.KindMoveOff, "2026-03-06", "2026-03-09"},
		{"GBMoveOn", notice.GBCTS, notice.HerdBeef, notice.KindMoveOn, "2026-02-27", "2026-03-02"},
		{"GBDeath", notice.GBCTS, notice.HerdBeef, notice.KindDeath, "2026-03-06", "2026-03-13"},
		// SMR 7: a replacement within 28 days of the loss.
		{"GBRetag", notice.GBCTS, notice.HerdBeef, notice.KindTagReplacement, "2026-03-06", "2026-04-03"},
		// ViehVerkV §§ 27, 29: 7 calendar days for tags and notices.
		{"DEBirth", notice.DEHITier, notice.HerdDairy, notice.KindBirth, "2026-03-06", "2026-03-13"},
		{"DETag", notice.DEHITier, notice.HerdBeef, notice.KindTagging, "2026-03-06", "2026-03-13"},
		// Reg. 2021/520 art. 3 with Reg. 1182/71 art. 3(4): a Friday's 7 days end on a Friday;
		// a Saturday's would end on a Saturday and run to Monday.
		{"EUFriday", notice.EU2021520, notice.HerdBeef, notice.KindMoveOn, "2026-03-06", "2026-03-13"},
		{"EUSaturdayRolls", notice.EU2021520, notice.HerdBeef, notice.KindDeath, "2026-03-07", "2026-03-16"},
		{"EUTag", notice.EU2021520, notice.HerdBeef, notice.KindTagging, "2026-03-06", "2026-03-26"},
		// RVO: 3 working days, day 0 the event's; Thursday 23 April: Fri 24, (Sat, Sun, King's
		// Day Mon 27), Tue 28, Wed 29.
		{"NLKingsDay", notice.NLRVO, notice.HerdDairy, notice.KindMoveOff, "2026-04-23", "2026-04-29"},
		// Wednesday 13 May: (Ascension Thu 14), Fri 15, Mon 18, Tue 19.
		{"NLAscension", notice.NLRVO, notice.HerdDairy, notice.KindBirth, "2026-05-13", "2026-05-19"},
		// Thursday 24 December: (Christmas Fri 25, Sat, Sun), Mon 28, Tue 29, Wed 30.
		{"NLChristmas", notice.NLRVO, notice.HerdDairy, notice.KindDeath, "2026-12-24", "2026-12-30"},
		// Friday 6 March: Mon 9, Tue 10, Wed 11.
		{"NLWeekend", notice.NLRVO, notice.HerdBeef, notice.KindMoveOn, "2026-03-06", "2026-03-11"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := rules(c.rules).Deadline(c.kind, c.herd, c.event)
			if !ok || got != c.want {
				t.Errorf("deadline of %s on %s under %s = %q; want %q", c.kind, c.event, c.rules, got, c.want)
			}
		})
	}
	if _, ok := notice.ByName("gb_bcms"); ok {
		t.Error("an unknown rule set was found")
	}
	if _, ok := rules(notice.GBCTS).Deadline(notice.KindBirth, notice.HerdBeef, "2026-02-30"); ok {
		t.Error("an impossible date gave a deadline")
	}
	for y, want := range map[int]string{2024: "2024-03-31", 2025: "2025-04-20", 2026: "2026-04-05", 2027: "2027-03-28"} {
		if got := notice.Easter(y).Format(time.DateOnly); got != want {
			t.Errorf("Easter(%d) = %s; want %s", y, got, want)
		}
	}
}

const (
	farm = "f0000000-0000-0000-0000-000000000001"
	dam  = "a0000000-0000-0000-0000-000000000001"
	calf = "a0000000-0000-0000-0000-000000000002"
	cow  = "a0000000-0000-0000-0000-000000000003"
	twin = "a0000000-0000-0000-0000-000000000004"
)

func entry(item string, f evidence.Fact) notice.Entry {
	f.RecordItemID = item
	return notice.Entry{Fact: f, FarmID: farm, Live: true}
}

// TestDerive runs a season under gb_cts as of 2026-03-20: a birth of twins on 6 March (one
// tagged on 10 March, one not), a purchase on 16 March reported and accepted, a death on 1
// March never reported (overdue since 8 March), a sale voided after it was reported (a
// correction from the day of the void), a birth amended before it was reported (only the
// amendment stands), and a lost tag.
func TestDerive(t *testing.T) {
	r, _ := notice.ByName(notice.GBCTS)
	voided := entry("i-sale", evidence.Fact{Kind: evidence.KindSale, AnimalID: cow, Date: "2026-03-02"})
	voided.Live, voided.EndedOn = false, "2026-03-18"
	oldBirth := entry("i-old", evidence.Fact{Kind: evidence.KindBirth, DamID: cow, Date: "2026-03-11", OffspringIDs: []string{"a0000000-0000-0000-0000-000000000009"}})
	oldBirth.Live, oldBirth.EndedOn = false, "2026-03-12"
	newBirth := entry("i-new", evidence.Fact{Kind: evidence.KindBirth, DamID: cow, Date: "2026-03-10", OffspringIDs: []string{"a0000000-0000-0000-0000-000000000009"}})
	newBirth.Amends = "i-old"
	in := notice.Input{Rules: r, HerdType: notice.HerdBeef, Today: "2026-03-20",
		Entries: []notice.Entry{
			entry("i-birth", evidence.Fact{Kind: evidence.KindBirth, DamID: dam, Date: "2026-03-06", OffspringIDs: []string{calf, twin}}),
			entry("i-tag", evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: calf, Scheme: "visual", Value: "UK123456700001", StartDate: "2026-03-10", EndDate: "2026-03-15"}),
			entry("i-tag2", evidence.Fact{Kind: evidence.KindIdentifier, AnimalID: calf, Scheme: "visual", Value: "UK123456700002", StartDate: "2026-03-17"}),
			entry("i-buy", evidence.Fact{Kind: evidence.KindPurchase, AnimalID: dam, Date: "2026-03-16"}),
			entry("i-death", evidence.Fact{Kind: evidence.KindDeath, AnimalID: "a0000000-0000-0000-0000-000000000005", Date: "2026-03-01"}),
			voided, oldBirth, newBirth,
		},
		Submissions: map[string]notice.Submission{
			notice.Key(notice.KindMoveOn, "i-buy", dam):   {State: notice.StateAccepted},
			notice.Key(notice.KindMoveOff, "i-sale", cow): {State: notice.StateSent},
			notice.Key(notice.KindBirth, "i-birth", calf): {State: notice.StateRejected, Cause: "dam not on holding"},
			notice.Key(notice.KindBirth, "i-birth", twin): {State: "pending"},
		},
	}
	got := notice.Derive(in)
	want := map[string]struct{ state, deadline string }{
		notice.Key(notice.KindDeath, "i-death", "a0000000-0000-0000-0000-000000000005"): {notice.StateOverdue, "2026-03-08"},
		notice.Key(notice.KindBirth, "i-birth", calf):                                   {notice.StateRejected, "2026-04-02"},
		notice.Key(notice.KindBirth, "i-birth", twin):                                   {notice.StateDue, "2026-04-02"},
		notice.Key(notice.KindTagging, "i-birth", calf):                                 {notice.StateDone, "2026-03-26"},
		notice.Key(notice.KindTagging, "i-birth", twin):                                 {notice.StateDue, "2026-03-26"},
		notice.Key(notice.KindMoveOn, "i-buy", dam):                                     {notice.StateAccepted, "2026-03-19"},
		notice.Key(notice.KindMoveOff, "i-sale", cow):                                   {notice.StateSuperseded, "2026-03-05"},
		"correction:" + notice.Key(notice.KindMoveOff, "i-sale", cow):                   {notice.StateDue, "2026-03-21"},
		notice.Key(notice.KindBirth, "i-new", "a0000000-0000-0000-0000-000000000009"):   {notice.StateDue, "2026-04-06"},
		notice.Key(notice.KindTagging, "i-new", "a0000000-0000-0000-0000-000000000009"): {notice.StateDue, "2026-03-30"},
		notice.Key(notice.KindTagReplacement, "i-tag", calf):                            {notice.StateDue, "2026-04-12"},
	}
	seen := map[string]bool{}
	for _, n := range got {
		w, ok := want[n.Key]
		if !ok {
			t.Errorf("unexpected notice %s (%s, %s)", n.Key, n.State, n.Deadline)
			continue
		}
		seen[n.Key] = true
		if n.State != w.state || n.Deadline != w.deadline {
			t.Errorf("%s: state %s deadline %s; want %s %s", n.Key, n.State, n.Deadline, w.state, w.deadline)
		}
		if n.Rule == "" || n.RuleSet != notice.GBCTS || len(n.Sources) == 0 {
			t.Errorf("%s: no rule, rule set or sources: %+v", n.Key, n)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("missing notice %s", k)
		}
	}
	if got[0].State != notice.StateOverdue {
		t.Errorf("first notice is %s; overdue notices come first", got[0].State)
	}
	for _, n := range got {
		switch n.Key {
		case "correction:" + notice.Key(notice.KindMoveOff, "i-sale", cow):
			if n.Corrects != notice.Key(notice.KindMoveOff, "i-sale", cow) || n.CorrectsKind != notice.KindMoveOff || n.EventDate != "2026-03-18" {
				t.Errorf("correction names %q (%s) from %s", n.Corrects, n.CorrectsKind, n.EventDate)
			}
		case notice.Key(notice.KindTagging, "i-birth", calf):
			if n.DoneOn != "2026-03-10" || n.Late {
				t.Errorf("tagging done on %s late %v", n.DoneOn, n.Late)
			}
		case notice.Key(notice.KindTagReplacement, "i-tag", calf):
			if len(n.Sources) != 2 || n.Sources[1] != "i-tag2" {
				t.Errorf("tag replacement sources %v", n.Sources)
			}
		case notice.Key(notice.KindDeath, "i-death", "a0000000-0000-0000-0000-000000000005"):
			if n.DaysLeft != -12 {
				t.Errorf("days left %d; want -12", n.DaysLeft)
			}
		}
	}
}

// TestDeriveAmendedAfterReport: an amendment of a reported birth is reported by a correction,
// never by a second birth notice.
func TestDeriveAmendedAfterReport(t *testing.T) {
	r, _ := notice.ByName(notice.DEHITier)
	old := entry("i-old", evidence.Fact{Kind: evidence.KindBirth, DamID: dam, Date: "2026-03-06", OffspringIDs: []string{calf}})
	old.Live, old.EndedOn = false, "2026-03-09"
	amended := entry("i-new", evidence.Fact{Kind: evidence.KindBirth, DamID: dam, Date: "2026-03-05", OffspringIDs: []string{calf}})
	amended.Amends = "i-old"
	got := notice.Derive(notice.Input{Rules: r, HerdType: notice.HerdBeef, Today: "2026-03-10",
		Entries:     []notice.Entry{old, amended},
		Submissions: map[string]notice.Submission{notice.Key(notice.KindBirth, "i-old", calf): {State: notice.StateAccepted}}})
	kinds := map[string]string{}
	for _, n := range got {
		kinds[n.Key] = n.State
	}
	if kinds[notice.Key(notice.KindBirth, "i-new", calf)] != "" {
		t.Errorf("the amendment was noticed again: %v", kinds)
	}
	if kinds[notice.Key(notice.KindBirth, "i-old", calf)] != notice.StateSuperseded ||
		kinds["correction:"+notice.Key(notice.KindBirth, "i-old", calf)] != notice.StateDue {
		t.Errorf("states %v", kinds)
	}
	for _, n := range got {
		if n.Kind == notice.KindCorrection && (n.Deadline != "2026-03-16" || len(n.Sources) != 2 || n.Sources[1] != "i-new") {
			t.Errorf("correction %+v; want deadline 2026-03-16 (7 days from the amendment on 9 March) and both items", n)
		}
	}
}
