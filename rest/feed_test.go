package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// feed reads a list with updated_since, following next_cursor across pages of take rows
// until a page comes back short, and returns the rows (by id) and the last cursor.
func feed(t testing.TB, app *herdbooktest.App, token, path, cursor string, take int) ([]map[string]any, string) {
	t.Helper()
	var out []map[string]any
	for range 1000 {
		res := app.Do("GET", fmt.Sprintf("%s?take=%d&updated_since=%s", path, take, url.QueryEscape(cursor)), token, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("feed %s: %d %s", path, res.Status, res.Body)
		}
		body := res.JSON(t)
		rows := body["records"].([]any)
		for _, r := range rows {
			out = append(out, r.(map[string]any))
		}
		cursor = body["next_cursor"].(string)
		if len(rows) < take {
			return out, cursor
		}
	}
	t.Fatal("the feed never ended")
	return nil, ""
}

func ids(rows []map[string]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r["id"].(string)
	}
	return out
}

func TestRecordFeed(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		path := "/v1/farm/" + s.farm + "/records"
		r1, r2, r3 := s.createRecord(t, "One"), s.createRecord(t, "Two"), s.createRecord(t, "Three")
		full := s.app.Do("GET", path, s.reader.Token, nil).JSON(t)
		c0 := full["next_cursor"].(string)
		if full["total"] != float64(3) || c0 == "" {
			t.Fatalf("full read %v", full)
		}
		if rows, c := feed(t, s.app, s.reader.Token, path, c0, 10); len(rows) != 0 || c != c0 {
			t.Fatalf("nothing changed, yet the feed gave %v and cursor %s (was %s)", ids(rows), c, c0)
		}
		if res := s.app.Do("PUT", path+"/"+r1, s.editor.Token, map[string]any{"description": "checked"}); res.Status != 200 {
			t.Fatal(res.Status)
		}
		if res := s.app.Do("DELETE", path+"/"+r2, s.owner.Token, nil); res.Status != 204 {
			t.Fatal(res.Status)
		}
		r4 := s.createRecord(t, "Four")
		for _, take := range []int{1, 2, 500} {
			t.Run(fmt.Sprintf("take%d", take), func(t *testing.T) {
				rows, c1 := feed(t, s.app, s.reader.Token, path, c0, take)
				if got := ids(rows); len(got) != 3 || got[0] != r1 || got[1] != r2 || got[2] != r4 {
					t.Fatalf("changes %v, want %s, %s, %s in the order of change", got, r1, r2, r4)
				}
				if rows[0]["description"] != "checked" || rows[1]["is_active"] != false || rows[2]["is_active"] != true {
					t.Fatalf("changed rows %v", rows)
				}
				if _, ok := rows[0]["record_items"]; !ok {
					t.Fatal("feed rows lack record_items")
				}
				if rows, _ := feed(t, s.app, s.reader.Token, path, c1, take); len(rows) != 0 {
					t.Fatalf("read again from the new cursor: %v", ids(rows))
				}
			})
		}
		if full["records"].([]any)[2].(map[string]any)["id"] != r3 {
			t.Fatal("the full read is not oldest first")
		}
		total := s.app.Do("GET", path+"?take=0&updated_since="+c0, s.reader.Token, nil).JSON(t)
		if total["total"] != float64(3) || len(total["records"].([]any)) != 0 || total["next_cursor"] != c0 {
			t.Fatalf("take=0: %v", total)
		}
	})
}

func TestFarmFeed(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		alice, bob := app.MustUser(), app.MustUser()
		home := app.MustFarm(alice, "Home Farm")
		app.MustFarm(alice, "Second Farm")
		bobs := app.MustFarm(bob, "Bob's Farm")
		c0 := app.Do("GET", "/v1/farm", alice.Token, nil).JSON(t)["next_cursor"].(string)
		if res := app.Do("PUT", "/v1/farm/"+home.ID.String(), alice.Token, map[string]any{"name": "Home Farm East"}); res.Status != 200 {
			t.Fatal(res.Status)
		}
		app.MustMember(bobs.ID, alice, herdbook.RoleReader) // Bob's farm becomes visible to Alice
		if res := app.Do("DELETE", "/v1/farm/"+home.ID.String(), alice.Token, nil); res.Status != 204 {
			t.Fatal(res.Status)
		}
		rows, c1 := feed(t, app, alice.Token, "/v1/farm", c0, 500)
		if got := ids(rows); len(got) != 2 || got[0] != bobs.ID.String() || got[1] != home.ID.String() {
			t.Fatalf("farm changes %v, want Bob's farm then the deleted home farm", got)
		}
		if rows[1]["is_active"] != false || rows[1]["name"] != "Home Farm East" || len(rows[0]["farm_users"].([]any)) != 2 {
			t.Fatalf("rows %v", rows)
		}
		if rows, _ := feed(t, app, alice.Token, "/v1/farm", c1, 500); len(rows) != 0 {
			t.Fatalf("again: %v", ids(rows))
		}
		if rows, _ := feed(t, app, bob.Token, "/v1/farm", c0, 500); len(rows) != 1 || rows[0]["id"] != bobs.ID.String() {
			t.Fatalf("Bob sees %v, want only his farm (its members changed)", ids(rows))
		}
	})
}

