package graph

import (
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph/model"
)

func auditFilter(animalID, recordID, userID *uuid.UUID, from, to *time.Time) herdbook.AuditFilter {
	var f herdbook.AuditFilter
	if animalID != nil {
		f.AnimalID = animalID.String()
	}
	if recordID != nil {
		f.RecordID = recordID.String()
	}
	if userID != nil {
		f.UserID = userID.String()
	}
	if from != nil {
		f.From = from.UTC().Format(time.RFC3339Nano)
	}
	if to != nil {
		f.To = to.UTC().Format(time.RFC3339Nano)
	}
	return f
}

func recordAmendIn(in model.RecordAmendInput) herdbook.RecordAmendment {
	p := recordPatch(model.UpdateRecordInput{AnimalIDs: in.AnimalIDs, GroupIDs: in.GroupIDs, Name: in.Name, Type: in.Type,
		AppliedAt: in.AppliedAt, Description: in.Description, Items: in.Items})
	p.AcknowledgeWithdrawal = orZero(in.AcknowledgeWithdrawal)
	return herdbook.RecordAmendment{Reason: in.Reason, RecordPatch: p,
		AssociationsSet: in.AnimalIDs != nil || in.GroupIDs != nil, ItemsSet: in.Items != nil}
}

func recordItemAmendIn(in model.RecordItemAmendInput) herdbook.RecordItemInput {
	return herdbook.RecordItemInput{Name: in.Name, Description: in.Description, Metadata: in.Metadata}
}
