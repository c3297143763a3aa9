package rest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// birthFarm is a small worked scenario: a dam, an intact bull that ran with her, a steer
// castrated before he ran with her group, and her historical membership of that group.
type birthFarm struct {
	app                    *herdbooktest.App
	owner, reader          herdbooktest.User
	farm, dam, bull, steer string
	herd                   string
	base                   string
}

func newBirthFarm(t *testing.T, d *db.DB) *birthFarm {
	app := herdbooktest.NewApp(t, d)
	b := &birthFarm{app: app, owner: app.MustUser(), reader: app.MustUser()}
	f := app.MustFarm(b.owner, "Calving Farm")
	app.MustMember(f.ID, b.reader, herdbook.RoleReader)
	b.farm = f.ID.String()
	b.dam = app.MustAnimal(b.owner, f.ID, "DAM-1").ID.String()
	b.bull = app.MustAnimal(b.owner, f.ID, "BULL-1").ID.String()
	b.steer = app.MustAnimal(b.owner, f.ID, "STEER-1").ID.String()
	b.herd = app.MustGroup(b.owner, f.ID, "Summer herd").ID.String()
	b.base = "/v1/farm/" + b.farm
	b.facts(t,
		map[string]any{"kind": "profile", "animal_id": b.dam, "sex": "female", "birth_date": "2021-04-01", "breed": "Angus"},
		map[string]any{"kind": "profile", "animal_id": b.bull, "sex": "male", "birth_date": "2022-03-10", "breed": "Hereford"},
		map[string]any{"kind": "profile", "animal_id": b.steer, "sex": "male", "birth_date": "2022-02-01"},
		map[string]any{"kind": "castration", "animal_id": b.steer, "date": "2022-06-01"},
		map[string]any{"kind": "exposure", "sire_id": b.bull, "dam_id": b.dam, "start_date": "2025-05-01", "end_date": "2025-07-31"},
		map[string]any{"kind": "membership", "animal_id": b.dam, "group_id": b.herd, "start_date": "2025-04-01", "end_date": "2025-09-30"},
		map[string]any{"kind": "exposure", "sire_id": b.steer, "group_id": b.herd, "start_date": "2025-05-15", "end_date": "2025-06-30"},
	)
	return b
}

// facts records each fact as one record item, as a farmer's app would.
func (b *birthFarm) facts(t *testing.T, facts ...map[string]any) {
	t.Helper()
	for _, f := range facts {
		res := b.app.Do("POST", b.base+"/records", b.owner.Token, map[string]any{
			"animal_ids": []string{b.dam}, "name": "fact", "type": "GENETIC", "applied_at": "2025-01-01T00:00:00Z",
			"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": f}}},
		})
		if res.Status != 201 {
			t.Fatalf("fact %v: %d %s", f, res.Status, res.Body)
		}
	}
}

const cattleSettings = `{"version":1,"species":"CATTLE","gestation_days":{"min":279,"max":292},"minimum_sire_age_days":365,
	"birth_windows":[{"label":"Spring","start_date":"2026-03-01","end_date":"2026-04-30"},{"label":"Late spring","start_date":"2026-04-15","end_date":"2026-05-31"}]}`

func wantEmpty(t *testing.T, res herdbooktest.Response, status int) {
	t.Helper()
	if res.Status != status || len(res.Body) != 0 {
		t.Fatalf("status %d body %q, want %d with no body", res.Status, res.Body, status)
	}
}

