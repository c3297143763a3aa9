// Package scalefile reads the session files weigh indicators export: one weighing a line,
// with the animal's electronic id (EID) or visual id (VID), its weight, when it was weighed,
// and whatever columns the vendor adds (notes, drafting, condition score). It is pure: it
// reads bytes and returns rows or every problem of the file, each with its line and column;
// deciding which animal a row names and whether its history allows the weighing is the
// service's (herdbook.ImportWeighings).
//
// Two kinds of file are read (docs/csv.md, "Weigh-scale session files"):
//
//   - A table with a header line naming its columns, as the session exports of Tru-Test /
//     Datamars indicators (XR3000, XR5000, ID5000, EziWeigh through Data Link or the
//     indicator's USB export) and Gallagher weigh scales (TW series, W810 through Animal
//     Data Transfer) are, and as a spreadsheet saves them again. Columns are found by their
//     names, not their places (Columns lists the names each role answers to); the delimiter
//     is a comma, a semicolon or a tab, found on the header line; a few title lines before
//     the header are skipped.
//   - The headerless "EID CSV" lines of Digi-Star indicators (SW2600EID manual, D3718, p. 37):
//     EID in a reader's line form, weight, LB or KG, a lock-on mark ($ or blank), GR or NT,
//     the date as mm/dd/yy, the time as hh:mm, and a code.
//
// Weights are returned in kilograms. The unit comes from the weight cell ("452 kg"), a unit
// column, the weight column's name ("Weight (lb)"), or else the caller (Options.Unit); a
// file that says none of them is refused, never guessed. Pounds are converted with the
// international pound, 0.45359237 kg exactly, and rounded to 0.01 kg (a scale's resolution
// is 0.1 lb or coarser). A decimal comma is read ("452,5"), a thousands separator is not.
//
// Dates are read as YYYY-MM-DD (or YYYY/MM/DD), as day.month.year, as 2 Jan 2026 or
// 2-Jan-2026, and as d/m/y or m/d/y. Which of the last two a file uses is settled by the
// file itself when one of its dates has a day above 12, else by the layout (Digi-Star
// writes mm/dd/yy), else by the caller (Options.DateOrder); otherwise the file is refused
// with a problem that says so. Two-digit years are 2000 to 2099.
package scalefile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/herdbook/herdbook/eid"
)

// Unit is a unit of weight a file is in.
type Unit string

// The units a scale exports.
const (
	KG Unit = "kg"
	LB Unit = "lb"
)

// KGPerLB is the international avoirdupois pound in kilograms, exact by definition (the
// international yard and pound agreement of 1959).
const KGPerLB = 0.45359237

// MaxKG is the heaviest weighing read: far above any farm animal, so that a reading in
// grams or a misplaced column is refused rather than recorded.
const MaxKG = 10000.0

// DateOrder says how a numeric date with the year last reads.
type DateOrder string

// The orders of d/m/y dates.
const (
	DayFirst   DateOrder = "dmy"
	MonthFirst DateOrder = "mdy"
)

// Layouts a file is read as.
const (
	LayoutHeader   = "header"
	LayoutDigiStar = "digi-star-eid"
)

// Options are what the caller knows that a file may not say.
type Options struct {
	// Unit is the unit of weights when the file does not give one.
	Unit Unit
	// DateOrder reads d/m/y or m/d/y dates when the file does not settle it.
	DateOrder DateOrder
	// Date (YYYY-MM-DD) is the session's date for a file without a date column (a
	// Gallagher session's date is in its file name, "2004-01-25 15-20 STEERS").
	Date string
	// MaxRows bounds the weighings of a file; 0 means no bound.
	MaxRows int
}

// Row is one weighing of a file.
type Row struct {
	// Line is the row's line in the file (the first line is 1).
	Line int
	// EID is the electronic id as its canonical 15 digits (ISO 11784), "" when the row has
	// none; VID is the visual id as written, trimmed.
	EID, VID string
	// KG is the weight in kilograms, as a decimal without trailing zeros.
	KG string
	// Date is the day weighed, YYYY-MM-DD; Time the time of day (HH:MM or HH:MM:SS, 24
	// hours) when the file gives one.
	Date, Time string
	// Extras are the row's other cells by column name (notes, drafting, condition
	// score...), the empty ones left out. The Digi-Star layout names its cells lock_on,
	// gross_net and code.
	Extras map[string]string
}

