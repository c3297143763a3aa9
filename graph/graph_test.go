package graph_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// dig walks a decoded GraphQL answer by keys and indexes ("data.farm.records.edges.0").
func dig(t *testing.T, v any, path string) any {
	t.Helper()
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			fmt.Sscan(k, &i)
			if i >= len(x) {
				t.Fatalf("%s: index %d out of %d", path, i, len(x))
			}
			v = x[i]
		default:
			t.Fatalf("%s: cannot step into %T at %q", path, v, k)
		}
	}
	return v
}

// errorCode returns extensions.code of the first error, or "" when there is none.
func errorCode(res map[string]any) string {
	errs, _ := res["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return code
}

func wantNoErrors(t *testing.T, res map[string]any) {
	t.Helper()
	if errs, ok := res["errors"]; ok {
		t.Fatalf("errors: %v", errs)
	}
}

func TestFarmCreatedOverRESTAppearsInGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		res := app.Do("POST", "/v1/farm", u.Token, `{"name":"Prairie Ranch","species":"BISON"}`)
		id := res.JSON(t)["farm"].(map[string]any)["id"].(string)

		out := app.GraphQL(u.Token, `query($id: ID!) {
			farms(first: 10) { totalCount edges { node { id name species } } }
			farm(id: $id) { id name species isActive members { role user { id phoneNumberLocal } } threads { title } }
		}`, map[string]any{"id": id})
		wantNoErrors(t, out)
		if dig(t, out, "data.farms.totalCount") != float64(1) || dig(t, out, "data.farms.edges.0.node.id") != id {
			t.Fatalf("farms = %v", dig(t, out, "data.farms"))
		}
		if dig(t, out, "data.farm.species") != "BISON" || dig(t, out, "data.farm.members.0.role") != "OWNER" ||
			dig(t, out, "data.farm.members.0.user.id") != u.ID.String() || dig(t, out, "data.farm.threads.0.title") != herdbook.WelcomeThreadTitle {
			t.Fatalf("farm = %v", dig(t, out, "data.farm"))
		}
	})
}

