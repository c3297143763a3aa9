package hitier_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/herdbook/herdbook/registry"
	"github.com/herdbook/herdbook/registry/hitier"
	"github.com/herdbook/herdbook/registry/hitier/hitierfake"
	"github.com/herdbook/herdbook/registry/notice"
)

// HI-Tier's published test holding 09 000 000 0001 (the demo client's data) is the keeper's;
// the agent is a second number authorised for it.
const (
	keeperBNR15 = "276090000000001"
	agentBNR15  = "276091111100099"
	elsewhere   = "276051111100001"
)

// now is the adapter's clock, a day after the fake's today, so that a date the adapter lets
// through can still be one the registry finds in its future.
var now = time.Date(2026, 3, 21, 9, 0, 0, 0, time.UTC)

var quick = registry.Backoff{Base: time.Millisecond, Max: 5 * time.Millisecond}

func client(url string) *hitier.Client {
	return &hitier.Client{URL: url + "/api/hit", Now: func() time.Time { return now }}
}

func keeper() registry.Holding {
	return registry.Holding{Scheme: "de.hitier.bnr", Identifier: "09 000 000 0001", Username: keeperBNR15, Password: "900001"}
}

// lom returns the LOM of a German tag DE SS NNN NNNNN.
func lom(tag string) string {
	return "27600" + strings.ReplaceAll(strings.TrimPrefix(tag, "DE "), " ", "")
}

// season gives the fake a herd on 20 March 2026: two cows and a steer on the keeper's
// holding, and a heifer the farm bought and a neighbour's cow on another.
func season(f *hitierfake.Registry) (cow1, cow2, steer, heifer, neighbour string) {
	cow1, cow2, steer, heifer, neighbour = "DE 09 123 00001", "DE 09 123 00002", "DE 09 123 00003", "DE 05 777 00201", "DE 05 777 00202"
	for _, t := range []string{cow1, cow2, steer} {
		f.Cattle[lom(t)] = &hitierfake.Animal{Holding: keeperBNR15}
	}
	f.Cattle[lom(heifer)] = &hitierfake.Animal{Holding: elsewhere}
	f.Cattle[lom(neighbour)] = &hitierfake.Animal{Holding: elsewhere}
	return
}

func outcome(answers []registry.Answer) map[string]string {
	got := map[string]string{}
	for _, a := range answers {
		got[a.Key] = "accepted"
		if !a.Accepted {
			got[a.Key] = fmt.Sprintf("rejected: %v", a.Causes)
		}
	}
	return got
}