// Session is a file read.
type Session struct {
	Layout    string
	Delimiter rune
	// Columns maps each role read (eid, vid, weight, unit, date, time, datetime) to the
	// column name that filled it; Extra lists the other columns, in the file's order.
	Columns map[string]string
	Extra   []string
	Rows    []Row
}

// Problem is one thing wrong with a file: its line (0 for the file as a whole) and
// column (a role such as weight or eid, or the header as written; "" for the whole line).
type Problem struct {
	Line    int
	Column  string
	Message string
}

// Error is a file that cannot be read: every problem found, in line order.
type Error struct{ Problems []Problem }

func (e *Error) Error() string {
	if len(e.Problems) == 0 {
		return "scalefile: invalid file"
	}
	p := e.Problems[0]
	msg := fmt.Sprintf("scalefile: line %d", p.Line)
	if p.Column != "" {
		msg += ", " + p.Column
	}
	msg += ": " + p.Message
	if n := len(e.Problems) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	return msg
}

// Columns are the names each role answers to, compared in lower case with everything but
// letters and digits left out ("Electronic ID" is electronicid, "Weight (kg)" weightkg).
var Columns = map[string][]string{
	"eid":      {"eid", "electronicid", "electronicidentification", "eidtag", "eidnumber", "eidno", "rfid", "rfidtag", "transponder", "tageid"},
	"vid":      {"vid", "visualid", "visualtag", "vidtag", "visualidentification", "tag", "tagnumber", "managementtag", "managementid", "animalid", "visualnumber"},
	"weight":   {"weight", "wt", "liveweight", "weightkg", "weightkgs", "weightlb", "weightlbs", "wtkg", "wtlb", "wtlbs", "liveweightkg", "liveweightlb", "grossweight", "netweight"},
	"unit":     {"unit", "units", "weightunit", "weightunits", "uom"},
	"date":     {"date", "weighdate", "weighingdate", "dateweighed", "sessiondate", "recorddate"},
	"time":     {"time", "weightime", "weighingtime", "timeweighed", "recordtime"},
	"datetime": {"datetime", "dateandtime", "timestamp", "datetimeweighed", "weighedat", "recorded"},
}

// maxHeaderSearch is how many lines before the header a file may have (a session title,
// the indicator's serial number).
const maxHeaderSearch = 10

