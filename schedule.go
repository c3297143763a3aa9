package herdbook

import (
	"context"
	"fmt"
	"strings"
	"text/template"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/birthsettings"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
	"github.com/herdbook/herdbook/ent/farmsettings"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/ent/notificationpreference"
	"github.com/herdbook/herdbook/ent/scheduledevent"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/internal/db/citus"
)

// DefaultNotifyLookback is how far back the scheduler looks for things that fell due: a
// task due yesterday that no scheduler saw (the service was down) is still announced; one
// due a year ago, when notifications were first switched on, is not.
const DefaultNotifyLookback = 7 * 24 * time.Hour

// WithNotifyLookback sets how far back the scheduler looks for things that fell due.
func WithNotifyLookback(d time.Duration) Option { return func(s *Service) { s.lookback = d } }

// Batch sizes of the scheduler. Each batch is a constant number of statements, so the cost
// of a tick grows with the number of batches, never with one statement per row.
const (
	fanOutBatch = 200 // events fanned out per transaction
	insertChunk = 400 // rows per INSERT, below both dialects' bound-parameter limits
)

// ScheduleResult says what one scheduler pass did.
type ScheduleResult struct {
	Events        int // scheduled events created
	FannedOut     int // events turned into notifications
	Notifications int // notification rows written (rows that already existed are skipped by the database)
}

// ScheduleDue creates the scheduled events that fell due by now (tasks due today or within
// the look-back and still TODO; birth windows whose start date came within it; withdrawals
// of treatments that ended within it), then fans
// every unprocessed event out into notifications. Any number of nodes may run it at once:
// the unique keys make every step idempotent, and on PostgreSQL the fan-out skips events
// another node holds.
func (s *Service) ScheduleDue(ctx context.Context) (ScheduleResult, error) {
	var res ScheduleResult
	n, err := s.scheduleTasks(ctx)
	if err != nil {
		return res, fmt.Errorf("schedule task events: %w", err)
	}
	res.Events += n
	if n, err = s.scheduleBirthWindows(ctx); err != nil {
		return res, fmt.Errorf("schedule birth-window events: %w", err)
	}
	res.Events += n
	if n, err = s.scheduleWithdrawalEnds(ctx); err != nil {
		return res, fmt.Errorf("schedule withdrawal-ending events: %w", err)
	}
	res.Events += n
	if n, err = s.scheduleNoticesDue(ctx); err != nil {
		return res, fmt.Errorf("schedule statutory-notice events: %w", err)
	}
	res.Events += n
	for {
		events, notes, full, err := s.fanOut(ctx, nil)
		if err != nil {
			return res, fmt.Errorf("fan out events: %w", err)
		}
		res.FannedOut += events
		res.Notifications += notes
		if !full {
			return res, nil
		}
	}
}

// today returns the start of the current UTC day and the first day of the look-back.
func (s *Service) today() (today, from time.Time) {
	now := s.nowUTC()
	today = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return today, today.Add(-s.lookback)
}