func TestBirthSettings(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		path := b.base + "/birth-history/settings"
		t.Run("NotConfigured", func(t *testing.T) {
			body := b.app.Do("GET", path, b.reader.Token, nil).JSON(t)
			if body["species"] != "CATTLE" || body["settings"] != nil {
				t.Fatalf("body = %v", body)
			}
		})
		t.Run("PutReplacesWhole", func(t *testing.T) {
			res := b.app.Do("PUT", path, b.owner.Token, cattleSettings)
			if res.Status != 200 {
				t.Fatalf("status %d %s", res.Status, res.Body)
			}
			res = b.app.Do("PUT", "/api"+path, b.owner.Token, `{"version":1,"species":"CATTLE"}`)
			body := res.JSON(t)
			st := body["settings"].(map[string]any)
			if _, ok := st["gestation_days"]; ok || len(st["birth_windows"].([]any)) != 0 || body["species"] != "CATTLE" {
				t.Fatalf("settings were merged, not replaced: %v", body)
			}
		})
		for _, tc := range []struct{ name, body string }{
			{"ErrSpeciesMismatch", `{"version":1,"species":"SHEEP"}`},
			{"ErrVersion", `{"version":2,"species":"CATTLE"}`},
			{"ErrVersionMissing", `{"species":"CATTLE"}`},
			{"ErrGestationOrder", `{"version":1,"species":"CATTLE","gestation_days":{"min":300,"max":280}}`},
			{"ErrGestationRange", `{"version":1,"species":"CATTLE","gestation_days":{"min":0,"max":2001}}`},
			{"ErrSireAge", `{"version":1,"species":"CATTLE","minimum_sire_age_days":10001}`},
			{"ErrWindowDate", `{"version":1,"species":"CATTLE","birth_windows":[{"label":"x","start_date":"2026-02-30","end_date":"2026-03-01"}]}`},
			{"ErrWindowOrder", `{"version":1,"species":"CATTLE","birth_windows":[{"label":"x","start_date":"2026-04-01","end_date":"2026-03-01"}]}`},
			{"ErrWindowLabel", `{"version":1,"species":"CATTLE","birth_windows":[{"label":"","start_date":"2026-03-01","end_date":"2026-03-02"}]}`},
			{"ErrTooManyWindows", `{"version":1,"species":"CATTLE","birth_windows":[` + strings.TrimSuffix(strings.Repeat(`{"label":"w","start_date":"2026-03-01","end_date":"2026-03-02"},`, 41), ",") + `]}`},
			{"ErrWrongType", `{"version":"1","species":"CATTLE"}`},
			{"ErrMalformed", `{"version":1,`},
		} {
			t.Run(tc.name, func(t *testing.T) { wantEmpty(t, b.app.Do("PUT", path, b.owner.Token, tc.body), 400) })
		}
		t.Run("ErrReaderRole", func(t *testing.T) { wantEmpty(t, b.app.Do("PUT", path, b.reader.Token, cattleSettings), 401) })
		t.Run("ErrNoAuth", func(t *testing.T) { wantEmpty(t, b.app.Do("GET", path, "", nil), 401) })
		t.Run("ErrMissingScope", func(t *testing.T) {
			wantEmpty(t, b.app.Do("GET", path, b.app.MustToken(b.owner.ID, herdbook.ScopeReadFarms), nil), 403)
		})
		t.Run("ErrOtherFarm", func(t *testing.T) {
			other := b.app.MustUser()
			wantEmpty(t, b.app.Do("GET", path, other.Token, nil), 404)
		})
		t.Run("ErrBadFarmID", func(t *testing.T) {
			wantEmpty(t, b.app.Do("GET", "/v1/farm/x/birth-history/settings", b.owner.Token, nil), 400)
		})
	})
}