// Read reads a session file. It returns *Error listing every problem of the file when any
// row cannot be read; a file is read whole or not at all.
func Read(r io.Reader, opt Options) (*Session, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // spreadsheets save UTF-8 with a byte order mark
	lines := splitLines(data)
	p := &problems{}
	if opt.Unit != "" && opt.Unit != KG && opt.Unit != LB {
		p.add(0, "unit", "must be kg or lb")
	}
	if opt.DateOrder != "" && opt.DateOrder != DayFirst && opt.DateOrder != MonthFirst {
		p.add(0, "date_order", "must be dmy or mdy")
	}
	if opt.Date != "" {
		if _, err := time.Parse(time.DateOnly, opt.Date); err != nil {
			p.add(0, "date", "must be a calendar date in the form YYYY-MM-DD")
		}
	}
	if len(p.list) > 0 {
		return nil, p.err()
	}
	first := -1
	for i, l := range lines {
		if strings.TrimSpace(l.text) != "" {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, &Error{[]Problem{{Message: "is empty: a session file has a header line naming its columns (EID or VID, weight, date) and a line per weighing"}}}
	}
	if s, ok := readDigiStar(lines[first:], opt, p); ok {
		if len(p.list) > 0 {
			return nil, p.err()
		}
		return s, nil
	}
	return readTable(lines[first:], opt, p)
}

// line is one line of the file and its number.
type line struct {
	n    int
	text string
}

func splitLines(data []byte) []line {
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	parts := strings.Split(text, "\n")
	out := make([]line, 0, len(parts))
	for i, t := range parts {
		out = append(out, line{n: i + 1, text: t})
	}
	if len(out) > 0 && out[len(out)-1].text == "" {
		out = out[:len(out)-1]
	}
	return out
}

type problems struct{ list []Problem }

func (p *problems) add(line int, column, format string, args ...any) {
	p.list = append(p.list, Problem{Line: line, Column: column, Message: fmt.Sprintf(format, args...)})
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	slices.SortStableFunc(p.list, func(a, b Problem) int { return a.Line - b.Line })
	return &Error{Problems: p.list}
}

// key is a column name as Columns spells it.
func key(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// rank is a column name's place among its role's names: the lower, the more specific.
func rank(h string) int {
	k := key(h)
	for _, names := range Columns {
		if i := slices.Index(names, k); i >= 0 {
			return i
		}
	}
	return len(Columns)
}

func roleOf(h string) string {
	k := key(h)
	for role, names := range Columns {
		if slices.Contains(names, k) {
			return role
		}
	}
	return ""
}

// headerUnit is the unit a weight column's name gives ("Weight (kg)", "Wt lbs").
func headerUnit(h string) Unit {
	k := key(h)
	switch {
	case strings.HasSuffix(k, "kg"), strings.HasSuffix(k, "kgs"):
		return KG
	case strings.HasSuffix(k, "lb"), strings.HasSuffix(k, "lbs"):
		return LB
	}
	return ""
}

// delimiter is the separator of a header line: the most frequent of comma, semicolon and
// tab outside quotes (a comma when none occurs: a file of one column).
func delimiter(header string) rune {
	counts := map[rune]int{}
	quoted := false
	for _, r := range header {
		switch {
		case r == '"':
			quoted = !quoted
		case !quoted && (r == ',' || r == ';' || r == '\t'):
			counts[r]++
		}
	}
	best := ','
	for _, r := range []rune{';', '\t'} {
		if counts[r] > counts[best] {
			best = r
		}
	}
	return best
}

func parseLine(text string, delim rune) ([]string, error) {
	cr := csv.NewReader(strings.NewReader(text))
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	rec, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	return rec, err
}

// rawRow is a row's cells before its date is read: the date waits until the file's order
// of d/m/y dates is known.
type rawRow struct {
	Row
	dateCell, dateColumn string
}

func readTable(lines []line, opt Options, p *problems) (*Session, error) {
	// The header is the first line, among the first few, that names a weight column and
	// an EID or VID column.
	hi := -1
	var header []string
	var delim rune
	for i := 0; i < len(lines) && i < maxHeaderSearch; i++ {
		d := delimiter(lines[i].text)
		cells, err := parseLine(lines[i].text, d)
		if err != nil {
			continue
		}
		roles := map[string]bool{}
		for _, c := range cells {
			roles[roleOf(c)] = true
		}
		if roles["weight"] && (roles["eid"] || roles["vid"]) {
			hi, header, delim = i, cells, d
			break
		}
	}
	if hi < 0 {
		p.add(lines[0].n, "", "no header line found: a session file's header names a weight column and an EID or VID column (for example EID,VID,Weight,Date,Time)")
		return nil, p.err()
	}
	hl := lines[hi].n
	s := &Session{Layout: LayoutHeader, Delimiter: delim, Columns: map[string]string{}}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		role := roleOf(h)
		switch {
		case h == "":
			// An unnamed column (a trailing delimiter) is read as nothing.
		case role == "":
			s.Extra = append(s.Extra, h)
		case role == "vid":
			// Exports carry more than one visual number (a VID and a management tag, an
			// animal id): the most specific name is read, the others kept as extras.
			if prev, dup := col[role]; dup {
				if rank(h) < rank(header[prev]) {
					s.Extra = append(s.Extra, header[prev])
					col[role], s.Columns[role] = i, h
				} else {
					s.Extra = append(s.Extra, h)
				}
				continue
			}
			col[role] = i
			s.Columns[role] = h
		default:
			if _, dup := col[role]; dup {
				p.add(hl, h, "is a second %s column (the first is %s); keep one", role, s.Columns[role])
				continue
			}
			col[role] = i
			s.Columns[role] = h
		}
	}
	_, hasDate := col["date"]
	_, hasDateTime := col["datetime"]
	if hasDate && hasDateTime {
		p.add(hl, s.Columns["datetime"], "a file gives either a date column or a date and time column, not both")
	}
	if !hasDate && !hasDateTime && opt.Date == "" {
		p.add(hl, "date", "the file has no date column (%s): give the session's date", strings.Join(Columns["date"], ", "))
	}
	wunit := headerUnit(s.Columns["weight"])
	if len(p.list) > 0 {
		return nil, p.err()
	}
	var raws []*rawRow
	for _, l := range lines[hi+1:] {
		if strings.TrimSpace(l.text) == "" {
			continue
		}
		cells, err := parseLine(l.text, delim)
		if err != nil {
			p.add(l.n, "", "is not a line of the file's columns: %v", err)
			continue
		}
		blank := true
		for _, c := range cells {
			if strings.TrimSpace(c) != "" {
				blank = false
				break
			}
		}
		if blank {
			continue // a line of delimiters only, as spreadsheets leave
		}
		if opt.MaxRows > 0 && len(raws) == opt.MaxRows {
			p.add(l.n, "", "the file has more than %d weighings; split it", opt.MaxRows)
			break
		}
		if len(cells) > len(header) {
			extra := cells[len(header):]
			empty := true
			for _, c := range extra {
				if strings.TrimSpace(c) != "" {
					empty = false
				}
			}
			if !empty {
				p.add(l.n, "", "has %d cells; the header has %d", len(cells), len(header))
				continue
			}
		}
		cell := func(role string) string {
			if i, ok := col[role]; ok && i < len(cells) {
				return strings.TrimSpace(cells[i])
			}
			return ""
		}
		r := &rawRow{Row: Row{Line: l.n}}
		readID(p, &r.Row, cell("eid"), cell("vid"))
		unit, unitOK := wunit, true
		if u := cell("unit"); u != "" {
			cu, ok := unitOf(u)
			switch {
			case !ok:
				p.add(l.n, "unit", "%q is not a unit of weight: kg or lb", u)
				unitOK = false
			case wunit != "" && cu != wunit:
				p.add(l.n, "unit", "says %s but the column %s is in %s", cu, s.Columns["weight"], wunit)
				unitOK = false
			default:
				unit = cu
			}
		}
		if unitOK {
			r.KG = readWeight(p, l.n, "weight", cell("weight"), unit, opt.Unit)
		}
		switch {
		case hasDateTime:
			r.dateCell, r.dateColumn = cell("datetime"), "datetime"
		case hasDate:
			r.dateCell, r.dateColumn = cell("date"), "date"
			if t := cell("time"); t != "" {
				if v, ok := clock(t); ok {
					r.Time = v
				} else {
					p.add(l.n, "time", "%q is not a time of day (HH:MM or HH:MM:SS, or with AM/PM)", t)
				}
			}
		}
		if r.dateColumn != "" && r.dateCell == "" && opt.Date == "" {
			p.add(l.n, r.dateColumn, "is empty: every weighing is dated")
		}
		for i, h := range header {
			if h == "" || i >= len(cells) || (roleOf(h) != "" && !slices.Contains(s.Extra, h)) {
				continue
			}
			if v := strings.TrimSpace(cells[i]); v != "" {
				if r.Extras == nil {
					r.Extras = map[string]string{}
				}
				r.Extras[h] = v
			}
		}
		raws = append(raws, r)
	}
	if len(raws) == 0 && len(p.list) == 0 {
		p.add(hl, "", "the file has a header but no weighings")
	}
	s.Rows = datesOf(p, raws, opt, "")
	if err := p.err(); err != nil {
		return nil, err
	}
	return s, nil
}

// readID reads a row's EID and VID cells.
func readID(p *problems, r *Row, eidCell, vid string) {
	if eidCell != "" {
		if c, err := eid.Parse(eidCell); err != nil {
			p.add(r.Line, "eid", "%q is not an EID: %s", eidCell, strings.TrimSuffix(err.Error(), "."))
		} else {
			r.EID = c.String()
		}
	}
	r.VID = vid
	if eidCell == "" && vid == "" {
		p.add(r.Line, "eid", "the line names no animal: it has neither an EID nor a VID")
	}
}

func unitOf(s string) (Unit, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "kg", "kgs", "kilogram", "kilograms":
		return KG, true
	case "lb", "lbs", "pound", "pounds":
		return LB, true
	}
	return "", false
}

