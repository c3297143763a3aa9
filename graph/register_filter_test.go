package graph_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// filterHerd is a farm of n animals A00.. born 2024-01-01, even ones female and odd ones
// male, one more (UNKNOWN) of unknown sex, and a group whose membership facts place A00 to
// A09 in it from 2025-03-01; A00's membership ends on 2025-05-01. A01 is recorded male on
// 2025-06-01 after being female: the register's sex is the profile's on the day asked.
func filterHerd(t testing.TB, app *herdbooktest.App, u herdbooktest.User, farmID uuid.UUID, n int) (animals []uuid.UUID, groupID uuid.UUID) {
	t.Helper()
	ctx := app.Ctx(u)
	for i := 0; i < n; i++ {
		sex := "female"
		if i%2 == 1 && i != 1 {
			sex = "male"
		}
		a, err := app.Service.CreateAnimal(ctx, farmID, herdbook.AnimalInput{Tag: fmt.Sprintf("A%02d", i), Sex: &sex, BirthDate: strp("2024-01-01")})
		if err != nil {
			t.Fatal(err)
		}
		animals = append(animals, a.ID)
	}
	if _, err := app.Service.CreateAnimal(ctx, farmID, herdbook.AnimalInput{Tag: "UNKNOWN"}); err != nil {
		t.Fatal(err)
	}
	g, err := app.Service.CreateGroup(ctx, farmID, herdbook.GroupInput{Name: "Heifers"})
	if err != nil {
		t.Fatal(err)
	}
	facts := []evidence.Fact{
		{Kind: evidence.KindMembershipEnd, AnimalID: animals[0].String(), GroupID: g.ID.String(), Date: "2025-05-01"},
		{Kind: evidence.KindProfile, AnimalID: animals[1].String(), Sex: evidence.SexMale, Date: "2025-06-01"},
	}
	for _, a := range animals[:min(10, n)] {
		facts = append(facts, evidence.Fact{Kind: evidence.KindMembership, AnimalID: a.String(), GroupID: g.ID.String(), StartDate: "2025-03-01"})
	}
	if err := app.Service.WriteAnimalFacts(ctx, farmID, facts); err != nil {
		t.Fatal(err)
	}
	return animals, g.ID
}

const filterQuery = `query($f: ID!, $n: Int, $after: Cursor, $asOf: Date, $sex: Sex, $g: ID, $status: AnimalStatus) {
  farm(id: $f) { animals(first: $n, after: $after, asOf: $asOf, sex: $sex, groupID: $g, status: $status) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node { tag profile { sex groupIDs status identifiers { value } } } } } } }`

