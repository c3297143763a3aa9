// Command herdbook runs the Herdbook server and its administrative commands.
//
//	herdbook [serve]              run the HTTP server (the default)
//	herdbook migrate              apply pending database migrations
//	herdbook version              print the version and the commit it was built from
//	herdbook backup --output DIR  write a consistent backup while the server runs
//	herdbook restore --from DIR   restore a backup into an empty database
//	herdbook farms list           list the farms: ids, names, species, head counts
//	herdbook import animals FILE  import animals from CSV into a farm
//	herdbook export animals|records|medicine-book  export a farm's register, records or medicine book as CSV
//	herdbook admin …              users, clients, members, tokens, seed data
//
// Every command reads HERDBOOK_* environment variables; flags override them. "-h" or
// "--help" at any level prints that level's usage and exits 0.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	herdbook "github.com/herdbook/herdbook"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		writeError(os.Stderr, os.Args[1:], err)
		os.Exit(1)
	}
}

// writeError reports a failed command on standard error: with --json as one JSON object,
// {"error": message} with "fields" for the problems of an input, so that a script reads
// it as it reads the command's output; else as a line for a person.
func writeError(w io.Writer, args []string, err error) {
	if !wantsJSON(args) {
		fmt.Fprintln(w, "herdbook:", err)
		return
	}
	out := map[string]any{"error": err.Error()}
	if fields := herdbook.ErrorFields(err); len(fields) > 0 {
		list := make([]map[string]any, len(fields))
		for i, f := range fields {
			list[i] = map[string]any{"field": f.Field, "message": f.Message}
			if f.Row > 0 {
				list[i]["row"], list[i]["column"] = f.Row, f.Column
			}
		}
		out["fields"] = list
	}
	_ = printJSON(w, out)
}

// wantsJSON tells whether the command line asks for --json (before any "--").
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true", "--json=1", "-json=1":
			return true
		}
	}
	return false
}

// env is how run reads the environment, so tests can pass their own.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one node of the command tree: a group names further commands, a leaf runs.
type command struct {
	name    string
	summary string
	run     func(e env, ctx context.Context, args []string) error
	subs    []*command
}

// commands is the whole command line. Usage texts and the dispatcher both come from it,
// so a command cannot be reachable but undocumented. It is set in init because the
// commands' flag sets read their summaries from it.
var commands *command

func init() {
	commands = &command{name: "herdbook", subs: []*command{
		{name: "serve", summary: "run the HTTP server (the default command)", run: env.serve},
		{name: "migrate", summary: "apply pending database migrations", run: env.migrate},
		{name: "version", summary: "print the version and the commit it was built from", run: env.version},
		{name: "backup", summary: "write a consistent backup of the database and local files while the server runs", run: env.backup},
		{name: "restore", summary: "restore a backup into an empty data directory or database", run: env.restore},
		{name: "farms", summary: "the farms in the database", subs: []*command{
			{name: "list", summary: "list every farm: id, name, species and head count", run: env.farmsList},
		}},
		{name: "import", summary: "import a CSV file into a farm, or a farm archive into a new farm (all or nothing)", subs: []*command{
			{name: "animals", summary: "import animals from a CSV file: new tags are created, known tags get new dated facts", run: env.importAnimals},
			{name: "breeding", summary: "import breeding facts (heats, services, pregnancy checks, weanings) from breeding.csv (docs/csv.md)", run: env.importBreeding},
			{name: "weighings", summary: "import a weigh scale's session file (Tru-Test, Gallagher, Digi-Star): one weight a line (docs/csv.md)", run: env.importWeighings},
			{name: "farm", summary: "import a farm archive into a new farm, every id remapped (docs/archive.md)", run: env.importFarm},
		}},
		{name: "export", summary: "export a farm as CSV (streamed), or the whole farm as an archive", subs: []*command{
			{name: "animals", summary: "export the herd register as of a day as CSV", run: env.exportAnimals},
			{name: "records", summary: "export records between two days as CSV, one row per record item", run: env.exportRecords},
			{name: "breeding", summary: "export heats, services, pregnancy checks and weanings between two days as CSV", run: env.exportBreeding},
			{name: "medicine-book", summary: "the medicine book as CSV, for an inspector (docs/medicines.md)", run: env.exportMedicineBook},
			{name: "farm", summary: "the whole farm as a lossless archive (JSON, ICAR vocabulary; docs/archive.md)", run: env.exportFarm},
		}},
		{name: "admin", summary: "administrative commands", subs: []*command{
			{name: "user", summary: "users", subs: []*command{
				{name: "create", summary: "register a user (phone number and password; no self-serve sign-up)", run: env.adminUserCreate},
			}},
			{name: "client", summary: "OAuth clients", subs: []*command{
				{name: "create", summary: "register an OAuth client: scopes, redirect URIs, public, observer", run: env.adminClientCreate},
			}},
			{name: "member", summary: "farm memberships", subs: []*command{
				{name: "add", summary: "make a user OWNER, EDITOR or READER of a farm", run: env.adminMemberAdd},
			}},
			{name: "token", summary: "bearer tokens", subs: []*command{
				{name: "issue", summary: "issue a bearer token for a user through a client", run: env.adminTokenIssue},
			}},
			{name: "key", summary: "deprecated legacy API keys", subs: []*command{
				{name: "create", summary: "make a deprecated legacy API key (X-API-Key) for a user", run: env.adminKeyCreate},
			}},
			{name: "notify", summary: "notifications", subs: []*command{
				{name: "test", summary: "send a test notification to a user on one channel now", run: env.adminNotifyTest},
			}},
			{name: "webhook", summary: "webhooks", subs: []*command{
				{name: "test", summary: "post a signed test webhook to a URL and print the answer", run: env.adminWebhookTest},
			}},
			{name: "seed", summary: "fill the database with synthetic farms for demos and benchmarks", run: env.adminSeed},
			{name: "text-check", summary: "list stored values that break the text rule (control characters), written before it was enforced everywhere", run: env.adminTextCheck},
		}},
	}}
}