// TestSubmitAndResults reports a season to HI-Tier (Viehverkehrsverordnung § 29: within 7
// days): the bought heifer's arrival, a cow's departure, the steer's death and a calf's
// birth, accepted; and five reports the registry refuses by its plausibility checks: an ear
// tag it does not know, a departure dated after its today, the departure of an animal not
// on the holding, the arrival of one already there, and a birth whose dam is not on it.
func TestSubmitAndResults(t *testing.T) {
	t.Parallel()
	f, srv := newFakeHIT(t)
	cow1, cow2, steer, heifer, neighbour := season(f)
	calf, calf2 := "DE 09 123 00010", "DE 09 123 00011"
	reports := []registry.Report{
		{Key: "move_on:1:h", Kind: notice.KindMoveOn, Tag: "de0577700201", Date: "2026-03-16", OtherScheme: "de.hitier.bnr", OtherHolding: elsewhere},
		{Key: "move_off:2:c", Kind: notice.KindMoveOff, Tag: cow1, Date: "2026-03-18"},
		{Key: "death:3:s", Kind: notice.KindDeath, Tag: steer, Date: "2026-03-15"},
		{Key: "birth:4:k", Kind: notice.KindBirth, Tag: calf, Date: "2026-03-12", BirthDate: "2026-03-12", Sex: "female", Breed: "01", DamTag: cow2},
		{Key: "move_on:5:u", Kind: notice.KindMoveOn, Tag: "DE 09 999 00001", Date: "2026-03-17"},
		{Key: "move_off:6:c2", Kind: notice.KindMoveOff, Tag: cow2, Date: "2026-03-21"},
		{Key: "move_off:7:n", Kind: notice.KindMoveOff, Tag: neighbour, Date: "2026-03-17"},
		{Key: "move_on:8:c2", Kind: notice.KindMoveOn, Tag: cow2, Date: "2026-03-17"},
		{Key: "birth:9:k2", Kind: notice.KindBirth, Tag: calf2, Date: "2026-03-13", Sex: "male", Breed: "1", DamTag: neighbour},
	}
	c := client(srv.URL)
	ctx := context.Background()
	receipt, err := c.Submit(ctx, keeper(), "batch-1", reports)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := registry.Await(ctx, c, keeper(), receipt, reports, quick)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"move_on:1:h":   "accepted",
		"move_off:2:c":  "accepted",
		"death:3:s":     "accepted",
		"birth:4:k":     "accepted",
		"move_on:5:u":   "rejected: [FAKE-120: Ohrmarke unbekannt]",
		"move_off:6:c2": "rejected: [FAKE-013: Datum liegt in der Zukunft]",
		"move_off:7:n":  "rejected: [FAKE-130: Tier ist nicht im Bestand]",
		"move_on:8:c2":  "rejected: [FAKE-122: Tier ist bereits im Bestand (doppelter Zugang)]",
		"birth:9:k2":    "rejected: [FAKE-113: Mutter zum Geburtsdatum nicht im Bestand]",
	}
	if got := outcome(answers); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("answers %v\nwant %v", got, want)
	}
	if f.Applied != 4 || f.Cattle[lom(heifer)].Holding != keeperBNR15 || f.Cattle[lom(cow1)].Holding != "" || !f.Cattle[lom(steer)].Dead ||
		f.Cattle[lom(calf)] == nil || f.Cattle[lom(calf2)] != nil {
		t.Fatalf("the registry applied %d records; heifer %+v cow %+v steer %+v", f.Applied, f.Cattle[lom(heifer)], f.Cattle[lom(cow1)], f.Cattle[lom(steer)])
	}
	if want := `{"LOM":"276000912300010","BNR15":"276090000000001","GEB_DATR":"12.03.2026","RASSE":"1","GESCHL_R":"2","LOM_MUT":"276000912300002"}`; f.Bodies[3] != want {
		t.Errorf("birth sent as %s\nwant %s", f.Bodies[3], want)
	}
	// One login with the PIN, the session's secret for the other eight reports, one logoff.
	if f.Pins != 1 || f.Logoffs != 1 || f.Calls != len(reports)+1 {
		t.Errorf("pins %d, logoffs %d, calls %d", f.Pins, f.Logoffs, f.Calls)
	}
	// The answers follow their reports whatever the order they are asked in.
	rev := make([]registry.Report, len(reports))
	for i, r := range reports {
		rev[len(reports)-1-i] = r
	}
	again, err := c.Results(ctx, keeper(), receipt, rev)
	if err != nil || fmt.Sprint(outcome(again)) != fmt.Sprint(want) {
		t.Fatalf("reversed: %v %v", outcome(again), err)
	}
	// A report the receipt does not hold is left out.
	extra := append([]registry.Report{{Key: "death:10:x", Kind: notice.KindDeath, Tag: cow2, Date: "2026-03-19"}}, reports[:2]...)
	if got, err := c.Results(ctx, keeper(), receipt, extra); err != nil || len(got) != 2 || got[0].Key != "move_on:1:h" {
		t.Fatalf("extra: %+v %v", got, err)
	}
}

