package evidence_test

import (
	"strings"
	"testing"

	"github.com/herdbook/herdbook/evidence"
)

// The history rules of docs/history-rules.md, one case each. Stored facts carry record ids
// (withIDs); written facts do not. The holding register must show what can have happened:
// a register's entries are the keeper's account of births, movements and deaths (gov.uk,
// "Keep a holding register for cattle"; DOMAIN.md [24]).

func hf(label string, f evidence.Fact) evidence.Fact { return withIDs(label, f) }

func profile(animal, sex, born string) evidence.Fact {
	return evidence.Fact{Kind: evidence.KindProfile, AnimalID: uid(animal), Sex: sex, BirthDate: born, Date: born}
}

func dated(kind evidence.Kind, animal, date string) evidence.Fact {
	f := evidence.Fact{Kind: kind, AnimalID: uid(animal), Date: date}
	if kind == evidence.KindWeight {
		f.KG = "250"
	}
	return f
}

func born(dam, sire, date string, calves ...string) evidence.Fact {
	f := evidence.Fact{Kind: evidence.KindBirth, DamID: uid(dam), Date: date}
	if sire != "" {
		f.SireID = uid(sire)
	}
	for _, c := range calves {
		f.OffspringIDs = append(f.OffspringIDs, uid(c))
	}
	return f
}

func names(id string) string {
	for _, n := range []string{"C12", "COW", "BULL", "HEIFER", "CALF", "CALF2", "DONOR"} {
		if uid(n) == id {
			return n
		}
	}
	return id
}