func TestFarmTaskFeed(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		path := seedTasks(t, app, u, 1)
		first := app.Do("GET", path+"?take=200", u.Token, nil).JSON(t)
		c0, tasks := first["next_cursor"].(string), first["records"].([]any)
		if len(tasks) != 50 {
			t.Fatalf("%d tasks", len(tasks))
		}
		id := tasks[3].(map[string]any)["id"].(string)
		if res := app.Do("PUT", path+"/"+id, u.Token, map[string]any{"status": "CANCELLED"}); res.Status != 200 {
			t.Fatalf("update: %d %s", res.Status, res.Body)
		}
		rows, _ := feed(t, app, u.Token, path, c0, 50)
		if len(rows) != 1 || rows[0]["id"] != id || rows[0]["status"] != "CANCELLED" {
			t.Fatalf("task changes %v", rows)
		}
		herdbooktest.WantEnvelope(t, app.Do("GET", path+"?status=TODO&updated_since="+c0, u.Token, nil), 400, "ValidationError", "status: cannot be combined")
		herdbooktest.WantEnvelope(t, app.Do("GET", path+"?take=201&updated_since="+c0, u.Token, nil), 400, "ValidationError", "take")
	})
}

func TestFeedBadCursor(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		records := "/v1/farm/" + s.farm + "/records"
		rc := s.app.Do("GET", records, s.owner.Token, nil).JSON(t)["next_cursor"].(string)
		fc := s.app.Do("GET", "/v1/farm", s.owner.Token, nil).JSON(t)["next_cursor"].(string)
		other := s.app.MustFarm(s.owner, "Other")
		otherRecords := "/v1/farm/" + other.ID.String() + "/records"
		cases := []struct {
			name, path, token string
			status            int
			errName, want     string
		}{
			{"ErrGarbage", records + "?updated_since=not-a-cursor", s.owner.Token, 400, "ValidationError", "updated_since"},
			{"ErrEmpty", records + "?updated_since=", s.owner.Token, 400, "ValidationError", "updated_since"},
			{"ErrFarmsCursorOnRecords", records + "?updated_since=" + fc, s.owner.Token, 400, "ValidationError", "updated_since"},
			{"ErrRecordsCursorOnFarms", "/v1/farm?updated_since=" + rc, s.owner.Token, 400, "ValidationError", "updated_since"},
			{"ErrOtherFarmsCursor", otherRecords + "?updated_since=" + rc, s.owner.Token, 400, "ValidationError", "updated_since"},
			{"ErrSkip", records + "?skip=1&updated_since=" + rc, s.owner.Token, 400, "ValidationError", "skip: cannot be combined"},
			{"ErrTooLong", records + "?updated_since=" + fmt.Sprintf("%0300d", 0), s.owner.Token, 400, "ValidationError", "updated_since"},
			{"ErrNoAuth", records + "?updated_since=" + rc, "", 401, "Unauthorized", ""},
			{"ErrNoScope", records + "?updated_since=" + rc, s.app.MustToken(s.owner.ID, herdbook.ScopeReadFarms), 403, "ForbiddenError", "read:records"},
			{"ErrNotMember", records + "?updated_since=" + rc, s.app.MustUser().Token, 404, "ServiceError", "not found"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, s.app.Do("GET", c.path, c.token, nil), c.status, c.errName, c.want)
			})
		}
	})
}

