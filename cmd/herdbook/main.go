// Command herdbook runs the Herdbook server and its administrative commands.
//
//	herdbook [serve]              run the HTTP server (the default)
//	herdbook migrate              apply pending database migrations
//	herdbook admin …              users, clients, members, tokens, seed data
//
// Every command reads HERDBOOK_* environment variables; flags override them.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "herdbook:", err)
		os.Exit(1)
	}
}

// env is how run reads the environment, so tests can pass their own.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		return e.serve(ctx, nil)
	}
	switch args[0] {
	case "serve":
		return e.serve(ctx, args[1:])
	case "migrate":
		return e.migrate(ctx, args[1:])
	case "admin":
		return e.admin(ctx, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		if len(args[0]) > 0 && args[0][0] == '-' {
			return e.serve(ctx, args)
		}
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
}

const usage = `usage: herdbook [command] [flags]

commands:
  serve                 run the HTTP server (default)
  migrate               apply pending database migrations
  admin user create     register a user
  admin client create   register an OAuth client
  admin member add      make a user a member of a farm
  admin token issue     issue a bearer token for a user through a client
  admin key create      make a deprecated legacy API key (X-API-Key) for a user
  admin notify test     send a test notification to a user on one channel
  admin webhook test    post a signed test webhook to a URL and print the answer
  admin seed            fill the database with synthetic farms for demos and benchmarks

Run "herdbook COMMAND -h" for a command's flags.
`
