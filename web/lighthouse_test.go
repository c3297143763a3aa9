package web_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// EnvLighthouseDir names a directory where TestLighthouse writes each run's Lighthouse
// report (HTML and JSON).
const EnvLighthouseDir = "HERDBOOK_LIGHTHOUSE_DIR"

// EnvLighthouse set to "after" makes the suite skip TestLighthouse, for a runner that runs it
// on its own once the rest is done ("only", as .ci/run does): its scores follow how busy the
// processors are, and other packages' tests load them while the suite runs.
const EnvLighthouse = "HERDBOOK_LIGHTHOUSE"

// Issue 23.7: Lighthouse's performance and accessibility scores, on its mobile profile, of
// the register and the animal page.
const (
	lighthouseMin = 0.90
	// Runs per page: three, and up to five while a median is under lighthouseMin (the scores
	// follow the machine's load); the median is judged, as Lighthouse's variability guide
	// advises.
	lighthouseRuns    = 3
	lighthouseMaxRuns = 5
	herdSize          = 1200
)

// lighthouseRun is what web/lighthouse/measure.mjs reports of one Lighthouse run.
type lighthouseRun struct {
	Performance   float64            `json:"performance"`
	Accessibility float64            `json:"accessibility"`
	Metrics       map[string]float64 `json:"metrics"`
	FinalURL      string             `json:"finalUrl"`
	URL           string             `json:"url"`
	Probe         struct {
		H1   string `json:"h1"`
		Rows int    `json:"rows"`
	} `json:"probe"`
	LCPElement string `json:"lcpElement"`
	Failing    map[string][]struct {
		ID    string   `json:"id"`
		Title string   `json:"title"`
		Score *float64 `json:"score"`
		Value string   `json:"value"`
	} `json:"failing"`
	Warnings       []string `json:"warnings"`
	RuntimeError   string   `json:"runtimeError"`
	BenchmarkIndex float64  `json:"benchmarkIndex"`
	CPUSlowdown    float64  `json:"cpuSlowdown"`
	Seconds        float64  `json:"seconds"`
}

type lighthouseReport struct {
	Lighthouse string `json:"lighthouse"`
	Chrome     string `json:"chrome"`
	Error      string `json:"error"`
	Pages      []struct {
		Name string          `json:"name"`
		Path string          `json:"path"`
		Runs []lighthouseRun `json:"runs"`
	} `json:"pages"`
}

