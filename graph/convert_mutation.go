package graph

import (
	"context"
	"strings"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/graph/model"
)

// The functions below translate the convention's input objects into service inputs and
// wrap service answers into payloads.

// payload wraps a service answer into a payload when there is no error.
func payload[T, P any](wrap func(T) *P) func(T, error) (*P, error) {
	return func(v T, err error) (*P, error) {
		if err != nil {
			return nil, err
		}
		return wrap(v), nil
	}
}

// deleted answers a delete with its payload when the service call succeeded.
func deleted[P any](p *P, err error) (*P, error) {
	if err != nil {
		return nil, err
	}
	return p, nil
}

// farmCreated is farmCreate's payload: the farm and its welcome thread.
func (r *Resolver) farmCreated(ctx context.Context) func(*ent.Farm, uuid.UUID, error) (*model.FarmCreatePayload, error) {
	return func(f *ent.Farm, threadID uuid.UUID, err error) (*model.FarmCreatePayload, error) {
		if err != nil {
			return nil, err
		}
		th, err := r.svc.Thread(ctx, threadID)
		if err != nil {
			return nil, err
		}
		return &model.FarmCreatePayload{Farm: f, WelcomeThread: th}, nil
	}
}

func farmUpdateIn(in model.FarmUpdateInput) herdbook.FarmPatch {
	return farmPatch(model.UpdateFarmInput{Name: in.Name, Species: in.Species, SpeciesOther: in.SpeciesOther, AllowPrivateThreads: in.AllowPrivateThreads})
}

func recordCreateIn(in model.RecordCreateInput) herdbook.RecordInput {
	out := recordInput(model.CreateRecordInput{AnimalIDs: in.AnimalIDs, GroupIDs: in.GroupIDs, Name: in.Name, Type: in.Type,
		AppliedAt: in.AppliedAt, Description: in.Description, Items: in.Items})
	out.AcknowledgeWithdrawal = orZero(in.AcknowledgeWithdrawal)
	return out
}

func recordUpdateIn(in model.RecordUpdateInput) herdbook.RecordPatch {
	out := recordPatch(model.UpdateRecordInput{AnimalIDs: in.AnimalIDs, GroupIDs: in.GroupIDs, Name: in.Name, Type: in.Type,
		AppliedAt: in.AppliedAt, Description: in.Description, Items: in.Items})
	out.AcknowledgeWithdrawal = orZero(in.AcknowledgeWithdrawal)
	return out
}

func birthSettingsIn(in model.BirthSettingsUpdateInput) evidence.Settings {
	out := settingsIn(model.BirthHistorySettingsInput{Version: in.Version, Species: string(in.Species), GestationDays: in.GestationDays,
		GestationDaysByBreed: in.GestationDaysByBreed, MinimumSireAgeDays: in.MinimumSireAgeDays})
	for _, w := range in.BirthWindows {
		out.BirthWindows = append(out.BirthWindows, evidence.Window{Label: w.Label, StartDate: w.StartDate, EndDate: w.EndDate})
	}
	return out
}

func taskUpdateIn(in model.TaskUpdateInput) herdbook.FarmTaskPatch {
	return taskPatch(model.UpdateTaskInput{Status: in.Status, DueDate: in.DueOn, RequestID: in.RequestID, PreviewID: in.PreviewID,
		ProtocolVersion: in.ProtocolVersion})
}

// factIn turns the one kind of fact the input carries into the engine's fact; @oneOf makes
// the validator refuse inputs with none or several, and this refuses them again for
// variables the validator does not see.
func factIn(in *model.FactInput) (evidence.Fact, error) {
	var facts []evidence.Fact
	if p := in.Profile; p != nil {
		facts = append(facts, profileFact(model.ProfileFactInput{AnimalID: p.AnimalID, Sex: p.Sex, BirthDate: p.BirthDate, Breed: p.Breed}))
	}
	if c := in.Castration; c != nil {
		facts = append(facts, castrationFact(model.CastrationFactInput{AnimalID: c.AnimalID, Date: c.Date}))
	}
	if e := in.Exposure; e != nil {
		facts = append(facts, exposureFact(model.ExposureFactInput{SireID: e.SireID, DamID: e.DamID, GroupID: e.GroupID, StartDate: e.StartDate, EndDate: e.EndDate}))
	}
	if m := in.Membership; m != nil {
		facts = append(facts, membershipFact(model.MembershipFactInput{AnimalID: m.AnimalID, GroupID: m.GroupID, StartDate: m.StartDate, EndDate: m.EndDate}))
	}
	if m := in.MembershipEnd; m != nil {
		facts = append(facts, evidence.Fact{Kind: evidence.KindMembershipEnd, AnimalID: m.AnimalID.String(), GroupID: m.GroupID.String(), Date: m.Date})
	}
	if m := in.Movement; m != nil {
		facts = append(facts, movementFact(model.MovementFactInput{Kind: m.Kind, AnimalID: m.AnimalID, Date: m.Date}))
	}
	if b := in.Birth; b != nil {
		facts = append(facts, birthFact(model.BirthFactInput{DamID: b.DamID, Date: b.Date, OffspringIDs: b.OffspringIDs, SireID: b.SireID}))
	}
	if t := in.Treatment; t != nil {
		f, err := treatmentFact(t)
		if err != nil {
			return evidence.Fact{}, err
		}
		facts = append(facts, f)
	}
	facts = append(facts, serviceFacts(in)...)
	if len(facts) != 1 {
		return evidence.Fact{}, herdbook.Invalid(herdbook.FieldError{Field: "fact", Message: "must give exactly one kind of fact"})
	}
	return facts[0], nil
}

// recordFact records the input's fact.
func (r *Resolver) recordFact(ctx context.Context, in model.FactCreateInput) (*ent.Record, error) {
	f, err := factIn(in.Fact)
	if err != nil {
		return nil, err
	}
	return r.svc.RecordFactWith(ctx, in.FarmID, f, herdbook.FactOptions{AcknowledgeWithdrawal: orZero(in.AcknowledgeWithdrawal)})
}

func preferencesUpdateIn(in model.NotificationPreferencesUpdateInput) herdbook.NotificationPreferencesInput {
	return preferencesIn(model.ChannelPreferencesInput{Email: in.Email, Sms: in.Sms, InApp: in.InApp, EmailAddress: in.EmailAddress})
}

// animalCreateInput is animalCreate's input as the service reads it: the same call as REST's
// POST …/animals, with the profile, parents and EID.
func animalCreateInput(in model.AnimalCreateInput) herdbook.AnimalInput {
	out := herdbook.AnimalInput{Tag: in.Tag, Name: in.Name, BirthDate: in.BirthDate, Breed: in.Breed,
		DamID: in.DamID, SireID: in.SireID, EID: in.Eid}
	if in.Sex != nil {
		s := strings.ToLower(string(*in.Sex))
		out.Sex = &s
	}
	return out
}
