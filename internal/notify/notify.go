// Package notify delivers Herdbook's notifications: a worker that runs the scheduler, leases
// PENDING notifications from the database and hands each to the sender of its channel (SMTP
// for EMAIL, an HTTP webhook for SMS), then records the outcome through the service layer.
// Any number of workers, in one process or many, may run against one PostgreSQL database.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
)

// Message is one notification on its way out.
type Message struct {
	ID      uuid.UUID // the notification's id; providers may use it to drop duplicates
	To      string    // an email address or a phone number
	Subject string
	Body    string
}

// Sender delivers messages on one channel. An error wrapped in *herdbook.PermanentError
// fails the notification at once; any other error is retried after a back-off.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Worker runs the scheduler and delivers due notifications until its context ends.
type Worker struct {
	Service *herdbook.Service
	// Senders holds the configured channels. A channel without a sender is not delivered:
	// its notifications stay PENDING until a worker with that channel runs.
	Senders map[notification.Type]Sender
	// ID names the worker in leases and logs; default host-pid-random.
	ID string
	// Interval is how often the scheduler runs and idle workers look for work; default 1m.
	Interval time.Duration
	// Batch is how many notifications one lease takes; default 50.
	Batch int
	// Lease is how long a batch is held; default 2m. SendTimeout × Batch / Parallel must
	// stay below it.
	Lease time.Duration
	// SendTimeout bounds one delivery attempt; default 20s.
	SendTimeout time.Duration
	// Parallel is how many messages of a batch go out at once; default 4.
	Parallel int
	// Retry is the back-off and attempt limit; default herdbook.DefaultRetryPolicy.
	Retry herdbook.RetryPolicy
	// NoSchedule leaves event creation to other nodes; this worker only delivers.
	NoSchedule bool
	Logger     *slog.Logger
}

func (w *Worker) defaults() {
	if w.ID == "" {
		host, _ := os.Hostname()
		w.ID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	if w.Interval <= 0 {
		w.Interval = time.Minute
	}
	if w.Batch <= 0 {
		w.Batch = 50
	}
	if w.Lease <= 0 {
		w.Lease = 2 * time.Minute
	}
	if w.SendTimeout <= 0 {
		w.SendTimeout = 20 * time.Second
	}
	if w.Parallel <= 0 {
		w.Parallel = 4
	}
	if w.Retry.MaxAttempts <= 0 {
		w.Retry = herdbook.DefaultRetryPolicy
	}
	if w.Logger == nil {
		w.Logger = slog.Default()
	}
}

// types lists the channels this worker delivers.
func (w *Worker) types() []notification.Type {
	var out []notification.Type
	for t, s := range w.Senders {
		if s != nil {
			out = append(out, t)
		}
	}
	return out
}

// Run works until ctx ends: at once on start (so leftovers of a previous run go out), then
// every Interval. On cancellation it finishes the messages already being sent, hands the
// rest of its batch back, and returns nil.
func (w *Worker) Run(ctx context.Context) error {
	w.defaults()
	w.Logger.Info("notification worker started", "worker", w.ID, "channels", w.types(), "interval", w.Interval)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			w.Logger.Info("notification worker stopped", "worker", w.ID)
			return nil
		case <-t.C:
		}
		if err := w.Tick(ctx); err != nil && ctx.Err() == nil {
			w.Logger.Error("notification pass failed", "worker", w.ID, "err", err)
		}
		t.Reset(w.Interval)
	}
}

// Tick runs the scheduler once (unless NoSchedule) and delivers until nothing is due.
func (w *Worker) Tick(ctx context.Context) error {
	w.defaults()
	if !w.NoSchedule {
		res, err := w.Service.ScheduleDue(ctx)
		if err != nil {
			return err
		}
		if res.Events+res.FannedOut > 0 {
			w.Logger.Info("notifications scheduled", "worker", w.ID, "events", res.Events, "fanned_out", res.FannedOut, "notifications", res.Notifications)
		}
	}
	for ctx.Err() == nil {
		n, err := w.DeliverBatch(ctx, nil)
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// DeliverBatch leases one batch (of the given notifications only, when ids is not nil),
// delivers it and records each outcome. It returns how many it leased.
func (w *Worker) DeliverBatch(ctx context.Context, ids []uuid.UUID) (int, error) {
	w.defaults()
	types := w.types()
	if len(types) == 0 {
		return 0, nil
	}
	batch, err := w.Service.LeaseNotifications(ctx, herdbook.Lease{Worker: w.ID, Batch: w.Batch, Duration: w.Lease, Types: types, IDs: ids})
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	// Outcomes are recorded even while stopping: a message that went out must be marked.
	keep := context.WithoutCancel(ctx)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		errs     []error
		unsent   []*ent.Notification
		sem      = make(chan struct{}, w.Parallel)
		stopping = ctx.Done()
	)
	for _, n := range batch {
		select {
		case <-stopping:
			unsent = append(unsent, n)
			continue
		case sem <- struct{}{}:
		}
		wg.Add(1)
		go func(n *ent.Notification) {
			defer func() { <-sem; wg.Done() }()
			if err := w.deliver(keep, n); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}(n)
	}
	wg.Wait()
	if len(unsent) > 0 {
		errs = append(errs, w.Service.ReleaseNotifications(keep, unsent))
	}
	return len(batch), errors.Join(errs...)
}

// deliver sends one notification and records the outcome.
func (w *Worker) deliver(ctx context.Context, n *ent.Notification) error {
	sctx, cancel := context.WithTimeout(ctx, w.SendTimeout)
	err := w.Senders[n.Type].Send(sctx, Message{ID: n.ID, To: n.Recipient, Subject: n.Title, Body: n.Body})
	cancel()
	if err != nil {
		w.Logger.Warn("notification delivery failed", "worker", w.ID, "notification", n.ID, "type", n.Type, "attempt", n.Attempts, "err", err)
	}
	if rerr := w.Service.RecordDelivery(ctx, n, err, w.Retry); rerr != nil {
		if errors.Is(rerr, herdbook.ErrLeaseLost) {
			w.Logger.Warn("notification lease lost before the outcome was recorded", "worker", w.ID, "notification", n.ID)
			return nil
		}
		return fmt.Errorf("record delivery of %s: %w", n.ID, rerr)
	}
	return nil
}