// readWeight reads a weight cell in unit (or the cell's own unit, or else fallback) and
// returns it in kilograms.
func readWeight(p *problems, n int, column, v string, unit, fallback Unit) string {
	if v == "" {
		p.add(n, column, "is empty: a line of a session file is a weighing")
		return ""
	}
	num := strings.TrimSpace(v)
	// A unit written in the cell ("452.5 kg", "998lb").
	if i := strings.IndexFunc(num, unicode.IsLetter); i > 0 {
		cu, ok := unitOf(num[i:])
		if !ok {
			p.add(n, column, "%q is not a weight: a number, in kg or lb", v)
			return ""
		}
		if unit != "" && cu != unit {
			p.add(n, column, "%q is in %s but the file says %s", v, cu, unit)
			return ""
		}
		unit, num = cu, strings.TrimSpace(num[:i])
	}
	if unit == "" {
		unit = fallback
	}
	if unit == "" {
		p.add(n, column, "the file does not say whether weights are in kg or lb (no unit column, none in the weight column's name or the cells): say the unit")
		return ""
	}
	if strings.Contains(num, ",") {
		dot := strings.Contains(num, ".")
		frac := num[strings.LastIndex(num, ",")+1:]
		if dot || strings.Count(num, ",") > 1 || len(frac) == 3 {
			p.add(n, column, "%q: write weights without a thousands separator (a decimal comma is read: 452,5)", v)
			return ""
		}
		num = strings.Replace(num, ",", ".", 1)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(num, "eEx_") {
		p.add(n, column, "%q is not a weight: a number, in kg or lb", v)
		return ""
	}
	kg := f
	if unit == LB {
		kg = math.Round(f*KGPerLB*100) / 100
	}
	if kg <= 0 || kg > MaxKG {
		p.add(n, column, "%q: a weight must be above 0 and at most %g kg", v, MaxKG)
		return ""
	}
	return strconv.FormatFloat(kg, 'f', -1, 64)
}

// clock reads a time of day: H:MM, HH:MM:SS, with an optional AM or PM.
func clock(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	pm, am := strings.HasSuffix(s, "PM") || strings.HasSuffix(s, "P"), strings.HasSuffix(s, "AM") || strings.HasSuffix(s, "A")
	s = strings.TrimSpace(strings.TrimRight(s, "APM"))
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return "", false
	}
	var v [3]int
	for i, part := range parts {
		if len(part) == 0 || len(part) > 2 || (i > 0 && len(part) != 2) {
			return "", false
		}
		n, err := strconv.Atoi(part)
		if err != nil {
			return "", false
		}
		v[i] = n
	}
	if am || pm {
		if v[0] < 1 || v[0] > 12 {
			return "", false
		}
		if v[0] == 12 {
			v[0] = 0
		}
		if pm {
			v[0] += 12
		}
	}
	if v[0] > 23 || v[1] > 59 || v[2] > 59 {
		return "", false
	}
	if len(parts) == 3 {
		return fmt.Sprintf("%02d:%02d:%02d", v[0], v[1], v[2]), true
	}
	return fmt.Sprintf("%02d:%02d", v[0], v[1]), true
}

