package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
)

// splitArgs separates the positional arguments (FILE) from the flags, wherever they stand,
// so that "import animals FILE --farm F" works as well as "import animals --farm F FILE".
// A malformed flag leaves everything to the flag set, which reports it.
func splitArgs(fs *flag.FlagSet, args []string) (flags, positional []string) {
	rest := args
	fs.SetOutput(io.Discard)
	for {
		if err := fs.Parse(rest); err != nil {
			return args, nil
		}
		flags = append(flags, rest[:len(rest)-fs.NArg()]...)
		if fs.NArg() == 0 {
			return flags, positional
		}
		positional, rest = append(positional, fs.Arg(0)), fs.Args()[1:]
	}
}

// oneFile separates a command's flags from the one file it reads ("-": standard input).
// Without exactly one file it still parses the flags, so -h and a bad flag answer as for any
// command, and says what is missing; what names the kind of file.
func (a *adminCmd) oneFile(args []string, path, what string) (flags []string, file string, err error) {
	flags, files := splitArgs(a.fs, args)
	if len(files) != 1 {
		if err := a.parse(a.fs, flags); err != nil {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("%s: name one %s (- for standard input)\nRun \"herdbook %s -h\" for its flags.", path, what, path)
	}
	return flags, files[0], nil
}

// input opens the file oneFile named, or standard input for "-"; release closes it.
func (a *adminCmd) input(file string) (in io.Reader, release func(), err error) {
	if file == "-" {
		return a.stdin, func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// farmCmd is an admin command that acts on one farm as one of its members.
type farmCmd struct {
	*adminCmd
	farm, user *string
}

func (e env) newFarmCmd(path string) *farmCmd {
	a := e.newAdmin(path)
	return &farmCmd{adminCmd: a,
		farm: a.fs.String("farm", "", "farm id (required)"),
		user: a.fs.String("user", "", "act as this member (user id or phone number); default: the farm's first OWNER"),
	}
}

// viewer returns the farm's id and a context acting as the chosen member, with every scope:
// the service still checks that the member's role allows the operation.
func (c *farmCmd) viewer(ctx context.Context, svc *herdbook.Service) (uuid.UUID, context.Context, error) {
	farmID, err := uuid.Parse(*c.farm)
	if err != nil {
		return uuid.Nil, nil, fmt.Errorf("--farm must be a farm id (UUID)")
	}
	var userID uuid.UUID
	if *c.user != "" {
		userID, err = userRef(ctx, svc, *c.user)
	} else {
		userID, err = svc.AdminFarmOwner(ctx, farmID)
	}
	if err != nil {
		return uuid.Nil, nil, err
	}
	return farmID, herdbook.WithViewer(ctx, &herdbook.Viewer{UserID: userID, ClientID: "herdbook-cli",
		Scopes: herdbook.AllScopes, Credential: herdbook.CredentialOAuth}), nil
}

// importing opens what an import command reads and writes: the database, the farm with the
// member it acts as (viewer), and the input file; done closes the file and the database.
func (c *farmCmd) importing(ctx context.Context, flags []string, file string) (svc *herdbook.Service, farmID uuid.UUID, vctx context.Context, in io.Reader, done func(), err error) {
	d, svc, err := c.open(ctx, flags)
	if err != nil {
		return nil, uuid.Nil, nil, nil, nil, err
	}
	if farmID, vctx, err = c.viewer(ctx, svc); err == nil {
		var release func()
		if in, release, err = c.input(file); err == nil {
			return svc, farmID, vctx, in, func() { release(); d.Close() }, nil
		}
	}
	d.Close()
	return nil, uuid.Nil, nil, nil, nil, err
}

// invalidLines words a validation error one problem per line, as a person reads a report
// on a file.
func invalidLines(err error) error {
	fields := herdbook.ErrorFields(err)
	if len(fields) == 0 {
		return err
	}
	lines := make([]string, len(fields))
	for i, f := range fields {
		lines[i] = "  " + f.Field + ": " + f.Message
	}
	return fmt.Errorf("the file has %d problem(s); nothing was written:\n%s", len(fields), strings.Join(lines, "\n"))
}

func (e env) importAnimals(ctx context.Context, args []string) error {
	c := e.newFarmCmd("import animals")
	dry := c.fs.Bool("dry-run", false, "check the whole file and say what would change, writing nothing")
	flags, file, err := c.oneFile(args, "import animals", "CSV file")
	if err != nil {
		return err
	}
	svc, farmID, vctx, in, done, err := c.importing(ctx, flags, file)
	if err != nil {
		return err
	}
	defer done()
	start := time.Now()
	opts := herdbook.ImportOptions{DryRun: *dry}
	if !c.c.JSON && isTerminal(c.stderr) {
		p := &progressLine{w: c.stderr, start: start, now: time.Now, label: "importing"}
		opts.Progress = p.update
	}
	res, err := svc.ImportAnimals(vctx, farmID, in, opts)
	if err != nil {
		if c.c.JSON {
			// A script reads the result where a success puts it: nothing was written.
			problems := []map[string]any{}
			for _, f := range herdbook.ErrorFields(err) {
				p := map[string]any{"field": f.Field, "message": f.Message}
				if f.Row > 0 {
					p["row"], p["column"] = f.Row, f.Column
				}
				problems = append(problems, p)
			}
			if perr := printJSON(c.stdout, map[string]any{"ok": false, "dry_run": *dry, "written": false, "error": err.Error(),
				"problems": problems, "seconds": time.Since(start).Seconds()}); perr != nil {
				return perr
			}
			return err
		}
		if herdbook.ErrorCode(err) == herdbook.EINVALID {
			return invalidLines(err)
		}
		return err
	}
	elapsed := time.Since(start)
	rows := make([]map[string]any, len(res.Animals))
	for i, a := range res.Animals {
		rows[i] = map[string]any{"row": a.Row, "tag": a.Tag, "animal_id": a.AnimalID, "action": a.Action}
	}
	verb := "imported"
	if res.DryRun {
		verb = "checked (dry run, nothing written)"
	}
	return c.print(map[string]any{"ok": true, "dry_run": res.DryRun, "written": !res.DryRun, "rows": res.Rows, "created": res.Created, "updated": res.Updated,
		"unchanged": res.Unchanged, "groups_created": res.GroupsCreated, "facts": res.Facts, "seconds": elapsed.Seconds(),
		"rows_per_second": rate(res.Rows, elapsed), "animals": rows},
		"%s %d rows in %s (%.0f rows/s): %d created, %d updated, %d unchanged; %d groups created, %d facts",
		verb, res.Rows, elapsed.Round(time.Millisecond), rate(res.Rows, elapsed), res.Created, res.Updated, res.Unchanged,
		res.GroupsCreated, res.Facts)
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

func (e env) exportAnimals(ctx context.Context, args []string) error {
	c := e.newFarmCmd("export animals")
	asOf := c.fs.String("as-of", "", "the day (YYYY-MM-DD) the register describes; default: today")
	return c.export(ctx, args, "animals", func(ctx context.Context, svc *herdbook.Service, farmID uuid.UUID) (*herdbook.Table, error) {
		return svc.ExportAnimals(ctx, farmID, *asOf)
	})
}

func (e env) exportRecords(ctx context.Context, args []string) error {
	c := e.newFarmCmd("export records")
	from := c.fs.String("from", "", "the first day (YYYY-MM-DD, UTC) of applied_at to include")
	to := c.fs.String("to", "", "the last day (YYYY-MM-DD, UTC) of applied_at to include")
	return c.export(ctx, args, "records", func(ctx context.Context, svc *herdbook.Service, farmID uuid.UUID) (*herdbook.Table, error) {
		return svc.ExportRecords(ctx, farmID, *from, *to)
	})
}

// export writes a table as CSV to --output or standard output. With --json the summary is
// the JSON on standard output, so the CSV needs --output.
func (c *farmCmd) export(ctx context.Context, args []string, what string,
	table func(context.Context, *herdbook.Service, uuid.UUID) (*herdbook.Table, error)) error {
	output := outputFlag(c.fs)
	d, svc, err := c.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	c.warnDeprecatedOut()
	if c.c.JSON && *output == "" {
		return errors.New("export " + what + ": --json prints the summary on standard output; name the CSV file with --output")
	}
	farmID, vctx, err := c.viewer(ctx, svc)
	if err != nil {
		return err
	}
	t, err := table(vctx, svc, farmID)
	if err != nil {
		return err
	}
	var out io.Writer = c.stdout
	var file *os.File
	if *output != "" {
		if file, err = os.Create(*output); err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	start := time.Now()
	var p *progressLine
	if !c.c.JSON && isTerminal(c.stderr) && (file != nil || !isTerminal(c.stdout)) {
		p = &progressLine{w: c.stderr, start: start, now: time.Now, label: "exporting " + what}
	}
	w := herdbook.NewCSVWriter(out)
	if err := w.Write(t.Header); err != nil {
		return err
	}
	n := 0
	err = t.Rows(func(row []string) error {
		n++
		if p != nil {
			p.update(n, -1)
		}
		return w.Write(row)
	})
	w.Flush()
	if err == nil {
		err = w.Error()
	}
	if err == nil && file != nil {
		err = file.Close()
	}
	if err != nil {
		return err
	}
	if p != nil {
		p.end(n)
	}
	elapsed := time.Since(start)
	if c.c.JSON {
		return printJSON(c.stdout, map[string]any{"what": what, "rows": n, "columns": t.Header, "output": *output,
			"seconds": elapsed.Seconds(), "rows_per_second": rate(n, elapsed)})
	}
	if file != nil {
		_, err = fmt.Fprintf(c.stdout, "exported %d %s rows to %s in %s\n", n, what, *output, elapsed.Round(time.Millisecond))
	}
	return err
}

// outputFlag registers --output, the file a command writes, and its deprecated alias --out
// (export medicine-book's name for it before every command said --output).
func outputFlag(fs *flag.FlagSet) *string {
	p := new(string)
	fs.StringVar(p, "output", "", "write the CSV to this file instead of standard output")
	fs.StringVar(p, "out", "", "deprecated: use --output")
	return p
}

// warnDeprecatedOut tells the person on standard error that --out is deprecated, when used.
func (a *adminCmd) warnDeprecatedOut() {
	a.fs.Visit(func(f *flag.Flag) {
		if f.Name == "out" {
			fmt.Fprintln(a.stderr, "herdbook: --out is deprecated and will be removed; use --output")
		}
	})
}

func (e env) exportBreeding(ctx context.Context, args []string) error {
	c := e.newFarmCmd("export breeding")
	from := c.fs.String("from", "", "the first fact date (YYYY-MM-DD) to include")
	to := c.fs.String("to", "", "the last fact date (YYYY-MM-DD) to include")
	return c.export(ctx, args, "breeding", func(ctx context.Context, svc *herdbook.Service, farmID uuid.UUID) (*herdbook.Table, error) {
		return svc.ExportBreeding(ctx, farmID, *from, *to)
	})
}

func (e env) importBreeding(ctx context.Context, args []string) error {
	c := e.newFarmCmd("import breeding")
	dry := c.fs.Bool("dry-run", false, "check and record the whole file in a transaction that is rolled back, writing nothing")
	flags, file, err := c.oneFile(args, "import breeding", "CSV file")
	if err != nil {
		return err
	}
	svc, farmID, vctx, in, done, err := c.importing(ctx, flags, file)
	if err != nil {
		return err
	}
	defer done()
	start := time.Now()
	res, err := svc.ImportBreeding(vctx, farmID, in, *dry)
	if err != nil {
		if !c.c.JSON && herdbook.ErrorCode(err) == herdbook.EINVALID {
			return invalidLines(err)
		}
		return err
	}
	elapsed := time.Since(start)
	verb := "imported"
	if res.DryRun {
		verb = "checked (dry run, nothing written)"
	}
	return c.print(map[string]any{"ok": true, "dry_run": res.DryRun, "written": !res.DryRun, "rows": res.Rows,
		"created": res.Created, "skipped": res.Skipped, "seconds": elapsed.Seconds()},
		"%s %d rows in %s: %d facts created, %d already held", verb, res.Rows, elapsed.Round(time.Millisecond), res.Created, res.Skipped)
}

func (e env) importWeighings(ctx context.Context, args []string) error {
	c := e.newFarmCmd("import weighings")
	dry := c.fs.Bool("dry-run", false, "check the whole file against the farm, writing nothing")
	unit := c.fs.String("unit", "", "kg or lb: the unit of weights when the file gives none (never assumed)")
	order := c.fs.String("date-order", "", "dmy or mdy: how d/m/y dates read when no date of the file settles it")
	date := c.fs.String("date", "", "YYYY-MM-DD: the session's date, for a file without a date column")
	flags, file, err := c.oneFile(args, "import weighings", "session file")
	if err != nil {
		return err
	}
	svc, farmID, vctx, in, done, err := c.importing(ctx, flags, file)
	if err != nil {
		return err
	}
	defer done()
	start := time.Now()
	res, err := svc.ImportWeighings(vctx, farmID, in, herdbook.WeighImportOptions{DryRun: *dry, Unit: *unit, DateOrder: *order, Date: *date})
	if err != nil {
		if !c.c.JSON && herdbook.ErrorCode(err) == herdbook.EINVALID {
			return invalidLines(err)
		}
		return err
	}
	elapsed := time.Since(start)
	verb := "imported"
	if res.DryRun {
		verb = "checked (dry run, nothing written)"
	}
	return c.print(map[string]any{"ok": true, "dry_run": res.DryRun, "written": !res.DryRun, "layout": res.Layout, "rows": res.Rows,
		"recorded": res.Recorded, "unchanged": res.Unchanged, "ignored_columns": res.Ignored, "seconds": elapsed.Seconds()},
		"%s %d weighings (%s) in %s: %d recorded, %d already held", verb, res.Rows, res.Layout, elapsed.Round(time.Millisecond), res.Recorded, res.Unchanged)
}