func TestBirthEvidence(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		if res := b.app.Do("PUT", b.base+"/birth-history/settings", b.owner.Token, cattleSettings); res.Status != 200 {
			t.Fatalf("settings: %d", res.Status)
		}
		evidenceOf := func(dam, date string) herdbooktest.Response {
			return b.app.Do("GET", b.base+"/birth-history/evidence?dam_id="+dam+"&birth_date="+date, b.reader.Token, nil)
		}
		t.Run("GoldenPresumed", func(t *testing.T) {
			res := evidenceOf(b.dam, "2026-04-20")
			if res.Status != 200 {
				t.Fatalf("status %d %s", res.Status, res.Body)
			}
			ev := res.JSON(t)
			if ev["evidence_version"] != float64(1) || ev["settings_status"] != "configured" || ev["planned_window_status"] != "within" {
				t.Fatalf("evidence = %s", res.Body)
			}
			if n := len(ev["matching_birth_windows"].([]any)); n != 2 {
				t.Fatalf("%d matching windows, want both", n)
			}
			cw := ev["conception_window"].(map[string]any)
			if cw["start_date"] != "2025-07-02" || cw["end_date"] != "2025-07-15" {
				t.Fatalf("conception window = %v", cw)
			}
			sire := ev["sire"].(map[string]any)
			// The sire's breed first, as breeders write a cross (Limousin Australia's codes: DOMAIN.md).
			if sire["status"] != "presumed" || sire["animal_id"] != b.bull || sire["presumed_cross"] != "Hereford × Angus" {
				t.Fatalf("sire = %v", sire)
			}
			if c := sire["confidence"].(float64); c <= 0 || c >= 1 {
				t.Fatalf("confidence %v must be in (0, 1)", c)
			}
			got := map[string]string{}
			for _, c := range sire["candidates"].([]any) {
				c := c.(map[string]any)
				got[c["animal_id"].(string)] = c["eligibility"].(string)
			}
			if got[b.bull] != "plausible" || len(got) != 1 {
				t.Fatalf("candidates = %v (the steer's exposure ended before the window)", got)
			}
		})
		t.Run("CastratedSteerExcluded", func(t *testing.T) {
			ev := evidenceOf(b.dam, "2026-03-25").JSON(t)
			got := map[string]string{}
			for _, c := range ev["sire"].(map[string]any)["candidates"].([]any) {
				c := c.(map[string]any)
				got[c["animal_id"].(string)] = c["eligibility"].(string)
			}
			if got[b.steer] != "excluded" {
				t.Fatalf("candidates = %v; the steer ran with the dam's group in this window but was castrated", got)
			}
		})
		t.Run("Outside", func(t *testing.T) {
			if ev := evidenceOf(b.dam, "2026-08-01").JSON(t); ev["planned_window_status"] != "outside" || ev["sire"].(map[string]any)["status"] != "unknown" {
				t.Fatalf("evidence = %v", ev)
			}
		})
		t.Run("ReadsOnly", func(t *testing.T) {
			before := b.app.Do("GET", b.base+"/records", b.owner.Token, nil).JSON(t)["total"]
			evidenceOf(b.dam, "2026-04-20")
			if after := b.app.Do("GET", b.base+"/records", b.owner.Token, nil).JSON(t)["total"]; after != before {
				t.Fatalf("the review wrote records: %v then %v", before, after)
			}
		})
		for _, tc := range []struct {
			name, query string
			status      int
		}{
			{"ErrDateFormat", "dam_id=" + b.dam + "&birth_date=2026-4-20", 400},
			{"ErrDateNotReal", "dam_id=" + b.dam + "&birth_date=2026-02-30", 400},
			{"ErrDateMissing", "dam_id=" + b.dam, 400},
			{"ErrDamNotUUID", "dam_id=cow&birth_date=2026-04-20", 400},
			{"ErrDamMissing", "birth_date=2026-04-20", 400},
			{"ErrDamUnknown", "dam_id=" + uuid.NewString() + "&birth_date=2026-04-20", 404},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantEmpty(t, b.app.Do("GET", b.base+"/birth-history/evidence?"+tc.query, b.reader.Token, nil), tc.status)
			})
		}
		t.Run("ErrNeedsReadAnimals", func(t *testing.T) {
			tok := b.app.MustToken(b.reader.ID, herdbook.ScopeReadRecords)
			wantEmpty(t, b.app.Do("GET", b.base+"/birth-history/evidence?dam_id="+b.dam+"&birth_date=2026-04-20", tok, nil), 403)
		})
		t.Run("ErrOtherFarmsDam", func(t *testing.T) {
			stranger := b.app.MustUser()
			sf := b.app.MustFarm(stranger, "Theirs")
			theirDam := b.app.MustAnimal(stranger, sf.ID, "D").ID.String()
			wantEmpty(t, evidenceOf(theirDam, "2026-04-20"), 404)
			wantEmpty(t, b.app.Do("GET", "/v1/farm/"+sf.ID.String()+"/birth-history/evidence?dam_id="+theirDam+"&birth_date=2026-04-20", b.owner.Token, nil), 404)
		})
		t.Run("DamCheck", func(t *testing.T) {
			// The dam check rides on the settings statement; a farm without settings asks
			// with a statement of its own. Both answer alike, and a dam that left the farm
			// (deleted) is still its animal.
			other := b.app.MustFarm(b.owner, "Unconfigured")
			for _, farm := range []string{b.farm, other.ID.String()} {
				path := "/v1/farm/" + farm + "/birth-history/evidence?birth_date=2026-04-20&dam_id="
				own := b.app.MustAnimal(b.owner, uuid.MustParse(farm), "GONE").ID.String()
				if res := b.app.Do("DELETE", "/v1/farm/"+farm+"/animals/"+own, b.owner.Token, nil); res.Status != 204 {
					t.Fatalf("delete: %d %s", res.Status, res.Body)
				}
				if res := b.app.Do("GET", path+own, b.owner.Token, nil); res.Status != 200 {
					t.Fatalf("farm %s, its deleted animal: %d %s", farm, res.Status, res.Body)
				}
				wantEmpty(t, b.app.Do("GET", path+uuid.NewString(), b.owner.Token, nil), 404)
			}
			wantEmpty(t, b.app.Do("GET", "/v1/farm/"+other.ID.String()+"/birth-history/evidence?birth_date=2026-04-20&dam_id="+b.dam, b.owner.Token, nil), 404)
		})
		t.Run("QueriesIndependentOfFarmSize", func(t *testing.T) {
			count := func() int64 {
				return b.app.Queries(func() {
					if res := evidenceOf(b.dam, "2026-04-20"); res.Status != 200 {
						t.Fatal(res.Status)
					}
				})
			}
			small := count()
			// The access token; the viewer's memberships (the request's scope); the farm's
			// settings with the dam check; the facts: hers, her groups' exposures and the
			// facts of every sire they or her own exposure name. (A dam with a birth whose
			// offspring have DNA results, or without a membership by the end of the
			// conception window, costs one more each.)
			if small != 4 {
				t.Fatalf("the review costs %d statements, want 4", small)
			}
			// Unrelated animals with their own facts must not change the cost.
			for i := 0; i < 20; i++ {
				a := b.app.MustAnimal(b.owner, uuid.MustParse(b.farm), fmt.Sprintf("X-%d", i)).ID.String()
				b.facts(t, map[string]any{"kind": "profile", "animal_id": a, "sex": "female"},
					map[string]any{"kind": "membership", "animal_id": a, "group_id": b.herd, "start_date": "2025-04-01"})
			}
			if big := count(); big != small {
				t.Fatalf("queries %d then %d: the cost grows with the farm", small, big)
			}
			t.Logf("evidence review: %d queries", small)
		})
	})
}

