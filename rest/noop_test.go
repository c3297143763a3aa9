package rest_test

import (
	"context"
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
