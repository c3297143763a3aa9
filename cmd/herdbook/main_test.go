package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cli runs herdbook commands against one database.
type cli struct {
	t      *testing.T
	dbURL  string
	dataDr string
	env    map[string]string // further HERDBOOK_* variables
}

func newCLI(t *testing.T, dialect string) *cli {
	return &cli{t: t, dbURL: herdbooktest.ScratchURL(t, dialect), dataDr: t.TempDir()}
}

func (c *cli) getenv(k string) string {
	if v, ok := c.env[k]; ok {
		return v
	}
	switch k {
	case "HERDBOOK_DATABASE_URL":
		return c.dbURL
	case "HERDBOOK_DATA_DIR":
		return c.dataDr
	}
	return ""
}

// run runs one command and returns its standard output and error.
func (c *cli) run(stdin string, args ...string) (string, error) {
	c.t.Helper()
	var out, errOut syncBuffer
	err := run(context.Background(), args, c.getenv, strings.NewReader(stdin), &out, &errOut)
	return out.String(), err
}

func (c *cli) mustJSON(stdin string, args ...string) map[string]any {
	c.t.Helper()
	out, err := c.run(stdin, append(args, "--json")...)
	if err != nil {
		c.t.Fatalf("%v: %v", args, err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		c.t.Fatalf("%v printed no JSON: %v\n%s", args, err, out)
	}
	return v
}

func TestMigrateCommand(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			out, err := c.run("", "migrate")
			if err != nil || !strings.Contains(out, "applied") {
				t.Fatalf("first migrate: %v\n%s", err, out)
			}
			out, err = c.run("", "migrate")
			if err != nil || !strings.Contains(out, "0 migration(s) applied") {
				t.Fatalf("second migrate: %v\n%s", err, out)
			}
		})
	}
}

func TestAdminCommands(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			u := c.mustJSON("a very long password\n", "admin", "user", "create", "--phone", "+47 900 00 001", "--name", "Ola", "--password-stdin")
			if u["phone_number_local"] != "+4790000001" {
				t.Fatalf("user = %v", u)
			}
			if _, err := c.run("", "admin", "user", "create", "--phone", "+4790000001"); err == nil || !strings.Contains(err.Error(), "already exists") {
				t.Fatalf("duplicate phone: %v", err)
			}
			if _, err := c.run("", "admin", "user", "create", "--phone", "call me"); err == nil || !strings.Contains(err.Error(), "phone_number_local") {
				t.Fatalf("bad phone: %v", err)
			}
			cl := c.mustJSON("", "admin", "client", "create", "--client-id", "cli", "--scopes", "read:farms write:farms read:records write:records")
			if !strings.HasPrefix(cl["client_secret"].(string), "hbcs_") {
				t.Fatalf("client = %v", cl)
			}
			if _, err := c.run("", "admin", "client", "create", "--client-id", "bad", "--scopes", "read:everything"); err == nil || !strings.Contains(err.Error(), "unknown scope") {
				t.Fatalf("bad scope: %v", err)
			}
			tok := c.mustJSON("", "admin", "token", "issue", "--user", "+4790000001", "--client", "cli", "--scopes", "read:farms")
			if tok["token_type"] != "Bearer" || tok["scope"] != "read:farms" || !strings.HasPrefix(tok["access_token"].(string), "hbat_") {
				t.Fatalf("token = %v", tok)
			}
			if _, err := c.run("", "admin", "token", "issue", "--user", "+4790000001", "--client", "cli", "--scopes", "read:animals"); err == nil || !strings.Contains(err.Error(), "not allowed") {
				t.Fatalf("scope beyond the client's: %v", err)
			}
			s := c.mustJSON("", "admin", "seed", "--owner", "+4790000001", "--farms", "2", "--animals", "20", "--groups", "2", "--records", "30", "--items", "2")
			if s["records"] != float64(60) || s["items"] != float64(120) || len(s["farm_ids"].([]any)) != 2 {
				t.Fatalf("seed = %v", s)
			}
			farmID := s["farm_ids"].([]any)[0].(string)
			other := c.mustJSON("", "admin", "user", "create", "--phone", "+4790000002")
			m := c.mustJSON("", "admin", "member", "add", "--farm", farmID, "--user", other["id"].(string), "--role", "editor")
			if m["role"] != "EDITOR" {
				t.Fatalf("member = %v", m)
			}
			if _, err := c.run("", "admin", "member", "add", "--farm", farmID, "--user", "+4790000002", "--role", "KING"); err == nil || !strings.Contains(err.Error(), "role") {
				t.Fatalf("bad role: %v", err)
			}
			if _, err := c.run("", "admin", "frobnicate", "now"); err == nil {
				t.Fatal("unknown admin command accepted")
			}
		})
	}
}