func TestPreviewsAndTasks(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app := b.app
		bh := b.base + "/birth-history"
		app.Do("PUT", bh+"/settings", b.owner.Token, cattleSettings)
		res := app.Do("PUT", bh+"/protocol", b.owner.Token, `{"steps":[{"name":"Weigh calf","offset_days":1},{"name":"Tag calf","offset_days":3},{"name":"Vaccinate","offset_days":60}]}`)
		if res.Status != 200 || res.JSON(t)["version"] != float64(1) {
			t.Fatalf("protocol: %d %s", res.Status, res.Body)
		}
		if got := app.Do("GET", bh+"/protocol", b.reader.Token, nil); got.Status != 200 || len(got.JSON(t)["steps"].([]any)) != 3 {
			t.Fatalf("read protocol: %d %s", got.Status, got.Body)
		}
		previewOn := func(day string) map[string]any {
			res := app.Do("POST", bh+"/previews", b.owner.Token, map[string]any{"dam_id": b.dam, "birth_date": day})
			if res.Status != 201 {
				t.Fatalf("preview: %d %s", res.Status, res.Body)
			}
			return res.JSON(t)
		}
		preview := func() map[string]any { return previewOn("2026-04-20") }
		p1 := preview()
		if p1["settings_version"] != float64(1) || p1["protocol_version"] != float64(1) || len(p1["tasks"].([]any)) != 3 ||
			p1["tasks"].([]any)[1].(map[string]any)["due_date"] != "2026-04-23" || p1["evidence"].(map[string]any)["sire"].(map[string]any)["status"] != "presumed" {
			t.Fatalf("preview = %v", p1)
		}
		approve := func(id, req string) herdbooktest.Response {
			return app.Do("POST", bh+"/previews/"+id+"/approve", b.owner.Token, map[string]any{"request_id": req, "calves": oneCalf("CALF-" + req)})
		}
		res = approve(p1["id"].(string), "req-1")
		if res.Status != 201 {
			t.Fatalf("approve: %d %s", res.Status, res.Body)
		}
		approved := res.JSON(t)
		tasks := approved["tasks"].([]any)
		if len(tasks) != 3 || tasks[0].(map[string]any)["due_date"] != "2026-04-21T00:00:00Z" || tasks[0].(map[string]any)["animals"].([]any)[0].(map[string]any)["id"] != b.dam {
			t.Fatalf("tasks = %v", tasks)
		}
		eventID := approved["birth_event"].(map[string]any)["id"]

		t.Run("ApproveReplay", func(t *testing.T) {
			again := approve(p1["id"].(string), "req-1").JSON(t)
			if again["birth_event"].(map[string]any)["id"] != eventID || len(again["tasks"].([]any)) != 3 {
				t.Fatalf("replay = %v", again)
			}
		})
		t.Run("ApproveSameDamAndDateAnswersFirstBirth", func(t *testing.T) {
			// Issue 19 defect 4: a second preview of the same calving (dam and date),
			// approved with another request id, answers the first birth event and creates
			// neither a second event nor a second set of tasks.
			before := app.Do("GET", b.base+"/farm-tasks?take=200", b.reader.Token, nil).JSON(t)["total"]
			res := approve(preview()["id"].(string), "req-same-calving")
			if res.Status != 201 {
				t.Fatalf("approve: %d %s", res.Status, res.Body)
			}
			got := res.JSON(t)
			if got["birth_event"].(map[string]any)["id"] != eventID || len(got["tasks"].([]any)) != 3 ||
				got["tasks"].([]any)[0].(map[string]any)["id"] != tasks[0].(map[string]any)["id"] {
				t.Fatalf("second approval = %v, want the first birth %v", got, eventID)
			}
			if after := app.Do("GET", b.base+"/farm-tasks?take=200", b.reader.Token, nil).JSON(t)["total"]; after != before {
				t.Fatalf("tasks %v then %v: the second approval made tasks", before, after)
			}
		})
		t.Run("ErrApproveReusedRequestID", func(t *testing.T) {
			p2 := preview()
			herdbooktest.WantEnvelope(t, approve(p2["id"].(string), "req-1"), 409, "ConflictError", "already used")
		})
		t.Run("ErrApproveTwice", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, approve(p1["id"].(string), "req-other"), 409, "ConflictError", "already approved")
		})
		t.Run("ErrApproveNoRequestID", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", bh+"/previews/"+preview()["id"].(string)+"/approve", b.owner.Token, nil), 400, "ValidationError", "request_id")
		})
		t.Run("ApproveWithIdempotencyKey", func(t *testing.T) {
			res := app.Do("POST", bh+"/previews/"+previewOn("2026-04-22")["id"].(string)+"/approve", b.owner.Token, map[string]any{"calves": oneCalf("CALF-KEY-9")}, "Idempotency-Key", "key-9")
			if res.Status != 201 {
				t.Fatalf("status %d %s", res.Status, res.Body)
			}
		})
		t.Run("ErrProtocolChangedSincePreview", func(t *testing.T) {
			p := previewOn("2026-04-21")
			app.Do("PUT", bh+"/protocol", b.owner.Token, `{"steps":[{"name":"Weigh calf","offset_days":2}]}`)
			herdbooktest.WantEnvelope(t, approve(p["id"].(string), "req-proto"), 409, "ConflictError", "protocol")
		})
		stalePreview := preview()
		t.Run("ErrStaleAfterSettingsChange", func(t *testing.T) {
			app.Do("PUT", bh+"/settings", b.owner.Token, cattleSettings)
			if got := app.Do("GET", bh+"/previews/"+stalePreview["id"].(string), b.reader.Token, nil).JSON(t); got["stale"] != true {
				t.Fatalf("preview not stale after a settings change: %v", got["stale"])
			}
			herdbooktest.WantEnvelope(t, approve(stalePreview["id"].(string), "req-stale"), 409, "ConflictError", "stale")
		})

		tasksPath := b.base + "/farm-tasks"
		first := tasks[0].(map[string]any)["id"].(string)
		second := tasks[1].(map[string]any)["id"].(string)
		put := func(id string, body any, hdr ...string) herdbooktest.Response {
			return app.Do("PUT", tasksPath+"/"+id, b.owner.Token, body, hdr...)
		}
		t.Run("UpdateKeepsClearsSetsDueDate", func(t *testing.T) {
			got := put(first, `{"status":"DONE"}`).JSON(t)
			if got["status"] != "DONE" || got["due_date"] != "2026-04-21T00:00:00Z" {
				t.Fatalf("omitted due_date must be kept: %v", got)
			}
			if got := put(second, `{"status":"TODO","due_date":null}`).JSON(t); got["due_date"] != nil {
				t.Fatalf("null must clear: %v", got)
			}
			if got := put(first, `{"status":"DONE","due_date":"2026-05-01"}`).JSON(t); got["due_date"] != "2026-05-01T00:00:00Z" {
				t.Fatalf("a date must be set: %v", got)
			}
		})
		t.Run("ListUndatedTodoFirst", func(t *testing.T) {
			body := app.Do("GET", tasksPath, b.reader.Token, nil).JSON(t)
			recs := body["records"].([]any)
			if recs[0].(map[string]any)["id"] != second {
				t.Fatalf("first task = %v, want the undated TODO", recs[0])
			}
			for _, r := range recs {
				for _, k := range []string{"id", "farm_id", "birth_event_id", "name", "status", "due_date", "created_at", "updated_at", "animals"} {
					if _, ok := r.(map[string]any)[k]; !ok {
						t.Fatalf("task lacks %s: %v", k, r)
					}
				}
			}
			done := app.Do("GET", "/api"+tasksPath+"?status=DONE&take=1&skip=0", b.reader.Token, nil).JSON(t)
			if done["total"] != float64(1) || len(done["records"].([]any)) != 1 {
				t.Fatalf("status filter = %v", done)
			}
		})
		for _, tc := range []struct{ name, query, want string }{
			{"ErrTakeZero", "take=0", "take: must be between 1 and 200"},
			{"ErrTake201", "take=201", "take: must be between 1 and 200"},
			{"ErrSkipNegative", "skip=-1", "skip: must be 0 or more"},
			{"ErrTakeText", "take=many", "take: must be a whole number"},
			{"ErrStatus", "status=OPEN", "status: must be one of"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do("GET", tasksPath+"?"+tc.query, b.reader.Token, nil), 400, "ValidationError", tc.want)
			})
		}
		for _, tc := range []struct{ name, body, want string }{
			{"ErrDateNotReal", `{"status":"TODO","due_date":"2026-02-30"}`, "due_date: must be a real calendar date"},
			{"ErrDateTime", `{"status":"TODO","due_date":"2026-03-01T00:00:00Z"}`, "due_date"},
			{"ErrStatusMissing", `{"due_date":"2026-03-01"}`, "status: is required"},
			{"ErrStatusUnknown", `{"status":"STARTED"}`, "status"},
			{"ErrWrongType", `{"status":1}`, "status: must be a string"},
			{"ErrMalformed", `{"status":`, "body: malformed JSON"},
			{"ErrUnknownField", `{"status":"DONE","done":true}`, "done: is not a known field"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, put(first, tc.body), 400, "ValidationError", tc.want)
			})
		}
		t.Run("RequestIDReplayAndConflict", func(t *testing.T) {
			a := put(second, `{"status":"DONE","request_id":"r-7"}`).JSON(t)
			put(second, `{"status":"CANCELLED"}`)
			replay := put(second, `{"status":"DONE","request_id":"r-7"}`).JSON(t)
			if replay["status"] != "DONE" || replay["updated_at"] != a["updated_at"] {
				t.Fatalf("replay = %v, want the first answer %v", replay, a)
			}
			herdbooktest.WantEnvelope(t, put(second, `{"status":"TODO","request_id":"r-7"}`), 409, "ConflictError", "already used")
			herdbooktest.WantEnvelope(t, put(second, `{"status":"TODO"}`, "Idempotency-Key", "r-7"), 409, "ConflictError", "")
		})
		t.Run("ErrApprovedPreviewStale", func(t *testing.T) {
			// p1 was approved before the settings changed: naming it is a 409 (SPEC farm tasks
			// rule 3), and nothing is written.
			before := app.Do("GET", tasksPath, b.reader.Token, nil).Body
			herdbooktest.WantEnvelope(t, put(first, map[string]any{"status": "CANCELLED", "preview_id": p1["id"]}), 409, "ConflictError", "stale")
			if after := app.Do("GET", tasksPath, b.reader.Token, nil).Body; string(after) != string(before) {
				t.Fatalf("a refused update changed the tasks:\n%s\n%s", before, after)
			}
		})
		t.Run("ErrAnotherPreview", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, put(first, map[string]any{"status": "DONE", "preview_id": stalePreview["id"]}), 409, "ConflictError", "not the preview this task")
		})
		t.Run("ErrPreviewOfAnotherFarm", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, put(first, map[string]any{"status": "DONE", "preview_id": uuid.NewString()}), 400, "ValidationError", "preview_id")
		})
		t.Run("ErrProtocolStepsDiffer", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, put(first, `{"status":"DONE","protocol_version":2}`), 409, "ConflictError", "different steps")
		})
		t.Run("SameStepsProtocolAccepted", func(t *testing.T) {
			app.Do("PUT", bh+"/protocol", b.owner.Token, `{"steps":[{"name":"Weigh calf","offset_days":1},{"name":"Tag calf","offset_days":3},{"name":"Vaccinate","offset_days":60}]}`)
			if res := put(first, `{"status":"DONE","protocol_version":3}`); res.Status != 200 {
				t.Fatalf("status %d %s", res.Status, res.Body)
			}
		})
		t.Run("ErrReaderUpdates", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("PUT", tasksPath+"/"+first, b.reader.Token, `{"status":"DONE"}`), 401, "Unauthorized", "")
		})
		t.Run("ErrUnknownTask", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, put(uuid.NewString(), `{"status":"DONE"}`), 404, "ServiceError", "")
		})
		t.Run("ErrOtherFarmsTask", func(t *testing.T) {
			stranger := app.MustUser()
			herdbooktest.WantEnvelope(t, app.Do("PUT", tasksPath+"/"+first, stranger.Token, `{"status":"DONE"}`), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", tasksPath, stranger.Token, nil), 404, "ServiceError", "")
		})
		t.Run("ErrNoAuth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", tasksPath, "", nil), 401, "Unauthorized", "")
		})
		t.Run("ErrProtocolInvalid", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("PUT", bh+"/protocol", b.owner.Token, `{"steps":[{"name":"","offset_days":99999}]}`), 400, "ValidationError", "steps[0].offset_days")
		})
		// On a day of its own: ApproveWithIdempotencyKey recorded this dam's calving of
		// 2026-04-22, which a second preview of that day answers (its tasks are that birth's).
		t.Run("OwnFreshPreviewAccepted", func(t *testing.T) {
			p := previewOn("2026-04-24")
			res := approve(p["id"].(string), "req-fresh")
			if res.Status != 201 {
				t.Fatalf("approve: %d %s", res.Status, res.Body)
			}
			task := res.JSON(t)["tasks"].([]any)[0].(map[string]any)["id"].(string)
			if res := put(task, map[string]any{"status": "DONE", "preview_id": p["id"]}); res.Status != 200 {
				t.Fatalf("own fresh preview: %d %s", res.Status, res.Body)
			}
			app.Do("PUT", bh+"/settings", b.owner.Token, cattleSettings)
			herdbooktest.WantEnvelope(t, put(task, map[string]any{"status": "TODO", "preview_id": p["id"]}), 409, "ConflictError", "stale")
		})
	})
}