// scheduleTasks creates a task_due event for every TODO task due from the look-back to the
// end of today that has none for its due day.
func (s *Service) scheduleTasks(ctx context.Context) (int, error) {
	today, from := s.today()
	c := s.Client(ctx)
	tasks, err := c.FarmTask.Query().Where(
		farmtask.StatusEQ(farmtask.StatusTODO),
		farmtask.DueDateGTE(from), farmtask.DueDateLT(today.AddDate(0, 0, 1)),
	).WithAnimals(func(q *ent.AnimalQuery) {
		q.Where(citus.LinkedOnFarm(farmtask.AnimalsTable)).Select("id", "tag").Order(ent.Asc("tag"))
	}).All(ctx)
	if err != nil || len(tasks) == 0 {
		return 0, err
	}
	farmIDs := make([]uuid.UUID, 0, len(tasks))
	for _, t := range tasks {
		farmIDs = append(farmIDs, t.FarmID)
	}
	names, err := s.farmNames(ctx, farmIDs)
	if err != nil {
		return 0, err
	}
	seen, err := s.existingEvents(ctx, scheduledevent.KindTaskDue, farmIDs, from)
	if err != nil {
		return 0, err
	}
	var creates []*ent.ScheduledEventCreate
	for _, t := range tasks {
		name, ok := names[t.FarmID]
		day := t.DueDate.UTC().Format(time.DateOnly)
		if !ok || seen[eventKey{t.FarmID, t.ID.String(), day}] {
			continue
		}
		tags := make([]string, len(t.Edges.Animals))
		for i, a := range t.Edges.Animals {
			tags[i] = a.Tag
		}
		creates = append(creates, c.ScheduledEvent.Create().SetFarmID(t.FarmID).SetKind(scheduledevent.KindTaskDue).
			SetSubject(t.ID.String()).SetDueOn(day).SetDueAt(t.DueDate.UTC()).
			SetPayload(schematype.EventPayload{FarmName: name, TaskName: t.Name, AnimalTags: tags}))
	}
	return len(creates), s.insertEvents(ctx, creates)
}

// scheduleBirthWindows creates a birth_window_opening event for every window of a farm's
// current settings whose start date lies between the look-back and today.
func (s *Service) scheduleBirthWindows(ctx context.Context) (int, error) {
	today, from := s.today()
	c := s.Client(ctx)
	// Only each farm's newest settings version counts.
	latest, err := c.BirthSettings.Query().Where(func(sel *sql.Selector) {
		t := sql.Table(birthsettings.Table).As("newer")
		sel.Where(sql.NotExists(sql.Select(t.C(birthsettings.FieldID)).From(t).Where(sql.And(
			sql.ColumnsEQ(t.C(birthsettings.FieldFarmID), sel.C(birthsettings.FieldFarmID)),
			sql.ColumnsGT(t.C(birthsettings.FieldVersion), sel.C(birthsettings.FieldVersion)),
		))))
	}).All(ctx)
	if err != nil || len(latest) == 0 {
		return 0, err
	}
	type due struct {
		farmID uuid.UUID
		label  string
		start  string
		end    string
	}
	var (
		dues    []due
		farmIDs []uuid.UUID
	)
	lo, hi := from.Format(time.DateOnly), today.Format(time.DateOnly)
	for _, st := range latest {
		for _, w := range st.Settings.BirthWindows {
			if start, err := time.Parse(time.DateOnly, w.StartDate); err == nil && w.StartDate >= lo && w.StartDate <= hi {
				dues = append(dues, due{st.FarmID, w.Label, start.Format(time.DateOnly), w.EndDate})
				farmIDs = append(farmIDs, st.FarmID)
			}
		}
	}
	if len(dues) == 0 {
		return 0, nil
	}
	names, err := s.farmNames(ctx, farmIDs)
	if err != nil {
		return 0, err
	}
	seen, err := s.existingEvents(ctx, scheduledevent.KindBirthWindowOpening, farmIDs, from)
	if err != nil {
		return 0, err
	}
	var creates []*ent.ScheduledEventCreate
	for _, d := range dues {
		name, ok := names[d.farmID]
		if !ok || seen[eventKey{d.farmID, d.label, d.start}] {
			continue
		}
		seen[eventKey{d.farmID, d.label, d.start}] = true // two windows may share a label and day
		at, _ := time.Parse(time.DateOnly, d.start)
		creates = append(creates, c.ScheduledEvent.Create().SetFarmID(d.farmID).SetKind(scheduledevent.KindBirthWindowOpening).
			SetSubject(d.label).SetDueOn(d.start).SetDueAt(at).
			SetPayload(schematype.EventPayload{FarmName: name, WindowLabel: d.label, WindowStart: d.start, WindowEnd: d.end}))
	}
	return len(creates), s.insertEvents(ctx, creates)
}

