package pedigree_test

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/herdbook/herdbook/pedigree"
)

// herd is a closed herd bred for years: yearly calf crops of calves each, from cows of the
// two to ten previous crops and from bulls chosen out of the crop two years back (bulls each
// year, each used four seasons, so about 4×bulls serve at once). One birth in six has two or
// three candidate sires (a mob of bulls), one in twenty an unknown sire, one in fifty an AI
// sire from outside the farm.
func herd(years, calves, bulls int) []pedigree.Animal {
	r := rand.New(rand.NewPCG(1, 2))
	var animals []pedigree.Animal
	crops := make([][]int, years)
	var sires [][]string // bulls chosen in each year
	for y := range years {
		var active []string
		for b := max(0, y-3); b < y; b++ {
			active = append(active, sires[b]...)
		}
		for c := range calves {
			a := pedigree.Animal{ID: fmt.Sprintf("y%dc%d", y, c)}
			if y >= 2 {
				from := crops[max(0, y-10)+r.IntN(y-1-max(0, y-10))]
				a.Dam = animals[from[r.IntN(len(from)/2)*2]].ID // even calves are heifers
			}
			switch u := r.IntN(100); {
			case len(active) == 0 || u < 5:
			case u < 7:
				a.Sires = []pedigree.Sire{{ID: fmt.Sprint("ai", r.IntN(20)), Probability: 1}}
			case u < 24:
				k := 2 + r.IntN(2)
				seen := map[string]bool{}
				for range k {
					s := active[r.IntN(len(active))]
					if !seen[s] {
						seen[s] = true
						a.Sires = append(a.Sires, pedigree.Sire{ID: s, Probability: 1 / float64(k)})
					}
				}
			default:
				a.Sires = []pedigree.Sire{{ID: active[r.IntN(len(active))], Probability: 1}}
			}
			crops[y] = append(crops[y], len(animals))
			animals = append(animals, a)
		}
		var chosen []string
		if y >= 2 {
			from := crops[y-2]
			for range bulls {
				chosen = append(chosen, animals[from[r.IntN(len(from)/2)*2+1]].ID) // odd calves are bulls
			}
		}
		sires = append(sires, chosen)
	}
	return animals
}

// BenchmarkInbreeding computes F for every animal of a 100,000-animal pedigree (20 crops of
// 5,000 calves, 40 new bulls a year, about 740 sires with outside ones), checked against
// 1 s in TestInbreeding100k.
func BenchmarkInbreeding(b *testing.B) {
	animals := herd(20, 5000, 40)
	for b.Loop() {
		p, err := pedigree.New(animals)
		if err != nil {
			b.Fatal(err)
		}
		if f, _ := p.Inbreeding(animals[len(animals)-1].ID); f < 0 {
			b.Fatal("negative F")
		}
	}
}

// TestInbreeding100k holds the 100,000-animal pedigree (checking it and computing F for
// all) under a second of CPU time. CPU time, not wall time: the machines tests run on are
// shared, and waiting for a core is not the algorithm's cost. BenchmarkInbreeding gives the
// wall time.
func TestInbreeding100k(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	animals := herd(20, 5000, 40)
	cpu := func() time.Duration {
		var u syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
			t.Fatal(err)
		}
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	const runs = 3
	start, wall := cpu(), time.Now()
	for range runs {
		p, err := pedigree.New(animals)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.InbreedingAll()) != len(animals)+20 {
			t.Fatal("F missing for some animals")
		}
	}
	per := (cpu() - start) / runs
	t.Logf("%d animals: %v CPU, %v wall a run", len(animals), per, time.Since(wall)/runs)
	if per > time.Second {
		t.Errorf("F for %d animals took %v of CPU time, want under 1 s", len(animals), per)
	}
}