// TestRegisterSexGroupFilters: Farm.animals keeps the animals of a sex and in a group on
// the as-of day (from dated profile and membership facts, not today's), counts the filtered
// set, pages it by its cursor, and costs the same statements for a page of 3 as of 30.
func TestRegisterSexGroupFilters(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Filters")
		_, g := filterHerd(t, app, u, f.ID, 30)
		tags := func(vars map[string]any) (int, []string) {
			t.Helper()
			vars["f"] = f.ID.String()
			var got []string
			total := -1
			for {
				out := app.GraphQL(u.Token, filterQuery, vars)
				wantNoErrors(t, out)
				if total < 0 {
					total = int(dig(t, out, "data.farm.animals.totalCount").(float64))
				}
				for _, e := range dig(t, out, "data.farm.animals.edges").([]any) {
					got = append(got, dig(t, e, "node.tag").(string))
					sex, _ := dig(t, e, "node.profile.sex").(string)
					if want, ok := vars["sex"]; ok && sex != want {
						t.Fatalf("%v: %v has sex %q", vars, dig(t, e, "node.tag"), sex)
					}
					if _, ok := vars["g"]; ok && !slices.Contains(dig(t, e, "node.profile.groupIDs").([]any), any(g.String())) {
						t.Fatalf("%v: %v is not in the group that day: %v", vars, dig(t, e, "node.tag"), dig(t, e, "node.profile"))
					}
				}
				if dig(t, out, "data.farm.animals.pageInfo.hasNextPage") != true {
					break
				}
				vars["after"] = dig(t, out, "data.farm.animals.pageInfo.endCursor")
			}
			if total != len(got) {
				t.Fatalf("%v: totalCount %d, but %d animals paged: %v", vars, total, len(got), got)
			}
			return total, got
		}
		span := func(from, to, step int) []string {
			var out []string
			for i := from; i <= to; i += step {
				out = append(out, fmt.Sprintf("A%02d", i))
			}
			return out
		}
		cases := []struct {
			vars map[string]any
			want []string
		}{
			// Female on 2025-05-31: the even ones and A01 (recorded male only from 2025-06-01).
			{map[string]any{"n": 4, "sex": "FEMALE", "asOf": "2025-05-31"}, append([]string{"A01"}, span(0, 28, 2)...)},
			{map[string]any{"n": 4, "g": g.String(), "asOf": "2025-02-28"}, nil},
			{map[string]any{"n": 4, "g": g.String(), "asOf": "2025-04-01"}, span(0, 9, 1)},
			{map[string]any{"n": 4, "g": g.String(), "asOf": "2025-05-01"}, span(1, 9, 1)},
			{map[string]any{"n": 2, "g": g.String(), "sex": "FEMALE", "asOf": "2025-04-01"}, append([]string{"A00", "A01"}, span(2, 8, 2)...)},
			{map[string]any{"n": 2, "g": g.String(), "sex": "FEMALE", "asOf": "2025-06-01"}, span(2, 8, 2)},
			{map[string]any{"n": 2, "g": g.String(), "sex": "MALE", "asOf": "2025-06-01"}, []string{"A01", "A03", "A05", "A07", "A09"}},
			{map[string]any{"n": 7, "sex": "MALE", "asOf": "2025-05-31"}, span(3, 29, 2)},
			{map[string]any{"n": 2, "g": g.String(), "status": "SOLD", "asOf": "2025-04-01"}, nil},
			{map[string]any{"n": 2, "g": uuid.NewString()}, nil},
		}
		for _, c := range cases {
			total, got := tags(c.vars)
			slices.Sort(c.want)
			if total != len(c.want) || !slices.Equal(got, c.want) {
				t.Errorf("%v: %d %v, want %v", c.vars, total, got, c.want)
			}
		}
		counts := map[int]int64{}
		for _, n := range []int{3, 30} {
			counts[n] = app.Queries(func() {
				out := app.GraphQL(u.Token, filterQuery, map[string]any{"f": f.ID.String(), "n": n, "sex": "FEMALE", "g": g.String(), "asOf": "2025-04-01"})
				wantNoErrors(t, out)
				if got, want := len(dig(t, out, "data.farm.animals.edges").([]any)), min(n, 6); got != want {
					t.Fatalf("%d edges, want %d", got, want)
				}
			})
		}
		if counts[3] != counts[30] {
			t.Fatalf("statements grow with the page: %v", counts)
		}
		t.Logf("register page filtered by sex and group, with profiles: %d statements for any page size", counts[30])
	})
}

// registerPageQuery is the web app's register page (web/app/src/graphql/register.graphql).
const registerPageQuery = `query($f: ID!, $after: Cursor, $sex: Sex, $g: ID) {
  farm(id: $f) { animals(first: 200, after: $after, orderBy: {field: TAG}, sex: $sex, groupID: $g) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node { id tag name profile { sex birthDate breed status groupIDs identifiers { scheme value } weightKg } } } } } }`

// BenchmarkRegisterFilteredGraphQL is the web app's register page of 200 on a farm of
// 10,000 animals (herdbooktest.MustBigHerd), on SQLite and PostgreSQL: unfiltered, by sex,
// by group and by both, as of today; each filter on a scroll's first page (its set derived)
// and on the next ones (the set kept while the farm is unchanged, filterset.go). It reports
// the median (p50-ms) and the statements of a page (stmts/op), which the filters raise by a
// constant.
//
//	go test -run '^$' -bench RegisterFilteredGraphQL -benchtime 20x ./graph/
func BenchmarkRegisterFilteredGraphQL(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			h := app.MustBigHerd(u.ID, 10000)
			for _, c := range []struct {
				name string
				vars map[string]any
				want int
			}{
				{"all", map[string]any{}, h.Animals},
				{"sex", map[string]any{"sex": "FEMALE"}, h.Count(func(i int) bool { return !h.Male(i) })},
				{"group", map[string]any{"g": h.Group.String()}, h.Count(h.InGroup)},
				{"sexAndGroup", map[string]any{"sex": "MALE", "g": h.Group.String()}, h.Count(func(i int) bool { return h.Male(i) && h.InGroup(i) })},
			} {
				// first: the farm changed before each page (as every write moves its change
				// counter), so the filter's set is derived again, as on a scroll's first page;
				// next: the later pages of the scroll, which find the set kept.
				for _, mode := range []string{"first", "next"} {
					if c.name == "all" && mode == "first" {
						continue
					}
					b.Run(c.name+"/"+mode, func(b *testing.B) {
						c.vars["f"] = h.Farm.String()
						page := func() {
							out := app.GraphQL(u.Token, registerPageQuery, c.vars)
							if out["errors"] != nil {
								b.Fatal(out["errors"])
							}
							a := out["data"].(map[string]any)["farm"].(map[string]any)["animals"].(map[string]any)
							if a["totalCount"] != float64(c.want) {
								b.Fatalf("totalCount %v, want %d", a["totalCount"], c.want)
							}
						}
						changed := func() {
							if mode == "first" {
								if err := app.DB.Client.ChangeCounter.UpdateOneID(h.Farm).AddSeq(1).Exec(context.Background()); err != nil {
									b.Fatal(err)
								}
							}
						}
						page() // warm: pools, prepared statements, the page cache
						times := make([]time.Duration, 0, b.N)
						var queries int64
						b.ResetTimer()
						for i := 0; i < b.N; i++ {
							changed()
							q0 := app.DB.Queries()
							t0 := time.Now()
							page()
							times = append(times, time.Since(t0))
							queries += app.DB.Queries() - q0
						}
						b.StopTimer()
						slices.Sort(times)
						b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
						b.ReportMetric(float64(queries)/float64(b.N), "stmts/op")
					})
				}
			}
		})
	}
}

