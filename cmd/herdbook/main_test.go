package main

import (
	"bytes"
	"context"
	"encoding/json"
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

// TestServe runs the server as the README says and walks the five-minute tour.
func TestServe(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "sqlite")
	c.mustJSON("a very long password\n", "admin", "user", "create", "--phone", "+4790000001", "--password-stdin")
	c.mustJSON("", "admin", "client", "create", "--client-id", "cli")
	token := c.mustJSON("", "admin", "token", "issue", "--user", "+4790000001", "--client", "cli")["access_token"].(string)

	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, c.getenv, strings.NewReader(""), &out, &errOut)
	}()
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		cancel()
		t.Fatalf("the server did not start: %s %s", out.String(), errOut.String())
	}
	do := func(method, path, body string) (int, []byte) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	if st, b := do("POST", "/v1/farm", `{"name":"Tour Farm","species":"GOAT"}`); st != 201 {
		t.Fatalf("create farm: %d %s", st, b)
	}
	st, b := do("POST", "/graphql", `{"query":"{ farms { edges { node { name species } } } }"}`)
	if st != 200 || !strings.Contains(string(b), `"name":"Tour Farm"`) {
		t.Fatalf("graphql: %d %s", st, b)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop on cancellation")
	}
	if !strings.Contains(errOut.String(), "status=201") {
		t.Fatalf("no access log line: %s", errOut.String())
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
