package herdbook

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/scheduledevent"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/registry/notice"
)

// NoticeReminderDays is how many days before its deadline a statutory notice still due is
// announced (the notifications pipeline: docs/notifications.md).
const NoticeReminderDays = 2

// noticeWords names a notice's kind in the farmer's words, for reminders.
func noticeWords(kind string) string {
	switch notice.Kind(kind) {
	case notice.KindBirth:
		return "birth registration"
	case notice.KindTagging:
		return "ear tagging"
	case notice.KindDeath:
		return "death report"
	case notice.KindMoveOn:
		return "movement-on report"
	case notice.KindMoveOff:
		return "movement-off report"
	case notice.KindTagReplacement:
		return "replacement tag"
	case notice.KindCorrection:
		return "correction to the registry"
	}
	return kind + " notice"
}

// noticeAction reports whether a notice's kind is something done on the farm (a tag put in)
// rather than a report to the registry.
func noticeAction(kind string) bool {
	return notice.Kind(kind) == notice.KindTagging || notice.Kind(kind) == notice.KindTagReplacement
}

// scheduleNoticesDue creates a notice_due event for every statutory notice still due whose
// deadline is at most NoticeReminderDays away (subject: the notice's key, due on its
// deadline), and one for every notice that became overdue within the look-back (subject:
// key + ":overdue", due on the day after its deadline), which also writes a
// notice.state_changed webhook event (due → overdue). It derives each holding's notices in
// the derivation's constant number of statements; nothing is written for a notice twice.
func (s *Service) scheduleNoticesDue(ctx context.Context) (int, error) {
	c := s.Client(ctx)
	holdings, err := c.Holding.Query().WithFarms().All(ctx)
	if err != nil || len(holdings) == 0 {
		return 0, err
	}
	_, from := s.today()
	var farmIDs []uuid.UUID
	for _, h := range holdings {
		farmIDs = append(farmIDs, holdingFarmIDs(h)...)
	}
	if len(farmIDs) == 0 {
		return 0, nil
	}
	names, err := s.farmNames(ctx, farmIDs)
	if err != nil {
		return 0, err
	}
	seen, err := s.existingEvents(ctx, scheduledevent.KindNoticeDue, farmIDs, from.AddDate(0, 0, -1))
	if err != nil {
		return 0, err
	}
	now := s.nowUTC()
	lookbackDays := int(s.lookback / (24 * time.Hour))
	var creates []*ent.ScheduledEventCreate
	overdue := map[uuid.UUID][]Notice{}
	for _, h := range holdings {
		b, err := s.deriveNotices(ctx, h, holdingFarmIDs(h))
		if err != nil {
			return 0, err
		}
		for _, n := range b.notices {
			fid, err := uuid.Parse(n.FarmID)
			name, ok := names[fid]
			if err != nil || !ok {
				continue
			}
			subject, dueOn, late := n.Key, n.Deadline, false
			switch {
			case n.State == notice.StateDue && n.DaysLeft <= NoticeReminderDays:
			case n.State == notice.StateOverdue && -n.DaysLeft <= lookbackDays:
				subject, late = n.Key+":overdue", true
				d, _ := time.Parse(time.DateOnly, n.Deadline)
				dueOn = d.AddDate(0, 0, 1).Format(time.DateOnly)
			default:
				continue
			}
			if seen[eventKey{fid, subject, dueOn}] {
				continue
			}
			var tags []string
			if n.AnimalTag != "" {
				tags = []string{n.AnimalTag}
			}
			creates = append(creates, c.ScheduledEvent.Create().SetFarmID(fid).SetKind(scheduledevent.KindNoticeDue).
				SetSubject(subject).SetDueOn(dueOn).SetDueAt(now).
				SetPayload(schematype.EventPayload{FarmName: name, AnimalTags: tags, NoticeKind: string(n.Kind), Deadline: n.Deadline, Overdue: late}))
			if late {
				overdue[fid] = append(overdue[fid], n)
			}
		}
	}
	err = s.inTx(ctx, func(ctx context.Context) error {
		if err := s.insertEvents(ctx, creates); err != nil {
			return err
		}
		for fid, ns := range overdue {
			prev := make([]string, len(ns))
			for i := range prev {
				prev[i] = notice.StateDue
			}
			if err := s.emitNoticeEvents(ctx, fid, ns, prev); err != nil {
				return err
			}
		}
		return nil
	})
	return len(creates), err
}
