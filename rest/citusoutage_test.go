package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// The Citus cluster TestWorkerKilledDuringWrites may kill a worker of: its data directory and
// coordinator port, as scripts/citus.sh's HERDBOOK_CITUS_DIR and HERDBOOK_CITUS_PORT. It must
// be a cluster of its own (.ci/run starts one on port 9740), never the one other tests use.
const (
	envOutageDir  = "HERDBOOK_TEST_CITUS_OUTAGE_DIR"
	envOutagePort = "HERDBOOK_TEST_CITUS_OUTAGE_PORT"
)

// TestWorkerKilledDuringWrites is issue 30's outage check: two Herdbook nodes serve one Citus
// cluster while farms spread over its two workers take writes through both; one worker's
// PostgreSQL is killed with SIGKILL in the middle of them and started again. Every answer is
// a success or a 503 (an outage the client may retry, never a 500), the writes of farms on the
// live worker go on, and once the worker is back every write that was acknowledged is there,
// and both nodes list the same animals.
func TestWorkerKilledDuringWrites(t *testing.T) {
	dir, port := os.Getenv(envOutageDir), os.Getenv(envOutagePort)
	if dir == "" || port == "" {
		t.Skipf("%s and %s are not set", envOutageDir, envOutagePort)
	}
	ctx := context.Background()
	url, cleanup, err := db.ScratchPostgres(ctx, "postgres://127.0.0.1:"+port+"/test?sslmode=disable")
	if err != nil {
		t.Fatalf("coordinator on port %s: %v", port, err)
	}
	t.Cleanup(cleanup)
	d, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	d.SetPoolWait(time.Minute)
	if _, err := d.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// The second node has a connection pool of its own, as a second server would.
	d2, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d2.Close() })
	d2.SetPoolWait(time.Minute)
	nodes := []*herdbooktest.App{herdbooktest.NewApp(t, d), herdbooktest.NewApp(t, d2, herdbooktest.Options{SecondNode: true})}
	owner := nodes[0].MustUser()
	var farms []uuid.UUID
	for i := range 8 { // 8 farms over 4 shards on 2 workers: both workers hold some
		farms = append(farms, nodes[0].MustFarm(owner, fmt.Sprintf("Farm %d", i)).ID)
	}

	type answer struct {
		farm   uuid.UUID
		tag    string
		status int
	}
	var (
		mu      sync.Mutex
		answers []answer
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	post := func(node *herdbooktest.App, farm uuid.UUID, tag string) int {
		body, _ := json.Marshal(map[string]any{"tag": tag})
		req, _ := http.NewRequest("POST", node.URL+"/v1/farm/"+farm.String()+"/animals", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+owner.Token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i, farm := range farms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				tag := fmt.Sprintf("W-%d-%04d", i, n)
				s := post(nodes[n%2], farm, tag)
				mu.Lock()
				answers = append(answers, answer{farm, tag, s})
				mu.Unlock()
				if s != http.StatusCreated {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	pid := postmaster(t, filepath.Join(dir, "worker1"))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 worker1 (%d): %v", pid, err)
	}
	killedAt := len(answers)
	time.Sleep(2 * time.Second)
	start := exec.Command("bash", "../scripts/citus.sh", "start")
	start.Env = append(os.Environ(), "HERDBOOK_CITUS_DIR="+dir, "HERDBOOK_CITUS_PORT="+port)
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("restart the cluster: %v\n%s", err, out)
	}
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	wg.Wait()
	// Transactions prepared on the killed worker and committed on the coordinator are
	// finished by Citus's recovery; run it now rather than wait for its daemon.
	if _, err := d.SQL.ExecContext(ctx, "SELECT recover_prepared_transactions()"); err != nil {
		t.Fatal(err)
	}

	count := map[int]int{}
	acked := map[uuid.UUID][]string{}
	for _, a := range answers {
		count[a.status]++
		if a.status == http.StatusCreated {
			acked[a.farm] = append(acked[a.farm], a.tag)
		}
	}
	t.Logf("%d writes (%d before the kill): %v", len(answers), killedAt, count)
	for s, n := range count {
		if s != http.StatusCreated && s != http.StatusServiceUnavailable {
			t.Errorf("%d answers %d, want only 201 and 503", n, s)
		}
	}
	if count[http.StatusServiceUnavailable] == 0 {
		t.Errorf("no write answered 503 while a worker was down")
	}
	after := 0
	for _, a := range answers[killedAt:] {
		if a.status == http.StatusCreated {
			after++
		}
	}
	if after == 0 {
		t.Errorf("no write succeeded after the kill: the farms of the live worker and the restarted one stopped")
	}
	for _, farm := range farms {
		tags, err := d.Client.Animal.Query().Where(animal.FarmID(farm)).Select(animal.FieldTag).Strings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, tag := range tags {
			have[tag] = true
		}
		for _, tag := range acked[farm] {
			if !have[tag] {
				t.Errorf("farm %s: acknowledged animal %s is gone", farm, tag)
			}
		}
		// Both nodes answer the farm's register alike.
		var totals []string
		for _, node := range nodes {
			res := node.Do("GET", "/v1/farm/"+farm.String()+"/animals?take=1", owner.Token, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("register after the outage: %d %s", res.Status, res.Body)
			}
			totals = append(totals, fmt.Sprint(res.JSON(t)["total"]))
		}
		if totals[0] != totals[1] || totals[0] != strconv.Itoa(len(tags)) {
			t.Errorf("farm %s: the nodes count %v animals, the database %d", farm, totals, len(tags))
		}
	}
}

// postmaster returns the process id of the PostgreSQL server of a data directory.
func postmaster(t *testing.T, dataDir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		t.Fatalf("the worker's server is not running: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatalf("postmaster.pid: %v", err)
	}
	return pid
}