// dayMonth is a date whose day and month wait for the file's order.
type dayMonth struct{ a, b, year int }

var months = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// dateCell reads a date cell (with its time, for a date and time column): an ISO date, a
// day.month.year or day-name date (settled), or a numeric date whose order waits (open).
func dateCell(s string) (settled string, open *dayMonth, tm string, ok bool) {
	s = strings.TrimSpace(s)
	// A time after the date: "2026-03-04T08:15:00", "04/03/2026 8:15", "2026-03-04 08:15 AM".
	for i := 1; i < len(s); i++ {
		if s[i] != 'T' && s[i] != ' ' {
			continue
		}
		rest := strings.TrimSpace(s[i+1:])
		rest = strings.TrimSuffix(strings.TrimSuffix(rest, "Z"), "+00:00")
		if dot := strings.LastIndexByte(rest, '.'); dot > 0 && strings.Count(rest, ":") == 2 {
			rest = rest[:dot] // fractions of a second
		}
		if t, good := clock(rest); good {
			s, tm = strings.TrimSpace(s[:i]), t
			break
		}
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '/' || r == '.' || r == ' ' })
	if len(fields) != 3 {
		return "", nil, "", false
	}
	num := func(v string) (int, bool) {
		if v == "" || len(v) > 4 {
			return 0, false
		}
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	year := func(v string) (int, bool) {
		n, ok := num(v)
		switch {
		case !ok:
			return 0, false
		case len(v) == 2:
			return 2000 + n, true
		case len(v) == 4:
			return n, true
		}
		return 0, false
	}
	check := func(y, m, d int) (string, bool) {
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if m < 1 || m > 12 || d < 1 || t.Day() != d {
			return "", false
		}
		return t.Format(time.DateOnly), true
	}
	// YYYY-MM-DD, YYYY/MM/DD.
	if len(fields[0]) == 4 {
		y, ok1 := num(fields[0])
		m, ok2 := num(fields[1])
		d, ok3 := num(fields[2])
		if !ok1 || !ok2 || !ok3 {
			return "", nil, "", false
		}
		v, ok := check(y, m, d)
		return v, nil, tm, ok
	}
	// 2 Jan 2026, 2-Jan-26, Jan 2 2026.
	if m, ok := months[strings.ToLower(fields[1])[:min(3, len(fields[1]))]]; ok && len(fields[1]) >= 3 {
		d, ok1 := num(fields[0])
		y, ok2 := year(fields[2])
		if !ok1 || !ok2 {
			return "", nil, "", false
		}
		v, ok := check(y, m, d)
		return v, nil, tm, ok
	}
	if m, ok := months[strings.ToLower(fields[0])[:min(3, len(fields[0]))]]; ok && len(fields[0]) >= 3 {
		d, ok1 := num(fields[1])
		y, ok2 := year(fields[2])
		if !ok1 || !ok2 {
			return "", nil, "", false
		}
		v, ok := check(y, m, d)
		return v, nil, tm, ok
	}
	a, ok1 := num(fields[0])
	b, ok2 := num(fields[1])
	y, ok3 := year(fields[2])
	if !ok1 || !ok2 || !ok3 || len(fields[0]) > 2 || len(fields[1]) > 2 {
		return "", nil, "", false
	}
	if strings.Contains(s, ".") {
		// day.month.year: the order of German, French and Nordic dates.
		v, ok := check(y, b, a)
		return v, nil, tm, ok
	}
	return "", &dayMonth{a: a, b: b, year: y}, tm, true
}