func TestMutations(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, friend, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		foreignFarm := app.MustFarm(stranger, "Elsewhere")
		foreign := app.MustAnimal(stranger, foreignFarm.ID, "X")

		out := app.GraphQL(owner.Token, `mutation {
			createFarm(input: {name: "Hill Farm", species: SHEEP, speciesOther: "Texel"}) { farm { id speciesOther } welcomeThreadID }
		}`, nil)
		wantNoErrors(t, out)
		farmID := dig(t, out, "data.createFarm.farm.id").(string)

		out = app.GraphQL(owner.Token, `mutation($f: ID!) {
			updateFarm(id: $f, input: {speciesOther: null, allowPrivateThreads: true}) { speciesOther allowPrivateThreads name }
		}`, map[string]any{"f": farmID})
		wantNoErrors(t, out)
		if dig(t, out, "data.updateFarm.speciesOther") != nil || dig(t, out, "data.updateFarm.name") != "Hill Farm" {
			t.Fatalf("updateFarm = %v", out)
		}

		out = app.GraphQL(owner.Token, `mutation($f: ID!) {
			a: createAnimal(farmID: $f, input: {tag: "EWE-1", name: "Dolly"}) { id tag }
			b: createAnimal(farmID: $f, input: {tag: "RAM-1"}) { id }
			g: createGroup(farmID: $f, input: {name: "Lowland"}) { id }
		}`, map[string]any{"f": farmID})
		wantNoErrors(t, out)
		ewe, ram, group := dig(t, out, "data.a.id").(string), dig(t, out, "data.b.id").(string), dig(t, out, "data.g.id").(string)

		out = app.GraphQL(owner.Token, `mutation($g: ID!, $a: [ID!]!) { setGroupAnimals(id: $g, animalIDs: $a) { id } }`,
			map[string]any{"g": group, "a": []string{ewe, ram}})
		wantNoErrors(t, out)

		out = app.GraphQL(owner.Token, `mutation($f: ID!, $a: [ID!]) {
			createRecord(farmID: $f, input: {animalIDs: $a, name: "Shearing", type: OTHER, appliedAt: "2026-05-01T09:00:00Z",
				items: [{name: "Fleece", metadata: {weight_kg: 4.2}}]}) { id name animals { id } items { name metadata } }
		}`, map[string]any{"f": farmID, "a": []string{ewe, foreign.ID.String()}})
		wantNoErrors(t, out)
		recID := dig(t, out, "data.createRecord.id").(string)
		if animals := dig(t, out, "data.createRecord.animals").([]any); len(animals) != 1 || dig(t, out, "data.createRecord.animals.0.id") != ewe {
			t.Fatalf("animals = %v: a foreign id must be filtered out", animals)
		}
		if dig(t, out, "data.createRecord.items.0.metadata.weight_kg") != 4.2 {
			t.Fatalf("items = %v", dig(t, out, "data.createRecord.items"))
		}

		out = app.GraphQL(owner.Token, `mutation($f: ID!, $r: ID!, $a: [ID!], $g: [ID!]) {
			updateRecord(farmID: $f, id: $r, input: {animalIDs: $a, groupIDs: $g, description: "sheared", items: [{name: "Second fleece"}]}) {
				description animals { id } groups { id } items { name } }
		}`, map[string]any{"f": farmID, "r": recID, "a": []string{ram}, "g": []string{group}})
		wantNoErrors(t, out)
		if len(dig(t, out, "data.updateRecord.animals").([]any)) != 2 || len(dig(t, out, "data.updateRecord.items").([]any)) != 2 {
			t.Fatalf("updateRecord must append: %v", out)
		}

		out = app.GraphQL(owner.Token, `mutation($f: ID!, $p: String!) { addMember(farmID: $f, phoneNumberLocal: $p, role: READER) { id role user { id } } }`,
			map[string]any{"f": farmID, "p": friend.Phone})
		wantNoErrors(t, out)
		memberID := dig(t, out, "data.addMember.id").(string)
		if got := app.GraphQL(friend.Token, `{ farms { totalCount } }`, nil); dig(t, got, "data.farms.totalCount") != float64(1) {
			t.Fatalf("the new member does not see the farm: %v", got)
		}
		if got := app.GraphQL(friend.Token, `mutation($f: ID!) { createAnimal(farmID: $f, input: {tag: "Z"}) { id } }`, map[string]any{"f": farmID}); errorCode(got) != "UNAUTHENTICATED" {
			t.Fatalf("a READER created an animal: %v", got)
		}

		var ownerMember string
		for _, m := range dig(t, app.GraphQL(owner.Token, `query($f: ID!) { farm(id: $f) { members { id role } } }`, map[string]any{"f": farmID}), "data.farm.members").([]any) {
			if dig(t, m, "role") == "OWNER" {
				ownerMember = dig(t, m, "id").(string)
			}
		}
		if got := app.GraphQL(owner.Token, `mutation($m: ID!) { setMemberRole(id: $m, role: EDITOR) { role } }`, map[string]any{"m": ownerMember}); errorCode(got) != "CONFLICT" {
			t.Fatalf("the last OWNER was demoted: %v", got)
		}
		out = app.GraphQL(owner.Token, `mutation($m: ID!) { deactivateMember(id: $m) }`, map[string]any{"m": memberID})
		wantNoErrors(t, out)
		if got := app.GraphQL(friend.Token, `{ farms { totalCount } }`, nil); dig(t, got, "data.farms.totalCount") != float64(0) {
			t.Fatalf("a deactivated member still sees the farm: %v", got)
		}

		out = app.GraphQL(owner.Token, `mutation($f: ID!) {
			t: createThread(farmID: $f, title: "Lambing plan", isPrivate: true) { id isPrivate }
		}`, map[string]any{"f": farmID})
		wantNoErrors(t, out)
		out = app.GraphQL(owner.Token, `mutation($t: ID!) { postMessage(threadID: $t, body: "Start 1 March") { body } }`, map[string]any{"t": dig(t, out, "data.t.id")})
		wantNoErrors(t, out)

		out = app.GraphQL(owner.Token, `mutation($f: ID!, $r: ID!) { deleteRecord(farmID: $f, id: $r) }`, map[string]any{"f": farmID, "r": recID})
		wantNoErrors(t, out)
		out = app.GraphQL(owner.Token, `query($f: ID!) { farm(id: $f) { records { totalCount } animals { totalCount } groups { totalCount } } }`, map[string]any{"f": farmID})
		// setGroupAnimals recorded the ewe's and the ram's memberships as two fact records.
		if dig(t, out, "data.farm.records.totalCount") != float64(2) || dig(t, out, "data.farm.animals.totalCount") != float64(2) {
			t.Fatalf("after delete: %v", out)
		}
	})
}