// TestLighthouse measures the register and an animal's page with Lighthouse (pinned in
// web/lighthouse, run on the installed Chromium by web/lighthouse/measure.mjs) on its
// default mobile profile with simulated throttling, as a farmer opens them right after
// signing in, on a farm of 1,200 animals: the median of three runs per page (five when the
// first three are not enough) must score at least 0.90 for performance and accessibility.
// When the machine is slower than Lighthouse expects (a benchmark index under 1000, as other
// tests' load makes it), the simulated CPU slowdown is scaled down with it (measure.mjs).
// SQLite only: the app and its queries are the same on PostgreSQL, and two databases would
// double a test that already takes a minute. Without node or web/lighthouse's node_modules
// it skips, unless HERDBOOK_REQUIRE_BROWSER=1.
//
// Not parallel on purpose: the package's other browser tests wait until it is done, so that
// they do not load the two cores while Lighthouse times the page.
func TestLighthouse(t *testing.T) {
	if os.Getenv(EnvLighthouse) == "after" {
		t.Skip("measured on its own after the suite (" + EnvLighthouse + "=after; .ci/run runs it with =only)")
	}
	bin := herdbooktest.ChromiumPath(t)
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("lighthouse", "node_modules", "lighthouse", "package.json"))
	}
	if err != nil {
		if os.Getenv(herdbooktest.EnvRequireBrowser) == "1" {
			t.Fatalf("node or Lighthouse is missing: run scripts/install-lighthouse.sh (%v)", err)
		}
		herdbooktest.SkipMissing(t, "node or Lighthouse is missing: run scripts/install-lighthouse.sh")
	}

	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	u := app.MustUser()
	farm, animal := seedHerd(t, app, u)
	waitForQuietCPU(t)

	// What the page shows once Lighthouse is done: its heading, and its links to animals (the
	// register's rows; the animal's dam, sire and calves), so that the sign-in card, an error
	// or a page still loading fails the test whatever the screens' markup becomes.
	probe := `({h1: document.querySelector('h1')?.textContent ?? '', rows: document.querySelectorAll('main a[href*="/animals/"]').length})`
	job := map[string]any{
		"base": app.URL, "chromium": bin, "phone": u.Phone, "password": "a long test password",
		"runs": lighthouseRuns, "maxRuns": lighthouseMaxRuns, "min": lighthouseMin, "reportDir": os.Getenv(EnvLighthouseDir),
		"pages": []map[string]string{
			{"name": "register", "path": "/farms/" + farm + "/register", "probe": probe},
			{"name": "animal", "path": "/farms/" + farm + "/animals/" + animal, "probe": probe},
		},
	}
	arg, _ := json.Marshal(job)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "measure.mjs", string(arg))
	cmd.Dir = "lighthouse"
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	started := time.Now()
	runErr := cmd.Run()
	var rep lighthouseReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.Error != "" {
		t.Fatalf("measure.mjs: %v %v %s\n%s\n%s", runErr, err, rep.Error, stdout.String(), stderr.String())
	}
	t.Logf("Lighthouse %s on %s, in %s", rep.Lighthouse, rep.Chrome, time.Since(started).Round(time.Second))

	want := map[string]struct{ h1, path string }{
		"register": {"Register", "/farms/" + farm + "/register"},
		"animal":   {"T-00162", "/farms/" + farm + "/animals/" + animal},
	}
	if len(rep.Pages) != len(want) {
		t.Fatalf("measured %d pages, want %d", len(rep.Pages), len(want))
	}
	for _, p := range rep.Pages {
		w := want[p.Name]
		for i, r := range p.Runs {
			m := r.Metrics
			t.Logf("%s #%d: performance %.2f, accessibility %.2f; FCP %.0f ms, LCP %.0f ms, TBT %.0f ms, CLS %.3f, SI %.0f ms; LCP element %s; %d links to animals; benchmark index %.0f, CPU slowdown %.2f; %.1f s",
				p.Name, i+1, r.Performance, r.Accessibility, m["fcp"], m["lcp"], m["tbt"], m["cls"], m["si"], r.LCPElement, r.Probe.Rows,
				r.BenchmarkIndex, r.CPUSlowdown, r.Seconds)
			// The real screen was measured, with its data: not the sign-in card, not an error.
			if r.RuntimeError != "" {
				t.Errorf("%s #%d: Lighthouse: %s", p.Name, i+1, r.RuntimeError)
			}
			if !strings.HasSuffix(r.URL, w.path) || !strings.HasSuffix(r.FinalURL, w.path) {
				t.Errorf("%s #%d: ended at %s (Lighthouse: %s), want %s", p.Name, i+1, r.URL, r.FinalURL, w.path)
			}
			if !strings.HasPrefix(r.Probe.H1, w.h1) || r.Probe.Rows == 0 {
				t.Errorf("%s #%d: the page shows %q with %d links to animals, want %q with its links", p.Name, i+1, r.Probe.H1, r.Probe.Rows, w.h1)
			}
			for _, warn := range r.Warnings {
				t.Logf("%s #%d: Lighthouse warns: %s", p.Name, i+1, warn)
			}
		}
		for _, cat := range []string{"performance", "accessibility"} {
			score := func(r lighthouseRun) float64 {
				if cat == "performance" {
					return r.Performance
				}
				return r.Accessibility
			}
			runs := slices.Clone(p.Runs)
			slices.SortFunc(runs, func(a, b lighthouseRun) int { return int(1000 * (score(a) - score(b))) })
			med := runs[len(runs)/2]
			t.Logf("%s: median %s %.2f of %d runs", p.Name, cat, score(med), len(runs))
			if score(med) < lighthouseMin {
				var lines []string
				for _, a := range med.Failing[cat] {
					s := "n/a"
					if a.Score != nil {
						s = fmt.Sprintf("%.2f", *a.Score)
					}
					lines = append(lines, fmt.Sprintf("  %s (%s): %s %s", a.ID, s, a.Title, a.Value))
				}
				t.Errorf("%s: median %s score %.2f, want at least %.2f; failing audits of the median run:\n%s",
					p.Name, cat, score(med), lighthouseMin, strings.Join(lines, "\n"))
			}
		}
	}
}

// Lighthouse times the page's main thread, so another test binary loading the two cores
// (under `go test ./...` the rest package's tests run beside this one) turns the app's few
// milliseconds of script into seconds of blocking time: CI scored 0.67 where an idle machine
// scores 0.99. The test waits, before measuring, for a moment when the machine's processors
// are mostly idle, up to quietMaxWait and never so long that the measurement would overrun
// the test binary's deadline; it measures anyway when that time is up, and says so.
const (
	quietMaxWait = 6 * time.Minute
	quietBusyMax = 0.35 // busy share of all processors, over quietSample, that counts as quiet
	quietSample  = 2 * time.Second
	quietSamples = 3 // consecutive quiet samples
	measureTime  = 4 * time.Minute
)