// TestRetry: HI-Tier failing (HTTP 503) is a temporary error, retried with backoff as the
// outbox does; the rows of the batch answered before the failure are not sent again. After a
// restart (a new client, nothing remembered) the batch sent once more is answered with
// HI-Tier's hint that the records are already stored identically, and nothing is stored
// twice.
func TestRetry(t *testing.T) {
	t.Parallel()
	f, srv := newFakeHIT(t)
	cow1, _, _, heifer, _ := season(f)
	reports := []registry.Report{
		{Key: "move_on:1:h", Kind: notice.KindMoveOn, Tag: heifer, Date: "2026-03-16"},
		{Key: "move_off:2:c", Kind: notice.KindMoveOff, Tag: cow1, Date: "2026-03-18"},
	}
	f.Fail[2] = true
	c := client(srv.URL)
	ctx := context.Background()
	var receipt string
	var err error
	for n := 1; ; n++ {
		receipt, err = c.Submit(ctx, keeper(), "batch-2", reports)
		if err == nil || !registry.Temporary(err) || n == 5 {
			break
		}
		var re *registry.Error
		if n == 1 && (!errors.As(err, &re) || re.Code != "503") {
			t.Fatalf("first attempt: %v, want the 503", err)
		}
		time.Sleep(quick.Delay(n))
	}
	if err != nil {
		t.Fatal(err)
	}
	answers, err := registry.Await(ctx, c, keeper(), receipt, reports, quick)
	if err != nil || fmt.Sprint(outcome(answers)) != "map[move_off:2:c:accepted move_on:1:h:accepted]" {
		t.Fatalf("answers %v %v", outcome(answers), err)
	}
	heiferSent := 0
	for _, b := range f.Bodies {
		if strings.Contains(b, lom(heifer)) {
			heiferSent++
		}
	}
	if f.Applied != 2 || heiferSent != 1 {
		t.Fatalf("applied %d, the heifer's arrival sent %d times: %q", f.Applied, heiferSent, f.Bodies)
	}
	restarted := client(srv.URL)
	receipt, err = restarted.Submit(ctx, keeper(), "batch-2", reports)
	if err != nil {
		t.Fatal(err)
	}
	answers, err = restarted.Results(ctx, keeper(), receipt, reports)
	if err != nil || fmt.Sprint(outcome(answers)) != "map[move_off:2:c:accepted move_on:1:h:accepted]" || f.Applied != 2 {
		t.Fatalf("after a restart: %v %v, applied %d", outcome(answers), err, f.Applied)
	}
	if d := (registry.Backoff{Base: time.Second, Max: time.Minute}); d.Delay(1) != time.Second || d.Delay(3) != 4*time.Second {
		t.Fatalf("backoff %v %v", d.Delay(1), d.Delay(3))
	}
}

// TestSessionEnded: a session HI-Tier ended (its timeout passed) is logged into again with
// the PIN, and the report goes once.
func TestSessionEnded(t *testing.T) {
	t.Parallel()
	f, srv := newFakeHIT(t)
	cow1, _, _, heifer, _ := season(f)
	f.Forget = true
	reports := []registry.Report{
		{Key: "move_on:1:h", Kind: notice.KindMoveOn, Tag: heifer, Date: "2026-03-16"},
		{Key: "move_off:2:c", Kind: notice.KindMoveOff, Tag: cow1, Date: "2026-03-18"},
	}
	c := client(srv.URL)
	receipt, err := c.Submit(context.Background(), keeper(), "batch-s", reports)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := c.Results(context.Background(), keeper(), receipt, reports)
	if err != nil || fmt.Sprint(outcome(answers)) != "map[move_off:2:c:accepted move_on:1:h:accepted]" {
		t.Fatalf("answers %v %v", outcome(answers), err)
	}
	if f.Pins != 2 || f.Applied != 2 || len(f.Bodies) != 2 {
		t.Fatalf("pins %d, applied %d, bodies %d", f.Pins, f.Applied, len(f.Bodies))
	}
}

