package herdbook

import (
	"encoding/csv"
	"io"
)

// The spreadsheet rule of every CSV the platform writes (animals.csv, records.csv,
// breeding.csv, due.csv, audit.csv, the reports, the medicine book, the command line's
// exports) and reads back (the animal and breeding imports). A spreadsheet that opens a CSV
// runs a cell that begins with =, +, -, @, tab or carriage return as a formula (CSV
// injection, OWASP): an animal named =HYPERLINK("http://x","y") would be a link the farmer
// clicks. GuardCell gives such a cell a leading apostrophe, which spreadsheets read as "this
// is text" and do not show; UnguardCell removes it again, so that an export imports back to
// the values it was written from.
//
// The rule is applied to every cell by the writer (NewCSVWriter), not column by column, so
// that no column can miss it. Numbers are left as they are: a cell that is a plain decimal
// number (-3, -0.25, +12) is a number to a spreadsheet, not a formula, and a weight gain of
// -3 kg stays a number the farmer can sum.
//
// A cell that begins with an apostrophe followed by what would need the guard is guarded
// too (''=x), so that UnguardCell(GuardCell(s)) == s for every s.

// GuardCell returns s as it is safe to write into a CSV cell (see above).
func GuardCell(s string) string {
	if needsGuard(s) {
		return "'" + s
	}
	return s
}

// UnguardCell returns the value a cell read from a CSV stands for: GuardCell's apostrophe
// removed.
func UnguardCell(s string) string {
	if len(s) > 1 && s[0] == '\'' && needsGuard(s[1:]) {
		return s[1:]
	}
	return s
}

func needsGuard(s string) bool {
	for len(s) > 0 && s[0] == '\'' {
		s = s[1:]
		if len(s) == 0 {
			return false
		}
		if s[0] != '\'' {
			return formulaLead(s)
		}
	}
	return len(s) > 0 && formulaLead(s)
}

// formulaLead reports whether a spreadsheet would read s as a formula: its first character
// is one of = + - @ tab CR, and it is not a plain decimal number.
func formulaLead(s string) bool {
	switch s[0] {
	case '=', '@', '\t', '\r':
		return true
	case '+', '-':
		return !plainNumber(s[1:])
	}
	return false
}

// plainNumber reports whether s is digits with at most one decimal point among them.
func plainNumber(s string) bool {
	digits, point := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}

// CSVWriter is a csv.Writer that applies GuardCell to every cell it writes.
type CSVWriter struct {
	*csv.Writer
	buf []string
}

// NewCSVWriter returns a CSVWriter writing to w.
func NewCSVWriter(w io.Writer) *CSVWriter { return &CSVWriter{Writer: csv.NewWriter(w)} }

// Write writes one row, every cell guarded.
func (c *CSVWriter) Write(row []string) error {
	c.buf = c.buf[:0]
	for _, s := range row {
		c.buf = append(c.buf, GuardCell(s))
	}
	return c.Writer.Write(c.buf)
}

// readCSVRow reads the next row of an import, every cell as UnguardCell reads it, so that a
// file the platform exported imports back to the values it was written from.
func readCSVRow(cr *csv.Reader) ([]string, error) {
	rec, err := cr.Read()
	for i := range rec {
		rec[i] = UnguardCell(rec[i])
	}
	return rec, err
}
