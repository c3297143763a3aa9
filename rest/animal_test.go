package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func wantStatus(t *testing.T, res herdbooktest.Response, status int) map[string]any {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	if status == http.StatusNoContent {
		return nil
	}
	return res.JSON(t)
}

func TestAnimalRegister(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Register Farm")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		ctx := app.Ctx(owner)
		base := "/v1/farm/" + f.ID.String()

		dam := wantStatus(t, app.Do("POST", base+"/animals", editor.Token, map[string]any{
			"tag": "D-1", "name": "Daisy", "sex": "female", "birth_date": "2020-04-02", "breed": "Angus"}), 201)
		sire := wantStatus(t, app.Do("POST", "/api"+base+"/animals", editor.Token, map[string]any{
			"tag": "B-1", "sex": "male", "breed": "Hereford"}), 201)
		calf := wantStatus(t, app.Do("POST", base+"/animals", editor.Token, map[string]any{
			"tag": "C-1", "name": "Clover", "sex": "female", "birth_date": "2026-03-20", "breed": "Angus cross",
			"dam_id": dam["id"], "sire_id": sire["id"], "eid": "982 000123456789"}), 201)
		prof := calf["profile"].(map[string]any)
		if prof["dam_id"] != dam["id"] || prof["sire_id"] != sire["id"] || prof["sex"] != "female" || prof["status"] != "on_farm" ||
			fmt.Sprint(prof["identifiers"]) != "[map[scheme:eid value:982000123456789]]" || prof["intact"] != true {
			t.Fatalf("calf profile %v", prof)
		}
		// The sire's sex and breed hold from the day of the request, not before.
		if p := wantStatus(t, app.Do("GET", base+"/animals/"+sire["id"].(string)+"?as_of=2000-01-01", reader.Token, nil), 200)["profile"].(map[string]any); p["sex"] != nil {
			t.Fatalf("the sire's sex is known before it was recorded: %v", p)
		}
		calfID := calf["id"].(string)
		one := func(asOf string) map[string]any {
			return wantStatus(t, app.Do("GET", base+"/animals/"+calfID+"?as_of="+asOf, reader.Token, nil), 200)["profile"].(map[string]any)
		}
		if p := one("2026-03-19"); p["dam_id"] != nil || p["sex"] != nil || len(p["identifiers"].([]any)) != 0 {
			t.Fatalf("before birth %v", p)
		}

		// Search by tag, name and every EID form.
		hex, _ := evidence.EIDHex("982000123456789")
		for _, q := range []string{"c-1", "clover", "982000123456789", "982%20000123456789", hex} {
			list := wantStatus(t, app.Do("GET", base+"/animals?as_of=2026-04-01&q="+q, reader.Token, nil), 200)
			if list["total"] != float64(1) || list["records"].([]any)[0].(map[string]any)["id"] != calfID {
				t.Fatalf("q=%s: %v", q, list)
			}
		}
		list := wantStatus(t, app.Do("GET", "/api"+base+"/animals?skip=1&take=1", reader.Token, nil), 200)
		if list["total"] != float64(3) || len(list["records"].([]any)) != 1 || list["records"].([]any)[0].(map[string]any)["id"] != sire["id"] {
			t.Fatalf("page: %v", list)
		}

		// Groups, memberships and the timeline through a group.
		herd := wantStatus(t, app.Do("POST", base+"/groups", editor.Token, map[string]any{"name": "Calves"}), 201)
		herdID := uuid.MustParse(herd["id"].(string))
		if _, err := app.Service.RecordFact(ctx, f.ID, evidence.Fact{Kind: evidence.KindMembership, AnimalID: calfID, GroupID: herdID.String(),
			StartDate: "2026-04-01", EndDate: "2026-06-30"}); err != nil {
			t.Fatal(err)
		}
		at := func(s string) string { return s + "T10:00:00Z" }
		for _, day := range []string{"2026-03-31", "2026-05-01", "2026-07-01"} {
			wantStatus(t, app.Do("POST", base+"/records", owner.Token, map[string]any{"group_ids": []string{herdID.String()},
				"name": "Drench " + day, "type": "HEALTH", "applied_at": at(day)}), 201)
		}
		tl := wantStatus(t, app.Do("GET", base+"/animals/"+calfID+"/timeline", reader.Token, nil), 200)
		var names []string
		for _, r := range tl["records"].([]any) {
			names = append(names, r.(map[string]any)["name"].(string))
		}
		// Newest first: the membership fact (applied 2026-04-01), the drench inside the
		// membership and the register's own facts; not the drenches before and after it.
		if strings.Contains(strings.Join(names, ","), "2026-03-31") || strings.Contains(strings.Join(names, ","), "2026-07-01") ||
			!strings.Contains(strings.Join(names, ","), "Drench 2026-05-01") || names[0] != "Drench 2026-05-01" || tl["total"] != float64(len(names)) {
			t.Fatalf("timeline %v", names)
		}
		tl = wantStatus(t, app.Do("GET", base+"/animals/"+calfID+"/timeline?skip=1&take=1", reader.Token, nil), 200)
		if len(tl["records"].([]any)) != 1 {
			t.Fatalf("timeline page %v", tl)
		}
		g := wantStatus(t, app.Do("GET", base+"/groups/"+herdID.String()+"?as_of=2026-05-01", reader.Token, nil), 200)
		if g["as_of"] != "2026-05-01" || len(g["members"].([]any)) != 1 || g["members"].([]any)[0].(map[string]any)["id"] != calfID {
			t.Fatalf("group on 2026-05-01 %v", g)
		}
		if g := wantStatus(t, app.Do("GET", base+"/groups/"+herdID.String()+"?as_of=2026-07-01", reader.Token, nil), 200); len(g["members"].([]any)) != 0 {
			t.Fatalf("group on 2026-07-01 %v", g)
		}
		// The register's sex and group filters judge the profile on as_of: the sire's sex
		// is recorded only from today, and the group holds the calf on 2026-05-01 only.
		for query, want := range map[string]float64{
			"sex=female&as_of=2026-05-01": 2, "sex=male&as_of=2026-05-01": 0, "sex=male": 1,
			"group_id=" + herdID.String() + "&as_of=2026-05-01":            1,
			"group_id=" + herdID.String() + "&as_of=2026-05-01&sex=female": 1,
			"group_id=" + herdID.String() + "&as_of=2026-05-01&sex=male":   0,
			"group_id=" + herdID.String() + "&as_of=2026-07-01":            0,
		} {
			l := wantStatus(t, app.Do("GET", base+"/animals?"+query, reader.Token, nil), 200)
			if l["total"] != want || float64(len(l["records"].([]any))) != want {
				t.Fatalf("%s: %v, want %v", query, l, want)
			}
		}
		if p := one("2026-05-01"); fmt.Sprint(p["group_ids"]) != "["+herdID.String()+"]" {
			t.Fatalf("group_ids %v", p["group_ids"])
		}
		gl := wantStatus(t, app.Do("GET", base+"/groups?take=10", reader.Token, nil), 200)
		if gl["total"] != float64(1) {
			t.Fatalf("groups %v", gl)
		}

		// A backdated death changes every later answer, through the API too.
		before := one("2026-05-01")
		if _, err := app.Service.RecordFact(ctx, f.ID, evidence.Fact{Kind: evidence.KindDeath, AnimalID: calfID, Date: "2026-04-15"}); err != nil {
			t.Fatal(err)
		}
		for _, day := range []string{"2026-04-15", "2026-05-01", "2027-01-01"} {
			if p := one(day); p["status"] != "died" || p["status_date"] != "2026-04-15" || len(p["group_ids"].([]any)) != 0 {
				t.Fatalf("as of %s after the backdated death: %v", day, p)
			}
		}
		if p := one("2026-04-14"); p["status"] != "on_farm" {
			t.Fatalf("the day before the death: %v (before: %v)", p, before)
		}
		for status, want := range map[string]float64{"died": 1, "on_farm": 2, "sold": 0} {
			if l := wantStatus(t, app.Do("GET", base+"/animals?as_of=2026-05-01&status="+status, reader.Token, nil), 200); l["total"] != want {
				t.Fatalf("status=%s: %v", status, l["total"])
			}
		}

		// PUT replaces tag and name and records new facts; DELETE needs the OWNER.
		put := wantStatus(t, app.Do("PUT", base+"/animals/"+sire["id"].(string), editor.Token, map[string]any{"tag": "B-2", "name": "Bruno", "breed": "Hereford x"}), 200)
		if put["tag"] != "B-2" || put["name"] != "Bruno" || put["profile"].(map[string]any)["breed"] != "Hereford x" {
			t.Fatalf("put %v", put)
		}
		herdbooktest.WantEnvelope(t, app.Do("DELETE", base+"/animals/"+sire["id"].(string), editor.Token, nil), 401, "Unauthorized", "OWNER")
		wantStatus(t, app.Do("DELETE", base+"/animals/"+sire["id"].(string), owner.Token, nil), 204)
		herdbooktest.WantEnvelope(t, app.Do("GET", base+"/animals/"+sire["id"].(string), reader.Token, nil), 404, "ServiceError", "")
	})
}

