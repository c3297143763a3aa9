package herdbook

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/webhookdelivery"
	"github.com/herdbook/herdbook/ent/webhookendpoint"
	"github.com/herdbook/herdbook/internal/db/citus"
)

// WebhookLease asks for a batch of webhook deliveries to attempt.
type WebhookLease struct {
	// Worker names the worker; each batch gets its own token beginning with it.
	Worker string
	// Batch is the most deliveries leased at once.
	Batch int
	// Duration is how long the worker holds them; it must be longer than an attempt takes.
	Duration time.Duration
	// IDs, when set, restricts the lease to these deliveries.
	IDs []uuid.UUID
}

// LeaseWebhookDeliveries leases up to l.Batch PENDING deliveries of enabled endpoints whose
// next attempt is due and whose previous lease (if any) ran out, counts the attempt, and
// returns them with their event and endpoint. As for notifications, the candidates are
// selected FOR UPDATE SKIP LOCKED on PostgreSQL (without locks on a Citus cluster:
// WithCitus) and leased by an UPDATE that re-checks the lease, so no delivery is leased
// twice, on any database. The endpoint is joined on the delivery's farm as well as its id,
// as a cluster requires of a statement over every farm.
func (s *Service) LeaseWebhookDeliveries(ctx context.Context, l WebhookLease) ([]*ent.WebhookDelivery, error) {
	if l.Batch <= 0 || l.Duration <= 0 || l.Worker == "" {
		return nil, errors.New("webhook lease: worker, batch and duration are required")
	}
	token := truncate(l.Worker, 60) + "/" + uuid.NewString()
	var out []*ent.WebhookDelivery
	err := s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		free := func(now time.Time) predicate.WebhookDelivery {
			return webhookdelivery.Or(webhookdelivery.LeaseUntilIsNil(), webhookdelivery.LeaseUntilLTE(now))
		}
		ids, err := s.leaseRounds(func(now time.Time) ([]uuid.UUID, error) {
			q := c.WebhookDelivery.Query().Where(
				webhookdelivery.StatusEQ(webhookdelivery.StatusPENDING),
				webhookdelivery.NextAttemptAtLTE(now),
				free(now),
				citus.ParentOnFarm(webhookendpoint.Table, webhookdelivery.EndpointColumn, webhookendpoint.Enabled(true)),
			)
			if l.IDs != nil {
				q.Where(webhookdelivery.IDIn(l.IDs...))
			}
			return q.Order(ent.Asc(webhookdelivery.FieldNextAttemptAt), ent.Asc(webhookdelivery.FieldID)).
				Limit(l.Batch).Where(s.lockCandidates).IDs(ctx)
		}, func(now time.Time, ids []uuid.UUID) (int, error) {
			return c.WebhookDelivery.Update().
				Where(webhookdelivery.IDIn(ids...), webhookdelivery.StatusEQ(webhookdelivery.StatusPENDING), free(now)).
				SetLeaseUntil(now.Add(l.Duration)).SetLeasedBy(token).AddAttempts(1).Save(ctx)
		})
		if err != nil || len(ids) == 0 {
			return err
		}
		out, err = c.WebhookDelivery.Query().Where(webhookdelivery.IDIn(ids...), webhookdelivery.LeasedBy(token)).
			WithEvent().WithEndpoint().
			Order(ent.Asc(webhookdelivery.FieldNextAttemptAt), ent.Asc(webhookdelivery.FieldID)).All(ctx)
		return err
	})
	return out, err
}

// WebhookRetry is the schedule of a delivery's attempts: the first at once, then one after
// each wait of Schedule, so len(Schedule)+1 attempts in all before the delivery FAILs.
type WebhookRetry struct {
	Schedule []time.Duration
	// Jitter spreads each wait by up to this fraction either way, so that a receiver
	// that came back is not hit by every retry at the same instant.
	Jitter float64
}

// DefaultWebhookRetry is the example schedule of the Standard Webhooks specification:
// ten attempts over about three days.
var DefaultWebhookRetry = WebhookRetry{
	Schedule: []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
		10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour},
	Jitter: 0.1,
}

// MaxAttempts is how many attempts the schedule allows.
func (r WebhookRetry) MaxAttempts() int { return len(r.Schedule) + 1 }

// Limit returns the schedule cut to at most n attempts in all (n ≥ 1).
func (r WebhookRetry) Limit(n int) WebhookRetry {
	if n >= 1 && n-1 < len(r.Schedule) {
		r.Schedule = r.Schedule[:n-1]
	}
	return r
}

