package evidence

import (
	"math"
	"time"
)

// Dates travel as "YYYY-MM-DD" strings and are compared as whole days
// counted from 1970-01-01, so interval arithmetic is plain integer maths.

// openEnd stands for an interval without an end date. It lies far beyond
// any calendar date the engine accepts, so intersections stay finite.
const openEnd = math.MaxInt32

var (
	// minDay and maxDay bound the calendar the engine accepts: years 1 to
	// 9999, the range a four-digit year can spell.
	minDay = civilDay(1, 1, 1)
	maxDay = civilDay(9999, 12, 31)
)

// civilDay converts a proleptic Gregorian date to its day number. The time
// package does the calendar work; midnight UTC divides exactly by 86400.
func civilDay(y, m, d int) int {
	return int(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// parseDate reads a strict YYYY-MM-DD calendar date. It refuses signs,
// short fields, month 13, 31 April and 29 February outside leap years.
func parseDate(s string) (int, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	y, m, d := digits(s[0:4]), digits(s[5:7]), digits(s[8:10])
	if y < 1 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, false
	}
	return civilDay(y, m, d), true
}

// isDate reports whether s is a real calendar date in the form YYYY-MM-DD.
func isDate(s string) bool {
	_, ok := parseDate(s)
	return ok
}

// isDateTime reports whether s is an RFC 3339 date-time within years 1 to 9999 whose date
// part is itself a calendar date.
func isDateTime(s string) bool {
	t, err := time.Parse(time.RFC3339, s)
	return err == nil && len(s) > 10 && isDate(s[:10]) && t.Year() >= 1 && t.Year() <= 9999
}

// formatDate renders a day number as YYYY-MM-DD.
func formatDate(day int) string {
	return time.Unix(int64(day)*86400, 0).UTC().Format(time.DateOnly)
}

// digits parses a run of ASCII digits, or returns -1 when any byte is not
// a digit.
func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func daysInMonth(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	default:
		return 31
	}
}
