package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/internal/seed"
)

// recordLinks returns the ids of the animals and groups linked to a record, sorted.
func recordLinks(t *testing.T, d *db.DB, id string) (animals, groups []string) {
	t.Helper()
	ctx := herdbook.IncludeInactive(context.Background())
	r, err := d.Client.Record.Get(ctx, uuid.MustParse(id))
	if err != nil {
		t.Fatal(err)
	}
	as, err := r.QueryAnimals().IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := r.QueryGroups().IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return sortedStrings(as), sortedStrings(gs)
}

func sortedStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	sort.Strings(out)
	return out
}

func sorted(ids ...string) []string {
	out := append([]string(nil), ids...)
	sort.Strings(out)
	return out
}

func TestCreateRecord(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		cow := app.MustAnimal(owner, f.ID, "C-1")
		herd := app.MustGroup(owner, f.ID, "Herd")
		gone := app.MustAnimal(owner, f.ID, "C-2")
		if err := app.Service.DeleteAnimal(app.Ctx(owner), gone.ID); err != nil {
			t.Fatal(err)
		}
		otherFarm := app.MustFarm(stranger, "Other")
		foreign := app.MustAnimal(stranger, otherFarm.ID, "X-1")
		foreignGroup := app.MustGroup(stranger, otherFarm.ID, "X-Herd")
		path := "/v1/farm/" + f.ID.String() + "/records"

		t.Run("OK", func(t *testing.T) {
			res := app.Do("POST", path, owner.Token, map[string]any{
				"animal_ids": []string{cow.ID.String(), foreign.ID.String(), gone.ID.String(), uuid.NewString()},
				"group_ids":  []string{herd.ID.String(), foreignGroup.ID.String()},
				"name":       "Spring vaccination", "type": "HEALTH", "applied_at": "2026-03-01T08:00:00+01:00",
				"description":  "Clostridial booster",
				"record_items": []map[string]any{{"name": "Dose", "description": "2 ml", "metadata": map[string]any{"batch": "B-7"}}},
			})
			if res.Status != http.StatusCreated {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			rec := res.JSON(t)
			if rec["name"] != "Spring vaccination" || rec["type"] != "HEALTH" || rec["applied_at"] != "2026-03-01T07:00:00Z" || rec["is_active"] != true || rec["description"] != "Clostridial booster" {
				t.Fatalf("record = %v", rec)
			}
			if _, ok := rec["record_items"]; ok {
				t.Fatalf("create answer must not carry record_items: %v", rec)
			}
			if _, ok := rec["files"]; ok {
				t.Fatalf("create answer must not carry files: %v", rec)
			}
			animals, groups := recordLinks(t, d, rec["id"].(string))
			if fmt.Sprint(animals) != fmt.Sprint([]string{cow.ID.String()}) || fmt.Sprint(groups) != fmt.Sprint([]string{herd.ID.String()}) {
				t.Fatalf("linked animals %v groups %v: other farms' and inactive ids must be filtered out", animals, groups)
			}
			one := app.Do("GET", path+"/"+rec["id"].(string), reader.Token, nil).JSON(t)
			items := one["record_items"].([]any)
			if len(items) != 1 || items[0].(map[string]any)["metadata"].(map[string]any)["batch"] != "B-7" {
				t.Fatalf("items = %v", items)
			}
		})
		t.Run("OnlyGroups", func(t *testing.T) {
			res := app.Do("POST", "/api"+path, owner.Token, `{"group_ids":["`+herd.ID.String()+`"],"name":"Hay","type":"FEED","applied_at":"2026-03-02T00:00:00Z"}`)
			if res.Status != 201 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
		})
		t.Run("OnlyForeignIDsFiltered", func(t *testing.T) {
			res := app.Do("POST", path, owner.Token, map[string]any{"animal_ids": []string{foreign.ID.String()}, "name": "Odd", "type": "OTHER", "applied_at": "2026-03-02T00:00:00Z"})
			if res.Status != 201 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if a, g := recordLinks(t, d, res.JSON(t)["id"].(string)); len(a)+len(g) != 0 {
				t.Fatalf("a foreign animal was attached: %v %v", a, g)
			}
		})

		valid := func(over map[string]any) map[string]any {
			b := map[string]any{"animal_ids": []string{cow.ID.String()}, "name": "Check", "type": "HEALTH", "applied_at": "2026-03-01T08:00:00Z"}
			for k, v := range over {
				if v == nil {
					delete(b, k)
				} else {
					b[k] = v
				}
			}
			return b
		}
		for _, tc := range []struct {
			name string
			body any
			want string
		}{
			{"ErrNoAssociations", valid(map[string]any{"animal_ids": []string{}}), "animal_ids: animal_ids or group_ids must name at least one"},
			{"ErrAssociationsMissing", valid(map[string]any{"animal_ids": nil}), "animal_ids or group_ids"},
			{"ErrAnimalIDNotUUID", valid(map[string]any{"animal_ids": []string{cow.ID.String(), "cow-1"}}), "animal_ids[1]: must be a UUID"},
			{"ErrGroupIDsWrongType", valid(map[string]any{"group_ids": "herd"}), "group_ids: must be an array"},
			{"ErrAnimalIDWrongType", valid(map[string]any{"animal_ids": []int{1}}), "animal_ids[0]: must be a string"},
			{"ErrNameMissing", valid(map[string]any{"name": nil}), "name: must be at least 1 characters"},
			{"ErrNameTooLong", valid(map[string]any{"name": strings.Repeat("n", 201)}), "name: must be at most 200 characters"},
			{"ErrTypeUnknown", valid(map[string]any{"type": "VET"}), "type: must be one of OTHER, FEED, GENETIC, HEALTH, MOVEMENT"},
			{"ErrTypeMissing", valid(map[string]any{"type": nil}), "type: must be one of"},
			{"ErrAppliedAtMissing", valid(map[string]any{"applied_at": nil}), "applied_at: is required"},
			{"ErrAppliedAtDateOnly", valid(map[string]any{"applied_at": "2026-03-01"}), "applied_at: must be an ISO 8601 date-time"},
			{"ErrAppliedAtWrongType", valid(map[string]any{"applied_at": 1700000000}), "applied_at: must be a string"},
			{"ErrAppliedAtImpossible", valid(map[string]any{"applied_at": "2026-02-30T00:00:00Z"}), "applied_at: must be an ISO 8601 date-time"},
			// Issue 22.8: 0001-01-01 was stored, and GraphQL then failed on every read of it.
			{"ErrAppliedAtYearOne", valid(map[string]any{"applied_at": "0001-01-01T00:00:00Z"}), "applied_at: must be on or after 0001-01-02T00:00:00Z"},
			{"ErrAppliedAtNoZone", valid(map[string]any{"applied_at": "2026-03-01T08:00:00"}), "applied_at: must be an ISO 8601 date-time"},
			{"ErrNullBody", "null", "body: must be a JSON object, not null"},
			{"ErrItemMetadataTooLarge", valid(map[string]any{"record_items": []any{map[string]any{"metadata": map[string]any{"note": strings.Repeat("x", herdbook.MaxItemMetadataBytes)}}}}), "record_items[0].metadata: must be at most 16384 bytes"},
			{"ErrTooManyItems", valid(map[string]any{"record_items": slices.Repeat([]any{map[string]any{}}, herdbook.MaxRecordItems+1)}), "record_items: must have at most 500 items"},
			{"ErrItemNull", valid(map[string]any{"record_items": []any{nil}}), "record_items[0]: must not be null"},
			{"ErrTooManyAnimals", valid(map[string]any{"animal_ids": manyIDs(1001)}), "animal_ids: must have at most 1000 ids"},
			{"ErrItemMetadataWrongType", valid(map[string]any{"record_items": []any{map[string]any{"metadata": "x"}}}), "metadata: must be an object"},
			{"ErrItemFactNotObject", valid(map[string]any{"record_items": []any{map[string]any{"metadata": map[string]any{"birth_history": 3}}}}), "record_items[0].metadata.birth_history: must be a JSON object"},
			{"ErrUnknownField", valid(map[string]any{"animals": []string{}}), "animals: is not a known field"},
			{"ErrMalformed", `{"name":"x",`, "body: malformed JSON"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do("POST", path, owner.Token, tc.body), 400, "ValidationError", tc.want)
			})
		}
		t.Run("ErrReaderRole", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", path, reader.Token, valid(nil)), 401, "Unauthorized", "EDITOR")
		})
		t.Run("ErrOtherFarm", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", "/v1/farm/"+otherFarm.ID.String()+"/records", owner.Token, valid(nil)), 404, "ServiceError", "")
		})
		t.Run("ErrMissingScope", func(t *testing.T) {
			tok := app.MustToken(owner.ID, herdbook.ScopeReadRecords, herdbook.ScopeWriteFarms)
			herdbooktest.WantEnvelope(t, app.Do("POST", path, tok, valid(nil)), 403, "ForbiddenError", "write:records")
		})
		t.Run("ErrNoAuth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("POST", path, "", valid(nil)), 401, "Unauthorized", "")
		})
	})
}