func TestCheckHistory(t *testing.T) {
	t.Parallel()
	days := func(n int) *int { return &n }
	treatment := evidence.Fact{Kind: evidence.KindTreatment, AnimalID: uid("C12"), MedicineID: uid("med"), Date: "2026-09-10T08:00:00Z"}
	cases := []struct {
		name   string
		stored []evidence.Fact
		news   []evidence.Fact
		limits evidence.HistoryLimits
		want   []string // "index field: text in the message"; none for an accepted write
	}{
		{name: "WeightBeforeBirth", stored: []evidence.Fact{hf("p", profile("C12", "male", "2026-02-10"))},
			news: []evidence.Fact{dated(evidence.KindWeight, "C12", "2026-01-03")},
			want: []string{"0 date: its weight on 2026-01-03 (this write) is dated before C12's birth on 2026-02-10 (record " + uid("record:p") + ")"}},
		{name: "WeightOnBirthDay", stored: []evidence.Fact{hf("p", profile("C12", "male", "2026-02-10"))},
			news: []evidence.Fact{dated(evidence.KindWeight, "C12", "2026-02-10")}},
		{name: "WeightAfterDeath", stored: []evidence.Fact{hf("p", profile("C12", "male", "2026-02-10")), hf("d", dated(evidence.KindDeath, "C12", "2026-03-01"))},
			news: []evidence.Fact{dated(evidence.KindWeight, "C12", "2026-03-02")},
			want: []string{"0 date: its weight on 2026-03-02 (this write) is dated after C12's death on 2026-03-01 (record " + uid("record:d") + ")"}},
		{name: "DeathBeforeBirth", stored: []evidence.Fact{hf("p", profile("C12", "male", "2026-02-10"))},
			news: []evidence.Fact{dated(evidence.KindDeath, "C12", "2026-02-01")},
			want: []string{"0 date: its death on 2026-02-01"}},
		{name: "TreatmentOfADeadCalf", stored: []evidence.Fact{hf("d", dated(evidence.KindDeath, "C12", "2026-02-10"))},
			news: []evidence.Fact{treatment},
			want: []string{"0 date: its treatment on 2026-09-10 (this write) is dated after C12's death on 2026-02-10"}},
		{name: "CowAsSire", stored: []evidence.Fact{hf("p", profile("COW", "female", "2020-01-01"))},
			news: []evidence.Fact{born("HEIFER", "COW", "2026-03-01", "CALF")},
			want: []string{"0 sire_id: COW is recorded as female (record " + uid("record:p") + ") and cannot be the sire"}},
		{name: "BullAsDam", stored: []evidence.Fact{hf("p", profile("BULL", "male", "2020-01-01"))},
			news: []evidence.Fact{born("BULL", "", "2026-03-01", "CALF")},
			want: []string{"0 dam_id: BULL is recorded as male"}},
		{name: "BullAsExposureDam", stored: []evidence.Fact{hf("p", profile("BULL", "male", "2020-01-01"))},
			news: []evidence.Fact{{Kind: evidence.KindExposure, SireID: uid("COW"), DamID: uid("BULL"), StartDate: "2025-06-01"}},
			want: []string{"0 dam_id: BULL is recorded as male"}},
		{name: "CalfAsDamWithoutLimit", stored: []evidence.Fact{hf("p", profile("HEIFER", "female", "2026-02-17"))},
			news: []evidence.Fact{born("HEIFER", "", "2026-03-01", "CALF")}},
		{name: "CalfAsDam", stored: []evidence.Fact{hf("p", profile("HEIFER", "female", "2026-02-17"))},
			news:   []evidence.Fact{born("HEIFER", "", "2026-03-01", "CALF")},
			limits: evidence.HistoryLimits{MinimumBreedingAgeFemale: days(365)},
			want:   []string{"0 dam_id: HEIFER was 12 days old on the birth on 2026-03-01 (this write), younger than the farm's minimum breeding age of 365 days for a female"}},
		{name: "YoungSire", stored: []evidence.Fact{hf("p", profile("BULL", "male", "2025-12-01"))},
			news:   []evidence.Fact{born("COW", "BULL", "2026-03-01", "CALF")},
			limits: evidence.HistoryLimits{MinimumBreedingAgeMale: days(300)},
			want:   []string{"0 sire_id: BULL was 90 days old"}},
		{name: "DamBornAfterTheBirth", stored: []evidence.Fact{hf("p", profile("HEIFER", "female", "2026-04-01"))},
			news: []evidence.Fact{born("HEIFER", "", "2026-03-01", "CALF")},
			want: []string{"0 dam_id: a birth as dam on 2026-03-01 (this write) is dated before HEIFER's birth on 2026-04-01"}},
		{name: "DeadDam", stored: []evidence.Fact{hf("d", dated(evidence.KindDeath, "COW", "2026-01-01"))},
			news: []evidence.Fact{born("COW", "", "2026-03-01", "CALF")},
			want: []string{"0 dam_id: a birth as dam on 2026-03-01 (this write) is dated after COW's death on 2026-01-01 (record " + uid("record:d") + ")"}},
		{name: "DamDiesOnCalvingDay", stored: []evidence.Fact{hf("d", dated(evidence.KindDeath, "COW", "2026-03-01"))},
			news: []evidence.Fact{born("COW", "", "2026-03-01", "CALF")}},
		{name: "DeadSire", stored: []evidence.Fact{hf("d", dated(evidence.KindDeath, "BULL", "2025-07-01"))},
			news: []evidence.Fact{born("COW", "BULL", "2026-03-01", "CALF")}},
		{name: "DamAway", stored: []evidence.Fact{hf("s", dated(evidence.KindMovementOut, "COW", "2026-01-01")), hf("b", dated(evidence.KindMovementIn, "COW", "2026-05-01"))},
			news: []evidence.Fact{born("COW", "", "2026-03-01", "CALF")},
			want: []string{"0 dam_id: COW was not on the farm on the birth on 2026-03-01 (this write): movement out on 2026-01-01 (record " + uid("record:s") + ")"}},
		{name: "DamNotYetBought", stored: []evidence.Fact{hf("b", dated(evidence.KindPurchase, "COW", "2026-05-01"))},
			news: []evidence.Fact{born("COW", "", "2026-03-01", "CALF")},
			want: []string{"0 dam_id: COW was not yet on the farm on the birth on 2026-03-01 (this write): she arrived by purchase on 2026-05-01"}},
		{name: "CalfBoughtAtFoot", stored: []evidence.Fact{hf("b", dated(evidence.KindPurchase, "COW", "2026-05-01")), hf("c", dated(evidence.KindPurchase, "CALF", "2026-05-01"))},
			news: []evidence.Fact{born("COW", "", "2026-03-01", "CALF")}},
		{name: "CalvingsTooClose", stored: []evidence.Fact{hf("b1", born("COW", "", "2026-03-01", "CALF"))},
			news:   []evidence.Fact{born("COW", "", "2026-03-31", "CALF2")},
			limits: evidence.HistoryLimits{MinimumCalvingInterval: days(300)},
			want:   []string{"0 date: COW's births on 2026-03-01 (record " + uid("record:b1") + ") and 2026-03-31 (this write) are 30 days apart, closer than the farm's minimum calving interval of 300 days"}},
		{name: "CalvingsTooCloseWithoutLimit", stored: []evidence.Fact{hf("b1", born("COW", "", "2026-03-01", "CALF"))},
			news: []evidence.Fact{born("COW", "", "2026-03-31", "CALF2")}},
		{name: "Twins", stored: []evidence.Fact{hf("b1", born("COW", "", "2026-03-01", "CALF"))},
			news:   []evidence.Fact{born("COW", "", "2026-03-01", "CALF2")},
			limits: evidence.HistoryLimits{MinimumCalvingInterval: days(300)}},
		{name: "BackdatedDeathBeforeWeight", stored: []evidence.Fact{hf("w", dated(evidence.KindWeight, "C12", "2026-04-01"))},
			news: []evidence.Fact{dated(evidence.KindDeath, "C12", "2026-03-01")},
			want: []string{"0 date: its weight on 2026-04-01 (record " + uid("record:w") + ") is dated after C12's death on 2026-03-01 (this write)"}},
		{name: "BackdatedBirthDateAfterTreatment", stored: []evidence.Fact{hf("t", withIDs("t", treatment))},
			news: []evidence.Fact{profile("C12", "", "2026-10-01")},
			want: []string{"0 birth_date: its treatment on 2026-09-10 (record " + uid("record:t") + ") is dated before C12's birth on 2026-10-01 (this write)"}},
		{name: "SexChangeOfADam", stored: []evidence.Fact{hf("b", born("COW", "", "2026-03-01", "CALF"))},
			news: []evidence.Fact{profile("COW", "male", "")},
			want: []string{"0 sex: COW is recorded as male (this write) and cannot be the dam named on 2026-03-01 (record " + uid("record:b") + ")"}},
		{name: "StoredImpossibilityIsNotTheWritesDoing", stored: []evidence.Fact{hf("p", profile("C12", "male", "2026-02-10")), hf("w", dated(evidence.KindWeight, "C12", "2026-01-01"))},
			news: []evidence.Fact{dated(evidence.KindWeight, "C12", "2026-03-01")}},
		{name: "ProfileBeforeBirth", stored: []evidence.Fact{hf("p", profile("C12", "male", "2026-02-10"))},
			news: []evidence.Fact{{Kind: evidence.KindProfile, AnimalID: uid("C12"), Breed: "Angus", Date: "2026-01-01"}}},
		{name: "CorrectedSale", stored: []evidence.Fact{hf("s", dated(evidence.KindSale, "C12", "2026-05-01"))},
			news: []evidence.Fact{dated(evidence.KindSale, "C12", "2026-05-03")}},
		{name: "DeathAfterSaleIsACorrection", stored: []evidence.Fact{hf("s", dated(evidence.KindSale, "C12", "2026-05-01"))},
			news: []evidence.Fact{dated(evidence.KindDeath, "C12", "2026-05-03")}},
		{name: "CorrectedDeath", stored: []evidence.Fact{hf("d", dated(evidence.KindDeath, "C12", "2026-05-01"))},
			news: []evidence.Fact{dated(evidence.KindDeath, "C12", "2026-05-03")}},
		{name: "PurchaseAfterDeath", stored: []evidence.Fact{hf("d", dated(evidence.KindDeath, "C12", "2026-05-01"))},
			news: []evidence.Fact{dated(evidence.KindPurchase, "C12", "2026-06-01")},
			want: []string{"0 date: its purchase on 2026-06-01 (this write) is dated after C12's death on 2026-05-01"}},
		{name: "CameBack", stored: []evidence.Fact{hf("s", dated(evidence.KindSale, "C12", "2026-05-01")), hf("b", dated(evidence.KindPurchase, "C12", "2026-06-01"))},
			news: []evidence.Fact{dated(evidence.KindWeight, "C12", "2026-07-01")}},
		{name: "WeightAfterSale", stored: []evidence.Fact{hf("s", dated(evidence.KindSale, "C12", "2026-05-01"))},
			news: []evidence.Fact{dated(evidence.KindWeight, "C12", "2026-07-01")},
			want: []string{"0 date: its weight on 2026-07-01 (this write) is dated after C12's sale on 2026-05-01"}},
		{name: "TwoFactsOfOneWrite", news: []evidence.Fact{dated(evidence.KindDeath, "C12", "2026-05-01"), dated(evidence.KindWeight, "C12", "2026-07-01")},
			want: []string{"1 date: its weight on 2026-07-01 (this write) is dated after C12's death on 2026-05-01 (this write)"}},
		{name: "DNAResultAfterDeath", stored: []evidence.Fact{hf("d", dated(evidence.KindDeath, "CALF", "2026-05-01"))},
			news: []evidence.Fact{{Kind: evidence.KindDNAParentage, OffspringID: uid("CALF"), ParentID: uid("COW"), Relation: "dam", Result: "qualified", Date: "2026-08-01"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := evidence.CheckHistory(tc.news, tc.stored, tc.limits, names)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d violations, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				idx, rest, _ := strings.Cut(w, " ")
				field, text, _ := strings.Cut(rest, ": ")
				v := got[i]
				if string(rune('0'+v.Index)) != idx || v.Field != field || !strings.Contains(v.Message, text) {
					t.Errorf("violation %d = %d %s: %s\nwant %s", i, v.Index, v.Field, v.Message, w)
				}
			}
		})
	}
}

