package graph

import (
	"github.com/google/uuid"

	"github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/graph/model"
)

// farmHolding answers Farm.holding: a farm on no holding has none (null), not an error.
func farmHolding(h *herdbook.HoldingView, err error) (*herdbook.HoldingView, error) {
	if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
		return nil, nil
	}
	return h, err
}

func noticeFilter(state, kind *string, animalID *uuid.UUID) herdbook.NoticeFilter {
	f := herdbook.NoticeFilter{AnimalID: animalID}
	if state != nil {
		f.State = *state
	}
	if kind != nil {
		f.Kind = *kind
	}
	return f
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func statutoryNotice(n herdbook.Notice) *model.StatutoryNotice {
	fid, _ := uuid.Parse(n.FarmID)
	out := &model.StatutoryNotice{Key: n.Key, Kind: string(n.Kind), FarmID: fid, AnimalID: n.AnimalID, AnimalTag: n.AnimalTag,
		EventDate: n.EventDate, Deadline: n.Deadline, DaysLeft: n.DaysLeft, State: n.State, RuleSet: n.RuleSet, Rule: n.Rule,
		Sources: n.Sources, DoneOn: optional(n.DoneOn), Late: n.Late, Corrects: optional(n.Corrects), CorrectsKind: optional(string(n.CorrectsKind))}
	if out.Sources == nil {
		out.Sources = []string{}
	}
	if s := n.Submission; s != nil {
		id, _ := uuid.Parse(s.ID)
		out.Submission = &model.RegistrySubmission{ID: id, State: s.State, Channel: s.Channel,
			RegistryReference: optional(s.Reference), Cause: optional(s.Cause), At: s.At}
	}
	return out
}

// statutoryNotices answers Farm.statutoryNotices: a farm on no holding has none.
func statutoryNotices(_ *ent.Holding, ns []herdbook.Notice, err error) ([]*model.StatutoryNotice, error) {
	if err != nil {
		if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
			return []*model.StatutoryNotice{}, nil
		}
		return nil, err
	}
	out := make([]*model.StatutoryNotice, len(ns))
	for i, n := range ns {
		out[i] = statutoryNotice(n)
	}
	return out, nil
}

func noticeSubmissionInput(in model.NoticeSubmissionCreateInput) herdbook.NoticeSubmissionInput {
	return herdbook.NoticeSubmissionInput{State: in.State, Reference: in.RegistryReference, Cause: in.Cause, IdempotencyKey: in.RequestID}
}

func noticeSubmissionPayload(n *herdbook.Notice, _ *ent.NoticeSubmission, err error) (*model.NoticeSubmissionCreatePayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.NoticeSubmissionCreatePayload{Notice: statutoryNotice(*n)}, nil
}

func registryCopy(asOf *string, animals []*model.RegistryAnimalInput, herdList *string, fromRegistry *bool) herdbook.RegistryCopy {
	in := herdbook.RegistryCopy{AsOf: orZero(asOf), HerdList: orZero(herdList), FromRegistry: fromRegistry != nil && *fromRegistry}
	for _, a := range animals {
		in.Animals = append(in.Animals, herdbook.RegistryAnimal{Tag: a.Tag, Sex: orZero(a.Sex), BirthDate: orZero(a.BirthDate),
			OnDate: orZero(a.OnDate), Breed: orZero(a.Breed), Dam: orZero(a.Dam)})
	}
	return in
}

// reconciliation answers Farm.reconciliation: a farm on no holding has none (null), as it has
// no Farm.holding; the service answers that as ENOTFOUND once the farm itself is known to the
// viewer.
func reconciliation(rec *herdbook.Reconciliation, err error) (*model.Reconciliation, error) {
	if err != nil {
		if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
			return nil, nil
		}
		return nil, err
	}
	out := &model.Reconciliation{HoldingID: rec.HoldingID, AsOf: rec.AsOf, Total: len(rec.Differences),
		Differences: make([]*model.RegistryDifference, len(rec.Differences))}
	for i, d := range rec.Differences {
		out.Differences[i] = &model.RegistryDifference{Kind: string(d.Kind), Tag: d.Tag, Field: optional(d.Field),
			Registry: optional(d.Registry), Book: optional(d.Book), Fix: string(d.Fix)}
	}
	return out, nil
}

func holdingCreateInput(in model.HoldingCreateInput) herdbook.HoldingInput {
	return herdbook.HoldingInput{Scheme: &in.Scheme, Identifier: &in.Identifier, Name: in.Name, HerdMark: in.HerdMark,
		KeeperName: &in.KeeperName, KeeperReference: in.KeeperReference, Address: in.Address, Postcode: in.Postcode,
		RuleSet: &in.RuleSet, HerdType: in.HerdType, TimeZone: &in.TimeZone}
}

func holdingUpdateInput(in model.HoldingUpdateInput) herdbook.HoldingInput {
	return herdbook.HoldingInput{Scheme: &in.Scheme, Identifier: &in.Identifier, Name: in.Name, HerdMark: in.HerdMark,
		KeeperName: &in.KeeperName, KeeperReference: in.KeeperReference, Address: in.Address, Postcode: in.Postcode,
		RuleSet: &in.RuleSet, HerdType: in.HerdType, TimeZone: &in.TimeZone}
}

func holdingCreatePayload(h *herdbook.HoldingView, err error) (*model.HoldingCreatePayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.HoldingCreatePayload{Holding: h}, nil
}

func holdingUpdatePayload(h *herdbook.HoldingView, err error) (*model.HoldingUpdatePayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.HoldingUpdatePayload{Holding: h}, nil
}