func TestRecordFacts(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, stranger := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Facts")
		dam, bull := app.MustAnimal(owner, f.ID, "DAM"), app.MustAnimal(owner, f.ID, "BULL")
		herd := app.MustGroup(owner, f.ID, "Herd")
		other := app.MustFarm(stranger, "Other")
		foreignBull := app.MustAnimal(stranger, other.ID, "THEIR-BULL")
		path := "/v1/farm/" + f.ID.String() + "/records"
		post := func(fact map[string]any) herdbooktest.Response {
			return app.Do("POST", path, owner.Token, map[string]any{
				"animal_ids": []string{dam.ID.String()}, "name": "Fact", "type": "GENETIC", "applied_at": "2025-06-01T00:00:00Z",
				"record_items": []any{map[string]any{"name": "fact", "metadata": map[string]any{"birth_history": fact, "note": "kept"}}},
			})
		}
		t.Run("OKNormalized", func(t *testing.T) {
			res := post(map[string]any{"kind": "exposure", "sire_id": strings.ToUpper(bull.ID.String()), "group_id": herd.ID.String(),
				"start_date": "2025-06-01", "end_date": ""})
			if res.Status != 201 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			rec := app.Do("GET", path+"/"+res.JSON(t)["id"].(string), owner.Token, nil).JSON(t)
			md := rec["record_items"].([]any)[0].(map[string]any)["metadata"].(map[string]any)
			fact := md["birth_history"].(map[string]any)
			if fact["sire_id"] != bull.ID.String() || md["note"] != "kept" {
				t.Fatalf("metadata = %v", md)
			}
			if _, ok := fact["end_date"]; ok {
				t.Fatalf("an empty end_date must be dropped: %v", fact)
			}
		})
		for _, tc := range []struct {
			name string
			fact map[string]any
			want string
		}{
			{"ErrUnknownKind", map[string]any{"kind": "wedding", "animal_id": dam.ID.String()}, "record_items[0].metadata.birth_history.kind"},
			{"ErrBadDate", map[string]any{"kind": "purchase", "animal_id": dam.ID.String(), "date": "2026-02-30"}, "record_items[0].metadata.birth_history.date"},
			{"ErrEndBeforeStart", map[string]any{"kind": "membership", "animal_id": dam.ID.String(), "group_id": herd.ID.String(), "start_date": "2025-06-01", "end_date": "2025-05-01"}, "record_items[0].metadata.birth_history.end_date"},
			{"ErrOtherFarmsAnimal", map[string]any{"kind": "exposure", "sire_id": foreignBull.ID.String(), "dam_id": dam.ID.String(), "start_date": "2025-06-01"}, "is not an animal of this farm"},
			{"ErrUnknownGroup", map[string]any{"kind": "membership", "animal_id": dam.ID.String(), "group_id": uuid.NewString(), "start_date": "2025-06-01"}, "is not a group of this farm"},
			{"ErrBadSex", map[string]any{"kind": "profile", "animal_id": dam.ID.String(), "sex": "steer"}, "record_items[0].metadata.birth_history.sex"},
			{"ErrBadEID", map[string]any{"kind": "identifier", "animal_id": dam.ID.String(), "scheme": "eid", "value": "12", "start_date": "2025-06-01"}, "record_items[0].metadata.birth_history.value"},
			{"ErrWeightString", map[string]any{"kind": "weight", "animal_id": dam.ID.String(), "date": "2025-06-01", "kg": "400"}, "record_items[0].metadata.birth_history.kg"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, post(tc.fact), 400, "ValidationError", tc.want)
			})
		}
		t.Run("ErrNothingWritten", func(t *testing.T) {
			if total := app.Do("GET", path, owner.Token, nil).JSON(t)["total"]; total != float64(1) {
				t.Fatalf("total = %v: a refused fact left a record behind", total)
			}
		})
	})
}

