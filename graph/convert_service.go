package graph

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/graph/model"
)

// serviceFact turns factCreate's breeding-year inputs (heat, services, pregnancy checks,
// weaning) into the facts REST's records carry; the service validates them like any other.
func serviceFacts(in *model.FactInput) []evidence.Fact {
	var out []evidence.Fact
	if h := in.Heat; h != nil {
		out = append(out, evidence.Fact{Kind: evidence.KindHeat, AnimalID: h.AnimalID.String(), Date: h.Date})
	}
	if s := in.Insemination; s != nil {
		out = append(out, evidence.Fact{Kind: evidence.KindInsemination, DamID: s.DamID.String(), SireID: s.SireID.String(),
			Date: s.Date, Straw: deref(s.Straw), Technician: deref(s.Technician)})
	}
	if s := in.HandMating; s != nil {
		out = append(out, evidence.Fact{Kind: evidence.KindHandMating, DamID: s.DamID.String(), SireID: s.SireID.String(), Date: s.Date})
	}
	if s := in.EmbryoTransfer; s != nil {
		out = append(out, evidence.Fact{Kind: evidence.KindEmbryoTransfer, DamID: s.DonorID.String(), SireID: s.SireID.String(),
			RecipientID: s.RecipientID.String(), Date: s.Date, Embryo: deref(s.Embryo)})
	}
	if c := in.PregnancyCheck; c != nil {
		out = append(out, evidence.Fact{Kind: evidence.KindPregnancyCheck, AnimalID: c.AnimalID.String(), Date: c.Date,
			Method: strings.ToLower(string(c.Method)), Result: strings.ToLower(string(c.Result)),
			FoetalAgeDays: c.FoetalAgeDays, FoetalAgeMinDays: c.FoetalAgeMinDays, FoetalAgeMaxDays: c.FoetalAgeMaxDays,
			ExpectedCalvingDate: deref(c.ExpectedCalvingDate)})
	}
	if w := in.Weaning; w != nil {
		out = append(out, evidence.Fact{Kind: evidence.KindWeaning, AnimalID: w.AnimalID.String(), Date: w.Date,
			KG: json.Number(strconv.FormatFloat(w.Kg, 'f', -1, 64)), GroupID: idString(w.GroupID)})
	}
	return out
}

// calvings pages Farm.calvings over the service's list (newest first), with the medicines'
// offset cursors.
func (r *Resolver) calvings(ctx context.Context, farmID uuid.UUID, from, to, after *string, first *int) (*model.CalvingConnection, error) {
	p, err := medicinePage(after, first)
	if err != nil {
		return nil, err
	}
	skip := p.Skip
	cs, total, err := r.svc.Calvings(ctx, farmID, herdbook.CalvingQuery{Skip: &skip, Take: p.Take, From: deref(from), To: deref(to)})
	if err != nil {
		return nil, err
	}
	cursors, info := offsetPage(skip, cs, total)
	conn := &model.CalvingConnection{TotalCount: total, Edges: make([]*model.CalvingEdge, len(cs)), PageInfo: info}
	for i, c := range cs {
		conn.Edges[i] = &model.CalvingEdge{Node: c, Cursor: cursors[i]}
	}
	return conn, nil
}