func TestErrors(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u, stranger := app.MustUser(), app.MustUser()
		f := app.MustFarm(u, "Mine")
		theirs := app.MustFarm(stranger, "Theirs")
		theirRec, err := app.Service.CreateRecord(app.Ctx(stranger), theirs.ID, herdbook.RecordInput{
			AnimalIDs: []uuid.UUID{app.MustAnimal(stranger, theirs.ID, "T").ID}, Name: "secret", Type: "OTHER", AppliedAt: ptrTime(),
		})
		if err != nil {
			t.Fatal(err)
		}

		for _, tc := range []struct {
			name, token, query, code string
			vars                     map[string]any
		}{
			{"ErrNoAuth", "", `{ farms { totalCount } }`, "UNAUTHENTICATED", nil},
			{"ErrMissingScope", app.MustToken(u.ID, herdbook.ScopeReadRecords), `{ farms { totalCount } }`, "FORBIDDEN", nil},
			{"ErrRecordsMissingScope", app.MustToken(u.ID, herdbook.ScopeReadFarms), `query($f: ID!) { farm(id: $f) { records { totalCount } } }`, "FORBIDDEN", map[string]any{"f": f.ID.String()}},
			{"ErrOtherFarmRecords", u.Token, `query($f: ID!) { farm(id: $f) { id } }`, "", map[string]any{"f": theirs.ID.String()}},
			{"ErrNodeOtherFarm", u.Token, `query($id: ID!) { node(id: $id) { id } }`, "NOT_FOUND", map[string]any{"id": theirRec.ID.String()}},
			{"ErrNodeUnknown", u.Token, `query($id: ID!) { node(id: $id) { id } }`, "NOT_FOUND", map[string]any{"id": uuid.NewString()}},
			{"ErrBadID", u.Token, `query { farm(id: "nope") { id } }`, "BAD_USER_INPUT", nil},
			{"ErrBadIDVariable", u.Token, `query($f: ID!) { farm(id: $f) { id } }`, "BAD_USER_INPUT", map[string]any{"f": "12"}},
			{"ErrValidation", u.Token, `mutation { createFarm(input: {name: "x", species: CATTLE}) { welcomeThreadID } }`, "BAD_USER_INPUT", nil},
			{"ErrFirstTooLarge", u.Token, `{ farms(first: 501) { totalCount } }`, "BAD_USER_INPUT", nil},
			{"ErrUpdateOtherFarm", u.Token, `mutation($f: ID!) { updateFarm(id: $f, input: {name: "Stolen"}) { id } }`, "NOT_FOUND", map[string]any{"f": theirs.ID.String()}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := app.Do("POST", "/graphql", tc.token, map[string]any{"query": tc.query, "variables": tc.vars})
				if tc.name == "ErrNoAuth" && res.Status != 200 {
					t.Fatalf("status %d", res.Status)
				}
				out := res.JSON(t)
				switch tc.name {
				case "ErrOtherFarmRecords":
					if dig(t, out, "data.farm") != nil {
						t.Fatalf("another farm leaked: %v", out)
					}
					return
				}
				if got := errorCode(out); got != tc.code {
					t.Fatalf("code %q, want %q: %v", got, tc.code, out)
				}
			})
		}
		t.Run("ErrValidationNamesField", func(t *testing.T) {
			out := app.GraphQL(u.Token, `mutation { createFarm(input: {name: "x", species: CATTLE}) { welcomeThreadID } }`, nil)
			fields := dig(t, out, "errors.0.extensions.fields").([]any)
			if dig(t, fields, "0.field") != "name" {
				t.Fatalf("fields = %v", fields)
			}
		})
		t.Run("ErrDepthLimit", func(t *testing.T) {
			q := `{ farms { edges { node { records { edges { node { animals { groups { animals { groups { animals { groups { id } } } } } } } } } } } } }`
			res := app.Do("POST", "/graphql", u.Token, map[string]any{"query": q})
			out := res.JSON(t)
			if msg, _ := dig(t, out, "errors.0.message").(string); res.Status != 422 || !strings.Contains(msg, "deep") {
				t.Fatalf("want a depth error: %d %v", res.Status, out)
			}
		})
		t.Run("MutationRollsBackWhole", func(t *testing.T) {
			out := app.GraphQL(u.Token, `mutation($f: ID!) {
				ok: createAnimal(farmID: $f, input: {tag: "KEEP-OUT"}) { id }
				bad: createAnimal(farmID: $f, input: {tag: ""}) { id }
			}`, map[string]any{"f": f.ID.String()})
			if errorCode(out) != "BAD_USER_INPUT" {
				t.Fatalf("want a validation error: %v", out)
			}
			got := app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { animals { totalCount } } }`, map[string]any{"f": f.ID.String()})
			if dig(t, got, "data.farm.animals.totalCount") != float64(0) {
				t.Fatalf("half of a failed operation was kept: %v", got)
			}
		})
		t.Run("Explorer", func(t *testing.T) {
			res := app.Do("GET", "/graphql", "", nil)
			if res.Status != 200 || !strings.Contains(string(res.Body), "<html") {
				t.Fatalf("GET /graphql: %d", res.Status)
			}
		})
	})
}

func TestConnections(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Paged")
		for i := 0; i < 5; i++ {
			app.MustAnimal(u, f.ID, fmt.Sprintf("T-%d", 5-i))
		}
		q := `query($f: ID!, $after: Cursor) { farm(id: $f) { animals(first: 2, after: $after, orderBy: {field: TAG}) {
			totalCount pageInfo { hasNextPage endCursor } edges { node { tag } } } } }`
		var tags []string
		var after any
		for page := 0; page < 5; page++ {
			out := app.GraphQL(u.Token, q, map[string]any{"f": f.ID.String(), "after": after})
			wantNoErrors(t, out)
			for _, e := range dig(t, out, "data.farm.animals.edges").([]any) {
				tags = append(tags, dig(t, e, "node.tag").(string))
			}
			if dig(t, out, "data.farm.animals.pageInfo.hasNextPage") != true {
				break
			}
			after = dig(t, out, "data.farm.animals.pageInfo.endCursor")
		}
		if strings.Join(tags, ",") != "T-1,T-2,T-3,T-4,T-5" {
			t.Fatalf("tags = %v", tags)
		}
		out := app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { animals(where: {tagHasPrefix: "T-3"}) { totalCount } } }`, map[string]any{"f": f.ID.String()})
		if dig(t, out, "data.farm.animals.totalCount") != float64(1) {
			t.Fatalf("where filter: %v", out)
		}
		id := dig(t, app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { animals(first: 1) { edges { node { id } } } } }`, map[string]any{"f": f.ID.String()}), "data.farm.animals.edges.0.node.id")
		out = app.GraphQL(u.Token, `query($id: ID!) { node(id: $id) { ... on Animal { tag } } }`, map[string]any{"id": id})
		wantNoErrors(t, out)
	})
}

// TestDefaultPage wants a connection without first or last to return one page of
// MaxConnectionPage elements (as REST's take does), not the whole table.
func TestDefaultPage(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Large")
		n := herdbook.MaxConnectionPage + 1
		herdbooktest.InTx(t, app.DB.Client, func(ctx context.Context, c *ent.Client) error {
			builders := make([]*ent.AnimalCreate, n)
			for i := range builders {
				builders[i] = c.Animal.Create().SetFarmID(f.ID).SetTag(fmt.Sprintf("T-%04d", i))
			}
			return c.Animal.CreateBulk(builders...).Exec(ctx)
		})
		out := app.GraphQL(u.Token, `query($f: ID!) { farm(id: $f) { animals { totalCount pageInfo { hasNextPage } edges { node { id } } } } }`, map[string]any{"f": f.ID.String()})
		wantNoErrors(t, out)
		if got := len(dig(t, out, "data.farm.animals.edges").([]any)); got != herdbook.MaxConnectionPage {
			t.Fatalf("%d edges, want %d", got, herdbook.MaxConnectionPage)
		}
		if dig(t, out, "data.farm.animals.totalCount") != float64(n) || dig(t, out, "data.farm.animals.pageInfo.hasNextPage") != true {
			t.Fatalf("totalCount and hasNextPage: %v", dig(t, out, "data.farm.animals.pageInfo"))
		}
	})
}

func recordsQuery() string {
	return `query($f: ID!, $n: Int) { farm(id: $f) { records(first: $n) { totalCount edges { cursor node {
		id name items { id name metadata } animals { id tag } groups { id } files { id } } } } } }`
}

func seedRecords(t testing.TB, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID, n int) {
	a := app.MustAnimal(u, farmID, "A")
	g := app.MustGroup(u, farmID, "G")
	for i := 0; i < n; i++ {
		if _, err := app.Service.CreateRecord(app.Ctx(u), farmID, herdbook.RecordInput{
			AnimalIDs: []uuid.UUID{a.ID}, GroupIDs: []uuid.UUID{g.ID}, Name: fmt.Sprintf("r%d", i), Type: "FEED", AppliedAt: ptrTime(),
			// Metadata as the side-by-side harness seeds it: every item carries some.
			Items: []herdbook.RecordItemInput{{Metadata: map[string]any{"note": "routine", "dose_ml": 5.5}}, {Metadata: map[string]any{"note": "check"}}},
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordsQueryCount proves that a page of 50 records with items, animals, groups and files
// costs the same number of queries as a page of 5.
func TestRecordsQueryCount(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Counted")
		seedRecords(t, app, u, f.ID, 50)
		counts := map[int]int64{}
		for _, n := range []int{5, 50} {
			counts[n] = app.Queries(func() {
				out := app.GraphQL(u.Token, recordsQuery(), map[string]any{"f": f.ID.String(), "n": n})
				wantNoErrors(t, out)
				if got := len(dig(t, out, "data.farm.records.edges").([]any)); got != n {
					t.Fatalf("%d edges, want %d", got, n)
				}
			})
		}
		if counts[5] != counts[50] {
			t.Fatalf("queries grow with the page: %v", counts)
		}
		t.Logf("GraphQL records page: %d queries for any page size", counts[50])
	})
}

func BenchmarkRecordListGraphQL(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			f := app.MustFarm(u, "Bench")
			seedRecords(b, app, u, f.ID, 200)
			vars := map[string]any{"f": f.ID.String(), "n": 50}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				app.GraphQL(u.Token, recordsQuery(), vars)
			}
		})
	}
}

func ptrTime() *time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &t
}
