package herdbook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/holding"
	"github.com/herdbook/herdbook/ent/noticesubmission"
	"github.com/herdbook/herdbook/ent/registrycredential"
	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/breed"
	"github.com/herdbook/herdbook/registry/notice"
)

// The outbox (docs/registry.md, "Sending"): it submits a holding's statutory notices to its
// registry through the adapter the operator configured for the holding's scheme, under the
// keeper's sealed credentials, and keeps every step on the notice's submissions so that a
// retry, a second node or a restart never reports a notice twice nor loses one.
//
// A submission's life: written pending, with its report and a batch id, before anything is
// sent; claimed (sent_at set, attempts counted, a lease as next attempt) just before the
// adapter's Submit; sent with the registry's receipt, or back to pending with the cause and
// a backoff when the registry could not be reached; then accepted or rejected when the
// registry answers a poll. A pending submission with sent_at set is one whose last attempt
// may have reached the registry (the process stopped, or the connection broke, before its
// answer was kept): before sending it again the outbox asks the registry's copy, when the
// adapter can read it (registry.Checker), which of its reports the registry already has.

// Registries configures sending: which adapter serves which holding scheme, and the key
// the keepers' passwords are sealed under. The zero value sends nothing.
type Registries struct {
	byScheme map[string]registry.Adapter
	sealer   *sealer
	// backoff spaces retries and polls; maxAttempts bounds the sends of one submission.
	backoff     registry.Backoff
	maxAttempts int
	batch       int
}

// DefaultRegistryBackoff spaces the outbox's retries and polls: a minute, doubling, at most
// six hours.
var DefaultRegistryBackoff = registry.Backoff{Base: time.Minute, Max: 6 * time.Hour}

// Outbox limits.
const (
	// DefaultRegistryMaxAttempts is how many times a submission is sent before the outbox
	// gives up on it and waits for the keeper (or new credentials).
	DefaultRegistryMaxAttempts = 12
	// registryBatch is the most reports one request carries.
	registryBatch = 100
	// registryLease is how long a claimed batch is left to the node sending it: a pass
	// after that, finding it unanswered, takes it over (asking the registry's copy first).
	registryLease = 10 * time.Minute
)

// NewRegistries returns a sending configuration: key (RegistryKeySize bytes) seals the
// keepers' passwords; adapters maps a holding scheme (registry/scheme's names) to the
// adapter that reports its notices. A nil key keeps no passwords and sends nothing.
func NewRegistries(key []byte, adapters map[string]registry.Adapter) (*Registries, error) {
	r := &Registries{byScheme: map[string]registry.Adapter{}, backoff: DefaultRegistryBackoff,
		maxAttempts: DefaultRegistryMaxAttempts, batch: registryBatch}
	if key != nil {
		k, err := newSealer(key)
		if err != nil {
			return nil, err
		}
		r.sealer = k
	}
	for sch, a := range adapters {
		if a != nil {
			r.byScheme[sch] = a
		}
	}
	return r, nil
}

// WithBackoff sets the spacing of retries and polls, and how many sends a submission gets.
func (r *Registries) WithBackoff(b registry.Backoff, maxAttempts int) *Registries {
	r.backoff, r.maxAttempts = b, max(maxAttempts, 1)
	return r
}

// WithRegistries configures the outbox (docs/registry.md). Without it, or with no adapter,
// nothing is sent: notices are reported by hand and recorded.
func WithRegistries(r *Registries) Option { return func(s *Service) { s.registries = r } }

func (r *Registries) adapterFor(scheme string) registry.Adapter {
	if r == nil {
		return nil
	}
	return r.byScheme[scheme]
}

// on reports whether the outbox may send at all.
func (r *Registries) on() bool { return r != nil && r.sealer != nil && len(r.byScheme) > 0 }

// OutboxResult says what one pass of the outbox did.
type OutboxResult struct {
	Submitted int // reports the registry took (a receipt came back)
	Answered  int // reports the registry answered (accepted or rejected)
	Recovered int // reports of an interrupted attempt found on the registry's copy, not sent again
	Retried   int // reports whose send failed and waits for a retry
	Refused   int // reports refused before the registry took them (not sent)
}

