package graph_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// harnessRecordsPage is the GraphQL records page the side-by-side benchmark sends
// (../shared/bench/run.sh): a farm's first records, oldest first, with items, files and
// totalCount.
const harnessRecordsPage = `query($f: ID!, $n: Int) { farm(id: $f) { records(first: $n, orderBy: {field: CREATED_AT, direction: ASC}) { totalCount edges { node { id type name description isActive appliedAt createdAt updatedAt items { id name description metadata isActive createdAt updatedAt } files { id name mimeType size isActive createdAt updatedAt } } } } } }`

// MaxRecordsPageStatements is the budget of the benchmark's records page: authentication
// (token, client), the viewer's memberships with their farms, the page with its total, the
// items, the files.
const MaxRecordsPageStatements = 6

// TestHarnessRecordsPageStatements: the benchmark's page costs at most
// MaxRecordsPageStatements whatever its size, and answers in order with the right total.
func TestHarnessRecordsPageStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Benched")
		seedRecords(t, app, u, f.ID, 12)
		counts := map[int]int64{}
		for _, n := range []int{3, 10} {
			counts[n] = app.Queries(func() {
				out := app.GraphQL(u.Token, harnessRecordsPage, map[string]any{"f": f.ID.String(), "n": n})
				wantNoErrors(t, out)
				edges := dig(t, out, "data.farm.records.edges").([]any)
				if len(edges) != n || dig(t, out, "data.farm.records.totalCount") != float64(12) {
					t.Fatalf("%d edges, total %v; want %d of 12", len(edges), dig(t, out, "data.farm.records.totalCount"), n)
				}
				for i := range edges {
					if name := dig(t, out, fmt.Sprintf("data.farm.records.edges.%d.node.name", i)); name != fmt.Sprintf("r%d", i) {
						t.Fatalf("edge %d is %v: not oldest first", i, name)
					}
					if items := dig(t, out, fmt.Sprintf("data.farm.records.edges.%d.node.items", i)).([]any); len(items) != 2 {
						t.Fatalf("edge %d has %d items", i, len(items))
					}
				}
			})
		}
		if counts[3] != counts[10] || counts[10] > MaxRecordsPageStatements {
			t.Fatalf("statements %v, want the same for any page and at most %d", counts, MaxRecordsPageStatements)
		}
		t.Logf("benchmark records page: %d statements", counts[10])
	})
}

const farmsWithRecords = `query { farms(first: 10) { totalCount edges { node { id name
	records(first: 10) { totalCount pageInfo { hasNextPage endCursor } edges { node { id farmID name items { id name } files { id name } } } } } } } }`

// TestFarmsRecordsStatementsConstant: every farm's first records, with items and files, cost
// the same statements for one farm as for four, and each farm gets its own page and total.
func TestFarmsRecordsStatementsConstant(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		counts := map[int]int64{}
		for _, farms := range []int{1, 4} {
			u := app.MustUser()
			sizes := map[string]int{}
			for i := 0; i < farms; i++ {
				f := app.MustFarm(u, fmt.Sprintf("Farm %d", i))
				n := 3 + 5*i // 3, 8, 13, 18: pages under, at and over 10
				seedRecords(t, app, u, f.ID, n)
				sizes[f.ID.String()] = n
			}
			// Someone else's farm never shows.
			other := app.MustUser()
			seedRecords(t, app, other, app.MustFarm(other, "Other").ID, 2)
			counts[farms] = app.Queries(func() {
				out := app.GraphQL(u.Token, farmsWithRecords, nil)
				wantNoErrors(t, out)
				edges := dig(t, out, "data.farms.edges").([]any)
				if len(edges) != farms {
					t.Fatalf("%d farms, want %d", len(edges), farms)
				}
				for i := range edges {
					p := fmt.Sprintf("data.farms.edges.%d.node", i)
					id := dig(t, out, p+".id").(string)
					n := sizes[id]
					recs := dig(t, out, p+".records.edges").([]any)
					if dig(t, out, p+".records.totalCount") != float64(n) || len(recs) != min(n, 10) ||
						dig(t, out, p+".records.pageInfo.hasNextPage") != (n > 10) {
						t.Fatalf("farm %s: %v", id, dig(t, out, p+".records"))
					}
					for j := range recs {
						if dig(t, out, fmt.Sprintf("%s.records.edges.%d.node.farmID", p, j)) != id {
							t.Fatalf("farm %s got another farm's record", id)
						}
						if len(dig(t, out, fmt.Sprintf("%s.records.edges.%d.node.items", p, j)).([]any)) != 2 {
							t.Fatalf("farm %s record %d: items", id, j)
						}
					}
				}
			})
		}
		if counts[1] != counts[4] {
			t.Fatalf("statements grow with the farms: %v", counts)
		}
		t.Logf("farms(first: 50) with records(first: 10), items and files: %d statements for any number of farms", counts[4])
	})
}