// datesOf reads the rows' dates: the settled ones at once, the d/m/y ones in the order the
// file settles (a day above 12), the layout gives (order) or the caller gives.
func datesOf(p *problems, raws []*rawRow, opt Options, order DateOrder) []Row {
	var open []pending
	var dayFirstAt, monthFirstAt int // a line that settles the order each way
	for _, r := range raws {
		if r.dateCell == "" {
			r.Date = opt.Date
			continue
		}
		settled, dm, tm, ok := dateCell(r.dateCell)
		if !ok {
			p.add(r.Line, r.dateColumn, "%q is not a date: write YYYY-MM-DD, or d/m/y or m/d/y", r.dateCell)
			continue
		}
		if tm != "" {
			r.Time = tm
		}
		if dm == nil {
			r.Date = settled
			continue
		}
		open = append(open, pending{r, dm})
		if dm.a > 12 && dayFirstAt == 0 {
			dayFirstAt = r.Line
		}
		if dm.b > 12 && monthFirstAt == 0 {
			monthFirstAt = r.Line
		}
	}
	if len(open) > 0 {
		if order == "" {
			order = opt.DateOrder
		}
		switch {
		case dayFirstAt > 0 && monthFirstAt > 0:
			p.add(monthFirstAt, open[0].r.dateColumn, "the file's dates read day first on line %d and month first on this line: one file has one order", dayFirstAt)
			order = "conflict"
		case dayFirstAt > 0:
			if order == MonthFirst {
				p.add(dayFirstAt, open[0].r.dateColumn, "%q cannot be month first (date_order=mdy)", lineCell(open, dayFirstAt))
			}
			order = DayFirst
		case monthFirstAt > 0:
			if order == DayFirst {
				p.add(monthFirstAt, open[0].r.dateColumn, "%q cannot be day first (date_order=dmy)", lineCell(open, monthFirstAt))
			}
			order = MonthFirst
		case order == "":
			p.add(open[0].r.Line, open[0].r.dateColumn, "%q may be read day first or month first, and no date of the file settles it: say the date order (dmy or mdy)", open[0].r.dateCell)
		}
		if order == DayFirst || order == MonthFirst {
			for _, o := range open {
				d, m := o.dm.a, o.dm.b
				if order == MonthFirst {
					d, m = m, d
				}
				t := time.Date(o.dm.year, time.Month(m), d, 0, 0, 0, 0, time.UTC)
				if m < 1 || m > 12 || d < 1 || t.Day() != d {
					p.add(o.r.Line, o.r.dateColumn, "%q is not a date (read %s)", o.r.dateCell, order)
					continue
				}
				o.r.Date = t.Format(time.DateOnly)
			}
		}
	}
	out := make([]Row, len(raws))
	for i, r := range raws {
		out[i] = r.Row
	}
	return out
}

