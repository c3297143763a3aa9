package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binDir holds the herdbook binary the tests of this file build, once per test run.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "herdbook-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "herdbook")
	// -buildvcs=auto stamps the commit where the checkout allows it (go env may say false).
	out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// binary returns the path of the herdbook binary built from this package: the README and
// operators run a binary, and exit codes and standard streams are only seen from outside.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// execResult is how a process ended.
type execResult struct {
	code           int
	stdout, stderr string
}

// execIn runs bin (or a shell) in dir with only the given environment, within the timeout,
// and kills its whole process group when done, so that a backgrounded server cannot
// outlive the test.
func execIn(t *testing.T, dir string, env []string, timeout time.Duration, name string, args ...string) execResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var exit *exec.ExitError
	res := execResult{stdout: out.String(), stderr: errOut.String()}
	switch {
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %v did not finish in %s:\n%s\n%s", name, args, timeout, res.stdout, res.stderr)
	}
	return res
}

// TestBinaryExitCodes: help exits 0 on standard output; every error exits 1 with one line
// prefixed "herdbook: " once, on standard error.
func TestBinaryExitCodes(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // the start of standard output
		err  string // the start of standard error
	}{
		{"Help", []string{"-h"}, 0, "usage: herdbook COMMAND", ""},
		{"HelpLong", []string{"--help"}, 0, "usage: herdbook COMMAND", ""},
		{"ServeHelp", []string{"serve", "-h"}, 0, "usage: herdbook serve [flags]", ""},
		{"AdminHelp", []string{"admin", "-h"}, 0, "usage: herdbook admin COMMAND", ""},
		{"AdminUserHelp", []string{"admin", "user", "-h"}, 0, "usage: herdbook admin user COMMAND", ""},
		{"AdminUserCreateHelp", []string{"admin", "user", "create", "--help"}, 0, "usage: herdbook admin user create [flags]", ""},
		{"Version", []string{"version"}, 0, "herdbook ", ""},
		{"ErrUnknownCommand", []string{"bogus"}, 1, "", `herdbook: unknown command "bogus"`},
		{"ErrLogFormat", []string{"--log-format", "yaml"}, 1, "", `herdbook: serve: invalid value "yaml" for flag -log-format: must be one of text, json`},
		{"ErrServiceError", []string{"admin", "user", "create", "--phone", "call me"}, 1, "", "herdbook: invalid: phone_number_local: "},
		{"ErrUnknownUser", []string{"admin", "token", "issue", "--user", "+4799999999", "--client", "x"}, 1, "", "herdbook: not_found: no user with phone number +4799999999"},
		{"VersionFlag", []string{"--version"}, 0, "herdbook ", ""},
		// Issue 22.6: bad durations were silently 1m (or 5s); a value the flag refuses is
		// refused from its variable too.
		{"ErrNotifyIntervalZero", []string{"--notify-interval", "0"}, 1, "", `herdbook: serve: invalid value "0" for flag -notify-interval: want a duration of at least a second`},
		{"ErrNotifyIntervalNegative", []string{"--notify-interval", "-5m"}, 1, "", `herdbook: serve: invalid value "-5m" for flag -notify-interval`},
		{"ErrWebhookMaxAttempts", []string{"--webhook-max-attempts", "11"}, 1, "", `herdbook: serve: invalid value "11" for flag -webhook-max-attempts: want a whole number from 1 to 10`},
		// With --json a failure is one JSON object on standard error.
		{"ErrJSON", []string{"admin", "token", "issue", "--json", "--user", "+4799999999", "--client", "x"}, 1, "", "{\n  \"error\": \"not_found: no user with phone number +4799999999\"\n}"},
		{"ErrJSONFields", []string{"admin", "user", "create", "--phone", "call me", "--json"}, 1, "", "{\n  \"error\": \"invalid: phone_number_local: "},
		{"ErrJSONFlag", []string{"farms", "list", "--json", "--bogus"}, 1, "", "{\n  \"error\": \"farms list: flag provided but not defined: -bogus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := execIn(t, dir, []string{"HERDBOOK_DATA_DIR=" + filepath.Join(dir, "data")}, time.Minute, bin, tc.args...)
			// The migrations applied by the first admin command log to standard error.
			stderr := regexp.MustCompile(`(?m)^time=.*\n`).ReplaceAllString(res.stderr, "")
			if res.code != tc.code || !strings.HasPrefix(res.stdout, tc.out) || !strings.HasPrefix(stderr, tc.err) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, %q, %q", res.code, res.stdout, stderr, tc.code, tc.out, tc.err)
			}
			if strings.Count(stderr, "herdbook: ") > 1 {
				t.Fatalf("more than one prefix: %q", stderr)
			}
		})
	}
	for _, tc := range []struct{ name, variable, value string }{
		{"NotifyIntervalWithoutUnit", "HERDBOOK_NOTIFY_INTERVAL", "5"},
		{"NotifyIntervalBanana", "HERDBOOK_NOTIFY_INTERVAL", "banana"},
		{"WebhookIntervalWithoutUnit", "HERDBOOK_WEBHOOK_INTERVAL", "7"},
		{"SMTPPort", "HERDBOOK_SMTP_PORT", "smtp"},
		{"NotifyMaxAttempts", "HERDBOOK_NOTIFY_MAX_ATTEMPTS", "0"},
		{"GraphQLMaxAnswerBytes", "HERDBOOK_GRAPHQL_MAX_ANSWER_BYTES", "16MB"},
	} {
		t.Run("ErrVariable"+tc.name, func(t *testing.T) {
			res := execIn(t, dir, []string{"HERDBOOK_DATA_DIR=" + filepath.Join(dir, "data"), tc.variable + "=" + tc.value}, time.Minute, bin, "serve")
			want := "herdbook: " + tc.variable + `="` + tc.value + `": want `
			if res.code != 1 || !strings.HasPrefix(res.stderr, want) {
				t.Fatalf("exit %d, stderr %q; want exit 1, %q", res.code, res.stderr, want)
			}
		})
	}
	t.Run("ErrJSONFieldsListed", func(t *testing.T) {
		res := execIn(t, dir, []string{"HERDBOOK_DATA_DIR=" + filepath.Join(dir, "data")}, time.Minute, bin, "admin", "user", "create", "--phone", "call me", "--json")
		stderr := regexp.MustCompile(`(?m)^\{"time":.*\n`).ReplaceAllString(res.stderr, "")
		var out struct {
			Error  string
			Fields []struct{ Field, Message string }
		}
		if err := json.Unmarshal([]byte(stderr), &out); err != nil || res.code != 1 || len(out.Fields) != 1 || out.Fields[0].Field != "phone_number_local" {
			t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
		}
	})
	t.Run("VersionNamesTheCommit", func(t *testing.T) {
		// go build stamps the commit from a checkout whose .git is a directory (not from a
		// git worktree, whose .git is a file).
		root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			t.Skip("not in a git checkout")
		}
		if st, err := os.Stat(filepath.Join(strings.TrimSpace(string(root)), ".git")); err != nil || !st.IsDir() {
			t.Skip("a git worktree: go build does not stamp the commit")
		}
		head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
		res := execIn(t, dir, nil, time.Minute, bin, "version")
		if res.code != 0 || !strings.Contains(res.stdout, "commit "+strings.TrimSpace(string(head))) {
			t.Fatalf("version: %d %q, want commit %s", res.code, res.stdout, head)
		}
	})
}

