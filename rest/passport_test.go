package rest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestPassportREST (issue 29.6): the passport of an embryo-transfer calf born on a GB
// holding (its genetic dam the donor, its surrogate dam the recipient, its sire an AI bull
// from outside the farm, its breed Limousin Cross coded LIMX as CTS lists it), of a cow
// bought in from one holding and sold to another (her breed "Angus", which CTS does not
// list, so no code), as the book knows each on a date; a farm on no holding; the printable
// page; and bad input.
func TestPassportREST(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		n := newNoticeFarm(t, d)
		app := n.app
		recipient := app.MustAnimal(n.owner, n.farm, "UK 123456 100001").ID.String()
		donor := app.MustAnimal(n.owner, n.farm, "UK 123456 200002").ID.String()
		calf := app.MustAnimal(n.owner, n.farm, "UK 123456 300003").ID.String()
		cow := app.MustAnimal(n.owner, n.farm, "UK 654321 300001").ID.String()
		res := app.Do("POST", n.base+"/outside-animals", n.owner.Token, map[string]any{"name": "Ampertaler Ace", "sex": "male",
			"breed": "Limousin", "registry": "British Limousin Cattle Society", "registration_number": "UK581234500123"})
		if res.Status != 201 {
			t.Fatalf("outside sire: %d %s", res.Status, res.Body)
		}
		sire := res.JSON(t)["id"].(string)
		n.fact(t, map[string]any{"kind": "profile", "animal_id": recipient, "sex": "female", "birth_date": "2020-04-01"})
		n.fact(t, map[string]any{"kind": "profile", "animal_id": donor, "sex": "female", "birth_date": "2019-04-01", "breed": "Limousin"})
		n.fact(t, map[string]any{"kind": "birth", "dam_id": recipient, "genetic_dam_id": donor, "sire_id": sire, "date": "2026-03-06",
			"offspring_ids": []string{calf}})
		n.fact(t, map[string]any{"kind": "profile", "animal_id": calf, "sex": "female", "breed": "limousin cross"})
		n.fact(t, map[string]any{"kind": "profile", "animal_id": cow, "sex": "female", "birth_date": "2021-05-02", "breed": "Angus"})
		n.fact(t, map[string]any{"kind": "purchase", "animal_id": cow, "date": "2026-03-16", "holding_scheme": "uk.cph", "holding_number": "12/345/6789"})
		n.fact(t, map[string]any{"kind": "sale", "animal_id": cow, "date": "2026-03-25", "holding_scheme": "uk.cph", "holding_number": "11/222/3333"})

		passport := func(animal, query string) string {
			t.Helper()
			res := app.Do("GET", n.base+"/animals/"+animal+"/passport"+query, n.reader.Token, nil)
			if res.Status != 200 {
				t.Fatalf("passport: %d %s", res.Status, res.Body)
			}
			return string(res.Body)
		}
		want := func(got string, parts ...string) {
			t.Helper()
			for _, p := range parts {
				if !strings.Contains(got, p) {
					t.Errorf("passport lacks %s:\n%s", p, got)
				}
			}
		}
		here := `{"scheme":"uk.cph","number":"34/123/1234"}`
		et := passport(calf, "?as_of=2026-03-20")
		want(et, `"official_tag":"UK 123456 300003"`, `"birth_date":"2026-03-06"`, `"sex":"female"`,
			`"breed":"limousin cross","breed_code":"LIMX","breed_scheme":"uk.cts.breed"`,
			`"genetic_dam":{"animal_id":"`+donor+`","outside":false,"tag":"UK 123456 200002"`,
			`"surrogate_dam":{"animal_id":"`+recipient+`","outside":false,"tag":"UK 123456 100001"`,
			`"sire":{"animal_id":"`+sire+`","outside":true,"tag":null,"name":"Ampertaler Ace","registry":"British Limousin Cattle Society","registration_number":"UK581234500123"}`,
			`"holding":`+here,
			`"movements":[{"event":"birth","kind":"birth","date":"2026-03-06","from":null,"to":`+here+`,"disposal":null}]`)
		// Before the birth the book knows no birth date, breed or parents yet.
		want(passport(calf, "?as_of=2026-03-01"), `"birth_date":null`, `"genetic_dam":null`, `"sire":null`, `"movements":[]`)

		arrival := `{"event":"arrival","kind":"purchase","date":"2026-03-16","from":{"scheme":"uk.cph","number":"12/345/6789"},"to":` + here + `,"disposal":null}`
		departure := `{"event":"departure","kind":"sale","date":"2026-03-25","from":` + here + `,"to":{"scheme":"uk.cph","number":"11/222/3333"},"disposal":null}`
		want(passport(cow, "?as_of=2026-03-20"), `"breed":"Angus","breed_code":null,"breed_scheme":"uk.cts.breed"`,
			`"genetic_dam":null,"surrogate_dam":null,"sire":null`, `"movements":[`+arrival+`]`)
		want(passport(cow, "?as_of=2026-04-01"), `"movements":[`+arrival+`,`+departure+`]`)

		// A farm on no holding still answers, its holding fields null.
		loose := app.MustFarm(n.owner, "Loose Farm")
		stray := app.MustAnimal(n.owner, loose.ID, "UK 123456 400004").ID.String()
		res = app.Do("GET", "/v1/farm/"+loose.ID.String()+"/animals/"+stray+"/passport", n.owner.Token, nil)
		if res.Status != 200 {
			t.Fatalf("farm on no holding: %d %s", res.Status, res.Body)
		}
		want(string(res.Body), `"holding":null`, `"breed_scheme":null`, `"breed_code":null`, `"official_tag":"UK 123456 400004"`)

		t.Run("Page", func(t *testing.T) {
			res := app.Do("GET", n.base+"/animals/"+calf+"/passport.html?as_of=2026-03-20", n.reader.Token, nil)
			if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("page: %d %s %s", res.Status, res.Header.Get("Content-Type"), res.Body)
			}
			page := string(res.Body)
			for _, p := range []string{"<title>Cattle passport: UK 123456 300003</title>", "LIMX", "uk.cts.breed", "UK 123456 200002",
				"UK 123456 100001", "Surrogate dam", "Ampertaler Ace", "British Limousin Cattle Society UK581234500123", "34/123/1234", "born here"} {
				if !strings.Contains(page, p) {
					t.Errorf("page lacks %q:\n%s", p, page)
				}
			}
			if strings.Contains(page, "<script") {
				t.Error("the page has a script")
			}
			page = string(app.Do("GET", n.base+"/animals/"+cow+"/passport.html?as_of=2026-04-01", n.reader.Token, nil).Body)
			for _, p := range []string{"12/345/6789", "11/222/3333", "Angus — no official code known in uk.cts.breed", "purchase", "sale"} {
				if !strings.Contains(page, p) {
					t.Errorf("page lacks %q:\n%s", p, page)
				}
			}
			herdbooktest.WantEnvelope(t, app.Do("GET", n.base+"/animals/"+cow+"/passport.html?as_of=tomorrow", n.reader.Token, nil), 400, "ValidationError", "as_of")
			herdbooktest.WantEnvelope(t, app.Do("GET", n.base+"/animals/"+uuid.NewString()+"/passport.html", n.reader.Token, nil), 404, "ServiceError", "")
		})

		t.Run("Errors", func(t *testing.T) {
			p := n.base + "/animals/" + calf + "/passport"
			herdbooktest.WantEnvelope(t, app.Do("GET", p+"?as_of=2026-02-30", n.reader.Token, nil), 400, "ValidationError", "as_of")
			herdbooktest.WantEnvelope(t, app.Do("GET", n.base+"/animals/not-a-uuid/passport", n.reader.Token, nil), 400, "ValidationError", "animal_id")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/nope/animals/"+calf+"/passport", n.reader.Token, nil), 400, "ValidationError", "farm_id")
			herdbooktest.WantEnvelope(t, app.Do("GET", n.base+"/animals/"+uuid.NewString()+"/passport", n.reader.Token, nil), 404, "ServiceError", "")
			// Another farm's animal, through this farm's path, is not found; nor is this
			// farm's for a stranger.
			herdbooktest.WantEnvelope(t, app.Do("GET", n.base+"/animals/"+stray+"/passport", n.owner.Token, nil), 404, "ServiceError", "")
			stranger := app.MustUser()
			if res := app.Do("GET", p, stranger.Token, nil); res.Status != 404 {
				t.Fatalf("a stranger: %d %s", res.Status, res.Body)
			}
			if res := app.Do("GET", p, "", nil); res.Status != 401 {
				t.Fatalf("no auth: %d", res.Status)
			}
			if res := app.Do("GET", p+".html", "", nil); res.Status != 401 {
				t.Fatalf("no auth, page: %d", res.Status)
			}
		})
	})
}

