package httpapi

import (
	"io"
	"net/http"
	"time"
)

// BodyPace is how slowly a request body may arrive. A fixed read timeout cannot tell a client
// that holds a connection open by sending nothing (slowloris) from a 100 MB upload over a
// slow link; a deadline that moves with progress can: the body must never pause longer than
// Idle, and after Grace it must keep an average of MinRate bytes a second.
type BodyPace struct {
	// Idle is the longest a body may send nothing.
	Idle time.Duration
	// Grace is how long any body may take, however small, as long as it does not pause for
	// Idle: the average rate is only enforced after it.
	Grace time.Duration
	// MinRate is the least average rate, in bytes per second since the body began, that a
	// body must keep once Grace has passed.
	MinRate int64
}

// DefaultBodyPace gives a body 30 seconds of silence at most, and, after its first minute, at
// least 1 KiB a second on average: 100 MB may take over a day, a trickle of a few bytes a
// minute is cut off after one.
var DefaultBodyPace = BodyPace{Idle: 30 * time.Second, Grace: time.Minute, MinRate: 1 << 10}

// orDefault fills the zero fields of p from DefaultBodyPace.
func (p BodyPace) orDefault() BodyPace {
	if p.Idle <= 0 {
		p.Idle = DefaultBodyPace.Idle
	}
	if p.Grace <= 0 {
		p.Grace = DefaultBodyPace.Grace
	}
	if p.MinRate <= 0 {
		p.MinRate = DefaultBodyPace.MinRate
	}
	return p
}

// BodyDeadline enforces pace on every request body: it sets the connection's read deadline
// when the handler starts and moves it each time bytes arrive. A body that falls behind fails
// to read with os.ErrDeadlineExceeded (ReadError words it for the client), and the server
// closes the connection instead of holding it. The deadline stays in place when the handler
// returns early, so that discarding an unread body cannot hang either; once the body is read
// to its end the deadline is cleared, because the server then watches the idle connection
// with a read of its own.
func BodyDeadline(pace BodyPace, next http.Handler) http.Handler {
	pace = pace.orDefault()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		b := &pacedBody{body: r.Body, rc: rc, pace: pace, start: time.Now()}
		if err := rc.SetReadDeadline(b.deadline(b.start)); err != nil {
			next.ServeHTTP(w, r) // a writer without deadlines (not a network connection)
			return
		}
		r.Body = b
		next.ServeHTTP(w, r)
	})
}

// pacedBody moves the read deadline as its body makes progress.
type pacedBody struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	pace  BodyPace
	start time.Time
	n     int64
}

// deadline is when the next byte must have arrived: Idle from now, but no later than the
// moment the average since start would drop below MinRate (never before Grace is over).
func (b *pacedBody) deadline(now time.Time) time.Time {
	d := now.Add(b.pace.Idle)
	earned := time.Duration(float64(b.n) / float64(b.pace.MinRate) * float64(time.Second))
	if byRate := b.start.Add(max(b.pace.Grace, earned)); byRate.Before(d) {
		d = byRate
	}
	return d
}

func (b *pacedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		_ = b.rc.SetReadDeadline(time.Time{})
	case err == nil && n > 0:
		_ = b.rc.SetReadDeadline(b.deadline(time.Now()))
	}
	return n, err
}

func (b *pacedBody) Close() error { return b.body.Close() }