// served is a running "herdbook serve" of a test.
type served struct {
	base        string
	out, errOut *syncBuffer
	stop        func() error
}

// serve starts "herdbook serve" on a free port with the extra arguments and waits until it
// answers /readyz.
func (c *cli) serve(args ...string) *served {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{out: &syncBuffer{}, errOut: &syncBuffer{}}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), c.getenv, strings.NewReader(""), s.out, s.errOut)
	}()
	addr := regexp.MustCompile(`(?:listening on |"url":")(http://[0-9.:]+)`)
	for deadline := time.Now().Add(20 * time.Second); s.base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(s.out.String() + s.errOut.String()); m != nil {
			s.base = m[1]
		}
		select {
		case err := <-done:
			cancel()
			c.t.Fatalf("serve returned %v: %s %s", err, s.out.String(), s.errOut.String())
		default:
		}
	}
	if s.base == "" {
		cancel()
		c.t.Fatalf("the server did not start: %s %s", s.out.String(), s.errOut.String())
	}
	stopped := false
	s.stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			return fmt.Errorf("serve did not stop on cancellation")
		}
	}
	c.t.Cleanup(func() { _ = s.stop() })
	return s
}

// do sends a request with a bearer token and returns the status, headers and body.
func (s *served) do(t *testing.T, token, method, path, body string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, s.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// TestServe runs the server as the README says and walks the five-minute tour.
func TestServe(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	c.mustJSON("a very long password\n", "admin", "user", "create", "--phone", "+4790000001", "--password-stdin")
	c.mustJSON("", "admin", "client", "create", "--client-id", "cli")
	token := c.mustJSON("", "admin", "token", "issue", "--user", "+4790000001", "--client", "cli")["access_token"].(string)

	s := c.serve()
	// The banner names the web app, where a newcomer signs in (issue 31.7).
	if out := s.out.String(); !strings.Contains(out, "  Web app: "+s.base+"/ ") {
		t.Fatalf("the banner does not name the web app:\n%s", out)
	}
	if st, _, b := s.do(t, token, "POST", "/v1/farm", `{"name":"Tour Farm","species":"GOAT"}`); st != 201 {
		t.Fatalf("create farm: %d %s", st, b)
	}
	st, _, b := s.do(t, token, "POST", "/graphql", `{"query":"{ farms { edges { node { name species } } } }"}`)
	if st != 200 || !strings.Contains(string(b), `"name":"Tour Farm"`) {
		t.Fatalf("graphql: %d %s", st, b)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("serve returned %v", err)
	}
	if !strings.Contains(s.errOut.String(), "status=201") {
		t.Fatalf("no access log line: %s", s.errOut.String())
	}
}

// TestServeJSON: with --json every line serve writes is a JSON object (the migrations and
// the banner too), durations are text, and standard output stays empty.
func TestServeJSON(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	c.mustJSON("", "admin", "user", "create", "--phone", "+4790000001")
	c.mustJSON("", "admin", "client", "create", "--client-id", "cli")
	token := c.mustJSON("", "admin", "token", "issue", "--user", "+4790000001", "--client", "cli")["access_token"].(string)
	fresh := newCLI(t, "sqlite").serve("--json") // applies the migrations itself
	_ = fresh.stop()
	for _, want := range []string{`"msg":"applied migration"`, `"msg":"listening"`} {
		if !strings.Contains(fresh.errOut.String(), want) {
			t.Fatalf("no %s line: %s", want, fresh.errOut.String())
		}
	}
	s := c.serve("--log-format", "json")
	s.do(t, token, "GET", "/v1/farm", "")
	_ = s.stop()
	if fresh.out.String()+s.out.String() != "" {
		t.Fatalf("standard output in JSON mode: %q", fresh.out.String()+s.out.String())
	}
	var sawRequest bool
	for _, line := range strings.Split(strings.TrimSpace(fresh.errOut.String()+s.errOut.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q", line)
		}
		if rec["msg"] == "request" {
			sawRequest = true
			if d, ok := rec["duration"].(string); !ok || !strings.HasSuffix(d, "s") {
				t.Fatalf("duration %v is not text", rec["duration"])
			}
		}
	}
	if !sawRequest {
		t.Fatalf("no access log line: %s", s.errOut.String())
	}
}

// TestServeRateLimitFlags: the operator's budget and window replace SPEC.md's defaults.
func TestServeRateLimitFlags(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	c.mustJSON("", "admin", "user", "create", "--phone", "+4790000001")
	c.mustJSON("", "admin", "client", "create", "--client-id", "cli")
	token := c.mustJSON("", "admin", "token", "issue", "--user", "+4790000001", "--client", "cli")["access_token"].(string)
	for _, tc := range []struct {
		name   string
		args   []string
		env    map[string]string
		policy string
	}{
		{"Defaults", nil, nil, "100;w=900"},
		{"Flags", []string{"--api-rate-limit", "2", "--api-rate-window", "1m"}, nil, "2;w=60"},
		{"Environment", nil, map[string]string{"HERDBOOK_API_RATE_LIMIT": "3", "HERDBOOK_API_RATE_WINDOW": "2h"}, "3;w=7200"},
		{"FlagsWin", []string{"--api-rate-limit", "2"}, map[string]string{"HERDBOOK_API_RATE_LIMIT": "banana"}, "2;w=900"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.env = tc.env
			s := c.serve(tc.args...)
			c.env = nil
			st, h, _ := s.do(t, token, "GET", "/v1/farm", "")
			if st != 200 || h.Get("RateLimit-Policy") != tc.policy {
				t.Fatalf("status %d, RateLimit-Policy %q, want %q", st, h.Get("RateLimit-Policy"), tc.policy)
			}
			if tc.name == "Flags" {
				s.do(t, token, "GET", "/v1/farm", "")
				st, h, b := s.do(t, token, "GET", "/v1/farm", "")
				if st != 429 || h.Get("Retry-After") == "" || !strings.Contains(string(b), "at most 2 requests per minute") {
					t.Fatalf("third request: %d %v %s", st, h, b)
				}
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == "HERDBOOK_DATA_DIR" {
			return filepath.Join(dir, "data")
		}
		return ""
	}
	var out syncBuffer
	if err := run(context.Background(), []string{"migrate"}, getenv, strings.NewReader(""), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "herdbook.db")); err != nil {
		t.Fatalf("the default SQLite file was not made in the data dir: %v", err)
	}
	if err := run(context.Background(), []string{"bogus"}, getenv, nil, io.Discard, io.Discard); err == nil {
		t.Fatal("an unknown command was accepted")
	}
	var help syncBuffer
	if err := run(context.Background(), []string{"help"}, getenv, nil, &help, io.Discard); err != nil || !strings.Contains(help.String(), "admin seed") {
		t.Fatalf("help: %v %s", err, help.String())
	}
}

// walkCommands calls fn with the path of every command in the tree, groups included.
func walkCommands(c *command, path []string, fn func(path []string, c *command)) {
	fn(path, c)
	for _, sub := range c.subs {
		walkCommands(sub, append(append([]string{}, path...), sub.name), fn)
	}
}

// TestHelp: -h, --help and "help …" print the usage of every level on standard output and
// succeed.
func TestHelp(t *testing.T) {
	t.Parallel()
	walkCommands(commands, nil, func(path []string, cmd *command) {
		forms := [][]string{append(append([]string{}, path...), "-h"), append(append([]string{}, path...), "--help"),
			append([]string{"help"}, path...)}
		for _, args := range forms {
			t.Run(strings.Join(args, "_"), func(t *testing.T) {
				var out, errOut syncBuffer
				if err := run(context.Background(), args, func(string) string { return "" }, nil, &out, &errOut); err != nil {
					t.Fatalf("err = %v", err)
				}
				if want := "usage: " + fullName(path); !strings.HasPrefix(out.String(), want) || errOut.String() != "" {
					t.Fatalf("stdout %q, stderr %q; want %q first", out.String(), errOut.String(), want)
				}
				if cmd.run != nil && len(path) > 0 && !strings.Contains(out.String(), "--json") {
					t.Fatalf("%s has no --json: %s", fullName(path), out.String())
				}
			})
		}
	})
}

// TestReadmeListsEveryCommand: the README's commands table has a row for every command the
// usage lists (issue 31.7: a newcomer reads the table, not the source).
func TestReadmeListsEveryCommand(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	walkCommands(commands, nil, func(path []string, cmd *command) {
		if cmd.run == nil || len(path) == 0 {
			return
		}
		n++
		if row := "| `" + fullName(path) + "`"; !strings.Contains(string(readme), row) && !strings.Contains(string(readme), "/ `"+fullName(path)+"`") {
			t.Errorf("README.md's commands table has no row %s |", row)
		}
	})
	if n < 20 {
		t.Fatalf("walked %d commands", n)
	}
}

// TestCommandLineErrors: mistakes are refused with what would have been right, and never
// with a doubled program name (main adds "herdbook: " once).
func TestCommandLineErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"ErrUnknownCommand", nil, []string{"bogus"}, `unknown command "bogus"; herdbook has: serve, migrate, version, backup, restore, farms, import, export, admin`},
		{"ErrUnknownAdminCommand", nil, []string{"admin", "frobnicate", "now"}, `unknown command "admin frobnicate"`},
		{"ErrGroupWithoutCommand", nil, []string{"admin", "user"}, "herdbook admin user needs a command: create"},
		{"ErrUnknownFlag", nil, []string{"migrate", "--bogus"}, "flag provided but not defined: -bogus"},
		{"ErrStrayArgument", nil, []string{"migrate", "now"}, `unexpected argument "now"`},
		{"ErrLogFormat", nil, []string{"serve", "--log-format", "yaml"}, `invalid value "yaml" for flag -log-format: must be one of text, json`},
		{"ErrLogFormatEnv", map[string]string{"HERDBOOK_LOG_FORMAT": "yaml"}, []string{"migrate"}, `HERDBOOK_LOG_FORMAT="yaml": must be one of text, json`},
		{"ErrSMTPTLS", nil, []string{"serve", "--smtp-tls", "ssl"}, "must be one of none, starttls, tls"},
		{"ErrPhoneRegion", nil, []string{"admin", "user", "create", "--phone", "91234567", "--phone-region", "XX"}, `unknown region "XX"`},
		{"ErrPhoneRegionEnv", map[string]string{"HERDBOOK_PHONE_REGION": "Norway"}, []string{"serve"}, `HERDBOOK_PHONE_REGION="Norway": unknown region`},
		{"ErrRateLimit", nil, []string{"serve", "--api-rate-limit", "0"}, "want a whole number above zero"},
		{"ErrRateWindowEnv", map[string]string{"HERDBOOK_API_RATE_WINDOW": "fortnight"}, []string{"serve"}, `HERDBOOK_API_RATE_WINDOW="fortnight": want a duration`},
		{"ErrRole", nil, []string{"admin", "member", "add", "--farm", "x", "--user", "y", "--role", "KING"}, "must be one of OWNER, EDITOR, READER"},
		{"ErrChannel", nil, []string{"admin", "notify", "test", "--user", "y", "--channel", "PIGEON"}, "must be one of EMAIL, SMS, IN_APP"},
		{"ErrServiceError", nil, []string{"admin", "user", "create", "--phone", "call me"}, "invalid: phone_number_local"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cli{t: t, dbURL: c.dbURL, dataDr: c.dataDr, env: tc.env}
			_, err := c.run("", tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "herdbook: ") {
				t.Fatalf("the error names the program itself: %v", err)
			}
		})
	}
}

