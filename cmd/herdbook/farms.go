package main

import (
	"context"
	"fmt"
	"text/tabwriter"
)

// farmsList prints every active farm with its id, name, species and head count: the ids that
// import, export and admin member add take with --farm.
func (e env) farmsList(ctx context.Context, args []string) error {
	a := e.newAdmin("farms list")
	d, svc, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	farms, err := svc.AdminFarms(ctx)
	if err != nil {
		return err
	}
	if a.c.JSON {
		return printJSON(a.stdout, map[string]any{"farms": farms})
	}
	if len(farms) == 0 {
		_, err := fmt.Fprintln(a.stdout, "no farms yet: create one over the API, or run \"herdbook admin seed\"")
		return err
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tSPECIES\tHEAD COUNT")
	for _, f := range farms {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\n", f.ID, f.Name, f.Species, f.HeadCount)
	}
	return w.Flush()
}