// TestCredentials: a wrong PIN is refused as a whole and not worth retrying; an agent
// (Bevollmächtigter) logs in with their own BNR15 and reports for the keeper's holding as
// its mandant, but not for a holding they hold no authority for.
func TestCredentials(t *testing.T) {
	t.Parallel()
	f, srv := newFakeHIT(t)
	_, _, _, heifer, _ := season(f)
	reports := []registry.Report{{Key: "move_on:1:h", Kind: notice.KindMoveOn, Tag: heifer, Date: "2026-03-16"}}
	c := client(srv.URL)
	ctx := context.Background()
	h := keeper()
	h.Password = "123456"
	_, err := c.Submit(ctx, h, "batch-3", reports)
	var re *registry.Error
	if !errors.As(err, &re) || re.Temporary || registry.Temporary(err) || re.Code != "401" || !strings.Contains(re.Message, "Betriebsnummer oder PIN falsch") {
		t.Fatalf("wrong PIN: %#v", err)
	}
	h = registry.Holding{Scheme: "de.hitier.bnr", Identifier: "276051111100001", Username: agentBNR15, Password: "424242"}
	if _, err := c.Submit(ctx, h, "batch-4", reports); !errors.As(err, &re) || re.Temporary || re.Code != "403" {
		t.Fatalf("agent without authority: %#v", err)
	}
	if f.Applied != 0 {
		t.Fatalf("applied %d", f.Applied)
	}
	h.Identifier = "090000000001"
	receipt, err := c.Submit(ctx, h, "batch-5", reports)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := c.Results(ctx, h, receipt, reports)
	if err != nil || len(answers) != 1 || !answers[0].Accepted || f.Cattle[lom(heifer)].Holding != keeperBNR15 {
		t.Fatalf("agent: %+v %v", answers, err)
	}
}

// TestStorno withdraws reports whose facts the book voided: a correction with Withdraw
// cancels (SS) the corrected kind's record, named by its key (the tag, the holding and the
// day of the event it reported); a Storno of a record HI-Tier does not hold open is refused.
func TestStorno(t *testing.T) {
	t.Parallel()
	f, srv := newFakeHIT(t)
	_, cow2, _, heifer, _ := season(f)
	calf := "DE 09 123 00010"
	c := client(srv.URL)
	ctx := context.Background()
	sent := []registry.Report{
		{Key: "move_on:1:h", Kind: notice.KindMoveOn, Tag: heifer, Date: "2026-03-16"},
		{Key: "birth:2:k", Kind: notice.KindBirth, Tag: calf, Date: "2026-03-12", Sex: "male", Breed: "87", DamTag: cow2},
	}
	receipt, err := c.Submit(ctx, keeper(), "batch-6", sent)
	if err != nil {
		t.Fatal(err)
	}
	if answers, err := c.Results(ctx, keeper(), receipt, sent); err != nil || fmt.Sprint(outcome(answers)) != "map[birth:2:k:accepted move_on:1:h:accepted]" {
		t.Fatalf("sent: %v %v", outcome(answers), err)
	}
	withdraw := []registry.Report{
		{Key: "correction:move_on:1:h", Kind: notice.KindCorrection, Corrects: notice.KindMoveOn, Withdraw: true, Tag: heifer, Date: "2026-03-16"},
		{Key: "correction:birth:2:k", Kind: notice.KindCorrection, Corrects: notice.KindBirth, Withdraw: true, Tag: calf, Date: "2026-03-19", BirthDate: "2026-03-12"},
		{Key: "correction:move_off:3:c", Kind: notice.KindCorrection, Corrects: notice.KindMoveOff, Withdraw: true, Tag: cow2, Date: "2026-03-10"},
	}
	receipt, err = c.Submit(ctx, keeper(), "batch-7", withdraw)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := c.Results(ctx, keeper(), receipt, withdraw)
	want := "map[correction:birth:2:k:accepted correction:move_off:3:c:rejected: [FAKE-140: keine offene Meldung zu diesem Schlüssel] correction:move_on:1:h:accepted]"
	if err != nil || fmt.Sprint(outcome(answers)) != want {
		t.Fatalf("storno: %v %v", outcome(answers), err)
	}
	if f.Cattle[lom(heifer)].Holding != "" || f.Cattle[lom(calf)] != nil || f.Applied != 4 {
		t.Fatalf("after the Storno: heifer %+v, calf %+v, applied %d", f.Cattle[lom(heifer)], f.Cattle[lom(calf)], f.Applied)
	}
	if want := `{"LOM":"276000912300010","BNR15":"276090000000001","GEB_DATR":"12.03.2026"}`; f.Bodies[3] != want {
		t.Errorf("the birth's Storno sent as %s, want its key %s", f.Bodies[3], want)
	}
}

