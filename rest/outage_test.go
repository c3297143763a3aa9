package rest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/oauth"
)

// wantUnavailable fails unless res is a 503 with Retry-After: the envelope, or no body on
// the bodiless birth-history operations.
func wantUnavailable(t *testing.T, res herdbooktest.Response, bodiless bool) {
	t.Helper()
	if res.Header.Get("Retry-After") != "5" {
		t.Fatalf("Retry-After %q, want 5 (status %d %s)", res.Header.Get("Retry-After"), res.Status, res.Body)
	}
	if bodiless {
		wantEmpty(t, res, http.StatusServiceUnavailable)
		return
	}
	herdbooktest.WantEnvelope(t, res, http.StatusServiceUnavailable, "ServiceError", "temporarily unavailable")
}

// TestDatabaseOutage: when the database cannot be reached the API answers 503 with
// Retry-After instead of 500, whether the bearer token's lookup or the operation's own
// queries fail.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		t.Run("ClosedPool", func(t *testing.T) {
			app := herdbooktest.NewApp(t, d)
			u := app.MustUser()
			f := app.MustFarm(u, "Outage Farm")
			key, _, err := app.Issuer.CreateAPIKey(context.Background(), oauth.APIKeyInput{UserID: u.ID, Name: "k", Scopes: herdbook.AllScopes})
			if err != nil {
				t.Fatal(err)
			}
			d.SQL.Close()
			wantUnavailable(t, app.Do("GET", "/v1/farm", u.Token, nil), false)
			wantUnavailable(t, app.Do("POST", "/v1/farm", u.Token, `{"name":"North Field","species":"CATTLE"}`), false)
			wantUnavailable(t, app.Do("GET", "/v1/farm", "", nil, "X-API-Key", key), false)
			wantUnavailable(t, app.Do("GET", "/v1/farm/"+f.ID.String()+"/birth-history/settings", u.Token, nil), true)
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm", "", nil), http.StatusUnauthorized, "Unauthorized", "")
		})
	})
	t.Run("Unreachable", func(t *testing.T) {
		// The token store answers; the service's database refuses connections.
		d := herdbooktest.MustDB(t, "sqlite")
		app := herdbooktest.NewApp(t, d, herdbooktest.Options{ServiceDB: herdbooktest.UnreachableDB(t)})
		u, err := herdbook.New(d.Client).CreateUser(context.Background(), herdbook.UserInput{PhoneNumberLocal: "+4790000001"})
		if err != nil {
			t.Fatal(err)
		}
		tok := app.MustToken(u.ID)
		farm := "/v1/farm/0190a0b2-0c5e-7d3a-9a4e-2b1c3d4e5f60"
		wantUnavailable(t, app.Do("GET", "/v1/farm", tok, nil), false)
		wantUnavailable(t, app.Do("POST", "/v1/farm", tok, `{"name":"North Field","species":"CATTLE"}`), false)
		wantUnavailable(t, app.Do("GET", farm+"/records?take=5", tok, nil), false)
		wantUnavailable(t, app.Do("GET", farm+"/farm-tasks", tok, nil), false)
		wantUnavailable(t, app.Do("GET", farm+"/birth-history/evidence?dam_id=0190a0b2-0c5e-7d3a-9a4e-2b1c3d4e5f61&birth_date=2026-04-01", tok, nil), true)
		if res := app.Do("GET", "/readyz", "", nil); res.Status != http.StatusServiceUnavailable {
			t.Fatalf("readyz: %d", res.Status)
		}
	})
}

// TestDatabaseCutOffUnderLoad (issue 22.3): while clients read and write through REST,
// GraphQL and OAuth, the PostgreSQL database stops accepting connections (ALTER DATABASE …
// ALLOW_CONNECTIONS false, SQLSTATE 55000 to every new connection) and its sessions are
// terminated (57P01), as in a failover. Every answer is then a success (a request that got
// through first) or a 503 with Retry-After in the transport's own shape, never a 500; once
// the database is back, requests succeed again. The database is a scratch one of its own,
// so that no other test loses its connections.
func TestDatabaseCutOffUnderLoad(t *testing.T) {
	t.Parallel()
	base := os.Getenv(herdbooktest.EnvPostgres)
	if base == "" {
		t.Skipf("%s is not set", herdbooktest.EnvPostgres)
	}
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("outage_%d", time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Skipf("cannot create a scratch database: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.ExecContext(ctx, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS true")
		_, _ = admin.ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	d, err := db.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	app := herdbooktest.NewApp(t, d)
	user := app.MustUser()
	f := app.MustFarm(user, "Failover Farm")
	records := "/v1/farm/" + f.ID.String() + "/records?take=5"
	gql := map[string]any{"query": "{ farms(first: 5) { totalCount edges { node { id name } } } }"}

	type answer struct {
		kind string
		res  herdbooktest.Response
	}
	var (
		mu      sync.Mutex
		answers []answer
		cut     atomic.Bool
		wg      sync.WaitGroup
		stop    = make(chan struct{})
	)
	send := func(kind string) herdbooktest.Response {
		switch kind {
		case "rest":
			return app.Do("GET", records, user.Token, nil)
		case "restWrite":
			return app.Do("POST", "/v1/farm", user.Token, `{"name":"North Field","species":"CATTLE"}`)
		case "graphql":
			return app.Do("POST", "/graphql", user.Token, gql)
		default:
			return app.Do("GET", "/oauth/userinfo", user.Token, nil)
		}
	}
	for _, kind := range []string{"rest", "restWrite", "graphql", "userinfo"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				after := cut.Load()
				res := send(kind)
				if after {
					mu.Lock()
					answers = append(answers, answer{kind, res})
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := admin.ExecContext(ctx, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS false"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.ExecContext(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", name); err != nil {
		t.Fatal(err)
	}
	cut.Store(true)
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()

	unavailable := 0
	for _, a := range answers {
		if a.res.Status < 300 {
			continue
		}
		unavailable++
		if a.res.Status != http.StatusServiceUnavailable || a.res.Header.Get("Retry-After") != "5" {
			t.Fatalf("%s: status %d, Retry-After %q: %s", a.kind, a.res.Status, a.res.Header.Get("Retry-After"), a.res.Body)
		}
		var body map[string]any
		if err := json.Unmarshal(a.res.Body, &body); err != nil {
			t.Fatalf("%s: %s", a.kind, a.res.Body)
		}
		switch a.kind {
		case "graphql":
			errs, _ := body["errors"].([]any)
			if len(errs) == 0 || body["error"] != nil || !strings.Contains(string(a.res.Body), `"code":"UNAVAILABLE"`) {
				t.Fatalf("graphql: not GraphQL's UNAVAILABLE: %s", a.res.Body)
			}
		default:
			herdbooktest.WantEnvelope(t, a.res, http.StatusServiceUnavailable, "ServiceError", "temporarily unavailable")
		}
	}
	t.Logf("%d answers after the cut, %d of them 503", len(answers), unavailable)
	if unavailable == 0 {
		t.Fatal("no request met the outage")
	}

	if _, err := admin.ExecContext(ctx, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS true"); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"rest", "graphql", "userinfo"} {
		var res herdbooktest.Response
		for range 20 { // the pool may first hand out a connection that was terminated
			if res = send(kind); res.Status == http.StatusOK {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if res.Status != http.StatusOK {
			t.Fatalf("%s after the outage: %d %s", kind, res.Status, res.Body)
		}
	}
}
