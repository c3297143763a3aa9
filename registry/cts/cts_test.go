package cts_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/cts"
	"github.com/herdbook/herdbook/registry/cts/ctsfake"
	"github.com/herdbook/herdbook/registry/notice"
)

const herd = "123456"

var now = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

func client(url string) *cts.Client {
	return &cts.Client{URL: url, SoftwareUser: "herdbook-test", SoftwarePassword: "ddts-secret", ProgramName: "Herdbook",
		ProgramVersion: "test", Now: func() time.Time { return now }}
}

func keeper() registry.Holding {
	return registry.Holding{Scheme: "uk.cph", Identifier: "34/123/1234", Username: "123-456-789", Password: "keeper-secret"}
}

var quick = registry.Backoff{Base: time.Millisecond, Max: 5 * time.Millisecond}

// season gives the fake registry a herd on 20 March 2026: two cows on the holding, a steer on
// it, and a heifer elsewhere that the farm bought.
func season(f *ctsfake.Registry) (cow1, cow2, steer, heifer string) {
	cow1, cow2, steer, heifer = ctsfake.UKTag(herd, 1), ctsfake.UKTag(herd, 2), ctsfake.UKTag(herd, 3), ctsfake.UKTag("654321", 201)
	f.Cattle[cow1] = &ctsfake.Animal{Breed: "LIMX", Sex: "F", Dob: "2020-04-01", OnDate: "2020-04-01", Here: true}
	f.Cattle[cow2] = &ctsfake.Animal{Breed: "AA", Sex: "F", Dob: "2021-03-10", OnDate: "2021-03-10", Here: true}
	f.Cattle[steer] = &ctsfake.Animal{Breed: "LIMX", Sex: "M", Dob: "2024-04-01", OnDate: "2024-04-01", Here: true}
	f.Cattle[heifer] = &ctsfake.Animal{Breed: "HER", Sex: "F", Dob: "2024-05-02"}
	return
}

// TestSubmitAndResults reports a season's movements and a death to CTWS (gov.uk, "Report and
// record cattle movements": within 3 days; deaths within 7): the bought heifer on, a cow off,
// the steer dead; and two reports CTS refuses: a tag it does not know and a move dated after
// its today. The receipt comes at once; the answer after one CTWS806 ("not ready").
func TestSubmitAndResults(t *testing.T) {
	t.Parallel()
	f, srv := newFake(t)
	cow1, _, steer, heifer := season(f)
	unknown := ctsfake.UKTag("999999", 1)
	reports := []registry.Report{
		{Key: "move_on:1:h", Kind: notice.KindMoveOn, Tag: heifer[:2] + " " + heifer[2:8] + " " + heifer[8:], Date: "2026-03-16"},
		{Key: "move_off:2:c", Kind: notice.KindMoveOff, Tag: cow1, Date: "2026-03-18"},
		{Key: "death:3:s", Kind: notice.KindDeath, Tag: steer, Date: "2026-03-15"},
		{Key: "move_on:4:u", Kind: notice.KindMoveOn, Tag: unknown, Date: "2026-03-17"},
		{Key: "move_off:5:c2", Kind: notice.KindMoveOff, Tag: ctsfake.UKTag(herd, 2), Date: "2026-03-21"},
	}
	c := client(srv.URL)
	ctx := context.Background()
	receipt, err := c.Submit(ctx, keeper(), "batch-1", reports)
	if err != nil {
		t.Fatal(err)
	}
	if f.LastTxn != "batch-1" {
		t.Errorf("TxnId %q, want the batch id", f.LastTxn)
	}
	if _, err := c.Results(ctx, keeper(), receipt, reports); !errors.Is(err, registry.ErrNotReady) || !registry.Temporary(err) {
		t.Fatalf("first poll: %v, want not ready", err)
	}
	answers, err := registry.Await(ctx, c, keeper(), receipt, reports, quick)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"move_on:1:h":   "accepted",
		"move_off:2:c":  "accepted",
		"death:3:s":     "accepted",
		"move_on:4:u":   "rejected: [Animal not found]",
		"move_off:5:c2": "rejected: [Movement date is in the future]",
	}
	got := map[string]string{}
	for _, a := range answers {
		got[a.Key] = "accepted"
		if !a.Accepted {
			got[a.Key] = fmt.Sprintf("rejected: %v", a.Causes)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("answers %v\nwant %v", got, want)
	}
	if f.Registered != 3 || !f.Cattle[heifer].Here || f.Cattle[cow1].Here || !f.Cattle[steer].Dead {
		t.Fatalf("the registry applied %d movements; heifer %+v cow %+v steer %+v", f.Registered, f.Cattle[heifer], f.Cattle[cow1], f.Cattle[steer])
	}
}