type eventKey struct {
	farmID  uuid.UUID
	subject string
	dueOn   string
}

// existingEvents returns the keys of the events of a kind already created for the farms
// since from, so that a pass does not re-send thousands of no-op inserts every minute.
func (s *Service) existingEvents(ctx context.Context, kind scheduledevent.Kind, farmIDs []uuid.UUID, from time.Time) (map[eventKey]bool, error) {
	var rows []struct {
		FarmID  uuid.UUID `json:"farm_id"`
		Subject string    `json:"subject"`
		DueOn   string    `json:"due_on"`
	}
	err := s.Client(ctx).ScheduledEvent.Query().Where(
		scheduledevent.KindEQ(kind), scheduledevent.FarmIDIn(dedupe(farmIDs)...),
		scheduledevent.DueOnGTE(from.Format(time.DateOnly)),
	).Select(scheduledevent.FieldFarmID, scheduledevent.FieldSubject, scheduledevent.FieldDueOn).Scan(ctx, &rows)
	seen := make(map[eventKey]bool, len(rows))
	for _, r := range rows {
		seen[eventKey{r.FarmID, r.Subject, r.DueOn}] = true
	}
	return seen, err
}

// farmNames returns the names of the active farms among ids.
func (s *Service) farmNames(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	farms, err := s.Client(ctx).Farm.Query().Where(farm.IDIn(dedupe(ids)...)).Select(farm.FieldID, farm.FieldName).All(ctx)
	names := make(map[uuid.UUID]string, len(farms))
	for _, f := range farms {
		names[f.ID] = f.Name
	}
	return names, err
}

// insertEvents inserts events in chunks; an event another node created meanwhile is left
// alone (ON CONFLICT DO NOTHING on the unique key).
func (s *Service) insertEvents(ctx context.Context, creates []*ent.ScheduledEventCreate) error {
	for len(creates) > 0 {
		n := min(len(creates), insertChunk)
		err := s.Client(ctx).ScheduledEvent.CreateBulk(creates[:n]...).
			OnConflictColumns(scheduledevent.FieldFarmID, scheduledevent.FieldKind, scheduledevent.FieldSubject, scheduledevent.FieldDueOn).
			DoNothing().Exec(ctx)
		if err != nil {
			return err
		}
		creates = creates[n:]
	}
	return nil
}

// skipLocked locks the selected rows for the transaction and, on PostgreSQL, skips rows
// another transaction holds, so that nodes share out the work instead of queueing on it.
// SQLite has no row locks (its writers are serialised anyway); there it adds nothing.
func skipLocked(sel *sql.Selector) {
	if sel.Dialect() == dialect.Postgres {
		sel.ForUpdate(sql.WithLockAction(sql.SkipLocked))
	}
}

// WithCitus tells the service that its database is a Citus cluster's coordinator (db.DB's
// Citus, found when the database is opened). The background sweeps then lease their work
// in the way a cluster allows: Citus refuses row locks on a statement over several shards
// ("could not run distributed query with FOR UPDATE/SHARE commands"), and the sweeps read
// every farm's rows. So on a cluster a sweep selects its candidates without locks and takes
// them by a conditional UPDATE alone, which PostgreSQL checks again on a row that another
// node's UPDATE changed meanwhile: a notification or a webhook delivery is leased by the
// UPDATE that still finds it free, a scheduled event is claimed by the UPDATE … RETURNING
// that still finds it unprocessed, and nothing is taken twice (docs/scaling.md, "Statements
// that span farms").
func WithCitus(on bool) Option { return func(s *Service) { s.citus = on } }

// lockCandidates is skipLocked for a sweep's candidates, left out on a Citus cluster, where
// the sweep takes its rows by a conditional UPDATE instead (WithCitus).
func (s *Service) lockCandidates(sel *sql.Selector) {
	if !s.citus {
		skipLocked(sel)
	}
}