// errHelpShown says usage was printed because it was asked for: the command succeeded.
var errHelpShown = errors.New("help shown")

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	// Plain "herdbook" and "herdbook --addr …" serve.
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && !isHelp(args[0])) {
		args = append([]string{"serve"}, args...)
	}
	err := e.dispatch(ctx, commands, nil, args)
	if errors.Is(err, errHelpShown) {
		return nil
	}
	return err
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// dispatch walks args down the tree from cmd (reached by path) and runs the leaf.
func (e env) dispatch(ctx context.Context, cmd *command, path, args []string) error {
	if cmd.run != nil {
		return cmd.run(e, ctx, args)
	}
	if len(args) == 0 {
		return fmt.Errorf("%s needs a command: %s\nRun %q for more.", fullName(path), strings.Join(names(cmd.subs), ", "), fullName(path)+" -h")
	}
	if isHelp(args[0]) {
		if len(args) > 1 && args[0] == "help" {
			// "herdbook help admin user" is "herdbook admin user -h".
			return e.dispatch(ctx, cmd, path, append(args[1:], "-h"))
		}
		fmt.Fprint(e.stdout, groupUsage(cmd, path))
		return errHelpShown
	}
	for _, sub := range cmd.subs {
		if sub.name == args[0] {
			return e.dispatch(ctx, sub, append(path, sub.name), args[1:])
		}
	}
	return fmt.Errorf("unknown command %q; %s has: %s\nRun %q for more.", strings.Join(append(path, args[0]), " "),
		fullName(path), strings.Join(names(cmd.subs), ", "), fullName(path)+" -h")
}

func fullName(path []string) string { return strings.Join(append([]string{"herdbook"}, path...), " ") }

func names(cmds []*command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.name
	}
	return out
}

// groupUsage lists every command under cmd with its summary.
func groupUsage(cmd *command, path []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s COMMAND [flags]\n\ncommands:\n", fullName(path))
	var walk func(c *command, prefix []string)
	walk = func(c *command, prefix []string) {
		for _, sub := range c.subs {
			p := append(append([]string{}, prefix...), sub.name)
			if sub.run != nil {
				fmt.Fprintf(&b, "  %-22s %s\n", strings.Join(p, " "), sub.summary)
			}
			walk(sub, p)
		}
	}
	walk(cmd, nil)
	fmt.Fprintf(&b, "\nRun \"%s COMMAND -h\" for a command's flags.\n", fullName(path))
	if len(path) == 0 {
		b.WriteString("Every flag also reads a HERDBOOK_* environment variable (see README); flags win.\n")
	}
	return b.String()
}

// summaryOf returns the summary of the command at path ("admin user create").
func summaryOf(path string) string {
	c := commands
	for _, name := range strings.Fields(path) {
		var next *command
		for _, sub := range c.subs {
			if sub.name == name {
				next = sub
			}
		}
		if next == nil {
			return ""
		}
		c = next
	}
	return c.summary
}
