package main

import (
	"context"
	"fmt"

	"github.com/herdbook/herdbook/internal/db"
)

// adminTextCheck lists the stored values that break the text rule (db.CheckText): a value
// written before the rule sat where request bodies are decoded, which every answer carrying
// it then breaks. It changes nothing; correct each value through the API, so that the
// change is audited. It fails when it finds any, so that a script can tell.
func (e env) adminTextCheck(ctx context.Context, args []string) error {
	a := e.newAdmin("admin text-check")
	d, _, err := a.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	found, total, err := d.CheckText(ctx)
	if err != nil {
		return err
	}
	if a.c.JSON {
		if found == nil {
			found = []db.TextFinding{}
		}
		if err := printJSON(a.stdout, map[string]any{"findings": found, "count": total}); err != nil {
			return err
		}
	} else {
		for _, f := range found {
			fmt.Fprintln(a.stdout, f)
		}
		if total > len(found) {
			fmt.Fprintf(a.stdout, "… and %d more\n", total-len(found))
		}
	}
	if total > 0 {
		return fmt.Errorf("%d stored value(s) break the text rule", total)
	}
	if !a.c.JSON {
		fmt.Fprintln(a.stdout, "every stored text value passes the text rule")
	}
	return nil
}
