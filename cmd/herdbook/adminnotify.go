package main

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/internal/notify"
)

// adminNotifyTest sends a test message to one user on one channel through the configured
// sender, at once, and prints the outcome; it is how an operator checks the SMTP or SMS
// settings. The message is a real notification (of a "test" event) and shows in the lists.
func (e env) adminNotifyTest(ctx context.Context, args []string) error {
	a := e.newAdmin("admin notify test")
	e.notifyFlags(a.fs, &a.c)
	user := a.fs.String("user", "", "user id or phone number (required)")
	channel := new(string)
	e.choiceVar(a.fs, channel, "channel", "", "", []string{"EMAIL", "SMS", "IN_APP"}, "the channel to send on (required)")
	farm := a.fs.String("farm", "", "farm id the message is about; default the user's first farm")
	message := a.fs.String("message", "", "text of the message; default a standard test text")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	userID, err := userRef(ctx, svc, *user)
	if err != nil {
		return err
	}
	var farmID *uuid.UUID
	if *farm != "" {
		id, err := uuid.Parse(*farm)
		if err != nil {
			return fmt.Errorf("--farm must be a farm id (UUID)")
		}
		farmID = &id
	}
	if *channel == "" {
		return fmt.Errorf("--channel is required: EMAIL, SMS or IN_APP")
	}
	ch := notification.Type(*channel)
	senders, err := a.c.senders()
	if err != nil {
		return err
	}
	if ch != notification.TypeIN_APP && senders[ch] == nil {
		return fmt.Errorf("channel %s is not configured: set the HERDBOOK_SMTP_* or HERDBOOK_SMS_WEBHOOK_* variables (see README)", ch)
	}
	n, err := svc.AdminTestNotification(ctx, userID, farmID, string(ch), *message)
	if err != nil {
		return err
	}
	if ch != notification.TypeIN_APP {
		// One attempt, now: an operator wants the provider's answer, not a retry schedule.
		w := &notify.Worker{Service: svc, Senders: senders, Retry: herdbook.RetryPolicy{MaxAttempts: 1, Base: time.Second, Max: time.Second},
			Logger: a.c.logger(e.stderr)}
		if _, err := w.DeliverBatch(ctx, []uuid.UUID{n.ID}); err != nil {
			return err
		}
		if n, err = d.Client.Notification.Get(ctx, n.ID); err != nil {
			return err
		}
	}
	out := map[string]any{"id": n.ID, "type": n.Type, "status": n.Status, "user_id": n.UserID, "farm_id": n.FarmID,
		"scheduled_event_id": n.ScheduledEventID, "error_message": n.ErrorMessage}
	if n.Status != notification.StatusSENT {
		_ = a.print(out, "test %s to user %s: %s: %s", n.Type, n.UserID, n.Status, deref(n.ErrorMessage))
		return fmt.Errorf("the test message was not delivered")
	}
	return a.print(out, "test %s to user %s: SENT (notification %s)", n.Type, n.UserID, n.ID)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
