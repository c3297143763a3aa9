package pedigree_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/herdbook/herdbook/pedigree"
)

// known is a sire known for certain.
func known(id string) []pedigree.Sire { return []pedigree.Sire{{ID: id, Probability: 1}} }

func mustNew(tb testing.TB, animals []pedigree.Animal) *pedigree.Pedigree {
	tb.Helper()
	p, err := pedigree.New(animals)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestTextbookMatings checks F of the offspring of the classic close matings against the
// values computed by hand with Wright's path rule, F = Σ (½)^(n1+n2+1) (1 + F_A) over the
// paths through common ancestors A (Falconer & Mackay, Introduction to Quantitative
// Genetics, ch. 5).
func TestTextbookMatings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		animals []pedigree.Animal
		want    map[string]float64
	}{{
		// full sibs S and D (of founders A and B) mated: two paths S-A-D and S-B-D of
		// three animals each, 2 × (½)³ = ¼.
		name: "FullSibMating",
		animals: []pedigree.Animal{
			{ID: "S", Dam: "B", Sires: known("A")},
			{ID: "D", Dam: "B", Sires: known("A")},
			{ID: "X", Dam: "D", Sires: known("S")},
		},
		want: map[string]float64{"A": 0, "B": 0, "S": 0, "D": 0, "X": 0.25},
	}, {
		// half sibs (common sire A, dams B and C): one path S-A-D, (½)³ = ⅛.
		name: "HalfSibMating",
		animals: []pedigree.Animal{
			{ID: "S", Dam: "B", Sires: known("A")},
			{ID: "D", Dam: "C", Sires: known("A")},
			{ID: "X", Dam: "D", Sires: known("S")},
		},
		want: map[string]float64{"X": 0.125},
	}, {
		// a sire on his daughter: one path S-D, (½)² = ¼.
		name: "ParentOffspringMating",
		animals: []pedigree.Animal{
			{ID: "D", Dam: "B", Sires: known("S")},
			{ID: "X", Dam: "D", Sires: known("S")},
		},
		want: map[string]float64{"D": 0, "X": 0.25},
	}, {
		// first cousins (their parents P and Q full sibs of A × B): paths C1-P-A-Q-C2 and
		// C1-P-B-Q-C2 of five animals, 2 × (½)⁵ = 1/16.
		name: "FirstCousinMating",
		animals: []pedigree.Animal{
			{ID: "P", Dam: "B", Sires: known("A")},
			{ID: "Q", Dam: "B", Sires: known("A")},
			{ID: "C1", Dam: "E", Sires: known("P")},
			{ID: "C2", Dam: "Q", Sires: known("G")},
			{ID: "X", Dam: "C2", Sires: known("C1")},
		},
		want: map[string]float64{"C1": 0, "C2": 0, "X": 0.0625},
	}, {
		// full-sib mating two generations running: F_2 = ¼ (1 + 2 F_1 + F_0) = 3/8
		// (Falconer & Mackay, table 5.1).
		name: "RepeatedFullSibMating",
		animals: []pedigree.Animal{
			{ID: "S1", Dam: "B", Sires: known("A")},
			{ID: "D1", Dam: "B", Sires: known("A")},
			{ID: "S2", Dam: "D1", Sires: known("S1")},
			{ID: "D2", Dam: "D1", Sires: known("S1")},
			{ID: "X", Dam: "D2", Sires: known("S2")},
		},
		want: map[string]float64{"S2": 0.25, "D2": 0.25, "X": 0.375},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.animals)
			for id, want := range tc.want {
				if got, ok := p.Inbreeding(id); !ok || got != want {
					t.Errorf("F(%s) = %v, %v; want %v exactly", id, got, ok, want)
				}
			}
		})
	}
}

