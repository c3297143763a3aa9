package evidence_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/herdbook/herdbook/evidence"
)

// benchFacts builds a farm where about a thousand facts bear on one dam:
// 150 sires with profiles, direct and group exposures, castrations and
// movements, and the dam's own memberships and movements over four years.
func benchFacts() []evidence.Fact {
	day := func(i int) string {
		return time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.DateOnly)
	}
	rng := rand.New(rand.NewPCG(42, 42))
	var fs []evidence.Fact
	add := func(f evidence.Fact) { fs = append(fs, f) }
	add(damProfile())
	for i := range 100 {
		g := fmt.Sprint("group", i%5)
		end := ""
		if i%3 == 0 {
			end = day(i*15 + 10)
		}
		add(membershipF(fmt.Sprint("m", i), "dam", g, day(i*15), end))
	}
	for i := range 50 {
		kinds := []evidence.Kind{evidence.KindPurchase, evidence.KindMovementIn, evidence.KindMovementOut}
		add(moveF(fmt.Sprint("d", i), kinds[i%3], "dam", day(rng.IntN(1500))))
	}
	for i := range 150 {
		sire := fmt.Sprint("sire", i)
		add(profileF("p"+sire, sire, []string{"male", "male", "male", "female"}[i%4], day(rng.IntN(900)), "Hereford"))
		start := 1400 + rng.IntN(60)
		add(exposureDamF("ed"+sire, sire, "dam", day(start), day(start+rng.IntN(30))))
		add(exposureGroupF("eg"+sire, sire, fmt.Sprint("group", i%5), day(1380+rng.IntN(80)), ""))
		if i%5 == 0 {
			add(castrationF("c"+sire, sire, day(1000+rng.IntN(500))))
		}
		add(moveF("o"+sire, evidence.KindMovementOut, sire, day(1300+rng.IntN(200))))
		add(moveF("i"+sire, evidence.KindMovementIn, sire, day(1300+rng.IntN(200))))
	}
	rng.Shuffle(len(fs), func(a, b int) { fs[a], fs[b] = fs[b], fs[a] })
	return fs
}

func BenchmarkReview(b *testing.B) {
	facts := benchFacts()
	in := evidence.Input{Settings: baseSettings(), DamID: uid("dam"), BirthDate: "2025-09-20", Facts: facts}
	ev := evidence.Review(in)
	checkLimits(b, ev)
	if len(ev.Sire.Candidates) < 50 {
		b.Fatalf("only %d candidates: the benchmark does not exercise the rules", len(ev.Sire.Candidates))
	}
	b.ReportMetric(float64(len(facts)), "facts")
	b.ReportAllocs()
	for b.Loop() {
		evidence.Review(in)
	}
}
