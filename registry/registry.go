// Package registry names what every registry adapter offers the outbox that sends statutory
// notices (docs/registry.md): a batch of reports submitted under the holding's credentials,
// a receipt, and the registry's answer per report, fetched later where the registry answers
// asynchronously. Each registry's adapter lives in a package of its own (registry/cts for
// GB's Cattle Tracing System) and speaks only that registry's published message shapes;
// none of them knows the book, the database or the others.
package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdbook/herdbook/registry/notice"
)

// Holding is the holding a batch is reported for, with the keeper's credentials at the
// registry (stored encrypted per holding by the outbox and handed over in clear only here).
type Holding struct {
	// Scheme and Identifier are the holding's number as package registry/scheme spells it
	// (uk.cph, 34/123/1234).
	Scheme     string
	Identifier string
	// Username and Password are the keeper's web-service credentials at the registry.
	Username string
	Password string
}

// Report is one notice as a registry receives it.
type Report struct {
	// Key is the notice's key (registry/notice.Key): answers name it.
	Key  string
	Kind notice.Kind
	// Tag is the animal's official ear tag number, in any spacing.
	Tag string
	// Date is the day of the event (YYYY-MM-DD).
	Date string
	// The details some registries need besides the tag and the date, empty when the book
	// does not know them (an adapter that needs one refuses the report, naming it):
	// Sex is "male" or "female"; BirthDate the animal's birth day (YYYY-MM-DD); Breed the
	// book's breed name or code as recorded; DamTag the official tag of its genetic dam.
	Sex       string
	BirthDate string
	Breed     string
	DamTag    string
	// OtherScheme and OtherHolding name the holding the animal came from (move_on) or went
	// to (move_off), as package registry/scheme spells them, when the book names it.
	OtherScheme  string
	OtherHolding string
	// Corrects is, on a correction, the kind of the notice it corrects; Withdraw says the
	// correction withdraws the corrected report (its fact was voided) rather than amends it.
	Corrects notice.Kind
	Withdraw bool
}

// Answer is the registry's answer to one report.
type Answer struct {
	Key      string
	Accepted bool
	// Causes are the registry's reasons for a reject, in its words.
	Causes []string
}

// ErrNotReady says the registry has the batch but has not answered yet: ask again later.
var ErrNotReady = errors.New("registry: the answer is not ready yet")

// Error is a registry's refusal of a whole request, or a failure to reach it. Temporary
// errors (the registry unreachable, overloaded or failing) are worth retrying with backoff;
// the others (credentials refused, a request the registry cannot read) are not until
// something changes.
type Error struct {
	// Code is the registry's code for the error, when it gave one.
	Code      string
	Message   string
	Temporary bool
	// NotTaken says the registry certainly did not take the request (it answered that it
	// was unavailable or overloaded, or no connection was made), so a retry cannot report
	// anything twice. Without it, a temporary error leaves open whether the request
	// reached the registry.
	NotTaken bool
}

func (e *Error) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("registry: %s: %s", e.Code, e.Message)
	}
	return "registry: " + e.Message
}

// Temporary reports whether err is worth retrying: an *Error marked temporary, or
// ErrNotReady.
func Temporary(err error) bool {
	var re *Error
	return errors.Is(err, ErrNotReady) || (errors.As(err, &re) && re.Temporary)
}

// Adapter is a registry's web service as the outbox uses it.
type Adapter interface {
	// Name is the adapter's name, stored as a submission's channel.
	Name() string
	// Supports reports whether the registry takes reports of a notice kind through this
	// service (the others go by file export or by hand).
	Supports(notice.Kind) bool
	// Submit sends a batch of reports and returns the registry's receipt. batchID is the
	// outbox's own id for the batch, stored before the call: a registry that takes a
	// transaction id gets it, so that the batch can be recognised after a restart.
	Submit(ctx context.Context, h Holding, batchID string, reports []Report) (receipt string, err error)
	// Results fetches the registry's answers to a submitted batch: ErrNotReady while it
	// has none. Reports the answer does not name are left out.
	Results(ctx context.Context, h Holding, receipt string, reports []Report) ([]Answer, error)
}

// NotTaken reports whether err says the registry certainly did not take the request.
func NotTaken(err error) bool {
	var re *Error
	return errors.As(err, &re) && re.NotTaken
}

// Checker is an adapter that can read the registry's own copy of a holding and tell from it
// which reports the registry already has: the outbox asks it before sending again a batch
// whose last attempt may have reached the registry without its answer being kept, so that
// nothing is reported twice. The answer is keyed by report key.
type Checker interface {
	Reported(ctx context.Context, h Holding, reports []Report) (map[string]bool, error)
}

// CopyReader is an adapter that reads the registry's copy of a holding's animals, for
// reconciliation with the book.
type CopyReader interface {
	Copy(ctx context.Context, h Holding) ([]CopyAnimal, error)
}

// CopyAnimal is one animal of a registry's copy of a holding; empty fields are unknown.
type CopyAnimal struct {
	// Tag is the official ear tag; Sex M or F; BirthDate and OnDate (its arrival on the
	// holding) YYYY-MM-DD; Breed the registry's breed code; Dam its dam's tag.
	Tag, Sex, BirthDate, OnDate, Breed, Dam string
}

// Backoff is how long to wait before the attempt after n failed ones (n from 1): doubling
// from Base, at most Max.
type Backoff struct {
	Base, Max time.Duration
}

// Delay returns the wait before the next attempt after n failed ones.
func (b Backoff) Delay(n int) time.Duration {
	d := b.Base
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// Await polls Results until the registry answers, waiting b.Delay between attempts, and
// gives up with the last error when ctx ends or the error is not temporary.
func Await(ctx context.Context, a Adapter, h Holding, receipt string, reports []Report, b Backoff) ([]Answer, error) {
	for n := 1; ; n++ {
		answers, err := a.Results(ctx, h, receipt, reports)
		if err == nil || !Temporary(err) {
			return answers, err
		}
		t := time.NewTimer(b.Delay(n))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
}
