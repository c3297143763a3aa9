package evidence_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/herdbook/herdbook/evidence"
)

// randomFarm draws a farm's breeding history from rng: 12 females and 6 males, 3 groups,
// dated memberships (some ended by a membership_end), group and direct exposures,
// inseminations, hand matings and embryo transfers, births naming offspring, DNA results
// about those offspring, castrations, moves, sales, deaths and scans. Every fact is valid,
// so that the reviews find candidates on every path.
func randomFarm(rng *rand.Rand) (*evidence.Settings, []evidence.Fact, []string) {
	day := func() string {
		return time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(900)).Format(time.DateOnly)
	}
	later := func(d string) string {
		t, _ := time.Parse(time.DateOnly, d)
		return t.AddDate(0, 0, 1+rng.IntN(200)).Format(time.DateOnly)
	}
	var females, males, groups []string
	for i := range 12 {
		females = append(females, uid(fmt.Sprint("cow", i)))
	}
	for i := range 6 {
		males = append(males, uid(fmt.Sprint("bull", i)))
	}
	for i := range 3 {
		groups = append(groups, uid(fmt.Sprint("group", i)))
	}
	anyOf := func(ids []string) string { return ids[rng.IntN(len(ids))] }
	animal := func() string {
		if rng.IntN(3) == 0 {
			return anyOf(males)
		}
		return anyOf(females)
	}
	var facts []evidence.Fact
	n := 0
	add := func(f evidence.Fact) {
		n++
		f.RecordID, f.RecordItemID = uid(fmt.Sprint("record", n)), uid(fmt.Sprint("item", n))
		facts = append(facts, f)
	}
	for _, id := range females {
		add(evidence.Fact{Kind: evidence.KindProfile, AnimalID: id, Sex: evidence.SexFemale, BirthDate: "2020-01-01"})
	}
	for i, id := range males {
		f := evidence.Fact{Kind: evidence.KindProfile, AnimalID: id, Sex: evidence.SexMale, Breed: []string{"", "Angus"}[i%2]}
		if i%3 != 2 {
			f.BirthDate = []string{"2019-05-01", "2024-09-01"}[i%2]
		}
		add(f)
	}
	for range 200 {
		switch rng.IntN(12) {
		case 0, 1, 2:
			f := evidence.Fact{Kind: evidence.KindMembership, AnimalID: animal(), GroupID: anyOf(groups), StartDate: day()}
			if rng.IntN(3) == 0 {
				f.EndDate = later(f.StartDate)
			}
			add(f)
		case 3:
			add(evidence.Fact{Kind: evidence.KindMembershipEnd, AnimalID: animal(), GroupID: anyOf(groups), Date: day()})
		case 4:
			f := evidence.Fact{Kind: evidence.KindExposure, SireID: anyOf(males), StartDate: day()}
			if rng.IntN(2) == 0 {
				f.DamID = anyOf(females)
			} else {
				f.GroupID = anyOf(groups)
			}
			if rng.IntN(2) == 0 {
				f.EndDate = later(f.StartDate)
			}
			add(f)
		case 5:
			kind := []evidence.Kind{evidence.KindInsemination, evidence.KindHandMating, evidence.KindEmbryoTransfer}[rng.IntN(3)]
			f := evidence.Fact{Kind: kind, DamID: anyOf(females), SireID: anyOf(males), Date: day()}
			if kind == evidence.KindEmbryoTransfer {
				f.RecipientID = anyOf(females)
			}
			add(f)
		case 6, 7:
			f := evidence.Fact{Kind: evidence.KindBirth, DamID: anyOf(females), Date: day(), OffspringIDs: []string{uid(fmt.Sprint("calf", n))}}
			add(f)
			if rng.IntN(2) == 0 {
				result := []string{evidence.ResultQualified, evidence.ResultExcluded}[rng.IntN(2)]
				add(evidence.Fact{Kind: evidence.KindDNAParentage, OffspringID: f.OffspringIDs[0], ParentID: anyOf(males),
					Relation: evidence.RelationSire, Result: result, Date: later(f.Date)})
			}
		case 8:
			add(evidence.Fact{Kind: evidence.KindCastration, AnimalID: anyOf(males), Date: day()})
		case 9:
			kind := []evidence.Kind{evidence.KindPurchase, evidence.KindMovementIn, evidence.KindMovementOut, evidence.KindSale, evidence.KindDeath}[rng.IntN(5)]
			add(evidence.Fact{Kind: kind, AnimalID: animal(), Date: day()})
		case 10:
			add(evidence.Fact{Kind: evidence.KindPregnancyCheck, AnimalID: anyOf(females), Date: day(),
				Method: evidence.MethodScan, Result: []string{evidence.ResultPregnant, evidence.ResultEmpty}[rng.IntN(2)]})
		case 11:
			add(evidence.Fact{Kind: evidence.KindWeight, AnimalID: animal(), Date: day(), KG: "300"})
		}
	}
	st := &evidence.Settings{Version: 1, Species: "CATTLE", GestationDays: &evidence.Range{Min: 270, Max: 295},
		MinimumSireAgeDays: intp(400), BirthWindows: []evidence.Window{}}
	return st, facts, females
}

