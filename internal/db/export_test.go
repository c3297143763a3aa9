package db

import (
	"fmt"
	"slices"
	"strings"
)

// TextColumnsUnclassified returns a problem for each of columns ("table.column") that is
// neither in textColumns nor in serverText, and for each listed column that is not among
// columns (a column dropped or renamed).
func TextColumnsUnclassified(columns []string) []string {
	var out []string
	listed := map[string]bool{}
	for t, cs := range textColumns {
		for c := range cs {
			listed[t+"."+c] = true
		}
	}
	for t, cs := range serverText {
		for _, c := range cs {
			if listed[t+"."+c] {
				out = append(out, fmt.Sprintf("%s.%s is both caller text and server text", t, c))
			}
			listed[t+"."+c] = true
		}
	}
	for _, c := range columns {
		if !listed[c] {
			out = append(out, fmt.Sprintf("%s holds text: add it to textColumns (with its rule) or to serverText in internal/db/textcheck.go", c))
		}
	}
	for c := range listed {
		if !slices.Contains(columns, c) {
			out = append(out, fmt.Sprintf("%s is listed in internal/db/textcheck.go but is no column of the schema", c))
		}
	}
	slices.SortFunc(out, strings.Compare)
	return out
}

// ReferencingFirst is referencingFirst, for its test.
var ReferencingFirst = referencingFirst

// Emptying is what Empty runs on s, once it has run.
func (s *Scratch) Emptying() []string { return s.deletes }