// SendNotices runs one pass of the outbox over every holding whose keeper turned sending
// on: it polls the answers of what was sent, sends again what failed (after asking the
// registry's copy about an attempt that may have reached it), and sends what fell due. Any
// number of nodes may run it: each batch is claimed before it is sent. Errors of one
// holding do not stop the others; they are returned together.
func (s *Service) SendNotices(ctx context.Context) (OutboxResult, error) {
	var res OutboxResult
	if !s.registries.on() {
		return res, nil
	}
	ctx = IncludeInactive(ctx)
	c := s.client
	creds, err := c.RegistryCredential.Query().Where(registrycredential.Sending(true), registrycredential.LastErrorIsNil()).All(ctx)
	if err != nil || len(creds) == 0 {
		return res, err
	}
	byHolding := make(map[uuid.UUID]*ent.RegistryCredential, len(creds))
	ids := make([]uuid.UUID, 0, len(creds))
	for _, cr := range creds {
		byHolding[cr.HoldingID], ids = cr, append(ids, cr.HoldingID)
	}
	holdings, err := c.Holding.Query().Where(holding.IDIn(ids...)).WithFarms().All(ctx)
	if err != nil {
		return res, err
	}
	var errs []error
	for _, h := range holdings {
		a := s.registries.adapterFor(h.Scheme)
		if a == nil || len(h.Edges.Farms) == 0 {
			continue
		}
		cr := byHolding[h.ID]
		rh, err := s.registryHolding(h, cr)
		if err != nil {
			errs = append(errs, s.credentialsFailed(ctx, cr, err))
			continue
		}
		ob := &outboxHolding{s: s, h: h, a: a, rh: rh, cred: cr, res: &res}
		if err := ob.run(ctx); err != nil {
			errs = append(errs, fmt.Errorf("holding %s: %w", h.ID, err))
		}
	}
	return res, errors.Join(errs...)
}

// credentialsFailed keeps why a holding's credentials cannot be used, which stops the
// outbox for it until the keeper changes them.
func (s *Service) credentialsFailed(ctx context.Context, cr *ent.RegistryCredential, cause error) error {
	msg := truncate(cause.Error(), 1000)
	if err := s.client.RegistryCredential.UpdateOne(cr).SetLastError(msg).Exec(ctx); err != nil {
		return err
	}
	return fmt.Errorf("holding %s: %s", cr.HoldingID, msg)
}

// outboxHolding is one holding's pass.
type outboxHolding struct {
	s    *Service
	h    *ent.Holding
	a    registry.Adapter
	rh   registry.Holding
	cred *ent.RegistryCredential
	res  *OutboxResult
	now  time.Time
	// notices are the holding's notices as derived at the start of the pass, by key.
	notices map[string]Notice
	book    *noticeBook
}

