package herdbook

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/ent/predicate"
)

// Lease asks for a batch of notifications to deliver.
type Lease struct {
	// Worker names the worker; each batch gets its own token beginning with it.
	Worker string
	// Batch is the most notifications leased at once.
	Batch int
	// Duration is how long the worker holds them. It must be longer than a delivery
	// attempt takes: a lease that runs out lets another worker deliver the same row.
	Duration time.Duration
	// Types are the channels the worker can deliver; others stay PENDING for a worker
	// that can (a channel without configuration is never tried, so it never fails).
	Types []notification.Type
	// IDs, when set, restricts the lease to these notifications.
	IDs []uuid.UUID
}

// LeaseNotifications leases up to l.Batch PENDING notifications whose next attempt is due
// and whose previous lease (if any) ran out, and counts the attempt. On PostgreSQL the
// candidate rows are selected FOR UPDATE SKIP LOCKED, so concurrent workers on many nodes
// take disjoint batches without waiting on each other; the lease itself is an UPDATE that
// re-checks the lease, so even without row locks (SQLite, a Citus cluster: WithCitus) no row
// is leased twice.
func (s *Service) LeaseNotifications(ctx context.Context, l Lease) ([]*ent.Notification, error) {
	if l.Batch <= 0 || l.Duration <= 0 || l.Worker == "" || len(l.Types) == 0 {
		return nil, errors.New("lease: worker, batch, duration and types are required")
	}
	token := truncate(l.Worker, 60) + "/" + uuid.NewString()
	var out []*ent.Notification
	err := s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		free := func(now time.Time) predicate.Notification {
			return notification.Or(notification.LeaseUntilIsNil(), notification.LeaseUntilLTE(now))
		}
		ids, err := s.leaseRounds(func(now time.Time) ([]uuid.UUID, error) {
			q := c.Notification.Query().Where(
				notification.StatusEQ(notification.StatusPENDING),
				notification.TypeIn(l.Types...),
				notification.NextAttemptAtLTE(now),
				free(now),
			)
			if l.IDs != nil {
				q.Where(notification.IDIn(l.IDs...))
			}
			return q.Order(ent.Asc(notification.FieldNextAttemptAt), ent.Asc(notification.FieldID)).
				Limit(l.Batch).Where(s.lockCandidates).IDs(ctx)
		}, func(now time.Time, ids []uuid.UUID) (int, error) {
			return c.Notification.Update().
				Where(notification.IDIn(ids...), notification.StatusEQ(notification.StatusPENDING), free(now)).
				SetLeaseUntil(now.Add(l.Duration)).SetLeasedBy(token).AddAttempts(1).Save(ctx)
		})
		if err != nil || len(ids) == 0 {
			return err
		}
		out, err = c.Notification.Query().Where(notification.IDIn(ids...), notification.LeasedBy(token)).
			Order(ent.Asc(notification.FieldNextAttemptAt), ent.Asc(notification.FieldID)).All(ctx)
		return err
	})
	return out, err
}

// leaseRounds is a sweep's lease: pick selects up to a batch of free candidates, take
// leases those still free by a conditional UPDATE and says how many it took. It returns the
// candidates when take leased any, and none when there were none or another node leased them
// all first; on a cluster, where candidates are not skipped while locked (lockCandidates),
// the next ones may then be free, so it selects again, sweepRounds times at most.
func (s *Service) leaseRounds(pick func(now time.Time) ([]uuid.UUID, error), take func(now time.Time, ids []uuid.UUID) (int, error)) ([]uuid.UUID, error) {
	for round := 1; ; round++ {
		now := s.nowUTC()
		ids, err := pick(now)
		if err != nil || len(ids) == 0 {
			return nil, err
		}
		n, err := take(now, ids)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			return ids, nil
		}
		if !s.citus || round == sweepRounds {
			return nil, nil
		}
	}
}

// RetryPolicy says how often and how far apart a failed delivery is tried again.
type RetryPolicy struct {
	MaxAttempts int           // attempts in all, the first included; then FAILED
	Base        time.Duration // wait after the first failure; doubled after each further one
	Max         time.Duration // the longest wait
}

// DefaultRetryPolicy tries five times over about a quarter of an hour.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 5, Base: 30 * time.Second, Max: time.Hour}

// Backoff returns the wait after the given number of failed attempts: Base × 2^(attempts−1),
// at most Max.
func (p RetryPolicy) Backoff(attempts int) time.Duration {
	d := p.Base
	for i := 1; i < attempts && d < p.Max; i++ {
		d *= 2
	}
	return min(d, p.Max)
}

// PermanentError marks a delivery failure that retrying cannot mend (an address the
// provider refuses): the notification fails at once.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// ErrLeaseLost is returned by RecordDelivery when the worker's lease was taken over or the
// notification changed meanwhile: the outcome was not recorded.
var ErrLeaseLost = errors.New("notification lease lost")

// RecordDelivery records the outcome of delivering a leased notification: SENT with sent_at
// on success; on failure error_message, and either PENDING again after the back-off or
// FAILED when the attempts are used up or the error is permanent. The update is
// conditional on the lease, so a worker that lost its lease changes nothing.
func (s *Service) RecordDelivery(ctx context.Context, n *ent.Notification, sendErr error, p RetryPolicy) error {
	if n.LeasedBy == nil {
		return ErrLeaseLost
	}
	now := s.nowUTC()
	var changed int
	err := s.inTx(ctx, func(ctx context.Context) (err error) {
		changed, err = s.recordDelivery(ctx, n, sendErr, p, now)
		return err
	})
	if err == nil && changed == 0 {
		return ErrLeaseLost
	}
	return err
}

func (s *Service) recordDelivery(ctx context.Context, n *ent.Notification, sendErr error, p RetryPolicy, now time.Time) (int, error) {
	// The farm named beside the id sends the statement to the farm's shard on a cluster.
	u := s.Client(ctx).Notification.Update().Where(notification.ID(n.ID), notification.FarmID(n.FarmID),
		notification.StatusEQ(notification.StatusPENDING), notification.LeasedBy(*n.LeasedBy),
	).ClearLeaseUntil().ClearLeasedBy()
	var perm *PermanentError
	switch {
	case sendErr == nil:
		u.SetStatus(notification.StatusSENT).SetSentAt(now).ClearErrorMessage()
	case errors.As(sendErr, &perm) || n.Attempts >= p.MaxAttempts:
		u.SetStatus(notification.StatusFAILED).SetErrorMessage(truncate(sendErr.Error(), 1000))
	default:
		u.SetErrorMessage(truncate(sendErr.Error(), 1000)).SetNextAttemptAt(now.Add(p.Backoff(n.Attempts)))
	}
	return u.Save(ctx)
}

// ReleaseNotifications hands leased notifications back without counting the attempt, for a
// worker that stops before it tried them.
func (s *Service) ReleaseNotifications(ctx context.Context, ns []*ent.Notification) error {
	return s.inTx(ctx, func(ctx context.Context) error {
		for _, n := range ns {
			if n.LeasedBy == nil {
				continue
			}
			if err := s.Client(ctx).Notification.Update().Where(notification.ID(n.ID), notification.FarmID(n.FarmID),
				notification.StatusEQ(notification.StatusPENDING), notification.LeasedBy(*n.LeasedBy),
			).ClearLeaseUntil().ClearLeasedBy().AddAttempts(-1).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
