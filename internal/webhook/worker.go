package webhook

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
)

// Worker delivers due webhooks until its context ends.
type Worker struct {
	Service *herdbook.Service
	Sender  *Sender
	// ID names the worker in leases, the attempt log and logs; default host-pid-random.
	ID string
	// Interval is how often an idle worker looks for work; default 5 s, so that a change
	// reaches its receivers within seconds.
	Interval time.Duration
	// Batch is how many deliveries one lease takes; default 50.
	Batch int
	// Lease is how long a batch is held; default 5 min. Sender.Timeout × Batch / Parallel
	// must stay below it.
	Lease time.Duration
	// Parallel is how many deliveries of a batch go out at once; default 8.
	Parallel int
	// Retry is the attempt schedule; default herdbook.DefaultWebhookRetry.
	Retry  herdbook.WebhookRetry
	Logger *slog.Logger
}

func (w *Worker) defaults() {
	if w.ID == "" {
		host, _ := os.Hostname()
		w.ID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	if w.Sender == nil {
		w.Sender = &Sender{}
	}
	if w.Interval <= 0 {
		w.Interval = 5 * time.Second
	}
	if w.Batch <= 0 {
		w.Batch = 50
	}
	if w.Lease <= 0 {
		w.Lease = 5 * time.Minute
	}
	if w.Parallel <= 0 {
		w.Parallel = 8
	}
	if w.Retry.Schedule == nil {
		w.Retry = herdbook.DefaultWebhookRetry
	}
	if w.Logger == nil {
		w.Logger = slog.Default()
	}
}

// Run works until ctx ends: at once on start (leftovers of a previous run go out), then
// every Interval. On cancellation it finishes the attempts under way, hands the rest of its
// batch back and returns nil.
func (w *Worker) Run(ctx context.Context) error {
	w.defaults()
	w.Logger.Info("webhook worker started", "worker", w.ID, "interval", w.Interval.String(), "allow_private", w.Sender.AllowPrivate)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			w.Logger.Info("webhook worker stopped", "worker", w.ID)
			return nil
		case <-t.C:
		}
		if err := w.Tick(ctx); err != nil && ctx.Err() == nil {
			w.Logger.Error("webhook pass failed", "worker", w.ID, "err", err)
		}
		t.Reset(w.Interval)
	}
}

// Tick delivers until nothing is due.
func (w *Worker) Tick(ctx context.Context) error {
	for ctx.Err() == nil {
		n, err := w.DeliverBatch(ctx, nil)
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// DeliverBatch leases one batch (of the given deliveries only, when ids is not nil),
// attempts it and records each outcome. It returns how many it leased.
func (w *Worker) DeliverBatch(ctx context.Context, ids []uuid.UUID) (int, error) {
	w.defaults()
	batch, err := w.Service.LeaseWebhookDeliveries(ctx, herdbook.WebhookLease{Worker: w.ID, Batch: w.Batch, Duration: w.Lease, IDs: ids})
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	// Outcomes are recorded even while stopping: an attempt that was made must be logged.
	keep := context.WithoutCancel(ctx)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		errs   []error
		unsent []*ent.WebhookDelivery
		sem    = make(chan struct{}, w.Parallel)
	)
	for _, d := range batch {
		select {
		case <-ctx.Done():
			unsent = append(unsent, d)
			continue
		case sem <- struct{}{}:
		}
		wg.Add(1)
		go func(d *ent.WebhookDelivery) {
			defer func() { <-sem; wg.Done() }()
			if err := w.deliver(keep, d); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}(d)
	}
	wg.Wait()
	if len(unsent) > 0 {
		errs = append(errs, w.Service.ReleaseWebhookDeliveries(keep, unsent))
	}
	return len(batch), errors.Join(errs...)
}

// deliver attempts one delivery and records the outcome.
func (w *Worker) deliver(ctx context.Context, d *ent.WebhookDelivery) error {
	ev, ep := d.Edges.Event, d.Edges.Endpoint
	if ev == nil || ep == nil {
		return fmt.Errorf("delivery %s: its event or endpoint did not load", d.ID)
	}
	r := w.Sender.Send(ctx, Message{ID: ev.ID.String(), URL: ep.URL, Secret: ep.Secret, Body: ev.Payload})
	if r.Err != nil {
		w.Logger.Warn("webhook attempt failed", "worker", w.ID, "delivery", d.ID, "webhook", ep.ID, "type", ev.Type,
			"attempt", d.Attempts, "status", r.StatusCode, "err", r.Err)
	}
	err := w.Service.RecordWebhookAttempt(ctx, d, w.ID, herdbook.WebhookOutcome{
		StatusCode: r.StatusCode, Err: r.Err, Response: r.Response, Duration: r.Duration, RetryAfter: r.RetryAfter,
	}, w.Retry)
	if errors.Is(err, herdbook.ErrWebhookLeaseLost) {
		w.Logger.Warn("webhook lease lost before the attempt was recorded", "worker", w.ID, "delivery", d.ID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("record attempt of delivery %s: %w", d.ID, err)
	}
	return nil
}