// sweepRounds is how often a lease on a cluster selects candidates again when another node
// took every one it had selected: without row locks two nodes select the same rows, and the
// second node's UPDATE waits for the first to commit and then finds them taken.
const sweepRounds = 3

// fanOut turns one batch of unprocessed, due events (or the named ones) into notifications,
// in one transaction of a constant number of statements: the events, the farms, the
// members with their users, their preferences, the inserts, the processed mark. It returns
// how many events and notifications it handled, and whether it found a full batch (so that
// more may be due).
//
// On PostgreSQL the events are locked as they are selected (skipped when another node holds
// them) and marked processed at the end. On a Citus cluster, which cannot lock the rows of a
// statement over every shard, they are selected without locks and claimed first, by an
// UPDATE … RETURNING that marks those still unprocessed: the processed mark, moved to the
// start of the same transaction. Another node's claim of the same events waits for this
// transaction and then finds them processed, so each event is fanned out once (WithCitus).
func (s *Service) fanOut(ctx context.Context, only []uuid.UUID) (events, notes int, full bool, err error) {
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		now := s.nowUTC()
		q := c.ScheduledEvent.Query().Where(scheduledevent.ProcessedAtIsNil(), scheduledevent.DueAtLTE(now))
		if only != nil {
			q.Where(scheduledevent.IDIn(only...))
		}
		evs, err := q.Order(ent.Asc(scheduledevent.FieldDueAt), ent.Asc(scheduledevent.FieldID)).
			Limit(fanOutBatch).Where(s.lockCandidates).All(ctx)
		if err != nil || len(evs) == 0 {
			return err
		}
		full = len(evs) == fanOutBatch
		if s.citus {
			if evs, err = s.claimEvents(ctx, evs, now); err != nil || len(evs) == 0 {
				return err
			}
		}
		events = len(evs)
		var farmIDs, eventIDs []uuid.UUID
		for _, e := range evs {
			farmIDs = append(farmIDs, e.FarmID)
			eventIDs = append(eventIDs, e.ID)
		}
		farmIDs = dedupe(farmIDs)
		active, err := c.Farm.Query().Where(farm.IDIn(farmIDs...)).IDs(ctx)
		if err != nil {
			return err
		}
		// The farms' time zones: messages speak of the farm's own days and hours.
		zoneRows, err := c.FarmSettings.Query().Where(farmsettings.FarmIDIn(active...), farmsettings.TimeZoneNotNil()).
			Select(farmsettings.FieldFarmID, farmsettings.FieldTimeZone).All(ctx)
		if err != nil {
			return err
		}
		zones := map[uuid.UUID]*time.Location{}
		for _, z := range zoneRows {
			if loc, err := loadZone(*z.TimeZone); err == nil {
				zones[z.FarmID] = loc
			}
		}
		members, err := c.FarmMember.Query().Where(farmmember.FarmIDIn(active...)).WithUser().All(ctx)
		if err != nil {
			return err
		}
		byFarm := map[uuid.UUID][]*ent.FarmMember{}
		var userIDs []uuid.UUID
		for _, m := range members {
			if m.Edges.User == nil { // a deactivated user hears nothing
				continue
			}
			byFarm[m.FarmID] = append(byFarm[m.FarmID], m)
			userIDs = append(userIDs, m.UserID)
		}
		prefRows, err := c.NotificationPreference.Query().Where(
			notificationpreference.UserIDIn(dedupe(userIDs)...),
			notificationpreference.FarmIDIn(append(active, uuid.Nil)...)).All(ctx)
		if err != nil {
			return err
		}
		prefs := map[[2]uuid.UUID][]*ent.NotificationPreference{}
		for _, p := range prefRows {
			prefs[[2]uuid.UUID{p.UserID, p.FarmID}] = append(prefs[[2]uuid.UUID{p.UserID, p.FarmID}], p)
		}
		var creates []*ent.NotificationCreate
		for _, e := range evs {
			title, body, err := renderEvent(e, now, zones[e.FarmID])
			if err != nil {
				return err
			}
			for _, m := range byFarm[e.FarmID] {
				if e.RecipientID != nil && *e.RecipientID != m.UserID {
					continue
				}
				p := NotificationPreferences{EmailAddress: m.Edges.User.Email, PhoneNumber: m.Edges.User.PhoneNumberLocal}
				p.Email, p.SMS, p.InApp = roleChannels(m.Role)
				applyPreference(&p, append(prefs[[2]uuid.UUID{m.UserID, uuid.Nil}], prefs[[2]uuid.UUID{m.UserID, m.FarmID}]...))
				for _, ch := range channelsFor(p, e.Channel) {
					nc := c.Notification.Create().SetFarmID(e.FarmID).SetUserID(m.UserID).SetScheduledEventID(e.ID).
						SetType(ch.typ).SetRecipient(ch.to).SetTitle(title).SetBody(body).SetNextAttemptAt(now)
					if ch.typ == notification.TypeIN_APP {
						// Stored is delivered: the app reads it from here.
						nc.SetStatus(notification.StatusSENT).SetSentAt(now)
					}
					creates = append(creates, nc)
				}
			}
		}
		for len(creates) > 0 {
			n := min(len(creates), insertChunk)
			if err := c.Notification.CreateBulk(creates[:n]...).
				OnConflictColumns(notification.FieldScheduledEventID, notification.FieldUserID, notification.FieldType, notification.FieldFarmID).
				DoNothing().Exec(ctx); err != nil {
				return err
			}
			notes += n
			creates = creates[n:]
		}
		if s.citus {
			return nil // claimed, so marked, at the start
		}
		return c.ScheduledEvent.Update().Where(scheduledevent.IDIn(eventIDs...)).SetProcessedAt(now).Exec(ctx)
	})
	return events, notes, full, err
}