func TestAnimalRegisterBadInput(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		noScope := app.MustUser(herdbook.ScopeReadRecords)
		f := app.MustFarm(owner, "Register Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		app.MustMember(f.ID, noScope, herdbook.RoleOwner)
		cow := app.MustAnimal(owner, f.ID, "C-1")
		herd := app.MustGroup(owner, f.ID, "Herd")
		other := app.MustFarm(stranger, "Other")
		foreign := app.MustAnimal(stranger, other.ID, "X-1")
		foreignGroup := app.MustGroup(stranger, other.ID, "X-Herd")
		base := "/v1/farm/" + f.ID.String()
		animalPath := base + "/animals/" + cow.ID.String()

		if _, err := app.Service.CreateAnimal(app.Ctx(owner), f.ID, herdbook.AnimalInput{Tag: "E-1", EID: ptrS("982000000000042")}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, method, path string
			body               any
			field              string
		}{
			{"MalformedJSON", "POST", base + "/animals", `{"tag":`, ""},
			{"NotAnObject", "POST", base + "/animals", `[1]`, ""},
			{"TagMissing", "POST", base + "/animals", map[string]any{"name": "x"}, "tag"},
			{"TagWrongType", "POST", base + "/animals", map[string]any{"tag": 7}, "tag"},
			{"TagTooLong", "POST", base + "/animals", map[string]any{"tag": strings.Repeat("t", 101)}, "tag"},
			{"TagBlank", "POST", base + "/animals", map[string]any{"tag": "  "}, "tag"},
			{"UnknownField", "POST", base + "/animals", map[string]any{"tag": "x", "colour": "red"}, "colour"},
			{"SexOutOfRange", "POST", base + "/animals", map[string]any{"tag": "x", "sex": "steer"}, "sex"},
			{"SexWrongType", "POST", base + "/animals", map[string]any{"tag": "x", "sex": true}, "sex"},
			{"BirthDateNotADate", "POST", base + "/animals", map[string]any{"tag": "x", "birth_date": "2025-02-29"}, "birth_date"},
			{"BirthDateTime", "POST", base + "/animals", map[string]any{"tag": "x", "birth_date": "2025-02-01T00:00:00Z"}, "birth_date"},
			{"BreedTooLong", "POST", base + "/animals", map[string]any{"tag": "x", "breed": strings.Repeat("b", 101)}, "breed"},
			{"BreedControl", "POST", base + "/animals", map[string]any{"tag": "x", "breed": "An\x00gus"}, "breed"},
			{"EIDShort", "POST", base + "/animals", map[string]any{"tag": "x", "eid": "98200012345"}, "eid"},
			{"EIDLetters", "POST", base + "/animals", map[string]any{"tag": "x", "eid": "98200012345678x"}, "eid"},
			{"EIDWrongType", "POST", base + "/animals", map[string]any{"tag": "x", "eid": 982000123456789}, "eid"},
			{"EIDTaken", "POST", base + "/animals", map[string]any{"tag": "x", "eid": "982 000000000042"}, "eid"},
			{"DamNotUUID", "POST", base + "/animals", map[string]any{"tag": "x", "birth_date": "2025-01-01", "dam_id": "cow"}, "dam_id"},
			{"DamUnknown", "POST", base + "/animals", map[string]any{"tag": "x", "birth_date": "2025-01-01", "dam_id": uuid.NewString()}, "dam_id"},
			{"DamOtherFarm", "POST", base + "/animals", map[string]any{"tag": "x", "birth_date": "2025-01-01", "dam_id": foreign.ID.String()}, "dam_id"},
			{"DamWithoutBirthDate", "POST", base + "/animals", map[string]any{"tag": "x", "dam_id": cow.ID.String()}, "dam_id"},
			{"SireOtherFarm", "POST", base + "/animals", map[string]any{"tag": "x", "birth_date": "2025-01-01", "sire_id": foreign.ID.String()}, "sire_id"},
			{"SireIsDam", "POST", base + "/animals", map[string]any{"tag": "x", "birth_date": "2025-01-01", "dam_id": cow.ID.String(), "sire_id": cow.ID.String()}, "sire_id"},
			{"PutSelfDam", "PUT", animalPath, map[string]any{"tag": "x", "birth_date": "2025-01-01", "dam_id": cow.ID.String()}, "dam_id"},
			{"PutTagNull", "PUT", animalPath, map[string]any{"tag": nil}, "tag"},
			{"ListAsOf", "GET", base + "/animals?as_of=2025-13-01", nil, "as_of"},
			{"ListStatus", "GET", base + "/animals?status=lost", nil, "status"},
			{"ListSkip", "GET", base + "/animals?skip=-1", nil, "skip"},
			{"ListTake", "GET", base + "/animals?take=many", nil, "take"},
			{"ListQTooLong", "GET", base + "/animals?q=" + strings.Repeat("q", 201), nil, "q"},
			{"ListSex", "GET", base + "/animals?sex=steer", nil, "sex"},
			{"ListGroupNotUUID", "GET", base + "/animals?group_id=herd", nil, "group_id"},
			{"ListSexWithFeed", "GET", base + "/animals?sex=male&updated_since=x", nil, "sex"},
			{"GetAsOf", "GET", animalPath + "?as_of=yesterday", nil, "as_of"},
			{"GetAnimalNotUUID", "GET", base + "/animals/cow", nil, "animal_id"},
			{"TimelineTake", "GET", animalPath + "/timeline?take=-2", nil, "take"},
			{"GroupNameMissing", "POST", base + "/groups", map[string]any{}, "name"},
			{"GroupNameWrongType", "POST", base + "/groups", map[string]any{"name": []string{"x"}}, "name"},
			{"GroupNameTooLong", "POST", base + "/groups", map[string]any{"name": strings.Repeat("g", 201)}, "name"},
			{"GroupAsOf", "GET", base + "/groups/" + herd.ID.String() + "?as_of=2025-02-30", nil, "as_of"},
			{"GroupNotUUID", "GET", base + "/groups/herd", nil, "group_id"},
			{"GroupAnimalsWrongType", "POST", base + "/groups", map[string]any{"name": "x", "animal_ids": "all"}, "animal_ids"},
			{"GroupAnimalNotUUID", "POST", base + "/groups", map[string]any{"name": "x", "animal_ids": []string{"cow"}}, "animal_ids"},
			{"GroupAnimalOtherFarm", "POST", base + "/groups", map[string]any{"name": "x", "animal_ids": []string{foreign.ID.String()}}, "animal_ids"},
			{"GroupStartDateNotADate", "POST", base + "/groups", map[string]any{"name": "x", "animal_ids": []string{cow.ID.String()}, "start_date": "2026-02-30"}, "start_date"},
			{"MembersMalformedJSON", "PUT", base + "/groups/" + herd.ID.String() + "/animals", `{"animal_ids":`, ""},
			{"MembersMissing", "PUT", base + "/groups/" + herd.ID.String() + "/animals", map[string]any{}, "animal_ids"},
			{"MembersWrongType", "PUT", base + "/groups/" + herd.ID.String() + "/animals", map[string]any{"animal_ids": []int{1}}, "animal_ids"},
			{"MembersUnknownAnimal", "PUT", base + "/groups/" + herd.ID.String() + "/animals", map[string]any{"animal_ids": []string{uuid.NewString()}}, "animal_ids"},
			{"MembersOtherFarmAnimal", "PUT", base + "/groups/" + herd.ID.String() + "/animals", map[string]any{"animal_ids": []string{foreign.ID.String()}}, "animal_ids"},
			{"MembersStartDateOutOfRange", "PUT", base + "/groups/" + herd.ID.String() + "/animals", map[string]any{"animal_ids": []string{}, "start_date": "2026-13-01"}, "start_date"},
			{"MembersStartDateWrongType", "PUT", base + "/groups/" + herd.ID.String() + "/animals", map[string]any{"animal_ids": []string{}, "start_date": 20260101}, "start_date"},
			{"MembersUnknownField", "PUT", base + "/groups/" + herd.ID.String() + "/animals", map[string]any{"animal_ids": []string{}, "members": []string{}}, "members"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := app.Do(tc.method, tc.path, owner.Token, tc.body)
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", tc.field)
			})
		}
		t.Run("NotFound", func(t *testing.T) {
			for _, p := range []struct{ method, path string }{
				{"GET", base + "/animals/" + uuid.NewString()},
				{"GET", base + "/animals/" + foreign.ID.String()},
				{"PUT", base + "/animals/" + foreign.ID.String()},
				{"DELETE", base + "/animals/" + foreign.ID.String()},
				{"GET", base + "/animals/" + foreign.ID.String() + "/timeline"},
				{"GET", base + "/groups/" + foreignGroup.ID.String()},
				{"GET", base + "/groups/" + uuid.NewString()},
				{"PUT", base + "/groups/" + uuid.NewString() + "/animals"},
				{"PUT", base + "/groups/" + foreignGroup.ID.String() + "/animals"},
				{"PUT", "/v1/farm/" + other.ID.String() + "/groups/" + foreignGroup.ID.String() + "/animals"},
				{"GET", "/v1/farm/" + other.ID.String() + "/animals"},
				{"POST", "/v1/farm/" + other.ID.String() + "/animals"},
				{"GET", "/v1/farm/" + uuid.NewString() + "/groups"},
			} {
				body := map[string]any{"tag": "x"}
				if strings.HasSuffix(p.path, "/animals") && p.method == "PUT" {
					body = map[string]any{"animal_ids": []string{}}
				}
				herdbooktest.WantEnvelope(t, app.Do(p.method, p.path, owner.Token, body), 404, "ServiceError", "")
			}
		})
		t.Run("Auth", func(t *testing.T) {
			animalBody, groupBody := map[string]any{"tag": "x", "name": "x"}, map[string]any{"name": "x"}
			paths := []struct {
				method, path string
				body         any
			}{
				{"GET", base + "/animals", nil}, {"POST", base + "/animals", animalBody}, {"GET", animalPath, nil},
				{"PUT", animalPath, animalBody}, {"DELETE", animalPath, nil}, {"GET", animalPath + "/timeline", nil},
				{"GET", base + "/groups", nil}, {"POST", base + "/groups", groupBody}, {"GET", base + "/groups/" + herd.ID.String(), nil},
				{"PUT", base + "/groups/" + herd.ID.String() + "/animals", map[string]any{"animal_ids": []string{}}},
			}
			for _, p := range paths {
				for _, prefix := range []string{"", "/api"} {
					herdbooktest.WantEnvelope(t, app.Do(p.method, prefix+p.path, "", p.body), 401, "Unauthorized", "")
					herdbooktest.WantEnvelope(t, app.Do(p.method, prefix+p.path, noScope.Token, p.body), 403, "ForbiddenError", "animals")
				}
			}
			// A READER reads but does not write; an EDITOR does not delete.
			for _, p := range paths {
				if p.method != "GET" {
					herdbooktest.WantEnvelope(t, app.Do(p.method, p.path, reader.Token, p.body), 401, "Unauthorized", "")
				}
			}
		})
		// Nothing above changed the register.
		if list := wantStatus(t, app.Do("GET", base+"/animals", reader.Token, nil), 200); list["total"] != float64(2) {
			t.Fatalf("bad input wrote animals: %v", list)
		}
	})
}

func ptrS(s string) *string { return &s }
