package herdbook

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/noticesubmission"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/webhookendpoint"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/registry/notice"
)

// Statutory notices (docs/registry.md): derived from the dated facts of the farms on a
// holding by package registry/notice, never stored. What is stored is each submission of a
// notice and the registry's answer (NoticeSubmission), which an outbox will fill; until
// then a keeper records that they reported a notice, and the registry's answer, by hand.

// noticeFactKinds are the fact kinds notices come from.
var noticeFactKinds = []string{string(evidence.KindBirth), string(evidence.KindIdentifier), string(evidence.KindDeath),
	string(evidence.KindPurchase), string(evidence.KindMovementIn), string(evidence.KindMovementOut), string(evidence.KindSale)}

// NoticeEventType is the webhook event of a notice whose state changed (a submission was
// recorded, or the deadline passed): data is the notice as it is now.
const NoticeEventType = "notice.state_changed"

// Notice is a statutory notice with the tag of its animal.
type Notice struct {
	notice.Notice
	AnimalTag string
}

// NoticeFilter narrows a list of notices; empty fields do not filter.
type NoticeFilter struct {
	State    string
	Kind     string
	AnimalID *uuid.UUID
}

func (f NoticeFilter) validate() error {
	var fe fieldErrors
	if f.State != "" && !slices.Contains(notice.States, f.State) {
		fe.add("state", "must be one of %s", strings.Join(notice.States, ", "))
	}
	if f.Kind != "" && !slices.Contains(notice.Kinds, notice.Kind(f.Kind)) {
		names := make([]string, len(notice.Kinds))
		for i, k := range notice.Kinds {
			names[i] = string(k)
		}
		fe.add("kind", "must be one of %s", strings.Join(names, ", "))
	}
	return fe.err()
}

func (f NoticeFilter) keep(n Notice) bool {
	return (f.State == "" || n.State == f.State) && (f.Kind == "" || string(n.Kind) == f.Kind) &&
		(f.AnimalID == nil || n.AnimalID == f.AnimalID.String())
}

// noticeBook is what a derivation of one holding loaded.
type noticeBook struct {
	holding *ent.Holding
	farms   []uuid.UUID // the cattle farms derived
	notices []Notice
	// entries are the facts the notices came from (the outbox reads their details).
	entries []notice.Entry
}

// FarmNotices lists the statutory notices of a farm (READER of the farm, read:records):
// those of its own facts, under its holding's rule set. A farm on no holding is answered
// ENOTFOUND: without a holding there is no rule set and no registry.
func (s *Service) FarmNotices(ctx context.Context, farmID uuid.UUID, f NoticeFilter) (*ent.Holding, []Notice, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, nil, err
	}
	if err := f.validate(); err != nil {
		return nil, nil, err
	}
	h, err := s.holdingOfFarm(ctx, farmID)
	if err != nil {
		return nil, nil, err
	}
	b, err := s.deriveNotices(ctx, h, []uuid.UUID{farmID})
	if err != nil {
		return nil, nil, err
	}
	return h, filterNotices(b.notices, f), nil
}

// HoldingNotices lists the statutory notices of a holding's farms that the viewer is a
// member of (read:records): a member of one farm on a holding does not see another's.
func (s *Service) HoldingNotices(ctx context.Context, holdingID uuid.UUID, f NoticeFilter) (*ent.Holding, []Notice, error) {
	_, ids, err := s.authorizeHolding(ctx, holdingID, RoleReader, ScopeReadRecords)
	if err != nil {
		return nil, nil, err
	}
	if err := f.validate(); err != nil {
		return nil, nil, err
	}
	h, err := s.Client(ctx).Holding.Get(ctx, holdingID)
	if err != nil {
		return nil, nil, notFound(err, "holding", holdingID)
	}
	b, err := s.deriveNotices(ctx, h, s.visibleFarms(ctx, ids))
	if err != nil {
		return nil, nil, err
	}
	return h, filterNotices(b.notices, f), nil
}

func filterNotices(ns []Notice, f NoticeFilter) []Notice {
	out := make([]Notice, 0, len(ns))
	for _, n := range ns {
		if f.keep(n) {
			out = append(out, n)
		}
	}
	return out
}

