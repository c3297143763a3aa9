package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	herdbook "github.com/herdbook/herdbook"
)

// exportFarm writes a farm's archive (docs/archive.md) to --output or standard output, as
// the farm's OWNER (--user, default the first OWNER). Progress goes to standard error; with
// --json the summary is the JSON on standard output, so the archive needs --output.
func (e env) exportFarm(ctx context.Context, args []string) error {
	c := e.newFarmCmd("export farm")
	output := c.fs.String("output", "", "write the archive to this file instead of standard output")
	withFiles := c.fs.Bool("with-files", false, "put the files' bytes into the archive (base64)")
	d, svc, err := c.open(ctx, args)
	if err != nil {
		return err
	}
	defer d.Close()
	if c.c.JSON && *output == "" {
		return errors.New("export farm: --json prints the summary on standard output; name the archive file with --output")
	}
	farmID, vctx, err := c.viewer(ctx, svc)
	if err != nil {
		return err
	}
	start := time.Now()
	a, err := svc.ExportFarmArchive(vctx, farmID, herdbook.ArchiveOptions{WithFiles: *withFiles, Progress: c.progress(start)})
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
	enc := json.NewEncoder(out)
	if err := enc.Encode(a); err != nil {
		return err
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return err
		}
	}
	sum := archiveSummary(a)
	sum["output"], sum["seconds"], sum["farm_id"] = *output, time.Since(start).Seconds(), farmID
	if c.c.JSON {
		return printJSON(c.stdout, sum)
	}
	if file != nil {
		_, err = fmt.Fprintf(c.stdout, "exported farm %s to %s in %s: %d animals, %d records, %d events, %d audit entries\n", farmID, *output,
			time.Since(start).Round(time.Millisecond), len(a.Animals), len(a.Records), len(a.Events), len(a.Audit))
	}
	return err
}

// importFarm reads an archive into a new farm owned by --user (required): every id is
// remapped; all or nothing.
func (e env) importFarm(ctx context.Context, args []string) error {
	c := e.newAdmin("import farm")
	owner := c.fs.String("user", "", "the new farm's OWNER (user id or phone number; required)")
	flags, file, err := c.oneFile(args, "import farm", "archive file")
	if err != nil {
		return err
	}
	d, svc, err := c.open(ctx, flags)
	if err != nil {
		return err
	}
	defer d.Close()
	if *owner == "" {
		return errors.New("import farm: --user is required: the new farm's OWNER")
	}
	userID, err := userRef(ctx, svc, *owner)
	if err != nil {
		return err
	}
	vctx := herdbook.WithViewer(ctx, &herdbook.Viewer{UserID: userID, ClientID: "herdbook-cli",
		Scopes: herdbook.AllScopes, Credential: herdbook.CredentialOAuth})
	in, closeIn, err := c.input(file)
	if err != nil {
		return err
	}
	defer closeIn()
	start := time.Now()
	f, err := svc.ImportFarmArchive(vctx, in, herdbook.ArchiveOptions{Progress: c.progress(start)})
	if err != nil {
		if c.c.JSON {
			problems := []map[string]any{}
			for _, f := range herdbook.ErrorFields(err) {
				problems = append(problems, map[string]any{"field": f.Field, "message": f.Message})
			}
			if perr := printJSON(c.stdout, map[string]any{"ok": false, "written": false, "error": err.Error(), "problems": problems,
				"seconds": time.Since(start).Seconds()}); perr != nil {
				return perr
			}
			return err
		}
		if herdbook.ErrorCode(err) == herdbook.EINVALID {
			return invalidLines(err)
		}
		return err
	}
	return c.print(map[string]any{"ok": true, "written": true, "farm_id": f.ID, "name": f.Name, "seconds": time.Since(start).Seconds()},
		"imported into the new farm %s (%s) in %s", f.ID, f.Name, time.Since(start).Round(time.Millisecond))
}

// progress reports each step of an archive on standard error, unless --json asks for
// machine output only.
func (a *adminCmd) progress(start time.Time) func(string, int) {
	if a.c.JSON {
		return nil
	}
	return func(step string, n int) {
		fmt.Fprintf(a.stderr, "%7.2fs %s: %d\n", time.Since(start).Seconds(), step, n)
	}
}

func archiveSummary(a *herdbook.Archive) map[string]any {
	return map[string]any{"format": a.Format, "format_version": a.FormatVersion, "with_files": a.WithFiles,
		"animals": len(a.Animals), "outside_animals": len(a.OutsideAnimals), "groups": len(a.AnimalSets), "records": len(a.Records), "events": len(a.Events),
		"medicines": len(a.Medicines), "purchases": len(a.MedicinePurchases), "files": len(a.Files),
		"births": len(a.BirthEvents), "tasks": len(a.Tasks), "audit_entries": len(a.Audit)}
}
