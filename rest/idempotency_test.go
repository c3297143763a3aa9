package rest_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestIdempotencyKey: Stripe's semantics on every REST write. The same key and body replay
// the first answer; another body is a 409; keys are per user; concurrent duplicates write
// once.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u, other := app.MustUser(), app.MustUser()
		farms := func(user herdbooktest.User) float64 {
			return app.Do("GET", "/v1/farm?take=500", user.Token, nil).JSON(t)["total"].(float64)
		}
		const body = `{"name":"Replay Farm","species":"GOAT"}`

		t.Run("FarmReplay", func(t *testing.T) {
			before := farms(u)
			first := app.Do("POST", "/v1/farm", u.Token, body, "Idempotency-Key", "farm-1")
			if first.Status != 201 || first.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("first: %d %v %s", first.Status, first.Header, first.Body)
			}
			again := app.Do("POST", "/v1/farm", u.Token, body, "Idempotency-Key", "farm-1")
			if again.Status != 201 || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("replay differs: %d %s", again.Status, again.Body)
			}
			if n := farms(u); n != before+1 {
				t.Fatalf("farms %v, want one more than %v", n, before)
			}
		})
		t.Run("ErrSameKeyOtherBody", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/farm", u.Token, `{"name":"Other Farm","species":"GOAT"}`, "Idempotency-Key", "farm-1"),
				409, "ConflictError", "Idempotency-Key")
		})
		t.Run("ErrSameKeyOtherPath", func(t *testing.T) {
			f := app.MustFarm(u, "Key Farm")
			herdbooktest.WantEnvelope(t, app.Do("PUT", "/v1/farm/"+f.ID.String(), u.Token, body, "Idempotency-Key", "farm-1"),
				409, "ConflictError", "another request")
		})
		t.Run("KeysArePerUser", func(t *testing.T) {
			res := app.Do("POST", "/v1/farm", other.Token, body, "Idempotency-Key", "farm-1")
			if res.Status != 201 || res.Header.Get("Idempotent-Replayed") != "" || farms(other) != 1 {
				t.Fatalf("another user's key space: %d %s", res.Status, res.Body)
			}
		})
		t.Run("ValidationAnswerReplayed", func(t *testing.T) {
			bad := `{"name":"x","species":"GOAT"}`
			first := app.Do("POST", "/v1/farm", u.Token, bad, "Idempotency-Key", "bad-1")
			herdbooktest.WantEnvelope(t, first, 400, "ValidationError", "name")
			if again := app.Do("POST", "/v1/farm", u.Token, bad, "Idempotency-Key", "bad-1"); again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
				t.Fatalf("the 400 was not replayed: %v %s", again.Header, again.Body)
			}
		})
		t.Run("ErrKeyTooLong", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/farm", u.Token, body, "Idempotency-Key", strings.Repeat("k", 256)),
				400, "ValidationError", "Idempotency-Key")
		})
		t.Run("ErrKeyControlCharacter", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/farm", u.Token, body, "Idempotency-Key", "a\tb"),
				400, "ValidationError", "Idempotency-Key")
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/farm", "", body, "Idempotency-Key", "anon"), 401, "Unauthorized", "")
		})
		t.Run("ConcurrentDuplicatesWriteOnce", func(t *testing.T) {
			before := farms(u)
			const n = 8
			var wg sync.WaitGroup
			answers := make([]herdbooktest.Response, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					answers[i] = app.Do("POST", "/v1/farm", u.Token, `{"name":"Racing Farm","species":"SHEEP"}`, "Idempotency-Key", "race-1")
				}()
			}
			wg.Wait()
			for i, a := range answers {
				if a.Status != 201 || string(a.Body) != string(answers[0].Body) {
					t.Fatalf("answer %d: %d %s, want the first answer %s", i, a.Status, a.Body, answers[0].Body)
				}
			}
			if got := farms(u); got != before+1 {
				t.Fatalf("%d concurrent duplicates made %v farms", n, got-before)
			}
		})
		t.Run("RecordCreateAndDelete", func(t *testing.T) {
			f := app.MustFarm(u, "Record Farm")
			a := app.MustAnimal(u, f.ID, "A-1")
			base := "/v1/farm/" + f.ID.String() + "/records"
			rec := fmt.Sprintf(`{"animal_ids":[%q],"name":"Weighing","type":"OTHER","applied_at":"2026-01-01T00:00:00Z"}`, a.ID)
			first := app.Do("POST", base, u.Token, rec, "Idempotency-Key", "rec-1")
			again := app.Do("POST", base, u.Token, rec, "Idempotency-Key", "rec-1")
			if first.Status != 201 || string(again.Body) != string(first.Body) {
				t.Fatalf("record replay: %d %s / %s", first.Status, first.Body, again.Body)
			}
			if total := app.Do("GET", base, u.Token, nil).JSON(t)["total"]; total != float64(1) {
				t.Fatalf("records = %v, want 1", total)
			}
			id := first.JSON(t)["id"].(string)
			del := app.Do("DELETE", base+"/"+id, u.Token, nil, "Idempotency-Key", "del-1")
			if del.Status != 204 {
				t.Fatalf("delete: %d %s", del.Status, del.Body)
			}
			if again := app.Do("DELETE", base+"/"+id, u.Token, nil, "Idempotency-Key", "del-1"); again.Status != 204 {
				t.Fatalf("a retried delete must replay its 204, got %d %s", again.Status, again.Body)
			}
			herdbooktest.WantEnvelope(t, app.Do("DELETE", base+"/"+id, u.Token, nil, "Idempotency-Key", "del-2"), 404, "ServiceError", "")
		})
		t.Run("UploadReplayAcrossBoundaries", func(t *testing.T) {
			f := app.MustFarm(u, "Upload Farm")
			list := func() float64 {
				return app.Do("GET", "/v1/file?farm_id="+f.ID.String(), u.Token, nil).JSON(t)["total"].(float64)
			}
			parts := []upPart{field("farm_id", f.ID.String()), fileP("calf.png", samplePNG(t))}
			b1, ct1 := form(t, parts...)
			b2, ct2 := form(t, parts...) // a new boundary, as a client's retry draws
			if ct1 == ct2 {
				t.Fatal("the two forms share a boundary; the test proves nothing")
			}
			first := app.Do("POST", "/v1/file", u.Token, b1, "Content-Type", ct1, "Idempotency-Key", "up-1")
			again := app.Do("POST", "/v1/file", u.Token, b2, "Content-Type", ct2, "Idempotency-Key", "up-1")
			if first.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
				t.Fatalf("upload replay: %d %s / %d %s", first.Status, first.Body, again.Status, again.Body)
			}
			if n := list(); n != 1 {
				t.Fatalf("files = %v, want 1", n)
			}
			b3, ct3 := form(t, field("farm_id", f.ID.String()), fileP("other.png", samplePNG(t)))
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/file", u.Token, b3, "Content-Type", ct3, "Idempotency-Key", "up-1"), 409, "ConflictError", "")
		})
		t.Run("RoutedFirst", func(t *testing.T) {
			// Issue 22.8: a reused key answered 409 before routing, so a method the path
			// does not have got 409 instead of 405 (and an unknown path 409 instead of 404).
			body := `{"name":"Routed Farm","species":"CATTLE"}`
			if res := app.Do("POST", "/v1/farm", u.Token, body, "Idempotency-Key", "routed-1"); res.Status != 201 {
				t.Fatalf("create: %d %s", res.Status, res.Body)
			}
			res := app.Do("PUT", "/v1/farm", u.Token, `{"name":"x"}`, "Idempotency-Key", "routed-1")
			herdbooktest.WantEnvelope(t, res, 405, "ServiceError", "not allowed")
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/no-such-thing", u.Token, `{}`, "Idempotency-Key", "routed-1"), 404, "ServiceError", "")
		})
		t.Run("GraphQLMutationReplay", func(t *testing.T) {
			q := `{"query":"mutation { createFarm(input: {name: \"Graph Farm\", species: CATTLE}) { farm { id } } }"}`
			first := app.Do("POST", "/graphql", u.Token, q, "Idempotency-Key", "gql-1")
			again := app.Do("POST", "/graphql", u.Token, q, "Idempotency-Key", "gql-1")
			if first.Status != 200 || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("graphql replay: %d %s / %s", first.Status, first.Body, again.Body)
			}
			conflict := app.Do("POST", "/graphql", u.Token, strings.Replace(q, "Graph Farm", "Other Graph Farm", 1), "Idempotency-Key", "gql-1")
			if conflict.Status != 409 || !strings.Contains(string(conflict.Body), `"CONFLICT"`) {
				t.Fatalf("graphql conflict: %d %s", conflict.Status, conflict.Body)
			}
		})
	})
}

// TestIdempotencyKeyService: a released key is free again, and keys are validated.
func TestIdempotencyKeyService(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		ctx := app.Ctx(u)
		_, place, err := app.Service.BeginIdempotent(ctx, "svc-1", "fp")
		if err != nil || place == nil {
			t.Fatalf("begin: %v", err)
		}
		if err := place.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if _, place, err = app.Service.BeginIdempotent(ctx, "svc-1", "fp2"); err != nil || place == nil {
			t.Fatalf("a released key must be free for another request: %v", err)
		}
		if _, _, err := app.Service.BeginIdempotent(app.Ctx(u), "", "fp"); herdbook.ErrorCode(err) != herdbook.EINVALID {
			t.Fatalf("empty key: %v", err)
		}
	})
}