// TestRetry: CTWS failing (HTTP 503) is a temporary error to retry with backoff, and a retry
// of the batch is reported once: nothing reached the registry the first time.
func TestRetry(t *testing.T) {
	t.Parallel()
	f, srv := newFake(t)
	_, _, _, heifer := season(f)
	f.Fail = 1
	c := client(srv.URL)
	reports := []registry.Report{{Key: "move_on:1:h", Kind: notice.KindMoveOn, Tag: heifer, Date: "2026-03-16"}}
	_, err := c.Submit(context.Background(), keeper(), "batch-2", reports)
	var re *registry.Error
	if !errors.As(err, &re) || !re.Temporary || !registry.Temporary(err) {
		t.Fatalf("503: %v, want a temporary error", err)
	}
	receipt, err := c.Submit(context.Background(), keeper(), "batch-2", reports)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := registry.Await(context.Background(), c, keeper(), receipt, reports, quick)
	if err != nil || len(answers) != 1 || !answers[0].Accepted {
		t.Fatalf("answers %+v, %v", answers, err)
	}
	if f.Registered != 1 || f.Batches() != 1 {
		t.Fatalf("registered %d in %d batches, want once", f.Registered, f.Batches())
	}
	if d := (registry.Backoff{Base: time.Second, Max: time.Minute}); d.Delay(1) != time.Second || d.Delay(3) != 4*time.Second || d.Delay(10) != time.Minute {
		t.Fatalf("backoff %v %v %v", d.Delay(1), d.Delay(3), d.Delay(10))
	}
}

// TestAwaitGivesUp: a registry that never answers is polled until the context ends.
func TestAwaitGivesUp(t *testing.T) {
	t.Parallel()
	f, srv := newFake(t)
	_, _, _, heifer := season(f)
	f.NotReady = 1 << 30
	c := client(srv.URL)
	reports := []registry.Report{{Key: "move_on:1:h", Kind: notice.KindMoveOn, Tag: heifer, Date: "2026-03-16"}}
	receipt, err := c.Submit(context.Background(), keeper(), "batch-3", reports)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	// The deadline ends a wait between polls (ErrNotReady joined with it) or, on a loaded
	// machine, a poll in flight: either way Await gives up with the context's error.
	if _, err := registry.Await(ctx, c, keeper(), receipt, reports, quick); !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(fmt.Sprint(err), "deadline exceeded") {
		t.Fatalf("await: %v", err)
	}
}

// TestErrors: what is refused before anything is sent, and what CTWS refuses as a whole.
func TestErrors(t *testing.T) {
	t.Parallel()
	f, srv := newFake(t)
	cow1, _, _, _ := season(f)
	ok := registry.Report{Key: "move_off:1:c", Kind: notice.KindMoveOff, Tag: cow1, Date: "2026-03-18"}
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		c       *cts.Client
		h       registry.Holding
		reports []registry.Report
		code    string
		sent    bool
	}{
		{name: "ErrBirth", reports: []registry.Report{{Key: "birth:1:c", Kind: notice.KindBirth, Tag: cow1, Date: "2026-03-01"}}},
		{name: "ErrTagReplacement", reports: []registry.Report{{Key: "tag_replacement:1:c", Kind: notice.KindTagReplacement, Tag: cow1, Date: "2026-03-01"}}},
		{name: "ErrCheckDigit", reports: []registry.Report{{Key: "death:1:c", Kind: notice.KindDeath, Tag: cow1[:8] + string('1'+(cow1[8]-'0')%7) + cow1[9:], Date: "2026-03-01"}}},
		{name: "ErrNotUK", reports: []registry.Report{{Key: "death:1:c", Kind: notice.KindDeath, Tag: "DE 01 234 56789", Date: "2026-03-01"}}},
		{name: "ErrDate", reports: []registry.Report{{Key: "death:1:c", Kind: notice.KindDeath, Tag: cow1, Date: "18/03/2026"}}},
		{name: "ErrEmpty", reports: []registry.Report{}},
		{name: "ErrGermanHolding", h: registry.Holding{Scheme: "de.hitier.bnr", Identifier: "091234567890"}, reports: []registry.Report{ok}},
		{name: "ErrKeeperPassword", h: registry.Holding{Scheme: "uk.cph", Identifier: "34/123/1234", Username: "123-456-789", Password: "wrong"},
			reports: []registry.Report{ok}, code: "FAKE003", sent: true},
		{name: "ErrSoftwarePassword", c: &cts.Client{URL: srv.URL, SoftwareUser: "herdbook-test", SoftwarePassword: "wrong"},
			reports: []registry.Report{ok}, code: "soap:Client", sent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, h := tc.c, tc.h
			if c == nil {
				c = client(srv.URL)
			}
			if h.Scheme == "" {
				h = keeper()
			}
			f.Mu.Lock()
			before := f.Calls
			f.Mu.Unlock()
			_, err := c.Submit(ctx, h, "batch-e", tc.reports)
			var re *registry.Error
			if !errors.As(err, &re) || re.Temporary || re.Code != tc.code {
				t.Fatalf("submit: %#v, want a permanent error with code %q", err, tc.code)
			}
			f.Mu.Lock()
			sent := f.Calls > before
			f.Mu.Unlock()
			if sent != tc.sent {
				t.Fatalf("sent %v, want %v (%v)", sent, tc.sent, err)
			}
		})
	}
	t.Run("ErrUnknownReceipt", func(t *testing.T) {
		_, err := client(srv.URL).Results(ctx, keeper(), "4242", []registry.Report{ok})
		var re *registry.Error
		if !errors.As(err, &re) || re.Temporary || re.Code != "FAKE006" {
			t.Fatalf("results: %v", err)
		}
	})
	t.Run("ErrUnreachable", func(t *testing.T) {
		c := client("http://127.0.0.1:1")
		c.HTTP = &http.Client{Timeout: time.Second}
		_, err := c.Submit(ctx, keeper(), "batch-u", []registry.Report{ok})
		if !registry.Temporary(err) {
			t.Fatalf("unreachable: %v, want temporary", err)
		}
	})
	if f.Registered != 0 {
		t.Fatalf("registered %d", f.Registered)
	}
}

