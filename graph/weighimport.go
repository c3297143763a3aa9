package graph

import (
	"context"
	"strconv"
	"strings"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/graph/model"
)

// weighingsImport hands a session file's text to the service (herdbook.ImportWeighings),
// as REST's POST …/weighings/import hands it the uploaded file.
func (r *Resolver) weighingsImport(ctx context.Context, in model.WeighingsImportInput) (*model.WeighingsImportPayload, error) {
	opts := herdbook.WeighImportOptions{DryRun: orZero(in.DryRun), Date: deref(in.Date)}
	if in.Unit != nil {
		opts.Unit = strings.ToLower(string(*in.Unit))
	}
	if in.DateOrder != nil {
		opts.DateOrder = strings.ToLower(string(*in.DateOrder))
	}
	res, err := r.svc.ImportWeighings(ctx, in.FarmID, strings.NewReader(in.SessionFile), opts)
	if err != nil {
		return nil, err
	}
	out := &model.WeighingsImportPayload{DryRun: res.DryRun, Layout: res.Layout, Rows: res.Rows, Recorded: res.Recorded,
		Unchanged: res.Unchanged, IgnoredColumns: res.Ignored, Weighings: make([]*model.ImportedWeighing, len(res.Weighings))}
	for i, w := range res.Weighings {
		kg, _ := strconv.ParseFloat(w.KG, 64)
		iw := &model.ImportedWeighing{Line: w.Line, AnimalID: w.AnimalID, Tag: w.Tag, Date: w.Date, Kg: kg,
			Action: model.WeighingActionRecorded}
		if w.Action == herdbook.WeighUnchanged {
			iw.Action = model.WeighingActionUnchanged
		}
		if w.EID != "" {
			iw.Eid = &w.EID
		}
		if w.Time != "" {
			iw.Time = &w.Time
		}
		out.Weighings[i] = iw
	}
	return out, nil
}
