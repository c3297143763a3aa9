package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/seed"
)

func (e env) adminSeed(ctx context.Context, args []string) error {
	a := e.newAdmin("admin seed")
	owner := a.fs.String("owner", "", "user id or phone number made OWNER of every seeded farm (created when a phone number is unknown)")
	farms := a.fs.Int("farms", 1, "number of farms")
	animals := a.fs.Int("animals", 100, "animals per farm")
	groups := a.fs.Int("groups", 5, "groups per farm")
	records := a.fs.Int("records", 200, "records per farm")
	items := a.fs.Int("items", 2, "items per record (every item carries a birth_history fact)")
	seedValue := a.fs.Uint64("seed", 1, "random seed: the same seed gives the same data shape")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	for name, v := range map[string]int{"farms": *farms, "animals": *animals, "groups": *groups, "records": *records, "items": *items} {
		if v < 0 || v > 10_000_000 {
			return fmt.Errorf("--%s must be between 0 and 10000000", name)
		}
	}
	var ownerID uuid.UUID
	if *owner != "" {
		ownerID, err = userRef(ctx, svc, *owner)
		if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
			u, cerr := svc.CreateUser(ctx, herdbook.UserInput{PhoneNumberLocal: *owner})
			if cerr != nil {
				return cerr
			}
			ownerID, err = u.ID, nil
		}
		if err != nil {
			return err
		}
	}
	start := time.Now()
	opts := seed.Options{
		Owner: ownerID, Farms: *farms, AnimalsPerFarm: *animals, GroupsPerFarm: *groups,
		RecordsPerFarm: *records, ItemsPerRecord: *items, Seed: *seedValue,
	}
	// Progress is for a person watching: on a terminal, one line rewritten in place; in a
	// pipe or a log file, and with --json, nothing.
	if !a.c.JSON && isTerminal(e.stderr) {
		p := &progressLine{w: e.stderr, start: start, now: time.Now}
		opts.Progress = p.update
	}
	res, err := seed.Run(ctx, d.Client, opts)
	if err != nil {
		return err
	}
	ids := make([]string, len(res.FarmIDs))
	for i, id := range res.FarmIDs {
		ids[i] = "\n  farm " + id.String()
	}
	return a.print(map[string]any{"farm_ids": res.FarmIDs, "animals": res.Animals, "groups": res.Groups,
		"records": res.Records, "items": res.Items, "seconds": time.Since(start).Seconds(), "rows": opts.Rows()},
		"seeded %d farm(s), %d animals, %d groups, %d records, %d items in %s:%s\n(--farm ID for import and export; herdbook farms list shows them again)",
		len(res.FarmIDs), res.Animals, res.Groups, res.Records, res.Items, time.Since(start).Round(time.Millisecond), strings.Join(ids, ""))
}

// isTerminal reports whether w is a terminal (a character device), where a line that
// rewrites itself reads well; in a pipe or a file it would only be noise.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressLine shows seed progress on a terminal: rows written, the rate and the time
// left, in one line that is rewritten at most ten times a second and ended when all rows
// are written.
type progressLine struct {
	w     io.Writer
	start time.Time
	now   func() time.Time
	last  time.Time
	label string // what is done ("importing"); "" is seeding
}

func (p *progressLine) update(done, total int) {
	now := p.now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	label := p.label
	if label == "" {
		label = "seeding"
	}
	text := progressTextAs(label, done, total, now.Sub(p.start))
	if total < 0 { // a stream whose length is not known beforehand
		text = countText(label, done, now.Sub(p.start))
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", text)
	if total >= 0 && done >= total {
		fmt.Fprintln(p.w)
	}
}

// end finishes a line whose total was not known: the last count, then a line break.
func (p *progressLine) end(done int) {
	fmt.Fprintf(p.w, "\r\x1b[K%s\n", countText(p.label, done, p.now().Sub(p.start)))
}

// countText is "exporting: 12000 rows, 8000 rows/s", for streams of unknown length.
func countText(label string, done int, elapsed time.Duration) string {
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	return fmt.Sprintf("%s: %d rows, %.0f rows/s", label, done, rate)
}

// progressText is "seeding: 12000/40000 rows (30%), 8000 rows/s, 3.5s left".
func progressText(done, total int, elapsed time.Duration) string {
	return progressTextAs("seeding", done, total, elapsed)
}

// progressTextAs is progressText for another kind of work ("importing: …").
func progressTextAs(label string, done, total int, elapsed time.Duration) string {
	pct := 100
	if total > 0 {
		pct = done * 100 / total
	}
	left := "time left unknown"
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	if rate > 0 {
		left = roundLeft(time.Duration(float64(total-done)/rate*float64(time.Second))).String() + " left"
	}
	return fmt.Sprintf("%s: %d/%d rows (%d%%), %.0f rows/s, %s", label, done, total, pct, rate, left)
}

// roundLeft rounds a time left to what a person reads: tenths of seconds under a minute,
// whole seconds above.
func roundLeft(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