func (o *outboxHolding) run(ctx context.Context) error {
	s := o.s
	o.now = s.nowUTC()
	b, err := s.deriveNotices(ctx, o.h, holdingFarmIDs(o.h))
	if err != nil {
		return err
	}
	o.book, o.notices = b, make(map[string]Notice, len(b.notices))
	for _, n := range b.notices {
		o.notices[n.Key] = n
	}
	open, err := s.client.NoticeSubmission.Query().Where(noticesubmission.HoldingID(o.h.ID), noticesubmission.Channel(o.a.Name()),
		noticesubmission.Or(noticesubmission.StateEQ(noticesubmission.StatePending),
			noticesubmission.And(noticesubmission.StateEQ(noticesubmission.StateSent), noticesubmission.AnsweredAtIsNil()))).
		Order(ent.Asc(noticesubmission.FieldCreatedAt), ent.Asc(noticesubmission.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	busy := map[string]bool{}
	receipts := map[string][]*ent.NoticeSubmission{}
	var receiptOrder []string
	batches := map[string][]*ent.NoticeSubmission{}
	var batchOrder []string
	for _, r := range open {
		busy[r.NoticeKey] = true
		due := r.NextAttemptAt != nil && !r.NextAttemptAt.After(o.now)
		switch {
		case !due:
		case r.State == noticesubmission.StateSent && r.RegistryReference != nil:
			if _, ok := receipts[*r.RegistryReference]; !ok {
				receiptOrder = append(receiptOrder, *r.RegistryReference)
			}
			receipts[*r.RegistryReference] = append(receipts[*r.RegistryReference], r)
		case r.State == noticesubmission.StatePending && r.BatchID != nil:
			if _, ok := batches[*r.BatchID]; !ok {
				batchOrder = append(batchOrder, *r.BatchID)
			}
			batches[*r.BatchID] = append(batches[*r.BatchID], r)
		}
	}
	var errs []error
	for _, rc := range receiptOrder {
		errs = append(errs, o.poll(ctx, rc, receipts[rc]))
	}
	for _, id := range batchOrder {
		errs = append(errs, o.resend(ctx, batches[id]))
	}
	fresh, err := o.queue(ctx, busy)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, rows := range fresh {
		errs = append(errs, o.send(ctx, rows))
	}
	return errors.Join(errs...)
}

// reportsOf returns the reports a batch's submissions carry, as they were first written.
func reportsOf(rows []*ent.NoticeSubmission) ([]registry.Report, error) {
	out := make([]registry.Report, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r.Payload, &out[i]); err != nil {
			return nil, fmt.Errorf("submission %s: its report does not read: %w", r.ID, err)
		}
	}
	return out, nil
}

func submissionIDs(rows []*ent.NoticeSubmission) []uuid.UUID {
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// poll asks the registry for its answers to a sent batch.
func (o *outboxHolding) poll(ctx context.Context, receipt string, rows []*ent.NoticeSubmission) error {
	reports, err := reportsOf(rows)
	if err != nil {
		return err
	}
	answers, err := o.a.Results(ctx, o.rh, receipt, reports)
	if err != nil {
		// Not ready, or the registry unreachable: ask again later. A refusal of the poll
		// itself keeps the cause and asks again at the slowest pace.
		up := o.s.client.NoticeSubmission.Update().Where(noticesubmission.IDIn(submissionIDs(rows)...)).AddAttempts(1).
			SetNextAttemptAt(o.now.Add(o.s.registries.backoff.Delay(rows[0].Attempts + 1)))
		if !registry.Temporary(err) {
			up.SetNextAttemptAt(o.now.Add(o.s.registries.backoff.Max)).
				SetCause(truncate("the registry refused the request for its answer: "+err.Error(), 1000))
		}
		return errors.Join(up.Exec(ctx), nonTemporary(err))
	}
	byKey := make(map[string]registry.Answer, len(answers))
	for _, a := range answers {
		byKey[a.Key] = a
	}
	return o.s.inTx(ctx, func(ctx context.Context) error {
		c := o.s.Client(ctx)
		var changed []outboxChange
		for _, r := range rows {
			a, ok := byKey[r.NoticeKey]
			if !ok {
				if err := c.NoticeSubmission.UpdateOne(r).SetNextAttemptAt(o.now.Add(o.s.registries.backoff.Delay(r.Attempts + 1))).AddAttempts(1).Exec(ctx); err != nil {
					return err
				}
				continue
			}
			up := c.NoticeSubmission.UpdateOne(r).SetAnsweredAt(o.now).ClearNextAttemptAt()
			state := noticesubmission.StateAccepted
			if !a.Accepted {
				state = noticesubmission.StateRejected
				cause := strings.Join(a.Causes, "; ")
				if cause == "" {
					cause = "the registry rejected it without giving a cause"
				}
				up.SetCause(truncate(cause, 1000))
			} else {
				up.ClearCause()
			}
			u, err := up.SetState(state).Save(ctx)
			if err != nil {
				return err
			}
			o.res.Answered++
			changed = append(changed, outboxChange{u, string(state)})
		}
		return o.emit(ctx, changed)
	})
}

// outboxChange is a submission whose notice changed state.
type outboxChange struct {
	row   *ent.NoticeSubmission
	state string
}

// emit writes the notice.state_changed webhook events of the changed submissions, from the
// notices as the pass first derived them.
func (o *outboxHolding) emit(ctx context.Context, changed []outboxChange) error {
	byFarm := map[uuid.UUID][]Notice{}
	prev := map[uuid.UUID][]string{}
	var order []uuid.UUID
	for _, ch := range changed {
		n, ok := o.notices[ch.row.NoticeKey]
		if !ok || n.State == ch.state {
			continue
		}
		before := n.State
		sub := submissionOf(ch.row)
		n.Submission, n.State = &sub, ch.state
		o.notices[n.Key] = n
		if _, ok := byFarm[ch.row.FarmID]; !ok {
			order = append(order, ch.row.FarmID)
		}
		byFarm[ch.row.FarmID] = append(byFarm[ch.row.FarmID], n)
		prev[ch.row.FarmID] = append(prev[ch.row.FarmID], before)
	}
	for _, f := range order {
		if err := o.s.emitNoticeEvents(ctx, f, byFarm[f], prev[f]); err != nil {
			return err
		}
	}
	return nil
}

// resend sends a pending batch again. When its last attempt may have reached the registry,
// the registry's copy says first which of its reports it has: those are not sent again.
func (o *outboxHolding) resend(ctx context.Context, rows []*ent.NoticeSubmission) error {
	var unsure bool
	for _, r := range rows {
		unsure = unsure || r.SentAt != nil
	}
	if !unsure {
		return o.send(ctx, rows)
	}
	ch, ok := o.a.(registry.Checker)
	if !ok {
		// Nothing can tell whether the registry has them; the batch goes again under its own
		// id, which a registry that knows transaction ids recognises.
		return o.send(ctx, rows)
	}
	reports, err := reportsOf(rows)
	if err != nil {
		return err
	}
	has, err := ch.Reported(ctx, o.rh, reports)
	if err != nil {
		next := o.now.Add(o.s.registries.backoff.Delay(rows[0].Attempts))
		return errors.Join(o.s.client.NoticeSubmission.Update().Where(noticesubmission.IDIn(submissionIDs(rows)...)).
			SetNextAttemptAt(next).SetCause(truncate("could not read the registry's copy before sending again: "+err.Error(), 1000)).Exec(ctx),
			nonTemporary(err))
	}
	var again []*ent.NoticeSubmission
	err = o.s.inTx(ctx, func(ctx context.Context) error {
		c := o.s.Client(ctx)
		var changed []outboxChange
		for _, r := range rows {
			if !has[r.NoticeKey] {
				again = append(again, r)
				continue
			}
			u, err := c.NoticeSubmission.UpdateOne(r).SetState(noticesubmission.StateAccepted).SetAnsweredAt(o.now).
				SetRegistryReference("on the registry's copy").ClearCause().ClearNextAttemptAt().Save(ctx)
			if err != nil {
				return err
			}
			o.res.Recovered++
			changed = append(changed, outboxChange{u, string(noticesubmission.StateAccepted)})
		}
		return o.emit(ctx, changed)
	})
	if err != nil || len(again) == 0 {
		return err
	}
	return o.send(ctx, again)
}

// nonTemporary returns err unless a retry may cure it.
func nonTemporary(err error) error {
	if registry.Temporary(err) {
		return nil
	}
	return err
}

// send claims a pending batch and submits it.
func (o *outboxHolding) send(ctx context.Context, rows []*ent.NoticeSubmission) error {
	s, c := o.s, o.s.client
	reports, err := reportsOf(rows)
	if err != nil {
		return err
	}
	batchID := *rows[0].BatchID
	ids := submissionIDs(rows)
	attempts := rows[0].Attempts + 1
	// The claim: another node that read the same rows finds them changed and leaves them;
	// the lease (the slowest backoff) lets a later pass take over if this one stops.
	claimed, err := c.NoticeSubmission.Update().Where(noticesubmission.IDIn(ids...), noticesubmission.StateEQ(noticesubmission.StatePending),
		noticesubmission.Attempts(rows[0].Attempts)).SetAttempts(attempts).SetSentAt(o.now).
		SetNextAttemptAt(o.now.Add(min(registryLease, s.registries.backoff.Max))).Save(ctx)
	if err != nil || claimed != len(rows) {
		return err
	}
	receipt, err := o.a.Submit(ctx, o.rh, batchID, reports)
	switch {
	case err == nil:
		return s.inTx(ctx, func(ctx context.Context) error {
			c := s.Client(ctx)
			ref := truncate(receipt, 200)
			if err := c.NoticeSubmission.Update().Where(noticesubmission.IDIn(ids...)).SetState(noticesubmission.StateSent).
				SetRegistryReference(ref).ClearCause().
				SetNextAttemptAt(o.now.Add(s.registries.backoff.Delay(1))).Exec(ctx); err != nil {
				return err
			}
			// The rows as the update left them, for the webhook events.
			changed := make([]outboxChange, len(rows))
			for i, r := range rows {
				r.State, r.RegistryReference, r.Cause = noticesubmission.StateSent, &ref, nil
				changed[i] = outboxChange{r, notice.StateSent}
			}
			o.res.Submitted += len(rows)
			return o.emit(ctx, changed)
		})
	case registry.Temporary(err):
		// The registry could not be reached, or answered that it failed: unless it certainly
		// did not take the request, sent_at stays, and the next attempt asks its copy first.
		o.res.Retried += len(rows)
		up := c.NoticeSubmission.Update().Where(noticesubmission.IDIn(ids...)).
			SetCause(truncate("not sent yet: "+err.Error(), 1000))
		if registry.NotTaken(err) {
			up.ClearSentAt()
		}
		if attempts >= s.registries.maxAttempts {
			up.ClearNextAttemptAt().SetCause(truncate(fmt.Sprintf("not sent after %d attempts: %s; it goes again when the holding's registry credentials are saved", attempts, err), 1000))
		} else {
			up.SetNextAttemptAt(o.now.Add(s.registries.backoff.Delay(attempts)))
		}
		return up.Exec(ctx)
	case len(rows) > 1:
		// The registry (or the adapter, before sending) refused the whole request: each
		// report goes alone, so that one bad report does not hold back the others.
		alone := make([]*ent.NoticeSubmission, len(rows))
		err := s.inTx(ctx, func(ctx context.Context) error {
			for i, r := range rows {
				u, err := s.Client(ctx).NoticeSubmission.UpdateOne(r).SetBatchID(uuid.NewString()).ClearSentAt().
					SetAttempts(0).SetNextAttemptAt(o.now).Save(ctx)
				if err != nil {
					return err
				}
				alone[i] = u
			}
			return nil
		})
		if err != nil {
			return err
		}
		var errs []error
		for _, r := range alone {
			errs = append(errs, o.send(ctx, []*ent.NoticeSubmission{r}))
		}
		return errors.Join(errs...)
	default:
		o.res.Refused++
		return s.inTx(ctx, func(ctx context.Context) error {
			u, err := s.Client(ctx).NoticeSubmission.UpdateOne(rows[0]).SetState(noticesubmission.StateRejected).ClearSentAt().
				SetAnsweredAt(o.now).ClearNextAttemptAt().SetCause(truncate("not sent: "+err.Error(), 1000)).Save(ctx)
			if err != nil {
				return err
			}
			return o.emit(ctx, []outboxChange{{u, notice.StateRejected}})
		})
	}
}

// queue writes a pending submission for every notice the adapter takes that is due or
// overdue and has none under way, in batches, and returns the batches. A notice refused
// before the registry saw it (no receipt) goes again once the keeper saved the credentials
// after the refusal. Two nodes queueing the same notice write the same idempotency key: the
// second's batch fails and is left to the first.
func (o *outboxHolding) queue(ctx context.Context, busy map[string]bool) ([][]*ent.NoticeSubmission, error) {
	var todo []Notice
	for _, n := range o.book.notices {
		if busy[n.Key] || !o.a.Supports(n.Kind) {
			continue
		}
		switch n.State {
		case notice.StateDue, notice.StateOverdue:
		case notice.StateRejected:
			sub := n.Submission
			if sub == nil || sub.Channel != o.a.Name() || sub.Reference != "" || !o.cred.UpdatedAt.After(sub.At) {
				continue
			}
		default:
			continue
		}
		todo = append(todo, n)
	}
	if len(todo) == 0 {
		return nil, nil
	}
	reports, err := o.reports(ctx, todo)
	if err != nil {
		return nil, err
	}
	var out [][]*ent.NoticeSubmission
	for start := 0; start < len(todo); start += o.s.registries.batch {
		end := min(start+o.s.registries.batch, len(todo))
		batchID := uuid.NewString()
		var rows []*ent.NoticeSubmission
		err := o.s.inTx(ctx, func(ctx context.Context) error {
			c := o.s.Client(ctx)
			creates := make([]*ent.NoticeSubmissionCreate, 0, end-start)
			for i := start; i < end; i++ {
				n := todo[i]
				payload, err := json.Marshal(reports[i])
				if err != nil {
					return err
				}
				prev := "first"
				if n.Submission != nil {
					prev = n.Submission.ID
				}
				cr := c.NoticeSubmission.Create().SetHoldingID(o.h.ID).SetFarmID(uuid.MustParse(n.FarmID)).SetNoticeKey(n.Key).
					SetKind(string(n.Kind)).SetIdempotencyKey(truncate("outbox:"+n.Key+":"+prev, 200)).
					SetState(noticesubmission.StatePending).SetChannel(o.a.Name()).SetBatchID(batchID).SetPayload(payload).
					SetNextAttemptAt(o.now)
				if a, err := uuid.Parse(n.AnimalID); err == nil {
					cr.SetAnimalID(a)
				}
				creates = append(creates, cr)
			}
			var err error
			rows, err = c.NoticeSubmission.CreateBulk(creates...).Save(ctx)
			return err
		})
		switch {
		case ent.IsConstraintError(err):
			continue
		case err != nil:
			return out, err
		}
		out = append(out, rows)
	}
	return out, nil
}

// reports builds each notice's report from the book: the official tag, the event's day,
// the animal's sex, birth day, breed and genetic dam (its profile as of the holding's today,
// so that a profile corrected since the event is reported corrected), and the other holding
// a move names. It reads the farms' animals, profiles and dams in a constant number of
// statements per farm.
func (o *outboxHolding) reports(ctx context.Context, ns []Notice) ([]registry.Report, error) {
	facts := map[string]notice.Entry{}
	amended := map[string]bool{}
	for _, e := range o.book.entries {
		facts[e.Fact.RecordItemID] = e
		if e.Live && e.Amends != "" {
			amended[e.Amends] = true
		}
	}
	byFarm := map[uuid.UUID][]uuid.UUID{}
	for _, n := range ns {
		f, err1 := uuid.Parse(n.FarmID)
		a, err2 := uuid.Parse(n.AnimalID)
		if err1 == nil && err2 == nil && !slices.Contains(byFarm[f], a) {
			byFarm[f] = append(byFarm[f], a)
		}
	}
	today := o.now.Format(time.DateOnly)
	if z, err := loadZone(o.h.TimeZone); err == nil {
		today = o.now.In(z).Format(time.DateOnly)
	}
	profiles := map[uuid.UUID]AnimalProfile{}
	damTags := map[uuid.UUID]string{}
	for f, ids := range byFarm {
		animals, err := o.s.client.Animal.Query().Where(animal.FarmID(f), animal.IDIn(ids...)).All(ctx)
		if err != nil {
			return nil, err
		}
		aps, err := o.s.withProfiles(ctx, f, animals, today)
		if err != nil {
			return nil, err
		}
		for _, ap := range aps {
			profiles[ap.Animal.ID] = ap
		}
		tags, err := o.s.damTagsOf(ctx, f, aps)
		if err != nil {
			return nil, err
		}
		maps.Copy(damTags, tags)
	}
	out := make([]registry.Report, len(ns))
	for i, n := range ns {
		r := registry.Report{Key: n.Key, Kind: n.Kind, Date: n.EventDate, Tag: n.AnimalTag, Corrects: n.CorrectsKind}
		if c, ok := o.notices[n.Corrects]; ok && n.Kind == notice.KindCorrection {
			// A registry finds the report a correction withdraws by its event's day, not the
			// day of the void.
			r.Date = c.EventDate
		}
		if a, err := uuid.Parse(n.AnimalID); err == nil {
			if ap, ok := profiles[a]; ok {
				p := ap.Profile
				r.Tag = officialTag(ap.Animal.Tag, p.Identifiers)
				r.Sex, r.BirthDate, r.Breed = orEmpty(p.Sex), orEmpty(p.BirthDate), orEmpty(p.Breed)
				// The registry's breed code for the breed as the book records it (a name or
				// already a code); a breed the scheme's list does not know goes as recorded,
				// for the adapter to refuse by name.
				if bs, ok := breed.OfHolding(o.h.Scheme); ok {
					if code, ok := breed.Code(bs, r.Breed); ok {
						r.Breed = code
					}
				}
				r.DamTag = damTags[a]
			}
		}
		if len(n.Sources) > 0 {
			src := n.Sources[0]
			if e, ok := facts[src]; ok {
				r.OtherScheme, r.OtherHolding = e.Fact.HoldingScheme, e.Fact.HoldingNumber
			}
			// A correction withdraws the report of a fact voided without a replacement, and
			// amends the report of one amended.
			r.Withdraw = n.Kind == notice.KindCorrection && !amended[src]
		}
		out[i] = r
	}
	return out, nil
}

// damOfProfile is the genetic dam a profile names, else its dam.
func damOfProfile(p Profile) uuid.UUID {
	d := p.GeneticDamID
	if d == nil {
		d = p.DamID
	}
	if d == nil {
		return uuid.Nil
	}
	id, _ := uuid.Parse(*d)
	return id
}

// RunOutbox runs the outbox every interval until ctx ends, logging what each pass did.
func (s *Service) RunOutbox(ctx context.Context, every time.Duration, log func(res OutboxResult, err error)) {
	if !s.registries.on() {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		res, err := s.SendNotices(ctx)
		if log != nil && (err != nil || res != (OutboxResult{})) {
			log(res, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
