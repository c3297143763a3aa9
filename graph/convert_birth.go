package graph

import (
	"strings"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
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
	out := &model.BirthHistorySettings{Version: s.Version, Species: s.Species, MinimumSireAgeDays: s.MinimumSireAgeDays,
		BirthWindows: windowsOut(s.BirthWindows)}
	if g := s.GestationDays; g != nil {
		out.GestationDays = &model.GestationDays{Min: g.Min, Max: g.Max}
	}
	return out
}

func settingsState(st herdbook.BirthSettings, err error) (*model.BirthSettingsState, error) {
	if err != nil {
		return nil, err
	}
	return &model.BirthSettingsState{Species: st.Species, Settings: settingsOut(st.Settings), SettingsVersion: st.Version}, nil
}

func settingsIn(in model.BirthHistorySettingsInput) evidence.Settings {
	out := evidence.Settings{Version: in.Version, Species: in.Species, MinimumSireAgeDays: in.MinimumSireAgeDays,
		BirthWindows: []evidence.Window{}}
	if g := in.GestationDays; g != nil {
		out.GestationDays = &evidence.Range{Min: g.Min, Max: g.Max}
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
		SettingsStatus: string(ev.SettingsStatus), PlannedWindowStatus: string(ev.PlannedWindowStatus),
		MatchingBirthWindows: windowsOut(ev.MatchingBirthWindows), Unresolved: ev.Unresolved,
		MovementComparisons: make([]*model.MovementComparison, len(ev.MovementComparisons)),
		Sire: &model.SireEvidence{Status: string(ev.Sire.Status), AnimalID: optID(ev.Sire.AnimalID), Confidence: ev.Sire.Confidence,
			Provenance: optString(ev.Sire.Provenance), PresumedCross: optString(ev.Sire.PresumedCross),
			Candidates: make([]*model.SireCandidate, len(ev.Sire.Candidates))},
	}
	if cw := ev.ConceptionWindow; cw != nil {
		out.ConceptionWindow = &model.DateInterval{StartDate: cw.StartDate, EndDate: cw.EndDate}
	}
	for i, c := range ev.Sire.Candidates {
		out.Sire.Candidates[i] = &model.SireCandidate{
			AnimalID: uuid.MustParse(c.AnimalID), Eligibility: string(c.Eligibility), Reasons: c.Reasons,
			ExposureRecordIDs: ids(c.ExposureRecordIDs), ExposureRecordItemIDs: ids(c.ExposureRecordItemIDs),
			MembershipRecordIDs: ids(c.MembershipRecordIDs), MembershipRecordItemIDs: ids(c.MembershipRecordItemIDs),
			OverlapIntervals: intervals(c.OverlapIntervals), Breed: optString(c.Breed),
		}
	}
	for i, m := range ev.MovementComparisons {
		out.MovementComparisons[i] = &model.MovementComparison{RecordID: uuid.MustParse(m.RecordID), RecordItemID: uuid.MustParse(m.RecordItemID),
			Kind: string(m.Kind), Date: m.Date, RelationToConception: string(m.RelationToConception)}
	}
	return out
}

func birthEvidence(ev evidence.Evidence, err error) (*model.BirthEvidence, error) {
	if err != nil {
		return nil, err
	}
	return evidenceOut(ev), nil
}

func protocolOut(p herdbook.FollowUpProtocol, err error) (*model.FollowUpProtocolVersion, error) {
	if err != nil {
		return nil, err
	}
	out := &model.FollowUpProtocolVersion{Version: p.Version, Steps: make([]*model.ProtocolStep, len(p.Steps))}
	for i, s := range p.Steps {
		out.Steps[i] = &model.ProtocolStep{Name: s.Name, OffsetDays: s.OffsetDays}
	}
	return out, nil
}

func stepsIn(in []*model.ProtocolStepInput) []schematype.ProtocolStep {
	out := make([]schematype.ProtocolStep, len(in))
	for i, s := range in {
		out[i] = schematype.ProtocolStep{Name: s.Name, OffsetDays: s.OffsetDays}
	}
	return out
}

func previewOut(p *ent.BirthPreview, err error) (*model.BirthPreviewSnapshot, error) {
	if err != nil || p == nil {
		return nil, err
	}
	out := &model.BirthPreviewSnapshot{ID: p.ID, DamID: p.DamID, BirthDate: p.BirthDate, SettingsVersion: p.SettingsVersion,
		ProtocolVersion: p.ProtocolVersion, Stale: p.Stale, ApprovedAt: p.ApprovedAt, BirthEventID: p.BirthEventID,
		Evidence: evidenceOut(p.Evidence), Tasks: make([]*model.PlannedTask, len(p.Tasks)), CreatedAt: p.CreatedAt}
	for i, t := range p.Tasks {
		out.Tasks[i] = &model.PlannedTask{Name: t.Name, OffsetDays: t.OffsetDays, DueDate: t.DueDate}
	}
	return out, nil
}

func taskOut(t *ent.FarmTask) *model.FollowUpTask {
	out := &model.FollowUpTask{ID: t.ID, FarmID: t.FarmID, BirthEventID: t.BirthEventID, Name: t.Name,
		Status: model.TaskStatus(t.Status), DueDate: t.DueDate, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		AnimalIDs: make([]uuid.UUID, len(t.Edges.Animals))}
	for i, a := range t.Edges.Animals {
		out.AnimalIDs[i] = a.ID
	}
	return out
}

func taskResult(t *ent.FarmTask, err error) (*model.FollowUpTask, error) {
	if err != nil {
		return nil, err
	}
	return taskOut(t), nil
}

func taskPage(ts []*ent.FarmTask, total int, err error) (*model.FollowUpTaskPage, error) {
	if err != nil {
		return nil, err
	}
	out := &model.FollowUpTaskPage{Total: total, Records: make([]*model.FollowUpTask, len(ts))}
	for i, t := range ts {
		out.Records[i] = taskOut(t)
	}
	return out, nil
}

func taskQuery(skip, take *int, status *model.TaskStatus) herdbook.FarmTaskQuery {
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

func approvedOut(ev *ent.BirthEvent, err error) (*model.ApprovedBirth, error) {
	if err != nil {
		return nil, err
	}
	out := &model.ApprovedBirth{ID: ev.ID, DamID: ev.DamID, BirthDate: ev.BirthDate, PreviewID: ev.PreviewID,
		RequestID: ev.RequestID, Tasks: make([]*model.FollowUpTask, len(ev.Edges.Tasks))}
	for i, t := range ev.Edges.Tasks {
		out.Tasks[i] = taskOut(t)
	}
	return out, nil
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