func waitForQuietCPU(t *testing.T) {
	t.Helper()
	budget := quietMaxWait
	if d, ok := t.Deadline(); ok {
		budget = min(budget, time.Until(d)-measureTime-30*time.Second)
	}
	started := time.Now()
	quiet, last := 0, -1.0
	for quiet < quietSamples {
		if time.Since(started) >= budget {
			t.Logf("the processors are still busy (%.0f%% over the last %s) after %s: measuring anyway", 100*last, quietSample, time.Since(started).Round(time.Second))
			return
		}
		busy, err := cpuBusy(quietSample)
		if err != nil {
			t.Logf("cannot read the processors' load (%v): measuring now", err)
			return
		}
		last = busy
		if busy <= quietBusyMax {
			quiet++
		} else {
			quiet = 0
		}
	}
	if waited := time.Since(started); waited > quietSample*quietSamples+time.Second {
		t.Logf("waited %s for the processors to be idle", waited.Round(time.Second))
	}
}

// cpuBusy answers the busy share of all processors over d, from /proc/stat's first line.
func cpuBusy(d time.Duration) (float64, error) {
	read := func() (busy, total uint64, err error) {
		b, err := os.ReadFile("/proc/stat")
		if err != nil {
			return 0, 0, err
		}
		line, _, _ := strings.Cut(string(b), "\n")
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != "cpu" {
			return 0, 0, fmt.Errorf("/proc/stat starts with %q", line)
		}
		for i, x := range f[1:] {
			var n uint64
			if _, err := fmt.Sscan(x, &n); err != nil {
				return 0, 0, err
			}
			total += n
			if i != 3 && i != 4 { // idle, iowait
				busy += n
			}
		}
		return busy, total, nil
	}
	b0, t0, err := read()
	if err != nil {
		return 0, err
	}
	time.Sleep(d)
	b1, t1, err := read()
	if err != nil {
		return 0, err
	}
	if t1 == t0 {
		return 0, nil
	}
	return float64(b1-b0) / float64(t1-t0), nil
}

// seedHerd makes a farm of herdSize animals the way a farmer brings a herd in, with one
// import (tag, name, EID for one in three, sex, birth date, breed, dam and sire for the
// younger ones, a group, weights for some), and answers the farm's id and the id of T-00162:
// a cow with an EID, parents, calves and four weights, whose page the test measures.
func seedHerd(t *testing.T, app *herdbooktest.App, u herdbooktest.User) (farm, animal string) {
	t.Helper()
	f := app.MustFarm(u, "Lighthouse Farm")
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"tag", "name", "eid", "sex", "birth_date", "breed", "dam", "sire", "group", "weights"})
	tag := func(i int) string { return fmt.Sprintf("T-%05d", i) }
	for i := 0; i < herdSize; i++ {
		sex, eid, dam, sire, weights := "female", "", "", "", ""
		if i%10 == 0 {
			sex = "male"
		}
		if i%3 == 0 {
			eid = fmt.Sprintf("826%012d", 4000000+i)
		}
		// From the 150th on, an animal is the calf of the cow born 100 places before it (an
		// even one) or 137 places before it (an odd one), unless that is a bull, and of the
		// bull born before its dam: each even cow has two calves.
		if i >= 150 {
			d := i - 100
			if i%2 == 1 {
				d = i - 137
			}
			if d%10 != 0 {
				dam, sire = tag(d), tag(d-d%10)
			}
		}
		born := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 7*i)
		if i%4 == 2 {
			var ws []string
			for k := 0; k < 4; k++ {
				ws = append(ws, fmt.Sprintf("%s:%d", born.AddDate(0, 6*(k+1), 0).Format(time.DateOnly), 180+90*k+i%40))
			}
			weights = strings.Join(ws, ";")
		}
		_ = w.Write([]string{tag(i), fmt.Sprintf("Cow %d", i), eid, sex, born.Format(time.DateOnly), "Hereford", dam, sire,
			fmt.Sprintf("Herd %d", i%6), weights})
	}
	w.Flush()
	res, err := app.Service.ImportAnimals(app.Ctx(u), f.ID, &b, herdbook.ImportOptions{})
	if err != nil {
		t.Fatalf("import the herd: %v", err)
	}
	if res.Created != herdSize {
		t.Fatalf("imported %d animals, want %d", res.Created, herdSize)
	}
	for _, r := range res.Animals {
		if r.Tag == tag(162) && r.AnimalID != nil {
			return f.ID.String(), r.AnimalID.String()
		}
	}
	t.Fatalf("the import did not answer %s", tag(162))
	return "", ""
}