func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = uuid.NewString()
	}
	return out
}

func TestRecordReadUpdateDelete(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		a1, a2 := app.MustAnimal(owner, f.ID, "A-1"), app.MustAnimal(owner, f.ID, "A-2")
		g1 := app.MustGroup(owner, f.ID, "G-1")
		otherFarm := app.MustFarm(stranger, "Other")
		foreign := app.MustAnimal(stranger, otherFarm.ID, "X-1")
		foreignRec, err := app.Service.CreateRecord(app.Ctx(stranger), otherFarm.ID, herdbook.RecordInput{
			AnimalIDs: []uuid.UUID{foreign.ID}, Name: "Theirs", Type: "OTHER", AppliedAt: ptrTime(),
		})
		if err != nil {
			t.Fatal(err)
		}
		base := "/v1/farm/" + f.ID.String() + "/records"
		var ids []string
		for i := 0; i < 4; i++ {
			res := app.Do("POST", base, owner.Token, map[string]any{"animal_ids": []string{a1.ID.String()}, "name": fmt.Sprintf("R%d", i),
				"type": "FEED", "applied_at": "2026-01-01T00:00:00Z", "record_items": []map[string]any{{"name": "one"}, {"name": "two"}}})
			ids = append(ids, res.JSON(t)["id"].(string))
		}

		t.Run("ListOK", func(t *testing.T) {
			body := app.Do("GET", base, reader.Token, nil).JSON(t)
			recs := body["records"].([]any)
			if body["total"] != float64(4) || len(recs) != 4 {
				t.Fatalf("list = %v", body)
			}
			r0 := recs[0].(map[string]any)
			if r0["id"] != ids[0] || len(r0["record_items"].([]any)) != 2 || len(r0["files"].([]any)) != 0 {
				t.Fatalf("first = %v", r0)
			}
			item := r0["record_items"].([]any)[0].(map[string]any)
			for _, k := range []string{"id", "description", "is_active", "metadata", "name", "created_at", "updated_at"} {
				if _, ok := item[k]; !ok {
					t.Fatalf("item lacks %s: %v", k, item)
				}
			}
		})
		t.Run("ListSkipTake", func(t *testing.T) {
			body := app.Do("GET", "/api"+base+"?skip=3&take=10", reader.Token, nil).JSON(t)
			if recs := body["records"].([]any); len(recs) != 1 || recs[0].(map[string]any)["id"] != ids[3] {
				t.Fatalf("page = %v", body)
			}
		})
		t.Run("ErrListBadTake", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"?take=x", reader.Token, nil), 400, "ValidationError", "take")
		})
		t.Run("ErrListOtherFarm", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+otherFarm.ID.String()+"/records", owner.Token, nil), 404, "ServiceError", "")
		})
		t.Run("ErrListMissingScope", func(t *testing.T) {
			tok := app.MustToken(reader.ID, herdbook.ScopeReadFarms)
			herdbooktest.WantEnvelope(t, app.Do("GET", base, tok, nil), 403, "ForbiddenError", "read:records")
		})
		t.Run("ErrGetOtherFarmsRecord", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/"+foreignRec.ID.String(), owner.Token, nil), 404, "ServiceError", "")
		})
		t.Run("ErrGetUnknown", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/"+uuid.NewString(), owner.Token, nil), 404, "ServiceError", "")
		})
		t.Run("ErrGetBadID", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/12", owner.Token, nil), 400, "ValidationError", "record_id: must be a UUID")
		})

		t.Run("UpdateAppends", func(t *testing.T) {
			res := app.Do("PUT", base+"/"+ids[0], editor.Token, map[string]any{
				"animal_ids": []string{a1.ID.String(), a2.ID.String(), foreign.ID.String()}, "group_ids": []string{g1.ID.String()},
				"name": "Renamed", "type": "HEALTH", "description": "now described", "record_items": []map[string]any{{"name": "three"}},
			})
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			rec := res.JSON(t)
			if rec["name"] != "Renamed" || rec["type"] != "HEALTH" || rec["description"] != "now described" || rec["applied_at"] != "2026-01-01T00:00:00Z" {
				t.Fatalf("record = %v", rec)
			}
			if _, ok := rec["record_items"]; ok {
				t.Fatal("update answer must not carry record_items")
			}
			animals, groups := recordLinks(t, d, ids[0])
			if fmt.Sprint(animals) != fmt.Sprint(sorted(a1.ID.String(), a2.ID.String())) || fmt.Sprint(groups) != fmt.Sprint([]string{g1.ID.String()}) {
				t.Fatalf("animals %v groups %v", animals, groups)
			}
			if n := len(app.Do("GET", base+"/"+ids[0], reader.Token, nil).JSON(t)["record_items"].([]any)); n != 3 {
				t.Fatalf("%d items, want 3", n)
			}
		})
		t.Run("UpdateNullClearsDescription", func(t *testing.T) {
			rec := app.Do("PUT", base+"/"+ids[0], editor.Token, `{"description":null}`).JSON(t)
			if rec["description"] != nil || rec["name"] != "Renamed" {
				t.Fatalf("record = %v", rec)
			}
		})
		for _, tc := range []struct{ name, body, want string }{
			{"ErrUpdateType", `{"type":"NOPE"}`, "type: must be one of"},
			{"ErrUpdateNameNull", `{"name":null}`, "name: may be left out but not null"},
			{"ErrUpdateAppliedAt", `{"applied_at":"yesterday"}`, "applied_at: must be an ISO 8601"},
			{"ErrUpdateIDs", `{"animal_ids":["x"]}`, "animal_ids[0]: must be a UUID"},
			{"ErrUpdateMalformed", `nope`, "body: malformed JSON"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do("PUT", base+"/"+ids[1], editor.Token, tc.body), 400, "ValidationError", tc.want)
			})
		}
		t.Run("ErrUpdateReader", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("PUT", base+"/"+ids[1], reader.Token, `{"name":"x"}`), 401, "Unauthorized", "")
		})
		t.Run("ErrUpdateOtherFarmsRecord", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("PUT", base+"/"+foreignRec.ID.String(), owner.Token, `{"name":"stolen"}`), 404, "ServiceError", "")
			if r, _ := d.Client.Record.Get(context.Background(), foreignRec.ID); r.Name != "Theirs" {
				t.Fatalf("foreign record changed: %v", r.Name)
			}
		})

		t.Run("ErrDeleteEditor", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("DELETE", base+"/"+ids[1], editor.Token, nil), 401, "Unauthorized", "OWNER")
		})
		t.Run("ErrDeleteOtherFarmsRecord", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("DELETE", base+"/"+foreignRec.ID.String(), owner.Token, nil), 404, "ServiceError", "")
		})
		t.Run("DeleteOK", func(t *testing.T) {
			if res := app.Do("DELETE", base+"/"+ids[1], owner.Token, nil); res.Status != 204 || len(res.Body) != 0 {
				t.Fatalf("status %d body %q", res.Status, res.Body)
			}
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/"+ids[1], owner.Token, nil), 404, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("DELETE", base+"/"+ids[1], owner.Token, nil), 404, "ServiceError", "")
			if total := app.Do("GET", base, owner.Token, nil).JSON(t)["total"]; total != float64(3) {
				t.Fatalf("total %v after delete", total)
			}
		})
	})
}