// tourBlock returns the shell block of README.md's five-minute tour.
func tourBlock(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "\n## A five-minute tour\n")
	if !ok {
		t.Fatal("README.md has no five-minute tour")
	}
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(after)
	if m == nil {
		t.Fatal("the tour has no sh block")
	}
	return m[1]
}

// TestReadmeTour runs the README's tour as pasted, against a fresh data directory: the
// binary stands in for "go run ./cmd/herdbook", and a free port for 8080. Nothing else of
// the block is changed.
func TestReadmeTour(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	script := tourBlock(t)
	const build = "go build -o herdbook ./cmd/herdbook"
	for _, want := range []string{build, "127.0.0.1:8080"} {
		if !strings.Contains(script, want) {
			t.Fatalf("the tour no longer says %q; update this test with it", want)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	script = strings.ReplaceAll(script, build, "cp '"+bin+"' herdbook")
	script = strings.ReplaceAll(script, "127.0.0.1:8080", addr)

	// Cut short by a failure after the server started, the tour still stops it: a server
	// left running would hold the shell's standard output open, and execIn would wait for
	// it until its timeout.
	head, _, ok := strings.Cut(script, "\n# 3.")
	if !ok {
		t.Fatal("the tour has no step 3")
	}
	res := execIn(t, t.TempDir(), []string{"HERDBOOK_ADDR=" + addr}, time.Minute, "bash", "-e", "-o", "pipefail", "-c", head+"\nfalse\n")
	if res.code != 1 {
		t.Fatalf("the tour cut short exited %d:\n%s\n%s", res.code, res.stdout, res.stderr)
	}

	dir := t.TempDir()
	res = execIn(t, dir, []string{"HERDBOOK_ADDR=" + addr}, 2*time.Minute, "bash", "-e", "-o", "pipefail", "-c", script)
	if res.code != 0 {
		t.Fatalf("the tour failed (exit %d):\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "Nordgard") || !strings.Contains(res.stdout, "HEAD COUNT") {
		t.Fatalf("farms list did not show the farm:\n%s", res.stdout)
	}
	for _, want := range []string{`"name":"Nordgard"`, `"species":"CATTLE"`, `"totalCount":1`, `"role":"OWNER"`, `"fullName":"Kari Nordmann"`} {
		if !strings.Contains(res.stdout, want) {
			t.Fatalf("the tour's output lacks %s:\n%s\n%s", want, res.stdout, res.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "herdbook-data", "herdbook.db")); err != nil {
		t.Fatalf("the tour did not use ./herdbook-data: %v", err)
	}
}