// Wait returns the wait after the given number of failed attempts, or false when no
// attempt is left.
func (r WebhookRetry) Wait(attempts int) (time.Duration, bool) {
	if attempts < 1 || attempts > len(r.Schedule) {
		return 0, false
	}
	d := r.Schedule[attempts-1]
	if r.Jitter > 0 {
		d += time.Duration((rand.Float64()*2 - 1) * r.Jitter * float64(d))
	}
	return d, true
}

// WebhookOutcome is what one attempt of a delivery came to.
type WebhookOutcome struct {
	StatusCode int           // the receiver's status; 0 when there was no answer
	Err        error         // why the attempt failed; nil for a 2xx answer
	Response   string        // the start of the answer's body
	Duration   time.Duration // how long the attempt took
	RetryAfter time.Duration // the receiver's Retry-After, when it sent one
}

// ErrWebhookLeaseLost is returned by RecordWebhookAttempt when the worker's lease was taken
// over meanwhile: the outcome was not recorded.
var ErrWebhookLeaseLost = errors.New("webhook delivery lease lost")

// RecordWebhookAttempt logs an attempt of a leased delivery and records its outcome: a 2xx
// answer is SUCCEEDED; otherwise the delivery waits for its next attempt (the schedule's
// wait, or the receiver's Retry-After when longer) or FAILs when none is left. A 410 Gone
// answer FAILs it at once and disables the endpoint, as the specification asks. The update
// is conditional on the lease, so a worker that lost its lease changes nothing.
func (s *Service) RecordWebhookAttempt(ctx context.Context, d *ent.WebhookDelivery, worker string, o WebhookOutcome, r WebhookRetry) error {
	if d.LeasedBy == nil {
		return ErrWebhookLeaseLost
	}
	now := s.nowUTC()
	return s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		// The farm named beside the id sends the statement to the farm's shard on a cluster.
		u := c.WebhookDelivery.Update().Where(webhookdelivery.ID(d.ID), webhookdelivery.FarmID(d.FarmID),
			webhookdelivery.StatusEQ(webhookdelivery.StatusPENDING), webhookdelivery.LeasedBy(*d.LeasedBy)).ClearLeaseUntil().ClearLeasedBy()
		if o.StatusCode != 0 {
			u.SetLastStatusCode(o.StatusCode)
		} else {
			u.ClearLastStatusCode()
		}
		gone := o.StatusCode == 410
		wait, more := r.Wait(d.Attempts)
		switch {
		case o.Err == nil:
			u.SetStatus(webhookdelivery.StatusSUCCEEDED).SetDeliveredAt(now).ClearLastError()
		case gone || !more:
			u.SetStatus(webhookdelivery.StatusFAILED).SetLastError(truncate(o.Err.Error(), 1000))
		default:
			u.SetLastError(truncate(o.Err.Error(), 1000)).SetNextAttemptAt(now.Add(max(wait, min(o.RetryAfter, 24*time.Hour))))
		}
		n, err := u.Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrWebhookLeaseLost
		}
		a := c.WebhookAttempt.Create().SetDeliveryID(d.ID).SetFarmID(d.FarmID).SetDurationMs(o.Duration.Milliseconds()).
			SetWorker(truncate(worker, 100)).SetCreatedAt(now.Add(-o.Duration)).SetUpdatedAt(now)
		if o.StatusCode != 0 {
			a.SetStatusCode(o.StatusCode)
		}
		if o.Err != nil {
			a.SetError(truncate(o.Err.Error(), 1000))
		}
		if o.Response != "" {
			a.SetResponse(truncate(o.Response, 1000))
		}
		if err := a.Exec(ctx); err != nil {
			return err
		}
		if gone {
			return c.WebhookEndpoint.UpdateOneID(d.EndpointID).SetEnabled(false).
				SetDisabledReason(fmt.Sprintf("the receiver answered 410 Gone at %s", now.Format(time.RFC3339))).Exec(ctx)
		}
		return nil
	})
}

// ReleaseWebhookDeliveries hands leased deliveries back without counting the attempt, for a
// worker that stops before it tried them.
func (s *Service) ReleaseWebhookDeliveries(ctx context.Context, ds []*ent.WebhookDelivery) error {
	return s.inTx(ctx, func(ctx context.Context) error {
		for _, d := range ds {
			if d.LeasedBy == nil {
				continue
			}
			if err := s.Client(ctx).WebhookDelivery.Update().Where(webhookdelivery.ID(d.ID), webhookdelivery.FarmID(d.FarmID),
				webhookdelivery.StatusEQ(webhookdelivery.StatusPENDING), webhookdelivery.LeasedBy(*d.LeasedBy)).
				ClearLeaseUntil().ClearLeasedBy().AddAttempts(-1).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
