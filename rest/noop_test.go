package rest_test

import (
	"context"
	"net/http"
	"testing"

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