// deriveNotices derives the notices of the cattle farms among farmIDs under the holding's
// rules, in a constant number of statements whatever the herd: the farms' species, the
// facts of the notice kinds with their records (voided ones too: a reported fact voided
// later makes a correction), the animals' tags and the holding's submissions.
func (s *Service) deriveNotices(ctx context.Context, h *ent.Holding, farmIDs []uuid.UUID) (*noticeBook, error) {
	b := &noticeBook{holding: h}
	rules, ok := notice.ByName(h.RuleSet)
	if !ok {
		return nil, Errorf(EINTERNAL, "holding %s names an unknown rule set %q", h.ID, h.RuleSet)
	}
	zone, err := loadZone(h.TimeZone)
	if err != nil {
		return nil, Errorf(EINTERNAL, "holding %s names an unknown time zone %q", h.ID, h.TimeZone)
	}
	if len(farmIDs) == 0 {
		return b, nil
	}
	c := s.Client(ctx)
	all := IncludeInactive(ctx)
	// The bovine rules apply to cattle farms; a sheep farm on the same holding reports
	// under rules this derivation does not know yet (docs/registry.md).
	b.farms, err = c.Farm.Query().Where(farm.IDIn(farmIDs...), farm.SpeciesIn(farm.SpeciesCATTLE, farm.SpeciesBISON)).IDs(ctx)
	if err != nil || len(b.farms) == 0 {
		return b, err
	}
	items, err := c.RecordItem.Query().Where(
		recorditem.FactKindIn(noticeFactKinds...),
		recorditem.FarmIDIn(b.farms...),
	).Select(recorditem.FieldID, recorditem.FieldRecordID, recorditem.FieldMetadata, recorditem.FieldIsActive,
		recorditem.FieldVoidedAt, recorditem.FieldAmendsID, recorditem.FieldFactKind, recorditem.FieldFactSubject).
		WithRecord(func(q *ent.RecordQuery) {
			q.Where(farmOf(b.farms...)).Select(record.FieldID, record.FieldFarmID, record.FieldIsActive, record.FieldVoidedAt, record.FieldAmendsID)
		}).All(all)
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	animals, err := c.Animal.Query().Where(animal.FarmIDIn(b.farms...)).Select(animal.FieldID, animal.FieldTag).All(all)
	if err != nil {
		return nil, err
	}
	for _, a := range animals {
		tags[a.ID.String()] = a.Tag
	}
	subs, err := s.latestSubmissions(ctx, h.ID)
	if err != nil {
		return nil, err
	}
	now := s.nowUTC()
	in := notice.Input{Rules: rules, HerdType: h.HerdType, Today: now.In(zone).Format(time.DateOnly), Submissions: subs}
	in.Entries = noticeEntries(items, zone)
	b.entries = in.Entries
	for _, n := range notice.Derive(in) {
		b.notices = append(b.notices, Notice{Notice: n, AnimalTag: tags[n.AnimalID]})
	}
	return b, nil
}

// noticeEntries turns the loaded items into the derivation's entries: which are live, the
// local day each stopped being live, and which item each amendment replaced (an item
// amended on its own names it; a record amended whole names the old record, whose item of
// the same kind and subject it replaced).
func noticeEntries(items []*ent.RecordItem, zone *time.Location) []notice.Entry {
	type slot struct{ record, kind, subject string }
	slotKey := func(it *ent.RecordItem, recordID string) slot {
		s := slot{record: recordID}
		if it.FactKind != nil {
			s.kind = *it.FactKind
		}
		if it.FactSubject != nil {
			s.subject = it.FactSubject.String()
		}
		return s
	}
	byRecordSlot := map[slot]string{}
	for _, it := range items {
		byRecordSlot[slotKey(it, it.RecordID.String())] = it.ID.String()
	}
	out := make([]notice.Entry, 0, len(items))
	for _, it := range items {
		r := it.Edges.Record
		f, ok, errs := storedFact(it.Metadata)
		if !ok || len(errs) > 0 || r == nil {
			continue
		}
		f.RecordID, f.RecordItemID = it.RecordID.String(), it.ID.String()
		e := notice.Entry{Fact: f, FarmID: r.FarmID.String(), Live: it.IsActive && r.IsActive}
		if !e.Live {
			var at *time.Time
			switch {
			case !r.IsActive && r.VoidedAt != nil:
				at = r.VoidedAt
			case it.VoidedAt != nil:
				at = it.VoidedAt
			}
			if at != nil {
				e.EndedOn = at.In(zone).Format(time.DateOnly)
			}
		}
		switch {
		case it.AmendsID != nil:
			e.Amends = it.AmendsID.String()
		case r.AmendsID != nil:
			e.Amends = byRecordSlot[slotKey(it, r.AmendsID.String())]
		}
		out = append(out, e)
	}
	return out
}

// latestSubmissions returns the latest submission of each notice of a holding, in one
// statement.
func (s *Service) latestSubmissions(ctx context.Context, holdingID uuid.UUID) (map[string]notice.Submission, error) {
	rows, err := s.Client(ctx).NoticeSubmission.Query().Where(noticesubmission.HoldingID(holdingID)).
		Order(ent.Asc(noticesubmission.FieldCreatedAt), ent.Asc(noticesubmission.FieldID)).
		Select(noticesubmission.FieldID, noticesubmission.FieldNoticeKey, noticesubmission.FieldState,
			noticesubmission.FieldChannel, noticesubmission.FieldRegistryReference, noticesubmission.FieldCause,
			noticesubmission.FieldCreatedAt, noticesubmission.FieldAnsweredAt, noticesubmission.FieldSentAt).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]notice.Submission, len(rows))
	for _, r := range rows {
		out[r.NoticeKey] = submissionOf(r)
	}
	return out, nil
}

