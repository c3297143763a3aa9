package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/graph"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// envCitus names the coordinator of a test cluster (scripts/citus.sh), as internal/db/citus's
// TestLayout reads it.
const envCitus = "HERDBOOK_TEST_CITUS_URL"

// spanningCalls are the calls of TestFarmRequestOnOneShard whose statements are still
// refused on a cluster, each with why: those that span farms by their nature (the farm list,
// the preferences' defaults) and those of a farm's request not yet naming the farm
// (docs/scaling.md, "Statements on one shard"). A call listed here may have refused
// statements, and the test fails when one of them has none, so that the list only shrinks.
var spanningCalls = map[string]string{
	"GET /farm":             farmList,
	"graphql Farms":         farmList,
	"graphql Notifications": preferences,
}

// Why the calls of spanningCalls are refused.
const (
	farmList    = "the viewer's farm list: farms of every shard"
	preferences = "the viewer's notification preferences of the farm and their defaults, kept under the nil farm"
)

// TestFarmRequestOnOneShard is issue 30's item 3: every statement of a farm's request names
// the farm, so that a Citus cluster routes it to the farm's shard. It lays a scratch schema of
// the test cluster out, serves Herdbook from connections on which Citus refuses any statement
// that would run on more than one shard (citus.multi_task_query_log_level = 'error'), writes
// a farm (the screens farm of 40 animals: a group and memberships, weighings, treatments, a
// calving) through REST and GraphQL, and then sends a broad set of the farm's REST paths and
// every query of the web app (appScreens). It fails listing each call's refused statements,
// except the calls of spanningCalls. Skipped without HERDBOOK_TEST_CITUS_URL.
func TestFarmRequestOnOneShard(t *testing.T) {
	base := os.Getenv(envCitus)
	if base == "" {
		t.Skipf("%s is not set", envCitus)
	}
	ctx := context.Background()
	url, cleanup, err := db.ScratchPostgres(ctx, base)
	if err != nil {
		t.Fatalf("coordinator at %s: %v", envCitus, err)
	}
	t.Cleanup(cleanup)
	layout, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := layout.Migrate(ctx, nil); err != nil {
		layout.Close()
		t.Fatal(err)
	}
	layout.Close()
	// The server's connections: every statement that Citus would split into tasks on several
	// shards is an error (a runtime parameter of each connection, from the URL).
	strict, err := db.Open(ctx, url+"&citus.multi_task_query_log_level=error")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { strict.Close() })
	strict.SetPoolWait(time.Minute)

	var mu sync.Mutex
	var refused []string
	stop := strict.ObserveFailed(func(q string, err error) {
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "25P02" {
			return // a statement after the refused one, in its transaction
		}
		mu.Lock()
		refused = append(refused, fmt.Sprintf("%v\n\t\t%s", err, q))
		mu.Unlock()
	})
	t.Cleanup(stop)
	app := herdbooktest.NewApp(t, strict)

	type outcome struct {
		name    string
		refused []string
		failed  string // a 5xx or a GraphQL error, when no statement explains it
	}
	var outcomes []outcome
	// The ids of the farm's things, by the names the calls are listed with (spanningCalls).
	placeholders := map[string]string{}
	named := func(name string) string {
		for id, p := range placeholders {
			if id != "" {
				name = strings.ReplaceAll(name, id, p)
			}
		}
		return name
	}
	call := func(name string, fn func() string) {
		t.Helper()
		name = named(name)
		mu.Lock()
		refused = nil
		mu.Unlock()
		logged := errorLines.Load()
		failed := fn()
		if _, spans := spanningCalls[name]; spans {
			// The server logs a refused statement as its failure: expected of these.
			errorLines.Add(logged - errorLines.Load())
		}
		mu.Lock()
		o := outcome{name: name, refused: refused, failed: failed}
		refused = nil
		mu.Unlock()
		outcomes = append(outcomes, o)
	}
	s := &screensFarm{owner: app.MustUser(), today: time.Now().UTC().Format(time.DateOnly), ops: map[string]string{}}
	gql := func(query string, vars map[string]any) (map[string]any, string) {
		// The farm of the page, as the web app names it (graph.FarmHintHeader).
		var hint []string
		if s.Farm != uuid.Nil {
			hint = []string{graph.FarmHintHeader, s.Farm.String()}
		}
		res := app.Do("POST", "/graphql", s.owner.Token, map[string]any{"query": query, "variables": vars}, hint...)
		if res.Status >= 500 {
			return nil, fmt.Sprintf("%d %.300s", res.Status, res.Body)
		}
		out := res.JSON(t)
		if out["errors"] != nil {
			return out, fmt.Sprintf("%.300v", out["errors"])
		}
		return out, ""
	}
	rest := func(method, path string, body any) func() string {
		return func() string {
			// Not app.Do, which fails the test when a streamed answer (a CSV) breaks off.
			var rd io.Reader
			switch b := body.(type) {
			case nil:
			case string:
				rd = strings.NewReader(b)
			default:
				j, err := json.Marshal(b)
				if err != nil {
					t.Fatal(err)
				}
				rd = bytes.NewReader(j)
			}
			req, err := http.NewRequest(method, app.URL+"/v1"+path, rd)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+s.owner.Token)
			if rd != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			res, err := app.Server.Client().Do(req)
			if err != nil {
				return err.Error()
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil {
				return err.Error()
			}
			if res.StatusCode >= 500 {
				return fmt.Sprintf("%d %.300s", res.StatusCode, b)
			}
			return ""
		}
	}

	// The farm: the screens farm of 40 animals (newScreensFarm's writes, each a call).
	s.BigHerd = app.MustBigHerd(s.owner.ID, 40)
	cow, err := app.DB.Client.Animal.Query().Where(animal.FarmID(s.Farm), animal.Tag(s.Tag(4))).OnlyID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.cow = cow
	heifer, err := app.DB.Client.Animal.Query().Where(animal.FarmID(s.Farm), animal.Tag(s.Tag(5))).OnlyID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	farm := "/farm/" + s.Farm.String()
	placeholders[s.Farm.String()], placeholders[cow.String()], placeholders[heifer.String()], placeholders[s.Group.String()] =
		"{farm}", "{cow}", "{heifer}", "{group}"
	placeholders[time.Now().UTC().AddDate(0, 0, -30).Format(time.DateOnly)] = "{a month ago}"
	zone := "UTC"
	call("service UpdateFarmSettings", func() string {
		if _, err := app.Service.UpdateFarmSettings(app.Ctx(s.owner), s.Farm, herdbook.FarmSettingsPatch{TimeZone: herdbook.Optional[string]{Set: true, Value: &zone}}); err != nil {
			return err.Error()
		}
		return ""
	})
	day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format(time.DateOnly) }
	var medicine any
	call("graphql medicineCreate", func() string {
		out, failed := gql(`mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Penicillin", withdrawalMeatDays: 28,
			withdrawalMilkHours: 96}) { medicine { id } } }`, map[string]any{"f": s.Farm.String()})
		if failed == "" {
			medicine = dig(t, out, "data.medicineCreate.medicine.id")
		}
		return failed
	})
	for _, w := range []struct {
		name, query string
		vars        map[string]any
	}{
		{"graphql factCreate treatment of a group", `mutation($f: ID!, $g: ID!, $m: ID!, $d: Date!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, groupID: $g, day: $d}}}) { record { id } } }`,
			map[string]any{"g": s.Group.String(), "m": medicine, "d": "2024-06-01"}},
		{"graphql weightRecord", `mutation($f: ID!, $a: ID!, $d: Date!) { weightRecord(input: {farmID: $f, animalID: $a, date: $d, kg: 540}) { animal { id } } }`,
			map[string]any{"a": cow.String(), "d": day(-60)}},
		{"graphql calvingRecord", `mutation($f: ID!, $a: ID!, $d: Date!) { calvingRecord(input: {farmID: $f, damID: $a, date: $d,
			calves: [{tag: "CALF-1", sex: "female", status: "alive", birthWeight: 38}]}) { created } }`,
			map[string]any{"a": cow.String(), "d": day(-30)}},
		{"graphql weightRecord again", `mutation($f: ID!, $a: ID!, $d: Date!) { weightRecord(input: {farmID: $f, animalID: $a, date: $d, kg: 512.5}) { animal { id } } }`,
			map[string]any{"a": cow.String(), "d": day(-2)}},
		{"graphql factCreate treatment of an animal", `mutation($f: ID!, $a: ID!, $m: ID!, $d: Date!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $a, day: $d}}}) { record { id } } }`,
			map[string]any{"a": cow.String(), "m": medicine, "d": day(-3)}},
		{"graphql factCreate membership", `mutation($f: ID!, $a: ID!, $g: ID!, $d: Date!) { factCreate(input: {farmID: $f, fact: {membership: {animalID: $a, groupID: $g, startDate: $d}}}) { record { id } } }`,
			map[string]any{"a": heifer.String(), "g": s.Group.String(), "d": day(-1)}},
	} {
		w.vars["f"] = s.Farm.String()
		call(w.name, func() string { _, failed := gql(w.query, w.vars); return failed })
	}

	// The farm's REST surface (../shared/SPEC.md; rest/routes.go): its reads, and writes of
	// each kind of thing.
	// The calf and the latest record (idsOf's), or the cow when the calving was refused.
	idsNow := func() screenIDs {
		ids := screenIDs{calf: cow.String()}
		if calf, err := app.DB.Client.Animal.Query().Where(animal.FarmID(s.Farm), animal.Tag("CALF-1")).OnlyID(ctx); err == nil {
			ids.calf = calf.String()
		}
		if rec, err := app.DB.Client.Record.Query().Where(record.FarmID(s.Farm)).Order(ent.Desc(record.FieldCreatedAt)).FirstID(ctx); err == nil {
			ids.record = rec.String()
		}
		return ids
	}
	ids := idsNow()
	placeholders[ids.record] = "{record}"
	if ids.calf != cow.String() {
		placeholders[ids.calf] = "{calf}"
	}
	created := func(path string, body any) string {
		res := app.Do("POST", "/v1"+path, s.owner.Token, body)
		if res.Status != 201 && res.Status != 200 {
			return ""
		}
		id, _ := res.JSON(t)["id"].(string)
		return id
	}
	cowPath := farm + "/animals/" + cow.String()
	reads := []string{
		"/farm", farm, farm + "/settings", farm + "/holding", farm + "/notices",
		farm + "/records", farm + "/records?limit=5&type=HEALTH", farm + "/records/" + ids.record, farm + "/audit", farm + "/audit.csv",
		farm + "/records.csv", farm + "/animals.csv", farm + "/breeding.csv", farm + "/archive",
		farm + "/animals", farm + "/animals?sex=female&group_id=" + s.Group.String(), cowPath, cowPath + "/timeline", cowPath + "/pedigree",
		cowPath + "/passport", cowPath + "/passport.html", cowPath + "/weights", farm + "/animals/" + ids.calf + "/pedigree",
		farm + "/calvings", farm + "/kinship", farm + "/groups", farm + "/groups/" + s.Group.String(),
		farm + "/medicines", farm + "/withdrawals", farm + "/treatment-conflicts", farm + "/medicine-book.csv", farm + "/medicine-book.html",
		farm + "/medicine-purchases", farm + "/medicine-stock", farm + "/notifications", farm + "/webhooks",
		farm + "/birth-history/settings", farm + "/birth-history/protocol",
		farm + "/birth-history/evidence?dam_id=" + cow.String() + "&birth_date=" + day(-30),
		farm + "/outside-animals", farm + "/due", farm + "/due.csv", farm + "/farm-tasks",
		"/file?farm_id=" + s.Farm.String(),
	}
	for _, r := range herdbook.Reports {
		reads = append(reads, farm+"/reports/"+r, farm+"/reports/"+r+".csv")
	}
	for _, p := range reads {
		call("GET "+p, rest("GET", p, nil))
	}
	var calving string
	call("GET calving", func() string {
		res := app.Do("GET", "/v1"+farm+"/calvings", s.owner.Token, nil)
		if res.Status >= 500 {
			return fmt.Sprintf("%d %.300s", res.Status, res.Body)
		}
		if d, ok := res.JSON(t)["data"].([]any); ok && len(d) > 0 {
			calving, _ = d[0].(map[string]any)["id"].(string)
			if res := app.Do("GET", "/v1"+farm+"/calvings/"+calving, s.owner.Token, nil); res.Status >= 500 {
				return fmt.Sprintf("%d %.300s", res.Status, res.Body)
			}
		}
		return ""
	})

	// Writes.
	call("PUT farm", rest("PUT", farm, map[string]any{"name": "Big Farm East"}))
	call("PUT settings", rest("PUT", farm+"/settings", map[string]any{"time_zone": "Europe/London"}))
	var animalID string
	call("POST animal", func() string {
		animalID = created(farm+"/animals", map[string]any{"tag": "NEW-1", "sex": "female", "birth_date": "2022-01-01"})
		if animalID == "" {
			return "not created"
		}
		return ""
	})
	call("PUT animal", rest("PUT", farm+"/animals/"+animalID, map[string]any{"tag": "NEW-2", "name": "Daisy"}))
	var record string
	call("POST record", func() string {
		record = created(farm+"/records", map[string]any{
			"animal_ids": []string{cow.String()}, "name": "Weighing", "type": "OTHER", "applied_at": day(-5) + "T00:00:00Z",
			"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
				"kind": "weight", "animal_id": cow.String(), "date": day(-5), "kg": 530}}}}})
		if record == "" {
			return "not created"
		}
		return ""
	})
	call("PUT record", rest("PUT", farm+"/records/"+record, map[string]any{"name": "Weighed"}))
	call("GET record", rest("GET", farm+"/records/"+record, nil))
	var group string
	call("POST group", func() string {
		group = created(farm+"/groups", map[string]any{"name": "Calves"})
		return ""
	})
	call("PUT group animals", rest("PUT", farm+"/groups/"+group+"/animals", map[string]any{"animal_ids": []string{animalID}, "start_date": day(-1)}))
	var med string
	call("POST medicine", func() string {
		med = created(farm+"/medicines", map[string]any{"name": "Oxytetracycline", "withdrawal_meat_days": 21})
		return ""
	})
	call("PUT medicine", rest("PUT", farm+"/medicines/"+med, map[string]any{"name": "Oxytetracycline LA"}))
	call("GET medicine", rest("GET", farm+"/medicines/"+med, nil))
	call("POST treatment record", rest("POST", farm+"/records", map[string]any{
		"animal_ids": []string{animalID}, "name": "Treatment", "type": "HEALTH", "applied_at": day(-1) + "T00:00:00Z",
		"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": map[string]any{
			"kind": "treatment", "animal_id": animalID, "medicine_id": med, "date": day(-1)}}}}}))
	call("POST medicine purchase", rest("POST", farm+"/medicine-purchases", map[string]any{"medicine_id": med, "date": day(-1), "quantity": 10, "unit": "ml", "supplier": "Vet"}))
	var outside string
	call("POST outside animal", func() string {
		outside = created(farm+"/outside-animals", map[string]any{"name": "Bull", "sex": "male", "breed": "Angus"})
		return ""
	})
	call("PUT outside animal", rest("PUT", farm+"/outside-animals/"+outside, map[string]any{"name": "Bull II", "sex": "male"}))
	call("GET outside animal", rest("GET", farm+"/outside-animals/"+outside, nil))
	call("PUT birth settings", rest("PUT", farm+"/birth-history/settings", `{"version":1,"species":"CATTLE","gestation_days":{"min":279,"max":292},"minimum_sire_age_days":365}`))
	call("PUT protocol", rest("PUT", farm+"/birth-history/protocol", `{"steps":[{"name":"Weigh calf","offset_days":1},{"name":"Tag calf","offset_days":3}]}`))
	call("POST calving", rest("POST", farm+"/calvings", map[string]any{"dam_id": heifer.String(), "date": day(-1),
		"calves": []map[string]any{{"tag": "CALF-2", "sex": "male", "status": "alive"}}}))
	call("PUT farm task", func() string {
		res := app.Do("GET", "/v1"+farm+"/farm-tasks", s.owner.Token, nil)
		if d, ok := res.JSON(t)["data"].([]any); ok && len(d) > 0 {
			task, _ := d[0].(map[string]any)["id"].(string)
			return rest("PUT", farm+"/farm-tasks/"+task, map[string]any{"status": "DONE", "request_id": "done-1"})()
		}
		return ""
	})
	var hook string
	call("POST webhook", func() string {
		hook = created(farm+"/webhooks", map[string]any{"url": "https://example.com/hook", "events": []string{"record.created"}})
		return ""
	})
	call("GET webhook", rest("GET", farm+"/webhooks/"+hook, nil))
	call("PUT webhook", rest("PUT", farm+"/webhooks/"+hook, map[string]any{"url": "https://example.com/hook2", "events": []string{"record.created"}}))
	call("GET webhook deliveries", rest("GET", farm+"/webhooks/"+hook+"/deliveries", nil))
	var file string
	call("POST file", func() string {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField("farm_id", s.Farm.String())
		_ = mw.WriteField("record_id", record)
		w, _ := mw.CreateFormFile("files", "note.pdf")
		_, _ = w.Write([]byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n"))
		_ = mw.Close()
		res := app.Do("POST", "/v1/file", s.owner.Token, buf.Bytes(), "Content-Type", mw.FormDataContentType())
		if res.Status >= 500 {
			return fmt.Sprintf("%d %.300s", res.Status, res.Body)
		}
		if d, ok := res.JSON(t)["data"].([]any); ok && len(d) > 0 {
			file, _ = d[0].(map[string]any)["id"].(string)
		}
		return ""
	})
	call("GET record with file", rest("GET", farm+"/records/"+record, nil))
	call("GET file", rest("GET", "/file/"+file, nil))
	call("GET file content", rest("GET", "/file/"+file+"/content", nil))
	call("POST file association", rest("POST", "/file/"+file+"/associations", map[string]any{"record_ids": []string{ids.record}}))
	call("DELETE file association", rest("DELETE", "/file/"+file+"/associations", map[string]any{"record_ids": []string{ids.record}}))
	call("POST record void", rest("POST", farm+"/records/"+record+"/void", map[string]any{"reason": "entered twice"}))
	call("DELETE file", rest("DELETE", "/file/"+file, nil))
	call("DELETE webhook", rest("DELETE", farm+"/webhooks/"+hook, nil))
	call("DELETE outside animal", rest("DELETE", farm+"/outside-animals/"+outside, nil))
	call("DELETE animal", rest("DELETE", farm+"/animals/"+animalID, nil))

	// Every query of the web app, with the variables it sends (appScreens).
	ids = idsNow()
	for _, a := range appScreens() {
		op := herdbooktest.AppOperation(t, "..", a.file, a.operation())
		call("graphql "+a.op, func() string { _, failed := gql(op, a.vars(s, ids)); return failed })
	}

	// The report.
	var report []string
	fixed := 0
	for _, o := range outcomes {
		if len(o.refused) > 0 && os.Getenv("SHARD_DEBUG") != "" {
			t.Logf("REFUSED\t%s\t%s", o.name, strings.ReplaceAll(o.refused[0], "\n", " "))
		}
		_, spans := spanningCalls[o.name]
		switch {
		case len(o.refused) > 0 && !spans:
			report = append(report, fmt.Sprintf("%s: %d refused:\n\t%s", o.name, len(o.refused), strings.Join(o.refused, "\n\t")))
		case len(o.refused) == 0 && spans && spanningCalls[o.name] != preferences:
			// (The preferences' two farms, the nil one and the farm, are on one shard for one
			// farm in four of the test cluster's: such a call may pass.)
			fixed++
			t.Errorf("%s is in spanningCalls but no statement of it was refused: take it out of the list", o.name)
		}
		if o.failed != "" && len(o.refused) == 0 {
			t.Logf("%s failed without a refused statement: %s", o.name, o.failed)
		}
	}
	n := 0
	for _, o := range outcomes {
		n += len(o.refused)
	}
	t.Logf("%d calls, %d refused statements (%d calls listed in spanningCalls)", len(outcomes), n, len(spanningCalls))
	if len(report) > 0 {
		slices.Sort(report)
		t.Errorf("statements Citus refused, as they would run on more than one shard:\n%s", strings.Join(report, "\n"))
	}
}
