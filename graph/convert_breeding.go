package graph

import (
	"github.com/google/uuid"

	"github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph/model"
)

// calvingInput turns calvingRecord's input into the service's.
func calvingInput(in model.CalvingRecordInput) herdbook.CalvingInput {
	str := func(u *uuid.UUID) *string {
		if u == nil {
			return nil
		}
		s := u.String()
		return &s
	}
	out := herdbook.CalvingInput{DamID: in.DamID.String(), Date: in.Date, SireID: str(in.SireID),
		SireBasis: in.SireBasis, DNALab: in.DnaLab, Calves: make([]herdbook.CalfInput, len(in.Calves))}
	for i, c := range in.Calves {
		ci := herdbook.CalfInput{Sex: c.Sex, BirthWeight: c.BirthWeight, Status: c.Status, CalvingEase: c.CalvingEase,
			GeneticDamID: str(c.GeneticDamID), SurrogateDamID: str(c.SurrogateDamID)}
		if c.Tag != nil {
			ci.Tag = *c.Tag
		}
		if c.Eid != nil {
			ci.EID = *c.Eid
		}
		ci.Twin = c.Twin != nil && *c.Twin
		ci.Freemartin = c.Freemartin != nil && *c.Freemartin
		out.Calves[i] = ci
	}
	return out
}

// storedID reads a stored id for the graph (nil when absent).
func storedID(s *string) *uuid.UUID {
	if s == nil {
		return nil
	}
	u, err := uuid.Parse(*s)
	if err != nil {
		return nil
	}
	return &u
}

// birthApproval is the calving an approval records: the calves and the sire as calvingRecord
// takes them (the dam and the day are the preview's).
func birthApproval(in model.BirthPreviewApproveInput) herdbook.BirthApproval {
	cv := calvingInput(model.CalvingRecordInput{SireID: in.SireID, SireBasis: in.SireBasis, DnaLab: in.DnaLab, Calves: in.Calves})
	return herdbook.BirthApproval{RequestID: in.RequestID, SireID: cv.SireID, SireBasis: cv.SireBasis, DNALab: cv.DNALab, Calves: cv.Calves}
}
