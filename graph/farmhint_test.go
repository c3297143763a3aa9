package graph_test

import (
	"encoding/json"
	"testing"

	"github.com/herdbook/herdbook/graph"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestNodeFarmHint: the web app names the farm of its page in graph.FarmHintHeader, and a
// node found by its global id is looked for on that farm first (on a Citus cluster, its shard
// alone: TestFarmRequestOnOneShard). The header is only a hint: the answers are the same with
// the right farm, another farm, a malformed value or none, and it lets nobody read a node of a
// farm they are not a member of. The hinted lookup of a node on its farm costs no more
// statements than the unhinted one.
func TestNodeFarmHint(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, stranger := app.MustUser(), app.MustUser()
		farmA, farmB := app.MustFarm(owner, "Farm A"), app.MustFarm(owner, "Farm B")
		cow := app.MustAnimal(owner, farmA.ID, "A-1")
		const q = `query($id: ID!) { node(id: $id) { id ... on Animal { tag } } }`
		ask := func(token string, hint ...string) (string, int64) {
			t.Helper()
			var body string
			n := app.Queries(func() {
				res := app.Do("POST", "/graphql", token, map[string]any{"query": q, "variables": map[string]any{"id": cow.ID}}, hint...)
				out, _ := json.Marshal(res.JSON(t))
				body = string(out)
			})
			return body, n
		}
		want, plain := ask(owner.Token)
		if want != `{"data":{"node":{"id":"`+cow.ID.String()+`","tag":"A-1"}}}` {
			t.Fatalf("node without a hint: %s", want)
		}
		for name, hint := range map[string]string{"its farm": farmA.ID.String(), "another farm": farmB.ID.String(), "not an id": "farm-a"} {
			got, n := ask(owner.Token, graph.FarmHintHeader, hint)
			if got != want {
				t.Errorf("hint of %s: %s, want %s", name, got, want)
			}
			if name == "its farm" && n > plain {
				t.Errorf("hint of its farm: %d statements, %d without a hint", n, plain)
			}
		}
		refused, _ := ask(stranger.Token)
		hinted, _ := ask(stranger.Token, graph.FarmHintHeader, farmA.ID.String())
		if hinted != refused || hinted == want {
			t.Errorf("a stranger with the farm's hint got %s; without it %s", hinted, refused)
		}
	})
}