// TestUncertainSire is worked by hand with Henderson's (1988) average relationship: the calf
// X of dam D has sire S1 (D's full brother) or S2 (unrelated), each with probability ½.
//
//	a(D, S1) = ½, a(D, S2) = 0
//	F_X = ½ (½ a(D, S1) + ½ a(D, S2)) = ½ (¼ + 0) = ⅛
//	a(X, S1) = ½ a(D, S1) + ½ (½ a(S1, S1) + ½ a(S2, S1)) = ¼ + ¼ = ½
//	a(X, S2) = ½ a(D, S2) + ½ (½ a(S1, S2) + ½ a(S2, S2)) = 0 + ¼ = ¼
//	a(X, D)  = ½ a(D, D) + ½ (½ a(S1, D) + ½ a(S2, D)) = ½ + ⅛ = ⅝
//
// X mated back to S1 gives a calf with expected F = ½ a(X, S1) = ¼; to S2, ⅛.
// A calf Y of X by S1 (⅔) or S2 (⅓): F_Y = ½ (⅔ · ½ + ⅓ · ¼) = 5/24.
func TestUncertainSire(t *testing.T) {
	animals := []pedigree.Animal{
		{ID: "S1", Dam: "B", Sires: known("A")},
		{ID: "D", Dam: "B", Sires: known("A")},
		{ID: "X", Dam: "D", Sires: []pedigree.Sire{{ID: "S1", Probability: 0.5}, {ID: "S2", Probability: 0.5}}},
		{ID: "Y", Dam: "X", Sires: []pedigree.Sire{{ID: "S1", Probability: 2.0 / 3}, {ID: "S2", Probability: 1.0 / 3}}},
	}
	p := mustNew(t, animals)
	check := func(what string, got, want float64) {
		t.Helper()
		if !near(got, want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	fx, _ := p.Inbreeding("X")
	check("F(X)", fx, 0.125)
	fy, _ := p.Inbreeding("Y")
	check("F(Y)", fy, 5.0/24)
	check("a(X,S1)", p.Relationship("X", "S1"), 0.5)
	check("a(S1,X)", p.Relationship("S1", "X"), 0.5)
	check("a(X,S2)", p.Relationship("X", "S2"), 0.25)
	check("a(X,D)", p.Relationship("X", "D"), 0.625)
	check("a(X,X)", p.Relationship("X", "X"), 1.125)
	check("coancestry(X,S1)", p.Coancestry("X", "S1"), 0.25)
	advice := p.RelationshipsTo("X", "S1", "S2", "nobody")
	check("calf of X by S1", advice[0]/2, 0.25)
	check("calf of X by S2", advice[1]/2, 0.125)
	check("calf of X by an unknown bull", advice[2], 0)
	// An excluded candidate (probability 0) is no candidate; a DNA-qualified one is certain.
	q := mustNew(t, []pedigree.Animal{
		{ID: "S1", Dam: "B", Sires: known("A")},
		{ID: "D", Dam: "B", Sires: known("A")},
		{ID: "X", Dam: "D", Sires: []pedigree.Sire{{ID: "S1", Probability: 1}, {ID: "S2", Probability: 0}}},
	})
	fq, _ := q.Inbreeding("X")
	check("F(X) with S1 qualified", fq, 0.25)
	if q.Uncertain("X") || !p.Uncertain("X") {
		t.Errorf("Uncertain(X) = %v with S1 qualified, %v with two candidates", q.Uncertain("X"), p.Uncertain("X"))
	}
	// A sole candidate that a review presumed is certain in the numbers, not in the answer.
	r := mustNew(t, []pedigree.Animal{{ID: "X", Dam: "D", Sires: known("S1"), Presumed: true}, {ID: "Z", Dam: "X", Sires: known("S2")}})
	if !r.Uncertain("X") || r.Uncertain("Z") || !reflect.DeepEqual(r.UncertainAncestry("Z"), []string{"X"}) {
		t.Errorf("presumed sire: Uncertain(X) %v, Uncertain(Z) %v, UncertainAncestry(Z) %v", r.Uncertain("X"), r.Uncertain("Z"), r.UncertainAncestry("Z"))
	}
	if got, want := p.UncertainAncestry("Y"), []string{"X", "Y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("UncertainAncestry(Y) = %v, want %v", got, want)
	}
}

func TestAncestors(t *testing.T) {
	p := mustNew(t, []pedigree.Animal{
		{ID: "S1", Dam: "B", Sires: known("A")},
		{ID: "S2", Dam: "B"},
		{ID: "D", Dam: "B", Sires: known("A")},
		{ID: "X", Dam: "D", Sires: []pedigree.Sire{{ID: "S1", Probability: 0.75}, {ID: "S2", Probability: 0.25}}},
	})
	got := p.Ancestors("X", 2)
	want := []pedigree.Ancestor{
		{ID: "D", Generation: 1, Relation: "dam", Probability: 1},
		{ID: "S1", Generation: 1, Relation: "sire", Probability: 0.75},
		{ID: "S2", Generation: 1, Relation: "sire", Probability: 0.25},
		{ID: "B", Generation: 2, Relation: "dam's dam", Probability: 1},
		{ID: "A", Generation: 2, Relation: "dam's sire", Probability: 1},
		// S1 and S2 are maternal half brothers: B is the sire's dam whichever sired X.
		{ID: "B", Generation: 2, Relation: "sire's dam", Probability: 1},
		{ID: "A", Generation: 2, Relation: "sire's sire", Probability: 0.75},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Ancestors(X, 2) =\n%+v\nwant\n%+v", got, want)
	}
	if got := p.Ancestors("X", 1); len(got) != 3 {
		t.Errorf("Ancestors(X, 1) = %+v, want the three parents' places", got)
	}
	if got := p.Ancestors("nobody", 3); got != nil {
		t.Errorf("Ancestors(nobody) = %+v", got)
	}
}

func TestNewErrors(t *testing.T) {
	half := func(ids ...string) []pedigree.Sire {
		var s []pedigree.Sire
		for _, id := range ids {
			s = append(s, pedigree.Sire{ID: id, Probability: 0.6})
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		animals []pedigree.Animal
		loop    bool
	}{
		{"ErrDuplicate", []pedigree.Animal{{ID: "A"}, {ID: "A"}}, false},
		{"ErrOwnDam", []pedigree.Animal{{ID: "A", Dam: "A"}}, true},
		{"ErrOwnSire", []pedigree.Animal{{ID: "A", Sires: known("A")}}, true},
		{"ErrDamIsSire", []pedigree.Animal{{ID: "A", Dam: "B", Sires: known("B")}}, false},
		{"ErrProbabilitiesOverOne", []pedigree.Animal{{ID: "A", Sires: half("B", "C")}}, false},
		{"ErrNegativeProbability", []pedigree.Animal{{ID: "A", Sires: []pedigree.Sire{{ID: "B", Probability: -0.1}}}}, false},
		{"ErrLoop", []pedigree.Animal{{ID: "A", Dam: "B"}, {ID: "B", Dam: "C"}, {ID: "C", Sires: known("A")}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pedigree.New(tc.animals)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, pedigree.ErrLoop) != tc.loop {
				t.Errorf("error %q: is ErrLoop %v, want %v", err, !tc.loop, tc.loop)
			}
		})
	}
}

// randomPedigree is n animals, each (after a few founders) with a dam among the older
// animals, and a known sire, candidate sires or none; outside sires (not listed) appear
// among the candidates.
func randomPedigree(r *rand.Rand, n int) []pedigree.Animal {
	animals := make([]pedigree.Animal, n)
	for i := range animals {
		a := pedigree.Animal{ID: fmt.Sprint("a", i)}
		if i >= 4 {
			if r.IntN(10) > 0 {
				a.Dam = fmt.Sprint("a", r.IntN(i))
			}
			pick := func() string {
				if r.IntN(8) == 0 {
					return fmt.Sprint("outside", r.IntN(3))
				}
				return fmt.Sprint("a", r.IntN(i))
			}
			switch r.IntN(4) {
			case 0: // unknown sire
			case 1:
				if s := pick(); s != a.Dam {
					a.Sires = known(s)
				}
			default:
				k := 2 + r.IntN(3)
				left := 1.0
				if r.IntN(3) == 0 {
					left = 0.8 // the rest to an unknown sire
				}
				seen := map[string]bool{a.Dam: true}
				for range k {
					s := pick()
					if seen[s] {
						continue
					}
					seen[s] = true
					a.Sires = append(a.Sires, pedigree.Sire{ID: s, Probability: left / float64(k)})
				}
			}
		}
		animals[i] = a
	}
	// list them out of order: New must sort them
	r.Shuffle(len(animals), func(i, j int) { animals[i], animals[j] = animals[j], animals[i] })
	return animals
}

// tabular is the dense average numerator relationship matrix by Henderson's (1976) tabular
// method, with an uncertain sire replaced by its candidates' weighted mix (Henderson 1988):
// an independent computation of what the package computes sparsely.
func tabular(animals []pedigree.Animal) (map[string]int, [][]float64) {
	byID := map[string]pedigree.Animal{}
	for _, a := range animals {
		byID[a.ID] = a
	}
	// order: parents first, by depth-first search
	index := map[string]int{}
	var order []string
	var visit func(id string)
	visit = func(id string) {
		if _, ok := index[id]; ok {
			return
		}
		a := byID[id]
		if a.Dam != "" {
			visit(a.Dam)
		}
		for _, s := range a.Sires {
			visit(s.ID)
		}
		index[id] = len(order)
		order = append(order, id)
	}
	for _, a := range animals {
		visit(a.ID)
	}
	n := len(order)
	A := make([][]float64, n)
	for i := range A {
		A[i] = make([]float64, n)
	}
	for i, id := range order {
		a := byID[id]
		d := -1
		if a.Dam != "" {
			d = index[a.Dam]
		}
		for j := range i {
			v := 0.0
			if d >= 0 {
				v += 0.5 * A[d][j]
			}
			for _, s := range a.Sires {
				v += 0.5 * s.Probability * A[index[s.ID]][j]
			}
			A[i][j], A[j][i] = v, v
		}
		A[i][i] = 1
		if d >= 0 {
			for _, s := range a.Sires {
				A[i][i] += 0.5 * s.Probability * A[d][index[s.ID]]
			}
		}
	}
	return index, A
}

// TestAgainstTabularMethod checks F, relationships and coancestries on random pedigrees with
// uncertain and outside sires against the dense tabular matrix.
func TestAgainstTabularMethod(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 21))
		animals := randomPedigree(r, 30+r.IntN(150))
		p := mustNew(t, animals)
		index, A := tabular(animals)
		if p.Len() != len(index) {
			t.Fatalf("seed %d: %d animals, tabular has %d", seed, p.Len(), len(index))
		}
		all := p.InbreedingAll()
		ids := make([]string, 0, len(index))
		for id, i := range index {
			ids = append(ids, id)
			if want := A[i][i] - 1; !near(all[id], want) {
				t.Errorf("seed %d: F(%s) = %v, tabular %v", seed, id, all[id], want)
			}
		}
		for range 50 {
			a, b := ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]
			if got, want := p.Relationship(a, b), A[index[a]][index[b]]; !near(got, want) {
				t.Errorf("seed %d: a(%s, %s) = %v, tabular %v", seed, a, b, got, want)
			}
			if got, want := p.Coancestry(a, b), A[index[a]][index[b]]/2; !near(got, want) {
				t.Errorf("seed %d: coancestry(%s, %s) = %v, tabular %v", seed, a, b, got, want)
			}
		}
		// a sub-pedigree answers the same for its animals
		sub := p.Sub(ids[0], ids[1])
		for _, id := range ids[:2] {
			got, _ := sub.Inbreeding(id)
			if !near(got, all[id]) {
				t.Errorf("seed %d: F(%s) in the sub-pedigree = %v, in the whole %v", seed, id, got, all[id])
			}
		}
		if got, want := sub.Relationship(ids[0], ids[1]), A[index[ids[0]]][index[ids[1]]]; !near(got, want) {
			t.Errorf("seed %d: sub-pedigree a(%s, %s) = %v, tabular %v", seed, ids[0], ids[1], got, want)
		}
		col := p.RelationshipsTo(ids[2], ids...)
		for k, id := range ids {
			if want := A[index[ids[2]]][index[id]]; !near(col[k], want) {
				t.Errorf("seed %d: column a(%s, %s) = %v, tabular %v", seed, ids[2], id, col[k], want)
			}
		}
	}
}
