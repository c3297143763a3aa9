package herdbook

import (
	"context"
	"time"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/ent/scheduledevent"
	"github.com/herdbook/herdbook/ent/webhookdelivery"
)

// Queue is the state of one background queue at a moment, for operators' metrics.
type Queue struct {
	// Due counts the entries whose time has come and that wait for a worker.
	Due int
	// Failed counts the entries that ran out of attempts.
	Failed int
	// Lag is how long the oldest due entry has waited; zero when none is due.
	Lag time.Duration
}

// QueueStats is the state of the notification scheduler's events, the notification
// deliveries and the webhook deliveries. It is an operator's read, served only on the
// metrics listener: it checks no membership.
type QueueStats struct {
	ScheduledEvents Queue
	Notifications   Queue
	Webhooks        Queue
}

// QueueStats reads the queues' state now.
func (s *Service) QueueStats(ctx context.Context) (QueueStats, error) {
	c, now := s.Client(ctx), s.now().UTC()
	var out QueueStats
	var err error
	if out.ScheduledEvents.Due, err = c.ScheduledEvent.Query().
		Where(scheduledevent.ProcessedAtIsNil(), scheduledevent.DueAtLTE(now)).Count(ctx); err != nil {
		return out, err
	}
	if first, err := c.ScheduledEvent.Query().Where(scheduledevent.ProcessedAtIsNil(), scheduledevent.DueAtLTE(now)).
		Order(ent.Asc(scheduledevent.FieldDueAt)).First(ctx); err == nil {
		out.ScheduledEvents.Lag = now.Sub(first.DueAt)
	} else if !ent.IsNotFound(err) {
		return out, err
	}

	if out.Notifications.Due, err = c.Notification.Query().
		Where(notification.StatusEQ(notification.StatusPENDING), notification.NextAttemptAtLTE(now)).Count(ctx); err != nil {
		return out, err
	}
	if out.Notifications.Failed, err = c.Notification.Query().Where(notification.StatusEQ(notification.StatusFAILED)).Count(ctx); err != nil {
		return out, err
	}
	if first, err := c.Notification.Query().Where(notification.StatusEQ(notification.StatusPENDING), notification.NextAttemptAtLTE(now)).
		Order(ent.Asc(notification.FieldNextAttemptAt)).First(ctx); err == nil {
		out.Notifications.Lag = now.Sub(first.NextAttemptAt)
	} else if !ent.IsNotFound(err) {
		return out, err
	}

	if out.Webhooks.Due, err = c.WebhookDelivery.Query().
		Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPENDING), webhookdelivery.NextAttemptAtLTE(now)).Count(ctx); err != nil {
		return out, err
	}
	if out.Webhooks.Failed, err = c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusFAILED)).Count(ctx); err != nil {
		return out, err
	}
	if first, err := c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPENDING), webhookdelivery.NextAttemptAtLTE(now)).
		Order(ent.Asc(webhookdelivery.FieldNextAttemptAt)).First(ctx); err == nil {
		out.Webhooks.Lag = now.Sub(first.NextAttemptAt)
	} else if !ent.IsNotFound(err) {
		return out, err
	}
	return out, nil
}
