package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/eid"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestDeviceParsers runs the web app's device parsers (web/app/src/devices: ISO 11784/11785
// codes in the forms ISO 24631-6 and readers print them, weigh indicators' lines, the line
// splitter) and the date fields' day parser (datetext.ts) under Node's test runner: they are compiled with the app's pinned tsc into a
// temporary directory, then `node --test` runs web/testdata/devices/*.test.mjs against them.
//
// The EID parser must agree with the server's (package eid) on every value: this test writes
// a corpus of inputs, each with what eid.Parse answers (the canonical 15 digits, or a
// refusal), and the node tests check the TypeScript parser answers the same. The corpus holds
// the readers' published forms of eid's own tests, every code from 000 to 999 (so the
// country list agrees with eid/iso3166-1.tsv), random valid codes in every form eid.Format
// writes, and values ISO 11784 refuses.
//
// Without Node.js or the app's node_modules (scripts/build-web.sh installs them) it skips,
// unless HERDBOOK_REQUIRE_NODE=1.
func TestDeviceParsers(t *testing.T) {
	t.Parallel()
	node, nodeErr := exec.LookPath("node")
	tsc, tscErr := filepath.Abs(filepath.Join("app", "node_modules", ".bin", "tsc"))
	if tscErr == nil {
		_, tscErr = os.Stat(tsc)
	}
	if nodeErr != nil || tscErr != nil {
		if os.Getenv("HERDBOOK_REQUIRE_NODE") == "1" {
			t.Fatalf("Node.js or the app's tsc is missing (%v, %v) and HERDBOOK_REQUIRE_NODE=1: run scripts/build-web.sh", nodeErr, tscErr)
		}
		herdbooktest.SkipMissing(t, "Node.js or web/app/node_modules missing: run scripts/build-web.sh (HERDBOOK_REQUIRE_NODE=1 makes this a failure)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := t.TempDir()
	src, err := filepath.Glob(filepath.Join("app", "src", "devices", "*.ts"))
	if err != nil || len(src) == 0 {
		t.Fatalf("no device modules in app/src/devices: %v", err)
	}
	// The date fields' reading and writing of a day (datetext.ts) is pure too, and tested here.
	src = append(src, filepath.Join("app", "src", "datetext.ts"))
	// CommonJS, so that the compiled modules' extensionless imports resolve under Node; the
	// app's own build (Vite) bundles the same sources as ES modules. The device code needs no
	// DOM: only TextDecoder, which Node has too.
	args := append([]string{"--outDir", out, "--rootDir", filepath.Join("app", "src"), "--strict", "--target", "ES2022", "--module", "commonjs",
		"--moduleResolution", "node10", "--lib", "ES2022,DOM", "--skipLibCheck",
		"--noUnusedLocals", "--noUnusedParameters", "--noImplicitReturns"}, src...)
	cmd := exec.CommandContext(ctx, tsc, args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, b)
	}
	if err := os.WriteFile(filepath.Join(out, "package.json"), []byte(`{"type":"commonjs"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(out, "eid-corpus.json")
	b, err := json.Marshal(eidCorpus())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corpus, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tests, err := filepath.Glob(filepath.Join("testdata", "devices", "*.test.mjs"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no node tests in testdata/devices: %v", err)
	}
	cmd = exec.CommandContext(ctx, node, append([]string{"--test", "--test-reporter=spec"}, tests...)...)
	cmd.Env = append(os.Environ(), "DEVICES_DIR="+filepath.Join(out, "devices"), "EID_CORPUS="+corpus)
	b, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, b)
	}
	if testing.Verbose() {
		t.Logf("%s", b)
	}
}

// corpusCase is one input and what the server's eid.Parse answers: Want, the canonical 15
// digits, or Refused with the reason's words.
type corpusCase struct {
	In      string `json:"in"`
	Want    string `json:"want,omitempty"`
	Refused string `json:"refused,omitempty"`
}

func eidCorpus() []corpusCase {
	var in []string
	// Readers' and farm software's published forms (eid_test.go's TestParseReaderOutput):
	// ISO11784Tools, FarmIT 3000's Tru-Test help, the Allflex panel reader manual, the
	// Datamars GES3S manual, docs/identifiers.md.
	in = append(in, "999012345678901", "3E7.02DFDC1C35", "8000F9C2DFDC1C35", "AC383BFB439F0001", "ac383bfb439f0001",
		"3E7.1CBE991A14", "0826052636100657", "826 052636100657", "0826071339300045", "0826000301234003",
		"LA 982 000001088420", "LA_982_000001088420", "LA_00000_0_982_000001088420", "A0000000964000000123456",
		"964 000000123456", "A 00000 0 964 000000123456", "A 00000 0 0999 000000123456", "10000000964000000123456",
		"964000000123456", "LA 826 000301234003", "A 00000 0 826 000301234003", "A0000000826000301234003",
		"10000000826000301234003", "33A.0011F47753", "8000CE8011F47753", "CAEE2F8801730001", "  826000301234003\t",
		"826274877906943")
	// What ISO 11784 refuses and what cannot be told apart (TestParseRefuses).
	in = append(in, "826301234200033", "826274877906944", "000012903989251", "123000000000001", "33A.FFFFFFFFFF",
		"3E8.0000000001", "R00060000000000123456", "00000000964000000123456", "0000F9C2DFDC1C34", "2826000301234003",
		"8000790000000258", "  ", "", "98200012345678", "982-000123456789", "98 2000123456789", "ZZZZZZZZZZZZZZZZ",
		"FFFFFFFFFFFFFFFF", "L", "LA", "R 982 000001088420", "A 982 00000108842", "LA 982 000001088420 X", "1.2.3",
		"0999 000000123456", "9820001234567890")
	// Every code from 000 to 999 with a small national number: the country list.
	for c := 0; c <= 999; c++ {
		in = append(in, fmt.Sprintf("%03d000000000001", c))
	}
	// Random valid codes (and some invalid ones) in every form.
	rng := rand.New(rand.NewSource(31))
	for range 3000 {
		c := eid.Code{Country: uint16(1 + rng.Intn(999)), National: rng.Uint64() & eid.MaxNational}
		if rng.Intn(4) == 0 {
			c.National = uint64(rng.Intn(1000))
		}
		for _, f := range eid.Forms {
			s := c.Format(f)
			if rng.Intn(2) == 0 {
				s = strings.ToLower(s)
			}
			in = append(in, s)
		}
		in = append(in, "LA "+c.Format(eid.Spaced), "A 00000 0 "+c.Format(eid.Spaced), "A0000000"+c.String(), "1"+c.String())
	}
	out := make([]corpusCase, 0, len(in))
	for _, s := range in {
		got, err := eid.Canonical(s)
		if err != nil {
			out = append(out, corpusCase{In: s, Refused: err.Error()})
		} else {
			out = append(out, corpusCase{In: s, Want: got})
		}
	}
	return out
}