// TestIndexReviewsAsAllFacts holds the index's pick of a birth's facts to the review over
// every fact of the farm: the same sire, candidates, reasons and provenance, for every
// birth of random farms and for dates no birth names.
func TestIndexReviewsAsAllFacts(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 3))
	candidates, presumed := 0, 0
	for farm := range 40 {
		st, facts, females := randomFarm(rng)
		x := evidence.NewIndex(st, facts)
		var births [][2]string
		for _, f := range facts {
			if f.Kind == evidence.KindBirth {
				births = append(births, [2]string{f.DamID, f.Date})
			}
		}
		births = append(births, [2]string{females[0], "2025-04-01"}, [2]string{females[1], "2024-12-24"})
		for _, b := range births {
			want := evidence.Review(evidence.Input{Settings: st, DamID: b[0], BirthDate: b[1], Facts: facts})
			in := x.Input(b[0], b[1])
			if len(in.Facts) > len(facts) {
				t.Fatalf("the index picked %d facts of %d", len(in.Facts), len(facts))
			}
			got := evidence.Review(in)
			if g, w := MustJSON(t, got.Sire), MustJSON(t, want.Sire); g != w {
				t.Fatalf("farm %d, dam %s born %s:\nindex     %s\nall facts %s", farm, b[0], b[1], g, w)
			}
			candidates += len(got.Sire.Candidates)
			if got.Sire.Status == evidence.SirePresumed {
				presumed++
			}
		}
	}
	if candidates < 100 || presumed < 20 {
		t.Fatalf("%d candidates, %d presumed sires: the test proves little", candidates, presumed)
	}
	t.Logf("%d candidates, %d presumed sires", candidates, presumed)
}

// BenchmarkIndexReviews reviews, through the index, every birth of a suckler herd recorded
// with no sire, as the pedigree does: 2,000 cows in 10 groups, each group joined for ten
// weeks a year by two of the farm's 30 bulls (dated memberships: natural service), six
// seasons, every cow calving every year, so 12,000 reviews over 38,000 facts.
func BenchmarkIndexReviews(b *testing.B) {
	var facts []evidence.Fact
	n := 0
	add := func(f evidence.Fact) {
		n++
		f.RecordID, f.RecordItemID = uid(fmt.Sprint("record", n)), uid(fmt.Sprint("item", n))
		facts = append(facts, f)
	}
	var bulls []string
	for i := range 30 {
		bulls = append(bulls, uid(fmt.Sprint("bull", i)))
		add(evidence.Fact{Kind: evidence.KindProfile, AnimalID: bulls[i], Sex: evidence.SexMale, BirthDate: "2015-03-01"})
	}
	type birth struct{ dam, date string }
	var births []birth
	for c := range 2000 {
		cow, group := uid(fmt.Sprint("cow", c)), uid(fmt.Sprint("group", c%10))
		add(evidence.Fact{Kind: evidence.KindProfile, AnimalID: cow, Sex: evidence.SexFemale, BirthDate: "2016-03-01"})
		add(evidence.Fact{Kind: evidence.KindMembership, AnimalID: cow, GroupID: group, StartDate: "2017-01-01"})
		for y := 2018; y < 2024; y++ {
			date := fmt.Sprintf("%d-03-%02d", y, 1+c%28)
			add(evidence.Fact{Kind: evidence.KindBirth, DamID: cow, Date: date, OffspringIDs: []string{uid(fmt.Sprint("calf", c, y))}})
			births = append(births, birth{cow, date})
		}
	}
	for y := 2017; y < 2023; y++ {
		for g := range 10 {
			for k := range 2 {
				add(evidence.Fact{Kind: evidence.KindMembership, AnimalID: bulls[(g*2+k+y)%30], GroupID: uid(fmt.Sprint("group", g)),
					StartDate: fmt.Sprintf("%d-05-15", y), EndDate: fmt.Sprintf("%d-07-25", y)})
			}
		}
	}
	st := &evidence.Settings{Version: 1, Species: "CATTLE", GestationDays: &evidence.Range{Min: 270, Max: 295}, BirthWindows: []evidence.Window{}}
	b.ReportAllocs()
	for b.Loop() {
		x := evidence.NewIndex(st, facts)
		presumed := 0
		for _, bt := range births {
			if len(evidence.Review(x.Input(bt.dam, bt.date)).Sire.Candidates) == 2 {
				presumed++
			}
		}
		if presumed == 0 {
			b.Fatal("no birth with the two bulls of its group as candidates")
		}
	}
}

// TestGroupKindsDecideGroups: an animal's groups on a day, derived from its facts of
// GroupKinds alone, are its groups derived from all its facts, for every animal of random
// farms (memberships open and closed, their ends, moves, sales and deaths among births,
// weights and exposures) on days before, during and after their histories.
func TestGroupKindsDecideGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 2))
	kinds := map[evidence.Kind]bool{}
	for _, k := range evidence.GroupKinds {
		kinds[k] = true
	}
	for range 40 {
		_, facts, _ := randomFarm(rng)
		var some []evidence.Fact
		ids := map[string]bool{}
		for _, f := range facts {
			if kinds[f.Kind] {
				some = append(some, f)
			}
			if f.AnimalID != "" {
				ids[f.AnimalID] = true
			}
		}
		var keys []string
		for id := range ids {
			keys = append(keys, id)
		}
		for d := 0; d < 1200; d += 37 {
			day := time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d).Format(time.DateOnly)
			all, only := evidence.ProfilesOf(keys, day, facts), evidence.ProfilesOf(keys, day, some)
			for _, id := range keys {
				if fmt.Sprint(all[id].GroupIDs) != fmt.Sprint(only[id].GroupIDs) {
					t.Fatalf("%s on %s: groups %v from all facts, %v from GroupKinds", id, day, all[id].GroupIDs, only[id].GroupIDs)
				}
			}
		}
	}
}
