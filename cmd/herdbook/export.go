package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"

	"github.com/google/uuid"
)

// exportMedicineBook writes a farm's medicine book as CSV to standard output or a file: the
// same rows as GET /v1/farm/{farm_id}/medicine-book.csv, streamed as they are read.
func (e env) exportMedicineBook(ctx context.Context, args []string) error {
	a := e.newAdmin("export medicine-book")
	farm := a.fs.String("farm", "", "farm id (required)")
	from := a.fs.String("from", "", "first day, YYYY-MM-DD (default: five years before --to, or before today: records are kept five years)")
	to := a.fs.String("to", "", "last day, YYYY-MM-DD (default: the last treatment)")
	out := a.fs.String("out", "", "file to write (default: standard output)")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	farmID, err := uuid.Parse(*farm)
	if err != nil {
		return fmt.Errorf("--farm must be a farm id (UUID)")
	}
	var w io.Writer = e.stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	cw := csv.NewWriter(w)
	if err := svc.AdminMedicineBook(ctx, farmID, *from, *to, cw.Write); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
