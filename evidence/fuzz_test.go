package evidence_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/evidence"
)

// byteSource hands out fuzz bytes, then zeros once they run out.
type byteSource struct {
	data []byte
	n    int
}

func (s *byteSource) next() int {
	if len(s.data) == 0 {
		return 0
	}
	b := s.data[0]
	s.data = s.data[1:]
	return int(b)
}

func (s *byteSource) left() bool { return len(s.data) > 0 }

// date draws a date near the base scenario, or now and then a broken one,
// so that the fuzzer mostly explores the rules rather than the parser.
func (s *byteSource) date() string {
	hi, lo := s.next(), s.next()
	switch hi {
	case 255:
		return "2025-02-30"
	case 254:
		return ""
	}
	return time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (hi<<8|lo)%1100).Format(time.DateOnly)
}

// animal draws the dam one time in four, else one of 64 other animals.
func (s *byteSource) animal() string {
	b := s.next()
	if b%4 == 0 {
		return uid("dam")
	}
	if b == 255 {
		return "not-a-uuid"
	}
	return uid(fmt.Sprint("animal", b%64))
}

func (s *byteSource) group() string { return uid(fmt.Sprint("group", s.next()%4)) }

// inputFromBytes builds a review input from fuzz bytes.
func inputFromBytes(data []byte) evidence.Input {
	s := &byteSource{data: data}
	in := evidence.Input{DamID: uid("dam"), BirthDate: "2025-10-18"}
	if b := s.next(); b%6 != 0 {
		set := &evidence.Settings{Version: 1, Species: evidence.Species[b%len(evidence.Species)], BirthWindows: []evidence.Window{}}
		if b%11 == 3 {
			set.Version = 2 // invalid settings now and then
		}
		if g := s.next(); g%5 != 0 {
			lo := 1 + s.next()*3
			set.GestationDays = &evidence.Range{Min: lo, Max: lo + s.next()*2}
		}
		if a := s.next(); a%3 != 0 {
			set.MinimumSireAgeDays = intp(1 + a*4)
		}
		for range s.next() % 4 {
			start := s.date()
			set.BirthWindows = append(set.BirthWindows, evidence.Window{Label: "w", StartDate: start, EndDate: s.date()})
		}
		in.Settings = set
	}
	in.BirthDate = s.date()
	kinds := append(slices.Clone(evidence.Kinds), "weaning")
	for i := 0; s.left() && i < 600; i++ {
		f := evidence.Fact{Kind: kinds[s.next()%len(kinds)], RecordID: uid(fmt.Sprint("record", i/2)), RecordItemID: uid(fmt.Sprint("item", i))}
		if s.next() == 255 {
			f.RecordItemID = "broken"
		}
		switch f.Kind {
		case evidence.KindProfile:
			f.AnimalID = s.animal()
			f.Sex = []string{"male", "female", "male", "unknown"}[s.next()%4]
			if s.next()%2 == 0 {
				f.BirthDate = s.date()
			}
			f.Breed = []string{"", "Angus", "Hereford", strings.Repeat("Ü", 100)}[s.next()%4]
		case evidence.KindExposure:
			f.SireID = s.animal()
			if s.next()%2 == 0 {
				f.DamID = uid("dam")
			} else {
				f.GroupID = s.group()
			}
			f.StartDate = s.date()
			if s.next()%2 == 0 {
				f.EndDate = s.date()
			}
		case evidence.KindMembership:
			f.AnimalID = s.animal()
			f.GroupID = s.group()
			f.StartDate = s.date()
			if s.next()%3 == 0 {
				f.EndDate = s.date()
			}
		case evidence.KindBirth:
			f.DamID = s.animal()
			f.Date = s.date()
		default:
			f.AnimalID = s.animal()
			f.Date = s.date()
		}
		in.Facts = append(in.Facts, f)
	}
	return in
}

func FuzzReview(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 1, 1, 1, 2})
	f.Add([]byte("a birth on a busy farm with many bulls"))
	rng := rand.New(rand.NewPCG(7, 7))
	for range 8 {
		seed := make([]byte, 64+rng.IntN(1500))
		for i := range seed {
			seed[i] = byte(rng.UintN(256))
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := inputFromBytes(data)
		ev := evidence.Review(in)
		checkLimits(t, ev)
		want := MustJSON(t, ev)

		reversed := in
		reversed.Facts = slices.Clone(in.Facts)
		slices.Reverse(reversed.Facts)
		if got := MustJSON(t, evidence.Review(reversed)); got != want {
			t.Fatalf("reversing the facts changed the review:\n got %s\nwant %s", got, want)
		}

		sc := evidence.ScopeOf(in)
		kept := in
		kept.Facts = nil
		for _, f := range in.Facts {
			if sc.Keep(f) {
				kept.Facts = append(kept.Facts, f)
			}
		}
		if got := MustJSON(t, evidence.Review(kept)); got != want {
			t.Fatalf("scope filtering changed the review:\n got %s\nwant %s", got, want)
		}
	})
}

func FuzzParseFact(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"profile","animal_id":"0a5d85a2-de69-e113-daea-e1e62a037593","sex":"male","birth_date":"2024-02-29","breed":"Angus"}`,
		`{"kind":"exposure","sire_id":"0a5d85a2-de69-e113-daea-e1e62a037593","group_id":"52fe7c6b-b774-5eb5-5ad6-07bd63c3a004","start_date":"2025-01-01","end_date":"2025-02-01"}`,
		`{"kind":"membership","animal_id":"0A5D85A2-DE69-E113-DAEA-E1E62A037593","group_id":"52fe7c6b-b774-5eb5-5ad6-07bd63c3a004","start_date":"2025-01-01","end_date":null}`,
		`{"kind":"birth","dam_id":"0a5d85a2-de69-e113-daea-e1e62a037593","date":"2025-10-18","offspring_ids":["52fe7c6b-b774-5eb5-5ad6-07bd63c3a004"]}`,
		`{"kind":"castration","animal_id":7,"date":"2025-02-30","x":[]}`,
		`{"kind":"movement_out"}`,
		`[]`, `null`, `"x"`, `{`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		fact, errs := evidence.ParseFact(json.RawMessage(raw))
		for _, e := range errs {
			if !strings.HasPrefix(e.Field, "birth_history") || e.Message == "" {
				t.Fatalf("bad error %+v", e)
			}
		}
		if errs == nil {
			if v := fact.Validate(); v != nil {
				t.Fatalf("parsed without errors but Validate says %v", v)
			}
			again, errs2 := evidence.ParseFact(json.RawMessage(MustJSON(t, fact)))
			if errs2 != nil || MustJSON(t, again) != MustJSON(t, fact) {
				t.Fatalf("round trip failed: %v, %+v vs %+v", errs2, again, fact)
			}
		}
		fact.RecordID, fact.RecordItemID = uid("record"), uid("item")
		ev := evidence.Review(evidence.Input{Settings: baseSettings(), DamID: uid("dam"), BirthDate: birth, Facts: []evidence.Fact{fact, fact}})
		checkLimits(t, ev)
	})
}