// TestRecordListQueryCount proves the list costs the same number of queries for 5 records as
// for 50, each with items and files.
func TestRecordListQueryCount(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Counted")
		a := app.MustAnimal(u, f.ID, "A")
		path := "/v1/farm/" + f.ID.String() + "/records?take="
		counts := map[int]int64{}
		made := 0
		for _, n := range []int{5, 50} {
			for ; made < n; made++ {
				if _, err := app.Service.CreateRecord(app.Ctx(u), f.ID, herdbook.RecordInput{
					AnimalIDs: []uuid.UUID{a.ID}, Name: "r", Type: "FEED", AppliedAt: ptrTime(),
					Items: []herdbook.RecordItemInput{{}, {}, {}},
				}); err != nil {
					t.Fatal(err)
				}
			}
			counts[n] = app.Queries(func() {
				if res := app.Do("GET", path+fmt.Sprint(n), u.Token, nil); len(res.JSON(t)["records"].([]any)) != n {
					t.Fatalf("want %d records", n)
				}
			})
		}
		if counts[5] != counts[50] {
			t.Fatalf("queries grow with the page: %v", counts)
		}
		// The token (with its client and user); the page with the farm's counter and the
		// viewer's role; its items; its files.
		if counts[50] > 4 {
			t.Fatalf("a page of 50 records costs %d statements, want at most 4", counts[50])
		}
		t.Logf("record list: %d queries for any page size", counts[50])
	})
}