func submissionOf(r *ent.NoticeSubmission) notice.Submission {
	s := notice.Submission{ID: r.ID.String(), NoticeKey: r.NoticeKey, State: string(r.State), Channel: r.Channel, At: r.CreatedAt.UTC()}
	if r.RegistryReference != nil {
		s.Reference = *r.RegistryReference
	}
	if r.Cause != nil {
		s.Cause = *r.Cause
	}
	return s
}

// NoticeSubmissionInput records a submission of a notice and the registry's answer, made
// outside Herdbook (the keeper reported it online or by phone) or by an adapter.
type NoticeSubmissionInput struct {
	// State is sent (submitted, no answer yet), accepted or rejected.
	State string
	// Reference is the registry's receipt or reference; Cause a reject's reason (required
	// for rejected).
	Reference *string
	Cause     *string
	// IdempotencyKey makes a retry of the same submission find the first instead of
	// recording it twice; generated when absent.
	IdempotencyKey *string
}

// submissionStates are the states a recorded submission may have.
var submissionStates = []string{notice.StateSent, notice.StateAccepted, notice.StateRejected}

func (in NoticeSubmissionInput) validate() error {
	var fe fieldErrors
	if !slices.Contains(submissionStates, in.State) {
		fe.add("state", "must be one of %s", strings.Join(submissionStates, ", "))
	}
	if in.State == notice.StateRejected && (in.Cause == nil || strings.TrimSpace(*in.Cause) == "") {
		fe.add("cause", "is required for a rejected notice: the registry's reason, so the fact can be corrected")
	}
	if in.Reference != nil {
		validateName(&fe, "registry_reference", *in.Reference, 1, 200)
	}
	if in.Cause != nil {
		validateName(&fe, "cause", *in.Cause, 1, 1000)
	}
	if in.IdempotencyKey != nil {
		validateName(&fe, "request_id", *in.IdempotencyKey, 1, 200)
	}
	return fe.err()
}

// RecordNoticeSubmission records that a notice of the farm was submitted, and the registry's
// answer if it came (EDITOR of the farm, write:records). The notice must be one the farm's
// book derives now; a superseded notice is refused (its correction is what to report). A
// request id already used for the same notice answers the first submission again; for
// another notice, 409. A state change writes a notice.state_changed webhook event in the
// same transaction.
func (s *Service) RecordNoticeSubmission(ctx context.Context, farmID uuid.UUID, key string, in NoticeSubmissionInput) (*Notice, *ent.NoticeSubmission, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords)
	if err != nil {
		return nil, nil, err
	}
	if err := CheckText("key", key); err != nil {
		return nil, nil, err
	}
	if err := in.validate(); err != nil {
		return nil, nil, err
	}
	if err := checkTextIn(in); err != nil {
		return nil, nil, err
	}
	var (
		out *Notice
		sub *ent.NoticeSubmission
	)
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		if in.IdempotencyKey != nil {
			prev, err := c.NoticeSubmission.Query().Where(noticesubmission.IdempotencyKey(idemKey(farmID, *in.IdempotencyKey))).Only(ctx)
			switch {
			case ent.IsNotFound(err):
			case err != nil:
				return err
			case prev.NoticeKey != key || prev.FarmID != farmID:
				return Errorf(ECONFLICT, "request_id %q was already used for another notice", *in.IdempotencyKey)
			default:
				sub = prev
			}
		}
		h, err := s.holdingOfFarm(ctx, farmID)
		if err != nil {
			return err
		}
		b, err := s.deriveNotices(ctx, h, []uuid.UUID{farmID})
		if err != nil {
			return err
		}
		var cur *Notice
		for i := range b.notices {
			if b.notices[i].Key == key {
				cur = &b.notices[i]
			}
		}
		if cur == nil {
			return Errorf(ENOTFOUND, "notice %s not found", key)
		}
		if sub != nil {
			out = cur
			return nil
		}
		switch cur.State {
		case notice.StateSuperseded:
			return Errorf(ECONFLICT, "notice %s is superseded: its fact was voided or amended after it was reported; report its correction instead", key)
		case notice.StateDone:
			return Errorf(ECONFLICT, "notice %s is a clock the book meets itself (a tag recorded); there is nothing to submit", key)
		}
		now := s.nowUTC()
		ik := uuid.NewString()
		if in.IdempotencyKey != nil {
			ik = *in.IdempotencyKey
		}
		cr := c.NoticeSubmission.Create().SetHoldingID(h.ID).SetFarmID(farmID).SetNoticeKey(key).SetKind(string(cur.Kind)).
			SetIdempotencyKey(idemKey(farmID, ik)).SetState(noticesubmission.State(in.State)).SetChannel("manual").
			SetNillableRegistryReference(in.Reference).SetNillableCause(in.Cause).SetSentAt(now).SetCreatedBy(v.UserID)
		if a, err := uuid.Parse(cur.AnimalID); err == nil {
			cr.SetAnimalID(a)
		}
		if in.State != notice.StateSent {
			cr.SetAnsweredAt(now)
		}
		if sub, err = cr.Save(ctx); err != nil {
			return constraint(err, "request_id was already used")
		}
		before := cur.State
		next := *cur
		ns := submissionOf(sub)
		next.Submission, next.State = &ns, in.State
		out = &next
		if before != next.State {
			return s.emitNoticeEvent(ctx, farmID, next, before)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, sub, nil
}