// TestRecordsPagesAcrossFarms: the batched pages honour cursors, last and order like a
// single farm's page.
func TestRecordsPagesAcrossFarms(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		var farmIDs []uuid.UUID
		for i := 0; i < 2; i++ {
			f := app.MustFarm(u, fmt.Sprintf("Farm %d", i))
			seedRecords(t, app, u, f.ID, 6)
			farmIDs = append(farmIDs, f.ID)
		}
		// A deleted record is neither counted nor paged.
		first, _, err := app.Service.Records(app.Ctx(u), farmIDs[0], herdbook.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if err := app.Service.DeleteRecord(app.Ctx(u), farmIDs[0], first[0].ID); err != nil {
			t.Fatal(err)
		}
		q := `query($after: Cursor) { farms(first: 10, orderBy: {field: NAME}) { edges { node {
			page1: records(first: 2, orderBy: {field: NAME, direction: DESC}) { totalCount pageInfo { endCursor hasNextPage } edges { node { name } } }
			tail: records(last: 2, orderBy: {field: NAME}) { totalCount pageInfo { hasPreviousPage } edges { node { name } } }
			after: records(first: 2, after: $after, orderBy: {field: NAME, direction: DESC}) { totalCount edges { node { name } } } } } } }`
		out := app.GraphQL(u.Token, q, nil)
		wantNoErrors(t, out)
		for i, want := range []struct {
			total float64
			page1 []string
			tail  []string
		}{{5, []string{"r5", "r4"}, []string{"r4", "r5"}}, {6, []string{"r5", "r4"}, []string{"r4", "r5"}}} {
			p := fmt.Sprintf("data.farms.edges.%d.node", i)
			if dig(t, out, p+".page1.totalCount") != want.total || dig(t, out, p+".tail.totalCount") != want.total {
				t.Fatalf("farm %d totals: %v", i, dig(t, out, p))
			}
			for j := range 2 {
				if got := dig(t, out, fmt.Sprintf("%s.page1.edges.%d.node.name", p, j)); got != want.page1[j] {
					t.Fatalf("farm %d page1[%d] = %v", i, j, got)
				}
				if got := dig(t, out, fmt.Sprintf("%s.tail.edges.%d.node.name", p, j)); got != want.tail[j] {
					t.Fatalf("farm %d tail[%d] = %v", i, j, got)
				}
			}
			if dig(t, out, p+".page1.pageInfo.hasNextPage") != true || dig(t, out, p+".tail.pageInfo.hasPreviousPage") != true {
				t.Fatalf("farm %d page info: %v", i, dig(t, out, p))
			}
		}
		// The second page after the first page's end cursor.
		cursor := dig(t, out, "data.farms.edges.1.node.page1.pageInfo.endCursor")
		out = app.GraphQL(u.Token, q, map[string]any{"after": cursor})
		wantNoErrors(t, out)
		p := "data.farms.edges.1.node.after"
		if dig(t, out, p+".totalCount") != float64(6) || dig(t, out, p+".edges.0.node.name") != "r3" || dig(t, out, p+".edges.1.node.name") != "r2" {
			t.Fatalf("after the cursor: %v", dig(t, out, p))
		}
		// One farm's pages (farm(id:), not a farm connection) answer the same.
		one := `query($f: ID!, $after: Cursor) { farm(id: $f) {
			page1: records(first: 2, orderBy: {field: NAME, direction: DESC}) { totalCount pageInfo { endCursor hasNextPage } edges { node { name } } }
			tail: records(last: 2, orderBy: {field: NAME}) { totalCount pageInfo { hasPreviousPage } edges { node { name } } }
			after: records(first: 2, after: $after, orderBy: {field: NAME, direction: DESC}) { totalCount edges { node { name } } } } }`
		out = app.GraphQL(u.Token, one, map[string]any{"f": farmIDs[1].String(), "after": cursor})
		wantNoErrors(t, out)
		for _, c := range []struct{ path, want string }{
			{"page1.edges.0.node.name", "r5"}, {"page1.edges.1.node.name", "r4"},
			{"tail.edges.0.node.name", "r4"}, {"tail.edges.1.node.name", "r5"},
			{"after.edges.0.node.name", "r3"}, {"after.edges.1.node.name", "r2"},
		} {
			if got := dig(t, out, "data.farm."+c.path); got != c.want {
				t.Fatalf("one farm: %s = %v, want %s", c.path, got, c.want)
			}
		}
		for _, a := range []string{"page1", "tail", "after"} {
			if got := dig(t, out, "data.farm."+a+".totalCount"); got != float64(6) {
				t.Fatalf("one farm: %s.totalCount = %v, want 6", a, got)
			}
		}
		if dig(t, out, "data.farm.page1.pageInfo.hasNextPage") != true || dig(t, out, "data.farm.tail.pageInfo.hasPreviousPage") != true {
			t.Fatalf("one farm: page info %v", dig(t, out, "data.farm"))
		}
	})
}

