package graph

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/graph/model"
)

// The functions below only translate between the service's birth-history values and the
// graph's models.

func ids(ss []string) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(ss))
	for _, s := range ss {
		if id, err := uuid.Parse(s); err == nil {
			out = append(out, id)
		}
	}
	return out
}

func optID(s string) *uuid.UUID {
	if id, err := uuid.Parse(s); err == nil {
		return &id
	}
	return nil
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func windowsOut(ws []evidence.Window) []*model.BirthWindow {
	out := make([]*model.BirthWindow, len(ws))
	for i, w := range ws {
		out[i] = &model.BirthWindow{Label: w.Label, StartDate: w.StartDate, EndDate: w.EndDate}
	}
	return out
}

func settingsOut(s *evidence.Settings) *model.BirthHistorySettings {
	if s == nil {
		return nil
	}
	out := &model.BirthHistorySettings{Version: s.Version, Species: farm.Species(s.Species), MinimumSireAgeDays: s.MinimumSireAgeDays,
		BirthWindows: windowsOut(s.BirthWindows)}
	if g := s.GestationDays; g != nil {
		out.GestationDays = &model.GestationDays{Min: g.Min, Max: g.Max}
	}
	out.GestationDaysByBreed = make([]*model.BreedGestation, 0, len(s.GestationDaysByBreed))
	for b, g := range s.GestationDaysByBreed {
		out.GestationDaysByBreed = append(out.GestationDaysByBreed, &model.BreedGestation{Breed: b, Min: g.Min, Max: g.Max})
	}
	slices.SortFunc(out.GestationDaysByBreed, func(a, b *model.BreedGestation) int { return strings.Compare(a.Breed, b.Breed) })
	return out
}

// gestationOut is a range of the evidence as the graph's GestationDays, nil for none.
func gestationOut(g *evidence.Range) *model.GestationDays {
	if g == nil {
		return nil
	}
	return &model.GestationDays{Min: g.Min, Max: g.Max}
}

func settingsState(st herdbook.BirthSettings, err error) (*model.BirthSettingsState, error) {
	if err != nil {
		return nil, err
	}
	return &model.BirthSettingsState{Species: farm.Species(st.Species), Settings: settingsOut(st.Settings), SettingsVersion: st.Version}, nil
}

func settingsIn(in model.BirthHistorySettingsInput) evidence.Settings {
	out := evidence.Settings{Version: in.Version, Species: in.Species, MinimumSireAgeDays: in.MinimumSireAgeDays,
		BirthWindows: []evidence.Window{}}
	if g := in.GestationDays; g != nil {
		out.GestationDays = &evidence.Range{Min: g.Min, Max: g.Max}
	}
	if len(in.GestationDaysByBreed) > 0 {
		out.GestationDaysByBreed = make(map[string]evidence.Range, len(in.GestationDaysByBreed))
		for _, b := range in.GestationDaysByBreed {
			// A breed named twice in the list is named twice in the map's eyes too: the
			// later one would silently win, so keep it apart for validation to refuse.
			key := b.Breed
			for _, taken := out.GestationDaysByBreed[key]; taken; _, taken = out.GestationDaysByBreed[key] {
				key = " " + key
			}
			out.GestationDaysByBreed[key] = evidence.Range{Min: b.Min, Max: b.Max}
		}
	}
	for _, w := range in.BirthWindows {
		out.BirthWindows = append(out.BirthWindows, evidence.Window{Label: w.Label, StartDate: w.StartDate, EndDate: w.EndDate})
	}
	return out
}

func intervals(xs []evidence.Interval) []*model.DateInterval {
	out := make([]*model.DateInterval, len(xs))
	for i, x := range xs {
		out[i] = &model.DateInterval{StartDate: x.StartDate, EndDate: x.EndDate}
	}
	return out
}

func evidenceOut(ev evidence.Evidence) *model.BirthEvidence {
	out := &model.BirthEvidence{
		EvidenceVersion: ev.EvidenceVersion, Settings: settingsOut(ev.Settings),
		SettingsStatus: model.SettingsStatus(ev.SettingsStatus), PlannedWindowStatus: model.PlannedWindowStatus(ev.PlannedWindowStatus),
		SettingsState: model.EvidenceSettingsState(upper(ev.SettingsStatus)), PlannedWindowState: model.PlannedWindowState(upper(ev.PlannedWindowStatus)),
		MatchingBirthWindows: windowsOut(ev.MatchingBirthWindows), Unresolved: ev.Unresolved,
		MovementComparisons: make([]*model.MovementComparison, len(ev.MovementComparisons)),
		Sire: &model.SireEvidence{Status: model.SireStatus(ev.Sire.Status), State: model.SireState(upper(ev.Sire.Status)), AnimalID: optID(ev.Sire.AnimalID), Confidence: ev.Sire.Confidence,
			Provenance: optString(ev.Sire.Provenance), PresumedCross: optString(ev.Sire.PresumedCross),
			Candidates: make([]*model.SireCandidate, len(ev.Sire.Candidates))},
	}
	if cw := ev.ConceptionWindow; cw != nil {
		out.ConceptionWindow = &model.DateInterval{StartDate: cw.StartDate, EndDate: cw.EndDate}
	}
	for i, c := range ev.Sire.Candidates {
		out.Sire.Candidates[i] = &model.SireCandidate{
			AnimalID: uuid.MustParse(c.AnimalID), Eligibility: model.SireEligibility(c.Eligibility), Verdict: model.SireVerdict(upper(c.Eligibility)), Reasons: c.Reasons,
			ExposureRecordIDs: ids(c.ExposureRecordIDs), ExposureRecordItemIDs: ids(c.ExposureRecordItemIDs),
			MembershipRecordIDs: ids(c.MembershipRecordIDs), MembershipRecordItemIDs: ids(c.MembershipRecordItemIDs),
			OverlapIntervals: intervals(c.OverlapIntervals), Breed: optString(c.Breed),
			GestationDays: gestationOut(c.GestationDays), GestationBreed: optString(c.GestationBreed),
			ImpliedGestationDays: gestationOut(c.ImpliedGestationDays),
		}
	}
	for i, m := range ev.MovementComparisons {
		out.MovementComparisons[i] = &model.MovementComparison{RecordID: uuid.MustParse(m.RecordID), RecordItemID: uuid.MustParse(m.RecordItemID),
			Kind: model.MovementFactKind(m.Kind), MovementKind: model.MovementKind(upper(m.Kind)), Date: m.Date,
			RelationToConception: model.ConceptionRelation(m.RelationToConception), Conception: model.ConceptionTiming(upper(m.RelationToConception))}
	}
	return out
}

// evidenceWithReferences converts a review and resolves the animals, records and record items
// it names into objects, but only those the operation selects under the current field, and
// each kind in one query: a review with many candidates costs what one with a few does.
func (r *Resolver) evidenceWithReferences(ctx context.Context, farmID uuid.UUID, ev evidence.Evidence) (*model.BirthEvidence, error) {
	out := evidenceOut(ev)
	if selected(ctx, "sire", "animal") || selected(ctx, "sire", "candidates", "animal") {
		var want []uuid.UUID
		if out.Sire.AnimalID != nil {
			want = append(want, *out.Sire.AnimalID)
		}
		for _, c := range out.Sire.Candidates {
			want = append(want, c.AnimalID)
		}
		animals, err := r.svc.AnimalsByID(ctx, farmID, want)
		if err != nil {
			return nil, err
		}
		if out.Sire.AnimalID != nil {
			out.Sire.Animal = animals[*out.Sire.AnimalID]
		}
		for _, c := range out.Sire.Candidates {
			c.Animal = animals[c.AnimalID]
		}
	}
	if selected(ctx, "movementComparisons", "record") {
		want := make([]uuid.UUID, len(out.MovementComparisons))
		for i, m := range out.MovementComparisons {
			want[i] = m.RecordID
		}
		records, err := r.svc.RecordsByID(ctx, farmID, want)
		if err != nil {
			return nil, err
		}
		for _, m := range out.MovementComparisons {
			m.Record = records[m.RecordID]
		}
	}
	if selected(ctx, "movementComparisons", "recordItem") {
		want := make([]uuid.UUID, len(out.MovementComparisons))
		for i, m := range out.MovementComparisons {
			want[i] = m.RecordItemID
		}
		items, err := r.svc.RecordItemsByID(ctx, farmID, want)
		if err != nil {
			return nil, err
		}
		for _, m := range out.MovementComparisons {
			m.RecordItem = items[m.RecordItemID]
		}
	}
	return out, nil
}

// withReferences returns evidenceWithReferences for a service call's answer.
func (r *Resolver) withReferences(ctx context.Context, farmID uuid.UUID) func(evidence.Evidence, error) (*model.BirthEvidence, error) {
	return func(ev evidence.Evidence, err error) (*model.BirthEvidence, error) {
		if err != nil {
			return nil, err
		}
		return r.evidenceWithReferences(ctx, farmID, ev)
	}
}

// selected tells whether the operation selects the path of fields under the field being
// resolved, through fragments and under any alias.
func selected(ctx context.Context, path ...string) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return false
	}
	return selectedIn(graphql.GetOperationContext(ctx), fc.Field.Selections, path)
}