func TestMigrateJSON(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	first := c.mustJSON("", "migrate")
	if n, _ := first["count"].(float64); n < 1 || len(first["applied"].([]any)) != int(n) {
		t.Fatalf("first migrate: %v", first)
	}
	if again := c.mustJSON("", "migrate"); again["count"] != float64(0) || len(again["applied"].([]any)) != 0 {
		t.Fatalf("second migrate: %v", again)
	}
}

// TestAdminJSONLogs: with --json, admin commands print JSON on standard output and their
// log lines (the migrations applied on the way) are JSON too.
func TestAdminJSONLogs(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	var out, errOut syncBuffer
	if err := run(context.Background(), []string{"admin", "user", "create", "--phone", "+4790000001", "--json"}, c.getenv, strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(out.String())) {
		t.Fatalf("stdout is not JSON: %q", out.String())
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) == 0 || !strings.Contains(errOut.String(), "applied migration") {
		t.Fatalf("no migration log lines: %q", errOut.String())
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("a log line is not JSON: %q", l)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	out, err := c.run("", "version")
	if err != nil || !strings.HasPrefix(out, "herdbook ") || !strings.Contains(out, "go1.") {
		t.Fatalf("version: %v %q", err, out)
	}
	v := c.mustJSON("", "version")
	for _, k := range []string{"version", "go", "modified"} {
		if _, ok := v[k]; !ok {
			t.Fatalf("version --json lacks %s: %v", k, v)
		}
	}
}

// TestAdminPhoneForms: admin commands find a user by the forms a person types, read in the
// configured region.
func TestAdminPhoneForms(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	u := c.mustJSON("", "admin", "user", "create", "--phone", "912 34 567")
	if u["phone_number_local"] != "+4791234567" {
		t.Fatalf("stored as %v", u["phone_number_local"])
	}
	c.mustJSON("", "admin", "client", "create", "--client-id", "cli")
	for _, form := range []string{"+4791234567", "004791234567", "91234567"} {
		if tok := c.mustJSON("", "admin", "token", "issue", "--user", form, "--client", "cli"); tok["access_token"] == nil {
			t.Fatalf("%s: %v", form, tok)
		}
	}
	if _, err := c.run("", "admin", "token", "issue", "--user", "91234567", "--client", "cli", "--phone-region", "SE"); err == nil || !strings.Contains(err.Error(), "no user") {
		t.Fatalf("region SE found a Norwegian national number: %v", err)
	}
	c.env = map[string]string{"HERDBOOK_PHONE_REGION": "se"}
	if u := c.mustJSON("", "admin", "user", "create", "--phone", "070-123 45 67"); u["phone_number_local"] != "+46701234567" {
		t.Fatalf("region from the environment: %v", u)
	}
}

// TestSeedProgress: in a pipe (here a buffer) seeding prints no progress; on a terminal the
// line says rows, rate and time left, and is rewritten in place.
func TestSeedProgress(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	var out, errOut syncBuffer
	if err := run(context.Background(), []string{"admin", "seed", "--farms", "1", "--animals", "10", "--records", "10"}, c.getenv, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errOut.String(), "seeding") || !strings.Contains(out.String(), "seeded 1 farm(s)") {
		t.Fatalf("stdout %q, stderr %q", out.String(), errOut.String())
	}
	for _, tc := range []struct {
		done, total int
		elapsed     time.Duration
		want        string
	}{
		{3000, 12000, 2 * time.Second, "seeding: 3000/12000 rows (25%), 1500 rows/s, 6s left"},
		{100, 1000, 0, "seeding: 100/1000 rows (10%), 0 rows/s, time left unknown"},
		{12000, 12000, 4 * time.Second, "seeding: 12000/12000 rows (100%), 3000 rows/s, 0s left"},
		{1000, 1_000_000, time.Second, "seeding: 1000/1000000 rows (0%), 1000 rows/s, 16m39s left"},
	} {
		if got := progressText(tc.done, tc.total, tc.elapsed); got != tc.want {
			t.Errorf("progressText(%d, %d, %s) = %q, want %q", tc.done, tc.total, tc.elapsed, got, tc.want)
		}
	}
	var term bytes.Buffer
	now := time.Unix(0, 0)
	p := &progressLine{w: &term, start: now, now: func() time.Time { return now }}
	for i, step := range []int{10, 20, 30, 40} {
		now = now.Add(time.Duration(i%2) * 200 * time.Millisecond) // every other update comes too soon
		p.update(step, 40)
	}
	if got := term.String(); strings.Count(got, "\r\x1b[K") != 3 || !strings.HasSuffix(got, "(100%), 100 rows/s, 0s left\n") {
		t.Fatalf("terminal output %q", got)
	}
}

// TestFarmsList (issue 22.6): no command listed farms and the seed printed no ids, yet
// import and export need --farm ID. farms list shows id, name, species and head count; the
// seed's human output names its farms; client create --json has the name and redirect URIs.
func TestFarmsList(t *testing.T) {
	t.Parallel()
	for _, dia := range herdbooktest.Dialects() {
		t.Run(dia, func(t *testing.T) {
			c := newCLI(t, dia)
			if out, err := c.run("", "farms", "list"); err != nil || !strings.Contains(out, "no farms yet") {
				t.Fatalf("empty: %v %q", err, out)
			}
			c.mustJSON("", "admin", "user", "create", "--phone", "+4790000031")
			out, err := c.run("", "admin", "seed", "--owner", "+4790000031", "--farms", "2", "--animals", "3", "--groups", "1", "--records", "1", "--items", "1")
			if err != nil || strings.Count(out, "\n  farm ") != 2 {
				t.Fatalf("seed: %v\n%s", err, out)
			}
			list := c.mustJSON("", "farms", "list")
			farms := list["farms"].([]any)
			if len(farms) != 2 {
				t.Fatalf("farms %v", list)
			}
			for _, f := range farms {
				f := f.(map[string]any)
				if f["id"] == "" || f["name"] == "" || f["species"] == "" || f["head_count"] != 3.0 || !strings.Contains(out, f["id"].(string)) {
					t.Fatalf("farm %v (seed said %s)", f, out)
				}
			}
			text, err := c.run("", "farms", "list")
			if err != nil || !strings.HasPrefix(text, "ID") || !strings.Contains(text, "HEAD COUNT") || strings.Count(text, "\n") != 3 {
				t.Fatalf("table: %v\n%s", err, text)
			}
			cl := c.mustJSON("", "admin", "client", "create", "--client-id", "app", "--name", "The App", "--redirect-uri", "https://app.example/cb")
			if cl["name"] != "The App" || len(cl["redirect_uris"].([]any)) != 1 || cl["redirect_uris"].([]any)[0] != "https://app.example/cb" {
				t.Fatalf("client create %v", cl)
			}
		})
	}
}