// TestRefused: what the adapter refuses before anything is sent, naming the report and the
// field.
func TestRefused(t *testing.T) {
	t.Parallel()
	f, srv := newFakeHIT(t)
	cow1, cow2, _, _, _ := season(f)
	birth := registry.Report{Key: "birth:1:k", Kind: notice.KindBirth, Tag: "DE 09 123 00010", Date: "2026-03-12", Sex: "female", Breed: "1", DamTag: cow2}
	with := func(r registry.Report, change func(*registry.Report)) registry.Report { change(&r); return r }
	ok := registry.Report{Key: "death:1:c", Kind: notice.KindDeath, Tag: cow1, Date: "2026-03-18"}
	for _, tc := range []struct {
		name    string
		h       registry.Holding
		reports []registry.Report
		says    string
	}{
		{"ErrTagging", keeper(), []registry.Report{{Key: "tagging:1:c", Kind: notice.KindTagging, Tag: cow1, Date: "2026-03-01"}}, "report tagging:1:c: HI-Tier's REST adapter does not report tagging"},
		{"ErrTagReplacement", keeper(), []registry.Report{{Key: "tag_replacement:1:c", Kind: notice.KindTagReplacement, Tag: cow1, Date: "2026-03-01"}}, "does not report tag_replacement"},
		{"ErrAmendment", keeper(), []registry.Report{{Key: "correction:death:1:c", Kind: notice.KindCorrection, Corrects: notice.KindDeath, Tag: cow1, Date: "2026-03-01"}}, "only as a Storno"},
		{"ErrWithdrawTagging", keeper(), []registry.Report{{Key: "correction:tagging:1:c", Kind: notice.KindCorrection, Corrects: notice.KindTagging, Withdraw: true, Tag: cow1, Date: "2026-03-01"}}, "Corrects"},
		{"ErrNotGerman", keeper(), []registry.Report{with(ok, func(r *registry.Report) { r.Tag = "UK 123456 100001" })}, "report death:1:c: Tag"},
		{"ErrStateCode", keeper(), []registry.Report{with(ok, func(r *registry.Report) { r.Tag = "DE 17 123 00001" })}, "Tag"},
		{"ErrDate", keeper(), []registry.Report{with(ok, func(r *registry.Report) { r.Date = "18.03.2026" })}, "Date \"18.03.2026\" is not a date as YYYY-MM-DD"},
		{"ErrFuture", keeper(), []registry.Report{with(ok, func(r *registry.Report) { r.Date = "2026-03-23" })}, "Date 2026-03-23 is in the future"},
		{"ErrBreedName", keeper(), []registry.Report{with(birth, func(r *registry.Report) { r.Breed = "Limousin" })}, "Breed \"Limousin\" is not a HI-Tier RASSE code"},
		{"ErrBreedLong", keeper(), []registry.Report{with(birth, func(r *registry.Report) { r.Breed = "1234" })}, "Breed"},
		{"ErrSex", keeper(), []registry.Report{with(birth, func(r *registry.Report) { r.Sex = "" })}, "Sex \"\""},
		{"ErrDam", keeper(), []registry.Report{with(birth, func(r *registry.Report) { r.DamTag = "" })}, "DamTag is empty"},
		{"ErrDamForeign", keeper(), []registry.Report{with(birth, func(r *registry.Report) { r.DamTag = "FR 2198256980" })}, "DamTag"},
		{"ErrBirthDates", keeper(), []registry.Report{with(birth, func(r *registry.Report) { r.BirthDate = "2026-03-11" })}, "BirthDate"},
		{"ErrEmpty", keeper(), nil, "an empty batch"},
		{"ErrGBHolding", registry.Holding{Scheme: "uk.cph", Identifier: "34/123/1234", Username: keeperBNR15, Password: "900001"}, []registry.Report{ok}, "German holdings"},
		{"ErrHolding", with2(keeper(), func(h *registry.Holding) { h.Identifier = "17 000 000 0001" }), []registry.Report{ok}, "holding"},
		{"ErrLogin", with2(keeper(), func(h *registry.Holding) { h.Username = "max" }), []registry.Report{ok}, "login \"max\""},
		{"ErrNoPIN", with2(keeper(), func(h *registry.Holding) { h.Password = "" }), []registry.Report{ok}, "no PIN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.Mu.Lock()
			before := f.Calls
			f.Mu.Unlock()
			reports := append([]registry.Report{}, tc.reports...)
			if len(reports) > 0 && tc.h.Scheme == "de.hitier.bnr" {
				// A good report first: nothing of the batch goes when one is refused.
				reports = append([]registry.Report{{Key: "move_off:0:c", Kind: notice.KindMoveOff, Tag: cow1, Date: "2026-03-18"}}, reports...)
			}
			_, err := client(srv.URL).Submit(context.Background(), tc.h, "batch-e", reports)
			var re *registry.Error
			if !errors.As(err, &re) || re.Temporary || !strings.Contains(re.Message, tc.says) {
				t.Fatalf("submit: %v, want a permanent error saying %q", err, tc.says)
			}
			f.Mu.Lock()
			defer f.Mu.Unlock()
			if f.Calls != before {
				t.Fatalf("%d calls reached the registry", f.Calls-before)
			}
		})
	}
	t.Run("ErrReceipt", func(t *testing.T) {
		for _, receipt := range []string{"4242", "hitier1:!!"} {
			var re *registry.Error
			if _, err := client(srv.URL).Results(context.Background(), keeper(), receipt, []registry.Report{ok}); !errors.As(err, &re) || re.Temporary {
				t.Fatalf("receipt %q: %v", receipt, err)
			}
		}
	})
	t.Run("ErrUnreachable", func(t *testing.T) {
		c := client("http://127.0.0.1:1")
		c.HTTP = &http.Client{Timeout: time.Second}
		if _, err := c.Submit(context.Background(), keeper(), "batch-u", []registry.Report{ok}); !registry.Temporary(err) {
			t.Fatalf("unreachable: %v, want temporary", err)
		}
	})
	t.Run("ErrNotAFehlerliste", func(t *testing.T) {
		srv := httptestJSON(t, http.StatusOK, `{"daten":{}}`)
		if _, err := client(srv).Submit(context.Background(), keeper(), "batch-x", []registry.Report{ok}); !registry.Temporary(err) {
			t.Fatalf("unreadable answer: %v, want temporary", err)
		}
		srv = httptestJSON(t, http.StatusTooManyRequests, `{"Message":"zu viele Anfragen"}`)
		if _, err := client(srv).Submit(context.Background(), keeper(), "batch-x", []registry.Report{ok}); !registry.Temporary(err) {
			t.Fatalf("429: %v, want temporary", err)
		}
	})
	if f.Applied != 0 {
		t.Fatalf("applied %d", f.Applied)
	}
	c := client(srv.URL)
	for _, k := range []notice.Kind{notice.KindMoveOn, notice.KindMoveOff, notice.KindDeath, notice.KindBirth, notice.KindCorrection} {
		if !c.Supports(k) {
			t.Errorf("does not support %s", k)
		}
	}
	if c.Supports(notice.KindTagging) || c.Supports(notice.KindTagReplacement) || c.Name() != "de_hitier" {
		t.Error("supports tagging or tag replacement, or the wrong name")
	}
}