// TestRecordFeedConcurrentWriters polls the feed while four writers create records: at the
// end the polls have seen every record, although transactions commit out of the order in
// which they took their change numbers' timestamps.
func TestRecordFeedConcurrentWriters(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		s := newHookSetup(t, d)
		path := "/v1/farm/" + s.farm + "/records"
		cursor := s.app.Do("GET", path+"?take=0", s.owner.Token, nil).JSON(t)["next_cursor"].(string)
		const writers, each = 4, 15
		var wg sync.WaitGroup
		created := make(chan string, writers*each)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					at := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
					r, err := s.app.Service.CreateRecord(s.app.Ctx(s.editor), mustUUID(t, s.farm), herdbook.RecordInput{
						Name: fmt.Sprintf("W%d-%d", w, i), Type: "FEED", AppliedAt: &at, AnimalIDs: []uuid.UUID{mustUUID(t, s.animal)}})
					if err != nil {
						t.Error(err)
						return
					}
					created <- r.ID.String()
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		seen := map[string]bool{}
		poll := func() {
			rows, c := feed(t, s.app, s.owner.Token, path, cursor, 7)
			for _, id := range ids(rows) {
				seen[id] = true
			}
			cursor = c
		}
		for running := true; running; {
			select {
			case <-done:
				running = false
			default:
				poll()
			}
		}
		poll()
		close(created)
		n := 0
		for id := range created {
			n++
			if !seen[id] {
				t.Errorf("record %s was created but never appeared in the feed", id)
			}
		}
		if n != writers*each {
			t.Fatalf("%d records created, want %d", n, writers*each)
		}
	})
}

// TestAnimalsFeed (issue 22.8): the animals list had no change feed (?updated_since= was
// ignored and every animal came back). Now the register page answers next_cursor, and
// updated_since lists the animals that changed after it, in change order, deleted ones
// with is_active false, each with today's profile; the register's day filters, skip and
// cursors of other lists or farms are refused naming the parameter.
func TestAnimalsFeed(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Feed Farm")
		other := app.MustFarm(owner, "Other Farm")
		base := "/v1/farm/" + f.ID.String() + "/animals"
		a := app.MustAnimal(owner, f.ID, "A-1")
		b := app.MustAnimal(owner, f.ID, "B-1")
		first := app.Do("GET", base, owner.Token, nil).JSON(t)
		if first["total"].(float64) != 2 {
			t.Fatalf("register: %v", first)
		}
		c0 := first["next_cursor"].(string)
		if rows, _ := feed(t, app, owner.Token, base, c0, 10); len(rows) != 0 {
			t.Fatalf("nothing changed, feed %v", ids(rows))
		}
		if res := app.Do("PUT", base+"/"+b.ID.String(), owner.Token, `{"tag":"B-2"}`); res.Status != http.StatusOK {
			t.Fatalf("update: %d %s", res.Status, res.Body)
		}
		if res := app.Do("DELETE", base+"/"+a.ID.String(), owner.Token, nil); res.Status >= 300 {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		c := app.MustAnimal(owner, f.ID, "C-1")
		rows, c1 := feed(t, app, owner.Token, base, c0, 2) // two pages: take 2, then 1
		if got := ids(rows); len(got) != 3 || got[0] != b.ID.String() || got[1] != a.ID.String() || got[2] != c.ID.String() {
			t.Fatalf("changes %v, want B, A, C in change order", got)
		}
		if rows[0]["tag"] != "B-2" || rows[1]["is_active"] != false || rows[2]["profile"] == nil {
			t.Fatalf("rows %v", rows)
		}
		if again, _ := feed(t, app, owner.Token, base, c1, 10); len(again) != 0 {
			t.Fatalf("read twice: %v", ids(again))
		}
		rc := app.Do("GET", "/v1/farm/"+f.ID.String()+"/records", owner.Token, nil).JSON(t)["next_cursor"].(string)
		otherCursor := app.Do("GET", "/v1/farm/"+other.ID.String()+"/animals", owner.Token, nil).JSON(t)["next_cursor"].(string)
		for _, tc := range []struct{ name, query, want string }{
			{"ErrEmpty", "updated_since=", "updated_since"},
			{"ErrGarbage", "updated_since=not-a-cursor", "updated_since"},
			{"ErrRecordsCursor", "updated_since=" + rc, "updated_since"},
			{"ErrOtherFarmsCursor", "updated_since=" + otherCursor, "updated_since"},
			{"ErrSkip", "skip=1&updated_since=" + c0, "skip: cannot be combined"},
			{"ErrAsOf", "as_of=2026-01-01&updated_since=" + c0, "as_of: cannot be combined"},
			{"ErrStatus", "status=on_farm&updated_since=" + c0, "status: cannot be combined"},
			{"ErrSearch", "q=B&updated_since=" + c0, "q: cannot be combined"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do("GET", base+"?"+tc.query, owner.Token, nil), http.StatusBadRequest, "ValidationError", tc.want)
			})
		}
		herdbooktest.WantEnvelope(t, app.Do("GET", base+"?updated_since="+c0, "", nil), http.StatusUnauthorized, "Unauthorized", "")
		herdbooktest.WantEnvelope(t, app.Do("GET", base+"?updated_since="+c0, app.MustUser().Token, nil), http.StatusNotFound, "ServiceError", "not found")
	})
}
