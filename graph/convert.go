package graph

import (
	"github.com/google/uuid"
	"github.com/herdbook/herdbook/ent"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph/model"
)

// The functions below only translate GraphQL inputs into service inputs.

func farmInput(in model.CreateFarmInput) herdbook.FarmInput {
	return herdbook.FarmInput{Name: in.Name, Species: string(in.Species), SpeciesOther: in.SpeciesOther}
}

func createFarmPayload(f *ent.Farm, threadID uuid.UUID, err error) (*model.CreateFarmPayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.CreateFarmPayload{Farm: f, WelcomeThreadID: threadID}, nil
}

func farmPatch(in model.UpdateFarmInput) herdbook.FarmPatch {
	p := herdbook.FarmPatch{Name: in.Name, AllowPrivateThreads: in.AllowPrivateThreads}
	if in.Species != nil {
		s := string(*in.Species)
		p.Species = &s
	}
	if v, ok := in.SpeciesOther.ValueOK(); ok {
		p.SpeciesOther = herdbook.Optional[string]{Set: true, Value: v}
	}
	return p
}

func itemInputs(in []*model.RecordItemInput) []herdbook.RecordItemInput {
	out := make([]herdbook.RecordItemInput, 0, len(in))
	for _, it := range in {
		out = append(out, herdbook.RecordItemInput{Name: it.Name, Description: it.Description, Metadata: it.Metadata})
	}
	return out
}

func recordInput(in model.CreateRecordInput) herdbook.RecordInput {
	return herdbook.RecordInput{
		AnimalIDs: in.AnimalIDs, GroupIDs: in.GroupIDs, Name: in.Name, Type: string(in.Type),
		AppliedAt: &in.AppliedAt, Description: in.Description, Items: itemInputs(in.Items),
		AcknowledgeWithdrawal: orZero(in.AcknowledgeWithdrawal),
	}
}

func recordPatch(in model.UpdateRecordInput) herdbook.RecordPatch {
	p := herdbook.RecordPatch{
		AnimalIDs: in.AnimalIDs, GroupIDs: in.GroupIDs, Name: in.Name, AppliedAt: in.AppliedAt,
		Items: itemInputs(in.Items), AcknowledgeWithdrawal: orZero(in.AcknowledgeWithdrawal),
	}
	if in.Type != nil {
		t := string(*in.Type)
		p.Type = &t
	}
	if v, ok := in.Description.ValueOK(); ok {
		p.Description = herdbook.Optional[string]{Set: true, Value: v}
	}
	return p
}

// nullIfNotFound answers a single-object query with null instead of an error when the
// object does not exist or is not visible, as GraphQL clients expect of nullable fields.
func nullIfNotFound[T any](v *T, err error) (*T, error) {
	if herdbook.ErrorCode(err) == herdbook.ENOTFOUND {
		return nil, nil
	}
	return v, err
}