// TestPassportStatements (issue 29.6): a passport reads the book in the same number of
// statements for an animal with one movement as for one bought and sold forty times.
func TestPassportStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		n := newNoticeFarm(t, d)
		app := n.app
		dam := app.MustAnimal(n.owner, n.farm, "UK 123456 100001").ID.String()
		count := func(tag string, moves int) int64 {
			a := app.MustAnimal(n.owner, n.farm, tag).ID.String()
			n.fact(t, map[string]any{"kind": "birth", "dam_id": dam, "date": "2020-01-01", "offspring_ids": []string{a}})
			for i := range moves {
				day := fmt.Sprintf("2021-%02d-%02d", 1+i/4, 1+i%4*7)
				n.fact(t, map[string]any{"kind": "sale", "animal_id": a, "date": day, "holding_scheme": "uk.cph", "holding_number": "12/345/6789"})
				n.fact(t, map[string]any{"kind": "purchase", "animal_id": a, "date": day, "holding_scheme": "uk.cph", "holding_number": "12/345/6789"})
			}
			var got []any
			q := app.Queries(func() {
				res := app.Do("GET", n.base+"/animals/"+a+"/passport", n.reader.Token, nil)
				if res.Status != 200 {
					t.Fatalf("passport: %d %s", res.Status, res.Body)
				}
				var body struct{ Movements []any }
				if err := json.Unmarshal(res.Body, &body); err != nil {
					t.Fatal(err)
				}
				got = body.Movements
			})
			if len(got) != 1+2*moves {
				t.Fatalf("%d movements, want %d", len(got), 1+2*moves)
			}
			return q
		}
		small, large := count("UK 123456 200002", 0), count("UK 123456 300003", 40)
		if small != large {
			t.Errorf("statements: %d for one movement, %d for 81", small, large)
		}
		t.Logf("statements per passport: %d", small)
	})
}