func selectedIn(oc *graphql.OperationContext, set ast.SelectionSet, path []string) bool {
	for _, f := range graphql.CollectFields(oc, set, nil) {
		if f.Name != path[0] {
			continue
		}
		if len(path) == 1 || selectedIn(oc, f.Selections, path[1:]) {
			return true
		}
	}
	return false
}

func protocolOut(p herdbook.FollowUpProtocol, err error) (*model.FollowUpProtocolVersion, error) {
	if err != nil {
		return nil, err
	}
	out := &model.FollowUpProtocolVersion{Version: p.Version, Steps: make([]*model.ProtocolStep, len(p.Steps))}
	for i, s := range p.Steps {
		out.Steps[i] = &model.ProtocolStep{Name: s.Name, OffsetDays: s.OffsetDays}
		if s.Sex != "" {
			sex := s.Sex
			out.Steps[i].Sex = &sex
		}
	}
	return out, nil
}

func stepsIn(in []*model.ProtocolStepInput) []schematype.ProtocolStep {
	out := make([]schematype.ProtocolStep, len(in))
	for i, s := range in {
		out[i] = schematype.ProtocolStep{Name: s.Name, OffsetDays: s.OffsetDays}
		if s.Sex != nil {
			out[i].Sex = *s.Sex
		}
	}
	return out
}

