package reconcile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/registry/reconcile"
)

// TestCompare plants the differences a BCMS difference report lists (FarmWizard,
// herdmanagement.co.uk): a steer on CTS that the book does not have on the holding, a calf
// born on the farm and never registered, a bought heifer never reported, and a cow whose sex,
// birth date, breed and dam differ; an animal known alike on both sides, spelt with other
// spacing and case, makes no difference, nor does a detail one side lacks.
func TestCompare(t *testing.T) {
	t.Parallel()
	registry := []reconcile.Animal{
		{Tag: "UK123456100001", Sex: "F", BirthDate: "2020-04-01", OnDate: "2020-04-01", Breed: "LIMX"},
		{Tag: "UK123456200002", Sex: "F", BirthDate: "2021-03-10", OnDate: "2021-03-10", Breed: "AA", Dam: "UK123456100001"},
		{Tag: "UK123456300003", Sex: "M", BirthDate: "2024-04-01", Breed: "LIMX"},
		{Tag: "UK123456300003", Sex: "F"}, // listed twice: the first listing counts
	}
	book := []reconcile.Animal{
		{Tag: "uk 123456 100001", Sex: "female", BirthDate: "2020-04-01", Breed: "limx"},
		{Tag: "UK 123456 200002", Sex: "M", BirthDate: "2021-03-11", OnDate: "2021-03-10", Breed: "AAX", Dam: "UK 123456 100009"},
		{Tag: "UK 123456 400004", Sex: "F", BirthDate: "2026-03-06", BornHere: true},
		{Tag: "UK 654321 200201", Sex: "F", BirthDate: "2024-05-02", OnDate: "2026-03-16"},
	}
	got := reconcile.Compare(registry, book)
	var lines []string
	for _, d := range got {
		lines = append(lines, fmt.Sprintf("%s %s %s %s|%s %s", d.Tag, d.Kind, d.Field, d.Registry, d.Book, d.Fix))
	}
	want := []string{
		"UK123456200002 differs birth_date 2021-03-10|2021-03-11 amend_book_or_correct_registry",
		"UK123456200002 differs breed AA|AAX amend_book_or_correct_registry",
		"UK123456200002 differs dam UK123456100001|UK123456100009 amend_book_or_correct_registry",
		"UK123456200002 differs sex F|M amend_book_or_correct_registry",
		"UK123456300003 only_in_registry  | record_in_book_or_report_departure",
		"UK123456400004 only_in_book  | report_birth",
		"UK654321200201 only_in_book  | report_move_on",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("differences:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if d := reconcile.Compare(nil, nil); len(d) != 0 {
		t.Fatalf("nothing against nothing: %v", d)
	}
}
