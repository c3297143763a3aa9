package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestNoOpWrite (issue 22.8): a PUT that changes nothing ({}, or the values the resource
// has) bumped updated_at, re-entered the change feed and sent *.updated webhooks. Now it
// answers the resource as it is, and writes and emits nothing.
func TestNoOpWrite(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Quiet Farm")
		a := app.MustAnimal(u, f.ID, "N-1")
		rec, err := app.Service.CreateRecord(app.Ctx(u), f.ID, herdbook.RecordInput{AnimalIDs: []uuid.UUID{a.ID}, Name: "Feed", Type: "FEED", AppliedAt: ptrTime()})
		if err != nil {
			t.Fatal(err)
		}
		// An endpoint for every event, so that each change writes to the outbox.
		if _, _, err := app.Service.CreateWebhook(app.Ctx(u), f.ID, herdbook.WebhookInput{URL: "https://hooks.example/herdbook", EventTypes: []string{"farm.updated", "record.updated"}}); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		state := func() (farmSeq, recSeq int64, events int) {
			t.Helper()
			ff, err := d.Client.Farm.Get(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := d.Client.Record.Get(ctx, rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			n, err := d.Client.WebhookEvent.Query().Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return ff.ChangeSeq, rr.ChangeSeq, n
		}
		farmPath := "/v1/farm/" + f.ID.String()
		recPath := farmPath + "/records/" + rec.ID.String()
		for _, tc := range []struct{ name, path, body, stamp string }{
			{"FarmEmpty", farmPath, `{}`, "farm.updated_at"},
			{"FarmSameValues", farmPath, `{"name":"Quiet Farm","species":"CATTLE","allow_private_threads":false}`, "farm.updated_at"},
			{"RecordEmpty", recPath, `{}`, "updated_at"},
			{"RecordSameValues", recPath, `{"name":"Feed","type":"FEED","animal_ids":["` + a.ID.String() + `"]}`, "updated_at"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := app.Do("GET", tc.path, u.Token, nil).JSON(t)
				fs, rs, ev := state()
				res := app.Do("PUT", tc.path, u.Token, tc.body)
				if res.Status != http.StatusOK {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
				after := res.JSON(t)
				if stamp(t, before, tc.stamp) != stamp(t, after, tc.stamp) {
					t.Fatalf("updated_at moved: %v -> %v", stamp(t, before, tc.stamp), stamp(t, after, tc.stamp))
				}
				if fs2, rs2, ev2 := state(); fs2 != fs || rs2 != rs || ev2 != ev {
					t.Fatalf("change feed or outbox moved: farm %d -> %d, record %d -> %d, events %d -> %d", fs, fs2, rs, rs2, ev, ev2)
				}
			})
		}
		t.Run("RealChangeStillWrites", func(t *testing.T) {
			_, rs, ev := state()
			if res := app.Do("PUT", recPath, u.Token, `{"name":"Evening feed"}`); res.Status != http.StatusOK {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			if _, rs2, ev2 := state(); rs2 == rs || ev2 == ev {
				t.Fatalf("a real change left no trace: record %d -> %d, events %d -> %d", rs, rs2, ev, ev2)
			}
		})
	})
}

// stamp digs a dotted path out of a decoded answer.
func stamp(t *testing.T, v map[string]any, path string) any {
	t.Helper()
	var cur any = v
	for _, k := range splitDots(path) {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("no %s in %v", path, v)
		}
		cur = m[k]
	}
	return cur
}

func splitDots(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// TestNoOpWriteMore (issue 22.8): a PUT of a webhook, a medicine or a farm task that
// changes nothing ({} where the body allows it, or the values the resource has) answers
// the resource as it is: updated_at stays, a medicine keeps its version, a task keeps its
// place in the change feed.
func TestNoOpWriteMore(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		tasks := seedTasks(t, app, u, 1)
		farm := strings.TrimSuffix(tasks, "/farm-tasks")
		hook := app.Do("POST", farm+"/webhooks", u.Token, map[string]any{"url": "https://hooks.example/h", "event_types": []string{"record.created", "animal.updated"}, "description": "Vet"})
		if hook.Status != http.StatusCreated {
			t.Fatalf("webhook: %d %s", hook.Status, hook.Body)
		}
		hookPath := farm + "/webhooks/" + stamp(t, hook.JSON(t), "webhook.id").(string)
		med := app.Do("POST", farm+"/medicines", u.Token, map[string]any{"name": "Pen", "active_substance": "benzylpenicillin", "withdrawal_meat_days": 10, "withdrawal_milk_hours": 96})
		if med.Status != http.StatusCreated {
			t.Fatalf("medicine: %d %s", med.Status, med.Body)
		}
		medPath := farm + "/medicines/" + firstID(med.JSON(t))
		list := app.Do("GET", tasks+"?take=1", u.Token, nil).JSON(t)
		cursor := list["next_cursor"].(string)
		task := list["records"].([]any)[0].(map[string]any)
		taskPath := tasks + "/" + task["id"].(string)
		for _, tc := range []struct{ name, path, body, keep string }{
			{"WebhookEmpty", hookPath, `{}`, "updated_at"},
			{"WebhookSameValues", hookPath, `{"url":"https://hooks.example/h","event_types":["animal.updated","record.created"],"description":"Vet","enabled":true}`, "updated_at"},
			{"MedicineEmpty", medPath, `{}`, "updated_at"},
			{"MedicineSameValues", medPath, `{"name":" Pen ","active_substance":"benzylpenicillin","withdrawal_meat_days":10,"withdrawal_milk_hours":96}`, "updated_at"},
			{"TaskSameStatus", taskPath, `{"status":"` + task["status"].(string) + `"}`, "updated_at"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := app.Do("GET", tc.path, u.Token, nil)
				if before.Status != http.StatusOK && !strings.HasPrefix(tc.name, "Task") {
					t.Fatalf("read: %d %s", before.Status, before.Body)
				}
				res := app.Do("PUT", tc.path, u.Token, tc.body)
				if res.Status != http.StatusOK {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
				after := flat(res.JSON(t))
				if before.Status == http.StatusOK {
					if b := flat(before.JSON(t)); b[tc.keep] != after[tc.keep] || b["version"] != after["version"] {
						t.Fatalf("%s moved: %v -> %v (version %v -> %v)", tc.keep, b[tc.keep], after[tc.keep], b["version"], after["version"])
					}
				} else if after[tc.keep] != task[tc.keep] {
					t.Fatalf("%s moved: %v -> %v", tc.keep, task[tc.keep], after[tc.keep])
				}
			})
		}
		if rows, _ := feed(t, app, u.Token, tasks, cursor, 50); len(rows) != 0 {
			t.Fatalf("a task that did not change entered the feed: %v", ids(rows))
		}
		t.Run("RealChangeStillWrites", func(t *testing.T) {
			b := flat(app.Do("GET", hookPath, u.Token, nil).JSON(t))
			time.Sleep(5 * time.Millisecond)
			res := app.Do("PUT", hookPath, u.Token, `{"description":"Vet practice"}`)
			if a := flat(res.JSON(t)); a["updated_at"] == b["updated_at"] {
				t.Fatalf("a real change kept updated_at: %s", res.Body)
			}
		})
	})
}