// TestSettingsBoundToSpecies: after the farm's species changes, the former species'
// settings no longer apply (GET reads null, the review is not configured, previews are
// stale) until settings for the new species are set.
func TestSettingsBoundToSpecies(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		b := newBirthFarm(t, d)
		app, bh := b.app, b.base+"/birth-history"
		if res := app.Do("PUT", bh+"/settings", b.owner.Token, cattleSettings); res.Status != 200 {
			t.Fatalf("settings: %d %s", res.Status, res.Body)
		}
		pv := app.Do("POST", bh+"/previews", b.owner.Token, map[string]any{"dam_id": b.dam, "birth_date": "2026-04-20"}).JSON(t)
		evidence := func() map[string]any {
			return app.Do("GET", bh+"/evidence?dam_id="+b.dam+"&birth_date=2026-04-20", b.reader.Token, nil).JSON(t)
		}
		if ev := evidence(); ev["settings_status"] != "configured" {
			t.Fatalf("evidence before = %v", ev)
		}
		if res := app.Do("PUT", b.base, b.owner.Token, `{"species":"SHEEP"}`); res.Status != 200 {
			t.Fatalf("species change: %d %s", res.Status, res.Body)
		}
		got := app.Do("GET", bh+"/settings", b.reader.Token, nil).JSON(t)
		if got["species"] != "SHEEP" || got["settings"] != nil {
			t.Fatalf("settings after the species change = %v, want SHEEP and null", got)
		}
		ev := evidence()
		if ev["settings_status"] != "not_configured" || ev["settings"] != nil || ev["conception_window"] != nil {
			t.Fatalf("evidence after the species change = %v, want not configured", ev)
		}
		if p := app.Do("GET", bh+"/previews/"+pv["id"].(string), b.reader.Token, nil).JSON(t); p["stale"] != true {
			t.Fatalf("preview made with cattle settings is not stale: %v", p)
		}
		wantEmpty(t, app.Do("PUT", bh+"/settings", b.owner.Token, cattleSettings), 400) // species mismatch
		sheep := strings.Replace(strings.Replace(cattleSettings, "CATTLE", "SHEEP", 1), `"min":279,"max":292`, `"min":142,"max":152`, 1)
		put := app.Do("PUT", bh+"/settings", b.owner.Token, sheep).JSON(t)
		if put["species"] != "SHEEP" || put["settings"].(map[string]any)["gestation_days"].(map[string]any)["min"] != float64(142) {
			t.Fatalf("sheep settings = %v", put)
		}
		if p := app.Do("POST", bh+"/previews", b.owner.Token, map[string]any{"dam_id": b.dam, "birth_date": "2026-04-20"}).JSON(t); p["settings_version"] != float64(2) {
			t.Fatalf("preview with sheep settings = %v, want settings_version 2", p)
		}
		if cw := evidence()["conception_window"].(map[string]any); cw["start_date"] != "2025-11-19" {
			t.Fatalf("sheep conception window = %v", cw)
		}
		// Back to cattle: the newest settings are the sheep's, so none apply.
		app.Do("PUT", b.base, b.owner.Token, `{"species":"CATTLE"}`)
		if got := app.Do("GET", bh+"/settings", b.reader.Token, nil).JSON(t); got["settings"] != nil {
			t.Fatalf("settings after changing back = %v", got)
		}
	})
}