// BenchmarkHarnessRecordsPage is the side-by-side benchmark's GraphQL page (first 50 of 200
// records with items and files) through the whole HTTP stack.
func BenchmarkHarnessRecordsPage(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			f := app.MustFarm(u, "Bench")
			seedRecords(b, app, u, f.ID, 200)
			vars := map[string]any{"f": f.ID.String(), "n": 50}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				app.GraphQL(u.Token, harnessRecordsPage, vars)
			}
		})
	}
}

// BenchmarkFarmsRecords is every farm's first 10 records with items and files, for 10 farms.
func BenchmarkFarmsRecords(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			for i := 0; i < 10; i++ {
				seedRecords(b, app, u, app.MustFarm(u, fmt.Sprintf("Bench %d", i)).ID, 20)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				app.GraphQL(u.Token, farmsWithRecords, nil)
			}
		})
	}
}

// TestTaskBoardPreviewsAreBatched: the previews of a task board's births cost one statement,
// not one per birth.
func TestTaskBoardPreviewsAreBatched(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		board := `query($f: ID!) { farm(id: $f) { tasks(first: 50) { edges { node {
			name birthEvent { id preview { id createdAt } } } } } } }`
		counts := map[int]int64{}
		for _, births := range []int{1, 3} {
			c := newCalvingFarm(t, app, owner, 1)
			previews := map[string]bool{}
			for i := 0; i < births; i++ {
				dam := app.MustAnimal(owner, uuid.MustParse(c.farmID), fmt.Sprintf("COW-%d", i)).ID.String()
				out := app.GraphQL(owner.Token, `mutation($f: ID!, $dam: ID!) {
					birthPreviewCreate(input: {farmID: $f, damID: $dam, birthDate: "2026-04-20"}) { birthPreview { id } } }`,
					map[string]any{"f": c.farmID, "dam": dam})
				wantNoErrors(t, out)
				p := dig(t, out, "data.birthPreviewCreate.birthPreview.id").(string)
				previews[p] = true
				out = app.GraphQL(owner.Token, `mutation($f: ID!, $p: ID!, $r: String!) { birthPreviewApprove(input: {farmID: $f, id: $p, requestID: $r, calves: [{tag: $r, sex: "female", status: "alive"}]}) { birthEvent { id } } }`,
					map[string]any{"f": c.farmID, "p": p, "r": fmt.Sprint("CALF-", i)})
				wantNoErrors(t, out)
			}
			counts[births] = app.Queries(func() {
				out := app.GraphQL(owner.Token, board, map[string]any{"f": c.farmID})
				wantNoErrors(t, out)
				edges := dig(t, out, "data.farm.tasks.edges").([]any)
				if len(edges) != 2*births {
					t.Fatalf("%d tasks, want %d", len(edges), 2*births)
				}
				for _, e := range edges {
					if p := dig(t, e, "node.birthEvent.preview.id").(string); !previews[p] {
						t.Fatalf("preview %s is not one of this farm's", p)
					}
				}
			})
		}
		if counts[1] != counts[3] {
			t.Fatalf("statements grow with the births: %v", counts)
		}
		t.Logf("task board with births' previews: %d statements for any number of births", counts[3])
	})
}