// TestRegisterFilterSetsFollowWrites: the sets behind the sex and group filters are kept
// between the pages of a scroll (a later page costs fewer statements than the first), and
// every write they derive from is seen at the next page, on either database: a new profile
// fact, its item voided, an animal deleted, a membership ended (the farm's change counter
// moves with each, herdbook's filterset.go, and the kept set is patched for the animals the
// write touched, patch.go).
func TestRegisterFilterSetsFollowWrites(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Filter sets")
		animals, g := filterHerd(t, app, u, f.ID, 12)
		count := func(t *testing.T, vars map[string]any) (int, int64) {
			t.Helper()
			vars["f"], vars["n"] = f.ID.String(), 2
			var total int
			n := app.Queries(func() {
				out := app.GraphQL(u.Token, filterQuery, vars)
				wantNoErrors(t, out)
				total = int(dig(t, out, "data.farm.animals.totalCount").(float64))
			})
			return total, n
		}
		females := map[string]any{"sex": "FEMALE"}
		inGroup := map[string]any{"g": g.String()}
		// Even tags are female, odd ones male but A01 (male from 2025-06-01): 6 of 12 today.
		want, cold := count(t, females)
		if want != 6 {
			t.Fatalf("%d females, want 6", want)
		}
		if got, warm := count(t, females); got != want || warm >= cold {
			t.Fatalf("the next page: %d females in %d statements, after %d in %d: the set was derived again", got, warm, want, cold)
		}
		// A03 (male) is recorded female from yesterday: the next page counts her.
		yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
		if err := app.Service.WriteAnimalFacts(app.Ctx(u), f.ID, []evidence.Fact{{Kind: evidence.KindProfile,
			AnimalID: animals[3].String(), Sex: evidence.SexFemale, Date: yesterday}}); err != nil {
			t.Fatal(err)
		}
		// The kept set is patched for the animal the write named (herdbook's patch.go): what
		// the writes since changed (two statements: a profile fact, so the set is patched), the
		// animals touched since (two), which of them are active, and their facts; the
		// register's order is kept (no animal changed), which the first read had read.
		if got, n := count(t, females); got != 7 || n != cold+3 {
			t.Fatalf("after a profile fact: %d females in %d statements, want 7 in %d", got, n, cold+3)
		}
		// Its item voided: she is male again.
		last, err := d.Client.Record.Query().Where(record.FarmID(f.ID)).Order(ent.Desc(record.FieldCreatedAt)).WithItems().First(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		rec, item := last.ID, last.Edges.Items[0].ID
		if _, err := app.Service.VoidRecordItem(app.Ctx(u), f.ID, rec, item, "entered on the wrong animal"); err != nil {
			t.Fatal(err)
		}
		if got, _ := count(t, females); got != 6 {
			t.Fatalf("after the item's void: %d females, want 6", got)
		}
		// A female deleted.
		if err := app.Service.DeleteAnimal(app.Ctx(u), animals[2]); err != nil {
			t.Fatal(err)
		}
		if got, _ := count(t, females); got != 5 {
			t.Fatalf("after a deletion: %d females, want 5", got)
		}
		// The group: A00 left on 2025-05-01, A02 is deleted; A04 leaves today.
		before, _ := count(t, inGroup)
		if err := app.Service.WriteAnimalFacts(app.Ctx(u), f.ID, []evidence.Fact{{Kind: evidence.KindMembershipEnd,
			AnimalID: animals[4].String(), GroupID: g.String(), Date: yesterday}}); err != nil {
			t.Fatal(err)
		}
		if got, _ := count(t, inGroup); got != before-1 {
			t.Fatalf("after a membership's end: %d in the group, want %d", got, before-1)
		}
	})
}
