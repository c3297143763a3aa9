// Package pedigree computes relationships between animals from their parents: Wright's
// inbreeding coefficient F of every animal, the coancestry of any two animals, and the
// ancestors of an animal to a depth, each with the probability that it stands where the
// chart puts it.
//
// Paternity may be uncertain. A birth may name a list of candidate sires with probabilities
// (a DNA-qualified sire 1, an excluded one 0, otherwise the weights of the farm's evidence
// review); the sire is then replaced by the probability-weighted mix of the candidates, so
// every relationship is the expectation over the candidates: Henderson's average numerator
// relationship matrix (Henderson 1988, J. Dairy Sci. 71 suppl. 2; Perez-Enciso & Fernando
// 1992). With x the animal and s_k the candidates of its sire with probabilities p_k,
//
//	a(i, x) = ½ a(i, dam) + ½ Σ p_k a(i, s_k)     for every i older than x
//	a(x, x) = 1 + F_x,   F_x = ½ Σ p_k a(dam, s_k)
//
// and with one candidate of probability 1 these are the rules of the tabular method
// (Henderson 1976; Falconer & Mackay, Introduction to Quantitative Genetics, ch. 5): F of an
// animal is half the additive relationship of its parents, which is twice their coancestry.
// Probabilities that sum to less than 1 leave the rest to an unknown sire, who is unrelated
// to everyone (a founder). A parent that is not itself listed is a founder too: an animal
// from outside the farm (an AI bull, an embryo donor) is a parent like any other, and may be
// listed with its own parents when they are known.
//
// The matrix is never built. It factors as A = T D Tᵀ with T = (I − P)⁻¹, where row x of P
// holds ½ at the dam and ½ p_k at each candidate sire, and D is diagonal with
//
//	D_x = 1 − ¼ (1 + F_dam) − ¼ Σ_k Σ_l p_k p_l a(s_k, s_l)
//
// (a term drops out when that parent is unknown). This is the decomposition Meuwissen & Luo
// (1992, Genet. Sel. Evol. 24:305) use, extended to the mixed sire. One column of A, the
// relationships of every animal to one animal s, is T D Tᵀ e_s: a pass up the ancestors of
// s and one pass down the pedigree (Colleau 2002's indirect method). F for everyone then
// takes one column per animal used as a sire: F_x = ½ Σ p_k a(dam, s_k) is read from the
// columns of x's candidate sires, in the manner of Sargolzaei, Iwaisaki & Colleau (2005).
// The cost is (number of sires) × (animals), with no per-animal ancestor tracing; a
// 100,000-animal pedigree with a few hundred sires takes well under a second
// (BenchmarkInbreeding).
//
// The package is pure: it reads values and performs no I/O.
package pedigree

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// Sire is a candidate sire with the probability that it is the sire.
type Sire struct {
	ID          string
	Probability float64
}

// Animal is one animal with its dam and its candidate sires. Dam is empty when unknown. Sires
// is empty when the sire is unknown, holds one sire with probability 1 when it is known, and
// several when paternity is uncertain; their probabilities sum to at most 1 (the remainder is
// an unknown sire). Candidates with probability 0 (excluded) are ignored.
type Animal struct {
	ID    string
	Dam   string
	Sires []Sire
	// Presumed says the sires come from a review of the records rather than from a record
	// of the birth or a DNA result: the animal's paternity counts as uncertain even when a
	// sole candidate has probability 1.
	Presumed bool
}

// tolerance is how far probabilities may sum past 1 through rounding.
const tolerance = 1e-9

// ErrLoop is wrapped by the error New returns when an animal is its own ancestor.
var ErrLoop = errors.New("an animal is its own ancestor")

