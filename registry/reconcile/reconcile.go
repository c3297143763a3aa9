// Package reconcile compares a registry's copy of a holding (the cattle it has on it, from its
// web service or its herd list file) with the book's register of the same holding, and lists
// each difference with the fix it calls for (docs/registry.md). It is pure: the service
// chooses the book's register as of a date and as known on a date, and this package compares
// what it is given.
//
// Practice it follows: FarmWizard's "BCMS difference report" lists animals on CTS but not in
// the farm's software, in the software but not on CTS, and details that differ
// (herdmanagement.co.uk); the holding register must hold the official tag, birth date, sex,
// official breed code and genetic dam (gov.uk, Keep a holding register for cattle).
package reconcile

import (
	"slices"
	"strings"
)

// Animal is one animal on the holding, as one side knows it. Empty fields are unknown to
// that side and never differ.
type Animal struct {
	// Tag is the official ear tag number, in any spacing.
	Tag string
	// Sex is M or F (female, male and f, m are read alike).
	Sex string
	// BirthDate and OnDate (its arrival on the holding; its birth date when born there)
	// are YYYY-MM-DD.
	BirthDate string
	OnDate    string
	// Breed is the official breed code (CTS's LIMX, AA).
	Breed string
	// Dam is the genetic dam's official tag.
	Dam string
	// BornHere says the book records the animal's birth on the holding (book side only):
	// what it calls for when the registry lacks it is then a birth registration.
	BornHere bool
}

// Kind is the kind of a difference.
type Kind string

// The kinds of difference.
const (
	// OnlyInRegistry: the registry has the animal on the holding, the book does not.
	OnlyInRegistry Kind = "only_in_registry"
	// OnlyInBook: the book has the animal on the holding, the registry does not.
	OnlyInBook Kind = "only_in_book"
	// Differs: both have it, and a detail differs.
	Differs Kind = "differs"
)

// Fix is what a difference calls for.
type Fix string

// The fixes.
const (
	// FixBirth: register the birth with the registry (a birth notice).
	FixBirth Fix = "report_birth"
	// FixMoveOn: report the arrival to the registry (a move_on notice).
	FixMoveOn Fix = "report_move_on"
	// FixBook: the book lacks what the registry knows: record the arrival or birth, or,
	// when the animal left or died, report that move off or death to the registry.
	FixBook Fix = "record_in_book_or_report_departure"
	// FixCorrection: a detail differs: amend the book's fact if the registry is right,
	// otherwise send the registry a correction.
	FixCorrection Fix = "amend_book_or_correct_registry"
)

// Difference is one difference between the registry's copy and the book.
type Difference struct {
	Kind Kind
	// Tag is the animal's tag, compact (UK123456100001).
	Tag string
	// Field names the detail that differs (sex, birth_date, on_date, breed, dam) and
	// Registry and Book its two values, for Differs.
	Field    string
	Registry string
	Book     string
	Fix      Fix
}

// compact is a tag as both sides are matched: letters upper-cased, spaces dropped.
func compact(tag string) string {
	return strings.ToUpper(strings.Join(strings.Fields(tag), ""))
}

func sex(s string) string {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "M", "MALE":
		return "M"
	case "F", "FEMALE":
		return "F"
	}
	return strings.TrimSpace(s)
}

// Compare lists the differences between the registry's copy and the book, by tag, then by
// field. An animal listed twice on one side is compared once, by its first listing.
func Compare(registry, book []Animal) []Difference {
	index := func(as []Animal) map[string]Animal {
		m := make(map[string]Animal, len(as))
		for _, a := range as {
			t := compact(a.Tag)
			if _, dup := m[t]; !dup && t != "" {
				m[t] = a
			}
		}
		return m
	}
	reg, bk := index(registry), index(book)
	var out []Difference
	for tag, r := range reg {
		b, ok := bk[tag]
		if !ok {
			out = append(out, Difference{Kind: OnlyInRegistry, Tag: tag, Fix: FixBook})
			continue
		}
		for _, f := range []struct{ name, r, b string }{
			{"sex", sex(r.Sex), sex(b.Sex)},
			{"birth_date", r.BirthDate, b.BirthDate},
			{"on_date", r.OnDate, b.OnDate},
			{"breed", strings.ToUpper(strings.TrimSpace(r.Breed)), strings.ToUpper(strings.TrimSpace(b.Breed))},
			{"dam", compact(r.Dam), compact(b.Dam)},
		} {
			if f.r != "" && f.b != "" && f.r != f.b {
				out = append(out, Difference{Kind: Differs, Tag: tag, Field: f.name, Registry: f.r, Book: f.b, Fix: FixCorrection})
			}
		}
	}
	for tag, b := range bk {
		if _, ok := reg[tag]; !ok {
			fix := FixMoveOn
			if b.BornHere {
				fix = FixBirth
			}
			out = append(out, Difference{Kind: OnlyInBook, Tag: tag, Fix: fix})
		}
	}
	slices.SortFunc(out, func(a, b Difference) int {
		if c := strings.Compare(a.Tag, b.Tag); c != 0 {
			return c
		}
		return strings.Compare(a.Field, b.Field)
	})
	return out
}