func taskPage(ts []*ent.FarmTask, total int, err error) (*model.FollowUpTaskPage, error) {
	if err != nil {
		return nil, err
	}
	return &model.FollowUpTaskPage{Total: total, Records: ts}, nil
}

func taskQuery(skip, take *int, status *farmtask.Status) herdbook.FarmTaskQuery {
	q := herdbook.FarmTaskQuery{Skip: skip, Take: take}
	if status != nil {
		s := string(*status)
		q.Status = &s
	}
	return q
}

func taskPatch(in model.UpdateTaskInput) herdbook.FarmTaskPatch {
	p := herdbook.FarmTaskPatch{Status: string(in.Status), PreviewID: in.PreviewID, ProtocolVersion: in.ProtocolVersion}
	if v, ok := in.DueDate.ValueOK(); ok {
		p.DueDate = herdbook.Optional[string]{Set: true, Value: v}
	}
	if in.RequestID != nil {
		p.RequestID = *in.RequestID
	}
	return p
}

// dueOn is a task's due day: the service keeps it as midnight UTC.
func dueOn(t *ent.FarmTask) *string {
	if t.DueDate == nil {
		return nil
	}
	d := t.DueDate.UTC().Format(time.DateOnly)
	return &d
}

// taskAnimals returns a task's animals as the task list loaded them with the page (deleted
// ones too), or loads them now for a task fetched alone.
func taskAnimals(ctx context.Context, t *ent.FarmTask) ([]*ent.Animal, error) {
	if as, err := t.Edges.AnimalsOrErr(); err == nil {
		return as, nil
	}
	return t.QueryAnimals().All(herdbook.IncludeInactive(ctx))
}