// TestHolding reads the registry's copy of the holding: the cattle CTS has on it, with
// breed code, sex, birth and arrival dates (cts-tool's "cts list").
func TestHolding(t *testing.T) {
	t.Parallel()
	f, srv := newFake(t)
	cow1, cow2, steer, _ := season(f)
	animals, err := client(srv.URL).Holding(context.Background(), keeper())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]cts.Animal{}
	for _, a := range animals {
		got[a.Tag] = a
	}
	if len(got) != 3 || got[cow1].Breed != "LIMX" || got[cow2].Sex != "F" || got[steer].BirthDate != "2024-04-01" || got[cow2].OnDate != "2021-03-10" {
		t.Fatalf("holding %+v", animals)
	}
	h := keeper()
	h.Identifier = "35/166/0188"
	var re *registry.Error
	if _, err := client(srv.URL).Holding(context.Background(), h); !errors.As(err, &re) || re.Code != "FAKE007" {
		t.Fatalf("another holding: %v", err)
	}
}

// TestParseList reads the herd list cts-tool's "cts list" prints (its README: TAG BREED SEX
// BORN ARRIVED, one animal a line, "?" for what CTS did not give).
func TestParseList(t *testing.T) {
	t.Parallel()
	animals, err := cts.ParseList(strings.NewReader("UK701453700119 LIMX F 2019-04-02 2019-04-02\n\nUK123456100001 ? M 2024-04-01 ?\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []cts.Animal{{Tag: "UK701453700119", Breed: "LIMX", Sex: "F", BirthDate: "2019-04-02", OnDate: "2019-04-02"},
		{Tag: "UK123456100001", Sex: "M", BirthDate: "2024-04-01"}}
	if fmt.Sprint(animals) != fmt.Sprint(want) {
		t.Fatalf("list %+v", animals)
	}
	for _, bad := range []string{"UK701453700119 LIMX F 2019-04-02", "UK701453700119 LIMX F 02/04/2019 2019-04-02"} {
		if _, err := cts.ParseList(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// newFake starts a fake CTWS (package ctsfake) for the test.
func newFake(t *testing.T) (*ctsfake.Registry, *httptest.Server) {
	f := ctsfake.New()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// TestReported: the registry's copy tells which reports of a batch whose answer was lost it
// already has (the outbox asks before sending the batch again): the heifer's move on that CTS
// applied, the cow's move off it did not, and the steer's death it never saw.
func TestReported(t *testing.T) {
	t.Parallel()
	f, srv := newFake(t)
	_, cow2, steer, heifer := season(f)
	c := client(srv.URL)
	sent := []registry.Report{{Key: "move_on:1:h", Kind: notice.KindMoveOn, Tag: heifer, Date: "2026-03-16"}}
	if _, err := c.Submit(context.Background(), keeper(), "batch-9", sent); err != nil {
		t.Fatal(err)
	}
	all := append(sent,
		registry.Report{Key: "move_off:2:c", Kind: notice.KindMoveOff, Tag: cow2, Date: "2026-03-18"},
		registry.Report{Key: "death:3:s", Kind: notice.KindDeath, Tag: steer, Date: "2026-03-19"},
		registry.Report{Key: "move_on:4:h", Kind: notice.KindMoveOn, Tag: heifer, Date: "2026-03-01"})
	got, err := c.Reported(context.Background(), keeper(), all)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"move_on:1:h": true, "move_off:2:c": false, "death:3:s": false, "move_on:4:h": false}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s reported %v, want %v (%v)", k, got[k], w, got)
		}
	}
	f.KeeperPassword = "changed"
	if _, err := c.Reported(context.Background(), keeper(), all); err == nil || registry.Temporary(err) {
		t.Fatalf("refused credentials: %v, want a lasting error", err)
	}
}
