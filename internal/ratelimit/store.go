package ratelimit

import (
	"context"
	"time"
)

// Store counts hits in fixed windows. Implementations must be safe for
// concurrent use.
type Store interface {
	// Incr atomically counts one hit for key in the fixed window of the
	// given length that contains the current time. It returns the number
	// of hits counted for key in that window so far, including this one,
	// and the instant at which the window ends.
	Incr(ctx context.Context, key string, window time.Duration) (count int64, resetAt time.Time, err error)

	// Count returns the number of hits counted for key in the current
	// window, without counting one, and the instant at which the window
	// ends. A key without hits in the window has count zero.
	Count(ctx context.Context, key string, window time.Duration) (count int64, resetAt time.Time, err error)
}

// windowBounds returns the start and end of the fixed window of length
// window that contains now. Windows are aligned to the Unix epoch so that
// every process, and every node, agrees on where a window starts.
func windowBounds(now time.Time, window time.Duration) (start, end time.Time) {
	n := now.UnixNano()
	w := int64(window)
	off := n % w
	if off < 0 {
		off += w
	}
	start = time.Unix(0, n-off)
	return start, start.Add(window)
}