// Pedigree is a checked pedigree, its animals numbered parents before offspring. It is safe
// for concurrent use: coefficients are computed once, on first use.
type Pedigree struct {
	ids   []string
	index map[string]int32
	dam   []int32   // -1 when unknown
	off   []int32   // candidate sires of i are sire[off[i]:off[i+1]]
	sire  []int32   //
	prob  []float64 // probability of each candidate
	listd []bool    // listed (not a founder added for being named as a parent)
	pres  []bool    // presumed sires (Animal.Presumed)

	once sync.Once
	f    []float64 // inbreeding coefficients
	dd   []float64 // D of A = T D Tᵀ
}

// New checks the animals and orders them. An animal listed twice, a parent named as its own
// offspring's other parent, a probability outside [0, 1] or candidates summing past 1 are
// errors, as is a loop (an animal among its own ancestors; the error wraps ErrLoop).
func New(animals []Animal) (*Pedigree, error) {
	// Number the listed animals in the order given, then the parents that are not listed
	// (founders), in the order they are first named.
	pos := make(map[string]int32, len(animals)+len(animals)/8)
	ids := make([]string, 0, len(animals))
	for _, a := range animals {
		if a.ID == "" {
			return nil, errors.New("pedigree: an animal has no id")
		}
		if _, dup := pos[a.ID]; dup {
			return nil, fmt.Errorf("pedigree: animal %s is listed twice", a.ID)
		}
		pos[a.ID] = int32(len(ids))
		ids = append(ids, a.ID)
	}
	listed := len(ids)
	number := func(id string) int32 {
		i, ok := pos[id]
		if !ok {
			i = int32(len(ids))
			pos[id] = i
			ids = append(ids, id)
		}
		return i
	}
	pres := make([]bool, listed, listed+listed/8)
	dam := make([]int32, listed, listed+listed/8)
	off := make([]int32, 1, listed+1)
	var sire []int32
	var prob []float64
	for k, a := range animals {
		dam[k], pres[k] = -1, a.Presumed
		if a.Dam == a.ID {
			return nil, fmt.Errorf("pedigree: animal %s is its own dam: %w", a.ID, ErrLoop)
		}
		if a.Dam != "" {
			dam[k] = number(a.Dam)
		}
		sum := 0.0
		first := len(sire)
		for _, c := range a.Sires {
			if c.Probability < 0 || c.Probability > 1+tolerance || math.IsNaN(c.Probability) {
				return nil, fmt.Errorf("pedigree: sire %s of animal %s has probability %v, outside 0 to 1", c.ID, a.ID, c.Probability)
			}
			if c.Probability == 0 {
				continue
			}
			switch {
			case c.ID == "":
				return nil, fmt.Errorf("pedigree: a sire of animal %s has no id", a.ID)
			case c.ID == a.ID:
				return nil, fmt.Errorf("pedigree: animal %s is its own sire: %w", a.ID, ErrLoop)
			case c.ID == a.Dam:
				return nil, fmt.Errorf("pedigree: animal %s has %s as both dam and sire", a.ID, c.ID)
			}
			j := number(c.ID)
			if slices.Contains(sire[first:], j) {
				return nil, fmt.Errorf("pedigree: sire %s of animal %s is listed twice", c.ID, a.ID)
			}
			sum += c.Probability
			sire = append(sire, j)
			prob = append(prob, math.Min(c.Probability, 1))
		}
		if sum > 1+tolerance {
			return nil, fmt.Errorf("pedigree: the sires of animal %s have probabilities summing to %v, more than 1", a.ID, sum)
		}
		off = append(off, int32(len(sire)))
	}
	n := len(ids)
	for range n - listed { // founders
		dam, pres = append(dam, -1), append(pres, false)
		off = append(off, int32(len(sire)))
	}

	// Kahn's algorithm, parents before offspring; ties keep the input order so that the
	// numbering (and the floating-point sums) do not depend on map order.
	indeg := make([]int32, n)
	nkids := make([]int32, n+1)
	for i := range n {
		if d := dam[i]; d >= 0 {
			indeg[i]++
			nkids[d+1]++
		}
		for _, j := range sire[off[i]:off[i+1]] {
			indeg[i]++
			nkids[j+1]++
		}
	}
	for i := range n {
		nkids[i+1] += nkids[i]
	}
	kids := make([]int32, nkids[n])
	fill := slices.Clone(nkids[:n])
	for i := range n {
		if d := dam[i]; d >= 0 {
			kids[fill[d]] = int32(i)
			fill[d]++
		}
		for _, j := range sire[off[i]:off[i+1]] {
			kids[fill[j]] = int32(i)
			fill[j]++
		}
	}
	queue := make([]int32, 0, n)
	for i := range n {
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for h := 0; h < len(queue); h++ {
		q := queue[h]
		for _, c := range kids[nkids[q]:nkids[q+1]] {
			if indeg[c]--; indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	if len(queue) != n {
		for i := range n {
			if indeg[i] > 0 {
				return nil, fmt.Errorf("pedigree: animal %s: %w", ids[i], ErrLoop)
			}
		}
	}

	p := &Pedigree{
		ids:   make([]string, n),
		index: pos,
		dam:   make([]int32, n),
		off:   make([]int32, n+1),
		sire:  make([]int32, 0, len(sire)),
		prob:  make([]float64, 0, len(prob)),
		listd: make([]bool, n),
		pres:  make([]bool, n),
	}
	renum := make([]int32, n)
	for k, i := range queue {
		renum[i] = int32(k)
	}
	for k, i := range queue {
		p.ids[k] = ids[i]
		pos[ids[i]] = int32(k)
		p.listd[k] = int(i) < listed
		p.pres[k] = pres[i]
		p.dam[k] = -1
		if d := dam[i]; d >= 0 {
			p.dam[k] = renum[d]
		}
		for c := off[i]; c < off[i+1]; c++ {
			p.sire = append(p.sire, renum[sire[c]])
			p.prob = append(p.prob, prob[c])
		}
		p.off[k+1] = int32(len(p.sire))
	}
	return p, nil
}

// Len is the number of animals, founders added for being named as parents included.
func (p *Pedigree) Len() int { return len(p.ids) }

// Has reports whether the pedigree knows the animal, listed or named as a parent.
func (p *Pedigree) Has(id string) bool { _, ok := p.index[id]; return ok }

// Uncertain reports whether the animal's paternity is uncertain: it has candidate sires but
// none of them is certain, or they are presumed (Animal.Presumed).
func (p *Pedigree) Uncertain(id string) bool {
	i, ok := p.index[id]
	return ok && p.uncertain(i)
}

func (p *Pedigree) uncertain(i int32) bool {
	lo, hi := p.off[i], p.off[i+1]
	return hi > lo && (p.pres[i] || !(hi-lo == 1 && p.prob[lo] >= 1-tolerance))
}

// Sub is the pedigree of the given animals and all their ancestors, for answers about a few
// animals of a large pedigree. Unknown ids are left out.
func (p *Pedigree) Sub(ids ...string) *Pedigree {
	keep := make([]bool, len(p.ids))
	stack := make([]int32, 0, len(ids))
	for _, id := range ids {
		if i, ok := p.index[id]; ok && !keep[i] {
			keep[i] = true
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visit := func(j int32) {
			if j >= 0 && !keep[j] {
				keep[j] = true
				stack = append(stack, j)
			}
		}
		visit(p.dam[i])
		for k := p.off[i]; k < p.off[i+1]; k++ {
			visit(p.sire[k])
		}
	}
	q := &Pedigree{index: map[string]int32{}, off: []int32{0}}
	for i, ok := range keep {
		if !ok {
			continue
		}
		k := int32(len(q.ids))
		q.ids = append(q.ids, p.ids[i])
		q.index[p.ids[i]] = k
		q.listd = append(q.listd, p.listd[i])
		q.pres = append(q.pres, p.pres[i])
		d := int32(-1)
		if p.dam[i] >= 0 {
			d = q.index[p.ids[p.dam[i]]]
		}
		q.dam = append(q.dam, d)
		for j := p.off[i]; j < p.off[i+1]; j++ {
			q.sire = append(q.sire, q.index[p.ids[p.sire[j]]])
			q.prob = append(q.prob, p.prob[j])
		}
		q.off = append(q.off, int32(len(q.sire)))
	}
	return q
}

// compute fills f and dd: F of every animal and the diagonal D of A = T D Tᵀ.
//
// Animals used as sires are taken in order (parents before offspring). The column of A for
// sire s needs D of s and its ancestors only; D of an animal needs F of its dam and the
// relationships among its own candidate sires, all of which are older than s and so have
// had their columns taken already. Each column adds, for every offspring x of s, s's share
// of F_x (½ p_s a(dam_x, s)) and of the sires' term of D_x (p_s p_l a(s_l, s) for each
// candidate l of x).
//
// Columns are taken several at a time, in one pass down the pedigree: consecutive sires
// join a batch while none of the batch has offspring numbered below the newcomer, so that
// no D the batch needs waits on a column of the same batch.
func (p *Pedigree) compute() {
	n := len(p.ids)
	p.f = make([]float64, n)
	p.dd = make([]float64, n)
	siresTerm := make([]float64, n) // Σ_k Σ_l p_k p_l a(s_k, s_l), summed as columns come
	// offspring of each sire, as (offspring, candidate slot) pairs
	type use struct{ x, slot int32 }
	uses := make([][]use, n)
	var sires []int32
	for x := range n {
		for k := p.off[x]; k < p.off[x+1]; k++ {
			s := p.sire[k]
			if uses[s] == nil {
				sires = append(sires, s)
			}
			uses[s] = append(uses[s], use{int32(x), k})
		}
	}
	slices.Sort(sires)
	finish := func(x int32) {
		d := 1 - 0.25*siresTerm[x]
		if dm := p.dam[x]; dm >= 0 {
			d -= 0.25 * (1 + p.f[dm])
		}
		p.dd[x] = d
	}
	next := int32(0) // D is set below next
	b := newBlock(n, batch)
	for len(sires) > 0 {
		k, firstKid := 0, int32(n)
		for k < len(sires) && k < batch && sires[k] < firstKid {
			firstKid = min(firstKid, uses[sires[k]][0].x)
			k++
		}
		group := sires[:k]
		sires = sires[k:]
		// Every ancestor of the group, and the group, is numbered below its last sire, and
		// so are their candidate sires, whose columns have been taken: D is final there.
		for ; next <= group[k-1]; next++ {
			finish(next)
		}
		hi := int32(0)
		for _, s := range group {
			for _, u := range uses[s] {
				hi = max(hi, p.dam[u.x])
				for c := p.off[u.x]; c < p.off[u.x+1]; c++ {
					hi = max(hi, p.sire[c])
				}
			}
		}
		x, w := b.compute(p, group, hi)
		for c, s := range group {
			for _, u := range uses[s] {
				ps := p.prob[u.slot]
				if d := p.dam[u.x]; d >= 0 {
					p.f[u.x] += 0.5 * ps * x[int(d)*w+c]
				}
				for k := p.off[u.x]; k < p.off[u.x+1]; k++ {
					siresTerm[u.x] += ps * p.prob[k] * x[int(p.sire[k])*w+c]
				}
			}
		}
	}
	for ; next < int32(n); next++ {
		finish(next)
	}
}

// batch is the most columns taken in one pass.
const batch = 16

// block holds the work arrays of up to width columns of A, interleaved: x[i*width+c] is
// a(i, s_c).
type block struct {
	width int
	x     []float64
	y     []float64
	stamp []uint32 // y[i] belongs to the current column when stamp[i] == now
	now   uint32
	anc   []int32
	dirt  [2]int32
}

func newBlock(n, width int) *block {
	return &block{width: width, x: make([]float64, n*width), y: make([]float64, n), stamp: make([]uint32, n), dirt: [2]int32{0, -1}}
}

// compute answers a(i, s_c) for every i ≤ hi (and i = s_c) as x[i*w+c], with w returned:
// T D Tᵀ e_s for each s of sires. It needs D of the sires and of their ancestors. The slice
// is reused by the next call.
func (b *block) compute(p *Pedigree, sires []int32, hi int32) ([]float64, int) {
	w := len(sires)
	clear(b.x[int(b.dirt[0])*b.width : (int(b.dirt[1])+1)*b.width])
	b.width = w // the array was made for the widest block
	lo := int32(len(p.ids))
	for c, s := range sires {
		hi = max(hi, s)
		// y = Tᵀ e_s: up the ancestors, youngest first, each passing its weight to its
		// parents; then z = D y, which is zero outside the ancestors.
		b.now++
		b.anc = append(b.anc[:0], s)
		b.stamp[s], b.y[s] = b.now, 1
		for h := 0; h < len(b.anc); h++ {
			i := b.anc[h]
			if d := p.dam[i]; d >= 0 && b.stamp[d] != b.now {
				b.stamp[d], b.y[d] = b.now, 0
				b.anc = append(b.anc, d)
			}
			for k := p.off[i]; k < p.off[i+1]; k++ {
				if j := p.sire[k]; b.stamp[j] != b.now {
					b.stamp[j], b.y[j] = b.now, 0
					b.anc = append(b.anc, j)
				}
			}
		}
		slices.Sort(b.anc)
		for h := len(b.anc) - 1; h >= 0; h-- {
			i := b.anc[h]
			v := b.y[i]
			if d := p.dam[i]; d >= 0 {
				b.y[d] += 0.5 * v
			}
			for k := p.off[i]; k < p.off[i+1]; k++ {
				b.y[p.sire[k]] += 0.5 * p.prob[k] * v
			}
			b.x[int(i)*w+c] = v * p.dd[i]
		}
		lo = min(lo, b.anc[0])
	}
	// x = T z: down the pedigree, all columns at once.
	x, dam, off, sire, prob := b.x, p.dam, p.off, p.sire, p.prob
	for i := lo; i <= hi; i++ {
		row := x[int(i)*w : int(i)*w+w]
		if d := dam[i]; d >= 0 {
			from := x[int(d)*w : int(d)*w+w]
			for c := range row {
				row[c] += 0.5 * from[c]
			}
		}
		for k := off[i]; k < off[i+1]; k++ {
			f, from := 0.5*prob[k], x[int(sire[k])*w:int(sire[k])*w+w]
			for c := range row {
				row[c] += f * from[c]
			}
		}
	}
	b.dirt = [2]int32{lo, hi}
	return b.x, w
}

func (p *Pedigree) ensure() { p.once.Do(p.compute) }

// Inbreeding is Wright's inbreeding coefficient F of the animal (its expectation over
// uncertain sires), and false when the pedigree does not know it.
func (p *Pedigree) Inbreeding(id string) (float64, bool) {
	i, ok := p.index[id]
	if !ok {
		return 0, false
	}
	p.ensure()
	return p.f[i], true
}

// InbreedingAll is F of every animal, by id.
func (p *Pedigree) InbreedingAll() map[string]float64 {
	p.ensure()
	m := make(map[string]float64, len(p.ids))
	for i, id := range p.ids {
		m[id] = p.f[i]
	}
	return m
}

// Relationship is the additive (numerator) relationship a of two animals: 1 + F for an
// animal with itself, twice the coancestry otherwise. An animal the pedigree does not know is
// a founder unrelated to everyone: 0 with another animal, 1 with itself.
func (p *Pedigree) Relationship(a, b string) float64 {
	return p.RelationshipsTo(a, b)[0]
}

// RelationshipsTo is the relationship of each of others to id, in the order given: one
// column of the matrix, as used for mating advice (the expected F of a calf of id and a
// sire is half their relationship).
func (p *Pedigree) RelationshipsTo(id string, others ...string) []float64 {
	out := make([]float64, len(others))
	s, ok := p.index[id]
	hi := int32(-1)
	for k, o := range others {
		i, known := p.index[o]
		if o == id {
			out[k] = 1
		}
		if ok && known {
			hi = max(hi, i)
		}
	}
	if !ok || hi < 0 {
		return out
	}
	p.ensure()
	x, _ := newBlock(len(p.ids), 1).compute(p, []int32{s}, hi)
	for k, o := range others {
		if i, known := p.index[o]; known {
			out[k] = x[i]
		}
	}
	return out
}

// Coancestry is the coefficient of coancestry (kinship) of two animals: the probability that
// an allele drawn from one is identical by descent with an allele drawn from the other, half
// their relationship (Falconer & Mackay, ch. 5). An animal's coancestry with itself is
// ½ (1 + F).
func (p *Pedigree) Coancestry(a, b string) float64 {
	return p.Relationship(a, b) / 2
}

// Ancestor is one place in an animal's pedigree chart.
type Ancestor struct {
	ID string
	// Generation is 1 for parents, 2 for grandparents, and so on.
	Generation int
	// Relation names the place from the animal: "dam", "sire", "dam's sire", "sire's dam's
	// dam", …
	Relation string
	// Probability is the probability that this animal stands in this place: the product of
	// the sire probabilities along the path, summed over paths through different candidates
	// that reach the same animal in the same place.
	Probability float64
}

// Ancestors lists the animal's ancestors up to depth generations, by generation, then
// relation, then id. An animal may stand in several places (it is then inbred); every
// candidate sire stands in the sire's place with its probability.
func (p *Pedigree) Ancestors(id string, depth int) []Ancestor {
	i, ok := p.index[id]
	if !ok || depth < 1 {
		return nil
	}
	type place struct {
		at       int32
		relation string
		prob     float64
	}
	level := []place{{at: i, prob: 1}}
	var out []Ancestor
	for g := 1; g <= depth && len(level) > 0; g++ {
		sums := map[[2]string]float64{}
		var keys [][2]string
		var next []place
		add := func(who int32, rel string, pr float64) {
			k := [2]string{rel, p.ids[who]}
			if _, seen := sums[k]; !seen {
				keys = append(keys, k)
			}
			sums[k] += pr
		}
		for _, pl := range level {
			prefix := pl.relation
			if prefix != "" {
				prefix += "'s "
			}
			if d := p.dam[pl.at]; d >= 0 {
				add(d, prefix+"dam", pl.prob)
			}
			for k := p.off[pl.at]; k < p.off[pl.at+1]; k++ {
				add(p.sire[k], prefix+"sire", pl.prob*p.prob[k])
			}
		}
		sort.Slice(keys, func(a, b int) bool {
			if keys[a][0] != keys[b][0] {
				return keys[a][0] < keys[b][0]
			}
			return keys[a][1] < keys[b][1]
		})
		for _, k := range keys {
			out = append(out, Ancestor{ID: k[1], Generation: g, Relation: k[0], Probability: sums[k]})
			next = append(next, place{at: p.index[k[1]], relation: k[0], prob: sums[k]})
		}
		level = next
	}
	return out
}

// UncertainAncestry lists the animal itself, if its paternity is uncertain, and each of its
// ancestors at any depth whose paternity is uncertain: the animals whose candidate sires make
// its F an expectation. In pedigree order (older first), then by id.
func (p *Pedigree) UncertainAncestry(id string) []string {
	i, ok := p.index[id]
	if !ok {
		return nil
	}
	seen := map[int32]bool{i: true}
	stack := []int32{i}
	var found []int32
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.uncertain(j) {
			found = append(found, j)
		}
		visit := func(k int32) {
			if k >= 0 && !seen[k] {
				seen[k] = true
				stack = append(stack, k)
			}
		}
		visit(p.dam[j])
		for k := p.off[j]; k < p.off[j+1]; k++ {
			visit(p.sire[k])
		}
	}
	slices.Sort(found)
	out := make([]string, len(found))
	for k, j := range found {
		out[k] = p.ids[j]
	}
	return out
}
