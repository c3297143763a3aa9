package main

import (
	"context"
	"errors"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
)

// exportMedicineBook writes a farm's medicine book as CSV to standard output or --output:
// the same rows as GET /v1/farm/{farm_id}/medicine-book.csv, streamed as they are read.
// With --json, as the other exports, the summary is the JSON on standard output and the CSV
// goes to --output. It reads as the operator (AdminMedicineBook), whoever --user names.
func (e env) exportMedicineBook(ctx context.Context, args []string) error {
	c := e.newFarmCmd("export medicine-book")
	from := c.fs.String("from", "", "first day, YYYY-MM-DD (default: five years before --to, or before today: records are kept five years)")
	to := c.fs.String("to", "", "last day, YYYY-MM-DD (default: the last treatment)")
	return c.export(ctx, args, "medicine-book", func(ctx context.Context, svc *herdbook.Service, farmID uuid.UUID) (*herdbook.Table, error) {
		return medicineBookTable(ctx, svc, farmID, *from, *to)
	})
}

// errHeaderOnly stops the medicine book after its header: the dates and the farm are
// checked before it, so that a bad --from fails before anything is written.
var errHeaderOnly = errors.New("header only")

// medicineBookTable is the operator's medicine book as a table for export.
func medicineBookTable(ctx context.Context, svc *herdbook.Service, farmID uuid.UUID, from, to string) (*herdbook.Table, error) {
	var header []string
	err := svc.AdminMedicineBook(ctx, farmID, from, to, func(row []string) error {
		header = row
		return errHeaderOnly
	})
	if err != nil && !errors.Is(err, errHeaderOnly) {
		return nil, err
	}
	return &herdbook.Table{Header: header, Rows: func(fn func(row []string) error) error {
		first := true
		return svc.AdminMedicineBook(ctx, farmID, from, to, func(row []string) error {
			if first { // the header, written already
				first = false
				return nil
			}
			return fn(row)
		})
	}}, nil
}