// claimEvents marks the events processed that are still unprocessed, and returns those: the
// ones this transaction claimed (a Citus cluster's fanOut). It is one UPDATE … RETURNING,
// which ent writes only with its builder; the cluster is PostgreSQL.
func (s *Service) claimEvents(ctx context.Context, evs []*ent.ScheduledEvent, now time.Time) ([]*ent.ScheduledEvent, error) {
	ids := make([]any, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	query, args := sql.Dialect(dialect.Postgres).Update(scheduledevent.Table).
		Set(scheduledevent.FieldProcessedAt, now).Set(scheduledevent.FieldUpdatedAt, scheduledevent.UpdateDefaultUpdatedAt()).
		Where(sql.And(sql.In(scheduledevent.FieldID, ids...), sql.IsNull(scheduledevent.FieldProcessedAt))).
		Returning(scheduledevent.FieldID).Query()
	rows, err := s.Client(ctx).QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	claimed := map[uuid.UUID]bool{}
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		claimed[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := evs[:0]
	for _, e := range evs {
		if claimed[e.ID] {
			e.ProcessedAt = &now
			out = append(out, e)
		}
	}
	return out, nil
}

type channel struct {
	typ notification.Type
	to  string
}

// channelsFor lists the channels p asks for that have an address; only, when set, is the
// one channel a test event is meant for, sent whatever the preferences say.
func channelsFor(p NotificationPreferences, only *string) []channel {
	var out []channel
	if (only == nil && p.InApp) || (only != nil && *only == "IN_APP") {
		out = append(out, channel{notification.TypeIN_APP, ""})
	}
	if ((only == nil && p.Email) || (only != nil && *only == "EMAIL")) && p.EmailAddress != nil {
		out = append(out, channel{notification.TypeEMAIL, *p.EmailAddress})
	}
	if ((only == nil && p.SMS) || (only != nil && *only == "SMS")) && p.PhoneNumber != "" {
		out = append(out, channel{notification.TypeSMS, p.PhoneNumber})
	}
	return out
}

// Templates of the messages, one title and one body per kind of event. They are plain text:
// email goes out as text/plain and SMS and the app show text, so nothing is HTML-escaped;
// the SMTP sender strips line breaks from the subject.
var templates = template.Must(template.New("").Funcs(template.FuncMap{"tags": animalTags, "day": plainDay, "noticeWords": noticeWords, "noticeAction": noticeAction}).Parse(`
{{define "task_due.title"}}{{.P.TaskName}} due {{.When}} at {{.P.FarmName}}{{end}}
{{define "task_due.body"}}{{.P.TaskName}} is due {{.When}} at {{.P.FarmName}}{{with tags .P.AnimalTags}} for {{.}}{{end}}.{{end}}
{{define "birth_window_opening.title"}}Birth window "{{.P.WindowLabel}}" opens {{.When}} at {{.P.FarmName}}{{end}}
{{define "birth_window_opening.body"}}The birth window "{{.P.WindowLabel}}" at {{.P.FarmName}} runs from {{day .P.WindowStart}} to {{day .P.WindowEnd}}: time to check the dams.{{end}}
{{define "withdrawal_ending.title"}}{{if eq .P.Withdrawal "milk"}}Milk{{else}}Meat{{end}} withdrawal of {{.P.MedicineName}} ends {{.When}} at {{.P.FarmName}}{{end}}
{{define "withdrawal_ending.body"}}{{.P.MedicineName}} given {{.Moment .P.TreatedOn}} at {{.P.FarmName}}: {{if eq .P.Withdrawal "milk"}}the milk of {{tags .P.AnimalTags}} may go into the tank from {{.Moment .P.ClearOn}}{{else}}{{tags .P.AnimalTags}} may go for slaughter from {{.Moment .P.ClearOn}}{{end}}.{{end}}
{{define "notice_due.title"}}{{if .P.Overdue}}Overdue: {{else}}Due by {{day .P.Deadline}}: {{end}}{{noticeWords .P.NoticeKind}}{{with tags .P.AnimalTags}} for {{.}}{{end}} at {{.P.FarmName}}{{end}}
{{define "notice_due.body"}}{{if noticeAction .P.NoticeKind}}The {{noticeWords .P.NoticeKind}}{{with tags .P.AnimalTags}} of {{.}}{{end}} at {{.P.FarmName}} {{if .P.Overdue}}was due by {{day .P.Deadline}} and is not recorded{{else}}is due by {{day .P.Deadline}}{{end}}{{else}}The {{noticeWords .P.NoticeKind}}{{with tags .P.AnimalTags}} for {{.}}{{end}} at {{.P.FarmName}} {{if .P.Overdue}}was due at the registry by {{day .P.Deadline}} and has not been reported{{else}}must reach the registry by {{day .P.Deadline}}{{end}}{{end}}.{{end}}
{{define "test.title"}}Herdbook test message for {{.P.FarmName}}{{end}}
{{define "test.body"}}{{if .P.Message}}{{.P.Message}}{{else}}This is a test message from Herdbook. If you can read it, this channel works.{{end}}{{end}}
`))

// animalTags lists up to ten tags and counts the rest, so that a herd task stays readable.
func animalTags(tags []string) string {
	if len(tags) <= 10 {
		return strings.Join(tags, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(tags[:10], ", "), len(tags)-10)
}

// plainDay spells a calendar day (YYYY-MM-DD) in words, as a farmer reads it: "Sunday 8
// March 2026". Anything else is left as it is.
func plainDay(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return t.Format("Monday 2 January 2006")
}

// eventText is what a message template reads: the payload, when the event falls due in the
// farm's words, and the farm's zone for instants.
type eventText struct {
	P    schematype.EventPayload
	When string
	loc  *time.Location
}

// Moment spells a day, or an RFC 3339 instant in the farm's time zone with the zone named
// ("Tuesday 10 March 2026 at 12:00 (Europe/London)"; UTC while the farm has none).
func (d eventText) Moment(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return plainDay(s)
	}
	if d.loc == nil {
		return t.UTC().Format("Monday 2 January 2006 at 15:04") + " UTC"
	}
	return t.In(d.loc).Format("Monday 2 January 2006 at 15:04") + " (" + d.loc.String() + ")"
}

// renderEvent writes the title and body of an event's messages. Days are the farm's: "today"
// is its local day in loc (UTC while the farm has set no time zone), and other days are
// spelt in words.
func renderEvent(e *ent.ScheduledEvent, now time.Time, loc *time.Location) (title, body string, err error) {
	local := now.UTC()
	if loc != nil {
		local = now.In(loc)
	}
	// A milk withdrawal ends at an instant: its day is the farm's day of that instant.
	due := e.DueOn
	if e.Payload.Withdrawal == "milk" {
		due = e.DueAt.In(local.Location()).Format(time.DateOnly)
	}
	when := "today"
	switch day := local.Format(time.DateOnly); {
	case due < day:
		when = "since " + plainDay(due)
	case due > day:
		when = "on " + plainDay(due)
	}
	data := eventText{P: e.Payload, When: when, loc: loc}
	var t, b strings.Builder
	if err := templates.ExecuteTemplate(&t, string(e.Kind)+".title", data); err != nil {
		return "", "", err
	}
	if err := templates.ExecuteTemplate(&b, string(e.Kind)+".body", data); err != nil {
		return "", "", err
	}
	return truncate(t.String(), 300), truncate(b.String(), 4000), nil
}

// AdminTestNotification creates a test event for one user on one channel of one of their
// farms (the first they joined when farmID is nil) and fans it out at once. It is for
// administrators (`herdbook admin notify test`) and checks no viewer. It returns the
// notification, which the caller delivers. A user without an address for the channel is
// an input error.
func (s *Service) AdminTestNotification(ctx context.Context, userID uuid.UUID, farmID *uuid.UUID, ch, message string) (*ent.Notification, error) {
	var fe fieldErrors
	if !strings.Contains(" EMAIL IN_APP SMS ", " "+ch+" ") {
		fe.add("channel", "must be one of EMAIL, IN_APP, SMS")
	}
	if fe.prose("message", message) && len(message) > 1000 {
		fe.add("message", "must be at most 1000 characters")
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	c := s.Client(ctx)
	mq := c.FarmMember.Query().Where(farmmember.UserID(userID), farmmember.HasFarmWith(farm.IsActive(true)))
	if farmID != nil {
		mq.Where(farmmember.FarmID(*farmID))
	}
	m, err := mq.Order(ent.Asc(farmmember.FieldCreatedAt)).WithFarm().First(ctx)
	if ent.IsNotFound(err) {
		return nil, Errorf(ENOTFOUND, "user %s is no active member of that farm (or of any farm)", userID)
	}
	if err != nil {
		return nil, err
	}
	now := s.nowUTC()
	id := uuid.New()
	ev, err := c.ScheduledEvent.Create().SetID(id).SetFarmID(m.FarmID).SetKind(scheduledevent.KindTest).
		SetSubject(id.String()).SetDueOn(now.Format(time.DateOnly)).SetDueAt(now).
		SetPayload(schematype.EventPayload{FarmName: m.Edges.Farm.Name, Message: message}).
		SetRecipientID(userID).SetChannel(ch).Save(ctx)
	if err != nil {
		return nil, err
	}
	if _, _, _, err := s.fanOut(ctx, []uuid.UUID{ev.ID}); err != nil {
		return nil, err
	}
	n, err := c.Notification.Query().Where(notification.ScheduledEventID(ev.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, Invalid(FieldError{Field: "channel", Message: fmt.Sprintf("the user has no address for %s (set an email address first)", ch)})
	}
	return n, err
}