func with2(h registry.Holding, change func(*registry.Holding)) registry.Holding { change(&h); return h }

// TestDemoSample sends the demo client's sample arrivals and departures (Daten/ZugangDaten.json
// and Daten/AbgangDaten.json, HitRestClient commit e151f61: five animals of the test holding
// 276090000000001) and checks each row goes as the sample's JSON object, column for column
// and in its order, and the answers come back per row.
func TestDemoSample(t *testing.T) {
	t.Parallel()
	zugang := `[
  {"LOM":"276000912300001","BNR15":"276090000000001","ZUGA_DAT":"01.08.2015"},
  {"LOM":"276000912300002","BNR15":"276090000000001","ZUGA_DAT":"01.08.2015"},
  {"LOM":"276000912300003","BNR15":"276090000000001","ZUGA_DAT":"01.08.2015"},
  {"LOM":"276000912300007","BNR15":"276090000000001","ZUGA_DAT":"09.08.2014"},
  {"LOM":"276000912300008","BNR15":"276090000000001","ZUGA_DAT":"09.08.2014"}
]`
	abgang := strings.ReplaceAll(zugang, "ZUGA_DAT", "ABGA_DAT")
	f, srv := newFakeHIT(t)
	var reports []registry.Report
	for i, file := range []string{zugang, abgang} {
		var rows []map[string]string
		if err := json.Unmarshal([]byte(file), &rows); err != nil {
			t.Fatal(err)
		}
		for j, r := range rows {
			l := r["LOM"]
			tag := "DE " + l[5:7] + " " + l[7:10] + " " + l[10:]
			kind, date := notice.KindMoveOn, r["ZUGA_DAT"]
			if i == 1 {
				kind, date = notice.KindMoveOff, r["ABGA_DAT"]
			} else {
				f.Cattle[l] = &hitierfake.Animal{Holding: elsewhere}
			}
			day, _ := time.Parse("02.01.2006", date)
			reports = append(reports, registry.Report{Key: fmt.Sprintf("%s:%d:%d", kind, i, j), Kind: kind, Tag: tag, Date: day.Format(time.DateOnly)})
		}
	}
	c := client(srv.URL)
	receipt, err := c.Submit(context.Background(), keeper(), "demo", reports)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, file := range []string{zugang, abgang} {
		for _, line := range strings.Split(file, "\n") {
			if line = strings.TrimSuffix(strings.TrimSpace(line), ","); strings.HasPrefix(line, "{") {
				want = append(want, line)
			}
		}
	}
	if fmt.Sprint(f.Bodies) != fmt.Sprint(want) {
		t.Fatalf("sent\n%s\nwant the sample's rows\n%s", strings.Join(f.Bodies, "\n"), strings.Join(want, "\n"))
	}
	answers, err := c.Results(context.Background(), keeper(), receipt, reports)
	if err != nil || len(answers) != 10 {
		t.Fatalf("answers %+v %v", answers, err)
	}
	for _, a := range answers {
		if !a.Accepted {
			t.Errorf("%s: %v", a.Key, a.Causes)
		}
	}
}

// newFakeHIT starts a fake HI-Tier (package hitierfake) for the test: the keeper's login and
// an agent who may report for the keeper's holding.
func newFakeHIT(t *testing.T) (*hitierfake.Registry, *httptest.Server) {
	f := hitierfake.New()
	f.Accounts[keeperBNR15], f.Accounts[agentBNR15] = "900001", "424242"
	f.Agents[agentBNR15] = []string{keeperBNR15}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// httptestJSON starts a server that answers every call with status and body, for answers the
// fake HI-Tier never gives.
func httptestJSON(t *testing.T, status int, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