// Stored facts in any order give the same answer: facts are dated and order-independent.
func TestCheckHistoryOrderIndependent(t *testing.T) {
	t.Parallel()
	stored := []evidence.Fact{
		hf("w", dated(evidence.KindWeight, "C12", "2026-04-01")),
		hf("p", profile("C12", "male", "2026-02-10")),
		hf("s", dated(evidence.KindSale, "C12", "2026-05-01")),
		hf("b", dated(evidence.KindPurchase, "C12", "2026-06-01")),
	}
	news := []evidence.Fact{dated(evidence.KindWeight, "C12", "2026-07-01"), dated(evidence.KindWeight, "C12", "2026-01-01")}
	want := evidence.CheckHistory(news, stored, evidence.HistoryLimits{}, names)
	if len(want) != 1 || want[0].Index != 1 {
		t.Fatalf("violations: %+v", want)
	}
	for i := range stored {
		rev := append(append([]evidence.Fact{}, stored[i:]...), stored[:i]...)
		got := evidence.CheckHistory(news, rev, evidence.HistoryLimits{}, names)
		if len(got) != 1 || got[0] != want[0] {
			t.Fatalf("rotation %d: %+v", i, got)
		}
	}
}

// An animal's entry onto the farm: its first arrival (born there, bought, moved in), else the
// birth date of its newest profile; none when its facts say neither.
func TestEntryDates(t *testing.T) {
	t.Parallel()
	facts := []evidence.Fact{
		hf("1", profile("COW", "female", "2019-04-01")),
		hf("2", dated(evidence.KindPurchase, "COW", "2024-03-01")),
		hf("3", born("COW", "", "2026-03-01", "CALF")),
		hf("4", profile("HEIFER", "female", "2025-08-15")),
		hf("5", dated(evidence.KindSale, "BULL", "2025-01-01")),
		hf("6", dated(evidence.KindPurchase, "BULL", "2025-06-01")),
		hf("7", born("COW", "", "2023-01-01", "BULL")),
		hf("8", dated(evidence.KindWeight, "OLD", "2020-01-01")),
	}
	got := evidence.EntryDates([]string{uid("COW"), uid("CALF"), uid("HEIFER"), uid("BULL"), uid("OLD")}, facts)
	want := map[string]string{uid("COW"): "2024-03-01", uid("CALF"): "2026-03-01", uid("HEIFER"): "2025-08-15", uid("BULL"): "2023-01-01"}
	if len(got) != len(want) {
		t.Fatalf("entries %v", got)
	}
	for id, d := range want {
		if got[id] != d {
			t.Errorf("%s: %q, want %q", names(id), got[id], d)
		}
	}
	// The profile says so too, on either side of the entry.
	for asOf, status := range map[string]string{"2024-02-29": "not_yet", "2024-03-01": "on_farm"} {
		if p := evidence.ProfileOf(uid("COW"), asOf, facts); p.Status != status {
			t.Errorf("COW on %s: %s, want %s", asOf, p.Status, status)
		}
	}
	if p := evidence.ProfileOf(uid("BULL"), "2025-03-01", facts); p.Status != "sold" {
		t.Errorf("BULL away on 2025-03-01: %s", p.Status)
	}
}