// pending is a row whose date waits for the file's order of d/m/y dates.
type pending struct {
	r  *rawRow
	dm *dayMonth
}

func lineCell(open []pending, n int) string {
	for _, o := range open {
		if o.r.Line == n {
			return o.r.dateCell
		}
	}
	return ""
}

// readDigiStar reads the headerless EID CSV lines of Digi-Star indicators when the first
// line is one (an EID, a weight, then LB or KG); ok is false otherwise.
func readDigiStar(lines []line, opt Options, p *problems) (*Session, bool) {
	first, err := parseLine(lines[0].text, ',')
	if err != nil || len(first) < 7 {
		return nil, false
	}
	if _, err := eid.Parse(first[0]); err != nil {
		return nil, false
	}
	if _, ok := unitOf(first[2]); !ok {
		return nil, false
	}
	s := &Session{Layout: LayoutDigiStar, Delimiter: ',', Columns: map[string]string{"eid": "1", "weight": "2", "unit": "3", "date": "6", "time": "7"},
		Extra: []string{"lock_on", "gross_net", "code"}}
	var raws []*rawRow
	for _, l := range lines {
		if strings.TrimSpace(strings.Trim(l.text, "\x1e")) == "" {
			continue
		}
		cells, err := parseLine(strings.TrimLeft(l.text, "\x1e"), ',')
		if err != nil || len(cells) < 7 {
			p.add(l.n, "", "is not a Digi-Star EID line (EID, weight, LB or KG, lock-on, GR or NT, mm/dd/yy, hh:mm, code)")
			continue
		}
		if opt.MaxRows > 0 && len(raws) == opt.MaxRows {
			p.add(l.n, "", "the file has more than %d weighings; split it", opt.MaxRows)
			break
		}
		r := &rawRow{Row: Row{Line: l.n}}
		readID(p, &r.Row, strings.TrimSpace(cells[0]), "")
		unit, ok := unitOf(cells[2])
		if !ok {
			p.add(l.n, "unit", "%q is not LB or KG", strings.TrimSpace(cells[2]))
		} else {
			r.KG = readWeight(p, l.n, "weight", strings.TrimSpace(cells[1]), unit, "")
		}
		r.dateCell, r.dateColumn = strings.TrimSpace(cells[5]), "date"
		if r.dateCell == "" && opt.Date == "" {
			p.add(l.n, "date", "is empty: every weighing is dated")
		}
		if t := strings.TrimSpace(cells[6]); t != "" {
			if v, ok := clock(t); ok {
				r.Time = v
			} else {
				p.add(l.n, "time", "%q is not a time of day", t)
			}
		}
		for i, name := range []string{"lock_on", "gross_net", "code"} {
			at := []int{3, 4, 7}[i]
			if at < len(cells) {
				if v := strings.TrimSpace(cells[at]); v != "" {
					if r.Extras == nil {
						r.Extras = map[string]string{}
					}
					r.Extras[name] = v
				}
			}
		}
		raws = append(raws, r)
	}
	// The manual gives the date as mm/dd/yy: month first unless the caller says otherwise.
	order := MonthFirst
	if opt.DateOrder != "" {
		order = opt.DateOrder
	}
	s.Rows = datesOf(p, raws, opt, order)
	return s, true
}