// flat returns the resource of an answer: the object itself, or the one object it wraps
// ({"webhook": {...}}, {"data": {...}}).
func flat(v map[string]any) map[string]any {
	if _, ok := v["id"]; ok {
		return v
	}
	for _, x := range v {
		if m, ok := x.(map[string]any); ok {
			if _, ok := m["id"]; ok {
				return m
			}
		}
	}
	return v
}

// TestNoOpWriteAnimalsGroups (issue 22.8): a PUT of an animal with the values it has (its
// tag, name, sex, breed, birth date, dam, sire and EID) and a group membership set equal to
// the group's members write no fact, keep updated_at and the animal's place in the change
// feed, and send no webhook, through REST and GraphQL alike; a real change still writes.
func TestNoOpWriteAnimalsGroups(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Still Farm")
		base := "/v1/farm/" + f.ID.String()
		if res := app.Do("POST", base+"/webhooks", u.Token, map[string]any{"url": "https://hooks.example/still", "event_types": []string{"animal.updated", "record.created"}}); res.Status != http.StatusCreated {
			t.Fatalf("webhook: %d %s", res.Status, res.Body)
		}
		dam := wantStatus(t, app.Do("POST", base+"/animals", u.Token, map[string]any{"tag": "D-7", "sex": "female", "birth_date": "2020-04-02", "breed": "Angus"}), 201)
		body := map[string]any{"tag": "C-7", "name": "Clover", "sex": "female", "birth_date": "2025-04-02", "breed": "Angus",
			"dam_id": dam["id"], "eid": "982 000123456780"}
		calf := wantStatus(t, app.Do("POST", base+"/animals", u.Token, body), 201)
		calfID := uuid.MustParse(calf["id"].(string))
		calfPath := base + "/animals/" + calfID.String()
		g := app.MustGroup(u, f.ID, "Heifers")
		groupPath := base + "/groups/" + g.ID.String() + "/animals"
		members := map[string]any{"animal_ids": []string{calfID.String(), dam["id"].(string)}}
		wantStatus(t, app.Do("PUT", groupPath, u.Token, members), 200)

		ctx := context.Background()
		type snapshot struct {
			seq             int64
			updated         time.Time
			records, events int
		}
		state := func() snapshot {
			t.Helper()
			a, err := d.Client.Animal.Get(ctx, calfID)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := d.Client.Record.Query().Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			events, err := d.Client.WebhookEvent.Query().Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return snapshot{a.ChangeSeq, a.UpdatedAt, recs, events}
		}
		gql := func(query string, in map[string]any) {
			t.Helper()
			if res := app.GraphQL(u.Token, query, map[string]any{"in": in}); res["errors"] != nil {
				t.Fatalf("graphql: %v", res["errors"])
			}
		}
		before := wantStatus(t, app.Do("GET", calfPath, u.Token, nil), 200)
		for _, tc := range []struct {
			name string
			do   func()
		}{
			{"AnimalSameValues", func() {
				after := wantStatus(t, app.Do("PUT", calfPath, u.Token, body), 200)
				if fmt.Sprint(after) != fmt.Sprint(before) {
					t.Fatalf("the answer changed:\n%v\n%v", before, after)
				}
			}},
			{"AnimalTagAndName", func() {
				wantStatus(t, app.Do("PUT", calfPath, u.Token, map[string]any{"tag": " C-7 ", "name": "Clover"}), 200)
			}},
			{"AnimalUpdateGraphQL", func() {
				gql(`mutation($in: AnimalUpdateInput!) { animalUpdate(input: $in) { animal { id } } }`, map[string]any{"id": calfID, "tag": "C-7", "name": "Clover"})
			}},
			{"GroupSameMembers", func() {
				wantStatus(t, app.Do("PUT", groupPath, u.Token, map[string]any{"animal_ids": []string{dam["id"].(string), calfID.String(), calfID.String()}}), 200)
			}},
			{"GroupAnimalsSetGraphQL", func() {
				gql(`mutation($in: GroupAnimalsSetInput!) { groupAnimalsSet(input: $in) { group { id } } }`, map[string]any{"id": g.ID, "animalIDs": []any{calfID, dam["id"]}})
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := state()
				tc.do()
				if s2 := state(); s2 != s {
					t.Fatalf("a write that changed nothing left a trace: %+v -> %+v", s, s2)
				}
			})
		}
		t.Run("RealChangeStillWrites", func(t *testing.T) {
			s := state()
			changed := map[string]any{}
			for k, v := range body {
				changed[k] = v
			}
			changed["breed"] = "Angus cross"
			after := wantStatus(t, app.Do("PUT", calfPath, u.Token, changed), 200)
			if p := after["profile"].(map[string]any); p["breed"] != "Angus cross" {
				t.Fatalf("breed not changed: %v", p)
			}
			s2 := state()
			if s2.seq == s.seq || s2.records != s.records+1 || s2.events == s.events {
				t.Fatalf("a real change left too little or too much: %+v -> %+v", s, s2)
			}
			s = s2
			wantStatus(t, app.Do("PUT", groupPath, u.Token, map[string]any{"animal_ids": []string{calfID.String()}}), 200)
			if s3 := state(); s3.records != s.records+1 {
				t.Fatalf("a member left out wrote no membership_end: %+v -> %+v", s, s3)
			}
		})
	})
}