// idemKey scopes a caller's request id to the farm, so two farms' ids never collide.
func idemKey(farmID uuid.UUID, k string) string { return farmID.String() + ":" + k }

// NoticeEvent is the data of a notice.state_changed webhook.
type NoticeEvent struct {
	Key       string   `json:"key"`
	Kind      string   `json:"kind"`
	FarmID    string   `json:"farm_id"`
	AnimalID  string   `json:"animal_id"`
	AnimalTag string   `json:"animal_tag,omitempty"`
	EventDate string   `json:"event_date"`
	Deadline  string   `json:"deadline"`
	State     string   `json:"state"`
	Previous  string   `json:"previous_state"`
	RuleSet   string   `json:"rule_set"`
	Sources   []string `json:"sources"`
}

// emitNoticeEvent writes a notice.state_changed event to the webhook outbox, with a delivery
// for each enabled endpoint of the farm subscribed to it (two statements when one listens,
// one otherwise), in the caller's transaction.
func (s *Service) emitNoticeEvent(ctx context.Context, farmID uuid.UUID, n Notice, previous string) error {
	return s.emitNoticeEvents(ctx, farmID, []Notice{n}, []string{previous})
}

func (s *Service) emitNoticeEvents(ctx context.Context, farmID uuid.UUID, ns []Notice, previous []string) error {
	c := s.Client(ctx)
	eps, err := c.WebhookEndpoint.Query().Where(webhookendpoint.FarmID(farmID), webhookendpoint.Enabled(true)).
		Order(ent.Asc(webhookendpoint.FieldCreatedAt), ent.Asc(webhookendpoint.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	var listen []*ent.WebhookEndpoint
	for _, ep := range eps {
		if slices.Contains(ep.EventTypes, NoticeEventType) {
			listen = append(listen, ep)
		}
	}
	if len(listen) == 0 || len(ns) == 0 {
		return nil
	}
	now := s.nowUTC()
	var events []*ent.WebhookEventCreate
	var deliveries []*ent.WebhookDeliveryCreate
	for i, n := range ns {
		body, err := json.Marshal(map[string]any{"type": NoticeEventType, "timestamp": now, "data": NoticeEvent{
			Key: n.Key, Kind: string(n.Kind), FarmID: n.FarmID, AnimalID: n.AnimalID, AnimalTag: n.AnimalTag,
			EventDate: n.EventDate, Deadline: n.Deadline, State: n.State, Previous: previous[i], RuleSet: n.RuleSet, Sources: n.Sources}})
		if err != nil {
			return err
		}
		id := uuid.New()
		subject := uuid.NewSHA1(uuid.NameSpaceURL, []byte("herdbook:notice:"+n.Key))
		events = append(events, c.WebhookEvent.Create().SetID(id).SetFarmID(farmID).SetType(NoticeEventType).
			SetSubjectID(subject).SetPayload(body).SetCreatedAt(now).SetUpdatedAt(now))
		for _, ep := range listen {
			deliveries = append(deliveries, c.WebhookDelivery.Create().SetFarmID(farmID).SetEndpointID(ep.ID).
				SetEventID(id).SetNextAttemptAt(now).SetCreatedAt(now).SetUpdatedAt(now))
		}
	}
	for len(events) > 0 {
		n := min(len(events), insertChunk)
		if err := c.WebhookEvent.CreateBulk(events[:n]...).Exec(ctx); err != nil {
			return err
		}
		events = events[n:]
	}
	for len(deliveries) > 0 {
		n := min(len(deliveries), insertChunk)
		if err := c.WebhookDelivery.CreateBulk(deliveries[:n]...).Exec(ctx); err != nil {
			return err
		}
		deliveries = deliveries[n:]
	}
	return nil
}