// seedTasks approves n births on a protocol of 50 steps: 50·n tasks, each linked to the dam.
func seedTasks(tb testing.TB, app *herdbooktest.App, u herdbooktest.User, n int) (farmPath string) {
	tb.Helper()
	f := app.MustFarm(u, "Tasks")
	dam := app.MustAnimal(u, f.ID, "DAM").ID.String()
	base := "/v1/farm/" + f.ID.String()
	steps := make([]map[string]any, 50)
	for i := range steps {
		steps[i] = map[string]any{"name": fmt.Sprintf("Step %d", i), "offset_days": i}
	}
	if res := app.Do("PUT", base+"/birth-history/protocol", u.Token, map[string]any{"steps": steps}); res.Status != 200 {
		tb.Fatalf("protocol: %d %s", res.Status, res.Body)
	}
	for i := 0; i < n; i++ {
		res := app.Do("POST", base+"/birth-history/previews", u.Token, map[string]any{"dam_id": dam, "birth_date": fmt.Sprintf("2026-03-%02d", i+1)})
		id, _ := res.JSON(tb)["id"].(string)
		if res := app.Do("POST", base+"/birth-history/previews/"+id+"/approve", u.Token, map[string]any{"request_id": fmt.Sprintf("seed-%d", i), "calves": oneCalf(fmt.Sprintf("SEED-%d", i))}); res.Status != 201 {
			tb.Fatalf("approve: %d %s", res.Status, res.Body)
		}
	}
	return base + "/farm-tasks"
}

// TestFarmTaskListQueryCount proves the task list costs the same for 5 tasks as for 200.
func TestFarmTaskListQueryCount(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		path := seedTasks(t, app, u, 4)
		counts := map[int]int64{}
		for _, n := range []int{5, 200} {
			counts[n] = app.Queries(func() {
				if got := len(app.Do("GET", fmt.Sprintf("%s?take=%d", path, n), u.Token, nil).JSON(t)["records"].([]any)); got != n {
					t.Fatalf("%d tasks, want %d", got, n)
				}
			})
		}
		if counts[5] != counts[200] {
			t.Fatalf("queries grow with the page: %v", counts)
		}
		t.Logf("farm-task list: %d queries for any page size", counts[200])
	})
}

func BenchmarkFarmTaskList(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			path := seedTasks(b, app, u, 4) + "?take=50"
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := app.Do("GET", path, u.Token, nil); res.Status != 200 {
					b.Fatal(res.Status)
				}
			}
		})
	}
}
