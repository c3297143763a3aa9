package evidence

import (
	"fmt"
	"time"
)

// courseError returns what is wrong with a course's last administration given its first, or
// "": the last comes no earlier than the first (by calendar date as written, and by instant
// when both carry a time) and at most MaxCourseDays calendar days after it.
func courseError(first, last string) string {
	d := CourseDays(first, last)
	switch {
	case d < 0:
		return "must not be before date (the first administration)"
	case d > MaxCourseDays:
		return fmt.Sprintf("must be at most %d days after date (the first administration)", MaxCourseDays)
	}
	if len(first) > 10 && len(last) > 10 {
		a, err1 := time.Parse(time.RFC3339, first)
		b, err2 := time.Parse(time.RFC3339, last)
		if err1 == nil && err2 == nil && b.Before(a) {
			return "must not be before date (the first administration)"
		}
	}
	return ""
}

// CourseDays is the number of calendar days from a course's first administration to its last
// (0 for a single administration), counted on the dates as written; each may be a date or an
// RFC 3339 date-time. The book's duration of treatment is CourseDays + 1 days.
func CourseDays(first, last string) int {
	if last == "" || len(first) < 10 || len(last) < 10 {
		return 0
	}
	a, err1 := time.Parse(time.DateOnly, first[:10])
	b, err2 := time.Parse(time.DateOnly, last[:10])
	if err1 != nil || err2 != nil {
		return 0
	}
	return int(b.Sub(a).Hours() / 24)
}