// birthTasks returns an approved birth's tasks by step, as the service loaded them, or loads
// them now for a birth fetched alone.
func birthTasks(ctx context.Context, ev *ent.BirthEvent) ([]*ent.FarmTask, error) {
	if ts, err := ev.Edges.TasksOrErr(); err == nil {
		return ts, nil
	}
	return ev.QueryTasks().Order(ent.Asc(farmtask.FieldStep)).WithAnimals().All(herdbook.IncludeInactive(ctx))
}

// taskAnimalIDs lists the ids of a task's animals.
func taskAnimalIDs(ctx context.Context, t *ent.FarmTask) ([]uuid.UUID, error) {
	as, err := taskAnimals(ctx, t)
	if err != nil {
		return nil, err
	}
	out := make([]uuid.UUID, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out, nil
}

// pick returns a func that picks the object with the id from a batch load, or says it is
// not found.
func pick[T any](id uuid.UUID) func(map[uuid.UUID]*T, error) (*T, error) {
	return func(m map[uuid.UUID]*T, err error) (*T, error) {
		if err != nil {
			return nil, err
		}
		if v, ok := m[id]; ok {
			return v, nil
		}
		return nil, herdbook.Errorf(herdbook.ENOTFOUND, "%s not found", id)
	}
}

func idString(id *uuid.UUID) string {
	if id == nil {
		return ""
	}
	return id.String()
}

func profileFact(in model.ProfileFactInput) evidence.Fact {
	return evidence.Fact{Kind: evidence.KindProfile, AnimalID: in.AnimalID.String(), Sex: strings.ToLower(string(in.Sex)),
		BirthDate: deref(in.BirthDate), Breed: deref(in.Breed)}
}

func castrationFact(in model.CastrationFactInput) evidence.Fact {
	return evidence.Fact{Kind: evidence.KindCastration, AnimalID: in.AnimalID.String(), Date: in.Date}
}

func exposureFact(in model.ExposureFactInput) evidence.Fact {
	return evidence.Fact{Kind: evidence.KindExposure, SireID: in.SireID.String(), DamID: idString(in.DamID),
		GroupID: idString(in.GroupID), StartDate: in.StartDate, EndDate: deref(in.EndDate)}
}

func membershipFact(in model.MembershipFactInput) evidence.Fact {
	return evidence.Fact{Kind: evidence.KindMembership, AnimalID: in.AnimalID.String(), GroupID: in.GroupID.String(),
		StartDate: in.StartDate, EndDate: deref(in.EndDate)}
}

func movementFact(in model.MovementFactInput) evidence.Fact {
	return evidence.Fact{Kind: evidence.Kind(strings.ToLower(string(in.Kind))), AnimalID: in.AnimalID.String(), Date: in.Date}
}

func birthFact(in model.BirthFactInput) evidence.Fact {
	f := evidence.Fact{Kind: evidence.KindBirth, DamID: in.DamID.String(), Date: in.Date, SireID: idString(in.SireID)}
	for _, id := range in.OffspringIDs {
		f.OffspringIDs = append(f.OffspringIDs, id.String())
	}
	return f
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// upper is an evidence value in the graph's UPPER_CASE enum spelling (the engine and REST keep
// lower case, which the deprecated enums mirror).
func upper[T ~string](v T) string { return strings.ToUpper(string(v)) }

// oneDay reads a day given by its Date argument or by its deprecated String twin: one of the
// two is required, both is an error naming them.
func oneDay(name string, day *string, oldName string, old *string) (string, error) {
	switch {
	case day != nil && old != nil:
		return "", herdbook.Invalid(herdbook.FieldError{Field: name, Message: "give " + name + " or the deprecated " + oldName + ", not both"})
	case day != nil:
		return *day, nil
	case old != nil:
		return *old, nil
	}
	return "", herdbook.Invalid(herdbook.FieldError{Field: name, Message: "is required"})
}