func BenchmarkRecordListREST(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			f := app.MustFarm(u, "Bench")
			a := app.MustAnimal(u, f.ID, "A")
			for i := 0; i < 200; i++ {
				if _, err := app.Service.CreateRecord(app.Ctx(u), f.ID, herdbook.RecordInput{
					AnimalIDs: []uuid.UUID{a.ID}, Name: "r", Type: "FEED", AppliedAt: ptrTime(),
					Items: []herdbook.RecordItemInput{{}, {}},
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := app.Do("GET", "/v1/farm/"+f.ID.String()+"/records?take=50", u.Token, nil); res.Status != 200 {
					b.Fatal(res.Status)
				}
			}
		})
	}
}

func ptrTime() *time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &t
}

// BenchmarkRecordListFarmSize reads the first 10 records of a farm of 1,000 and of 20,000
// records: the page and its exact total cost the same statements whatever the farm's size
// (the total is the farm's counter, not a count), so the two should take about as long.
func BenchmarkRecordListFarmSize(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		for _, n := range []int{1_000, 20_000} {
			b.Run(fmt.Sprintf("%s/records=%d", dia, n), func(b *testing.B) {
				d := herdbooktest.MustDB(b, dia)
				app := herdbooktest.NewApp(b, d)
				u := app.MustUser()
				res, err := seed.Run(context.Background(), d.Client, seed.Options{
					Owner: u.ID, Farms: 1, AnimalsPerFarm: 100, RecordsPerFarm: n, ItemsPerRecord: 2, Seed: 7,
				})
				if err != nil {
					b.Fatal(err)
				}
				if dia == "postgres" {
					if _, err := d.SQL.Exec("ANALYZE"); err != nil {
						b.Fatal(err)
					}
				}
				path := "/v1/farm/" + res.FarmIDs[0].String() + "/records?take=10"
				if total := app.Do("GET", path, u.Token, nil).JSON(b)["total"]; total != float64(n) {
					b.Fatalf("total %v, want %d", total, n)
				}
				queries := app.DB.Queries()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if res := app.Do("GET", path, u.Token, nil); res.Status != 200 {
						b.Fatal(res.Status)
					}
				}
				b.ReportMetric(float64(app.DB.Queries()-queries)/float64(b.N), "statements/op")
			})
		}
	}
}
