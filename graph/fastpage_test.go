package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/graph"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestFastRecordsPageMatches: the one-pass writer of a records page (fastpage.go) answers
// byte for byte what the executor answers field by field, for the benchmark's page and for
// selections that use aliases, fragments, __typename, @include/@skip, page info, cursors,
// nulls and strings to escape, for one farm and for a farm connection; and a selection it
// does not know (an animals field, an argument) is answered by the executor, identically.
func TestFastRecordsPageMatches(t *testing.T) {
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Fast")
		seedRecords(t, app, u, f.ID, 12)
		odd := "quote \" backslash \\ <tag> & é 🐄 \u2028 end"
		text := "tab \t newline \n " + odd
		r, err := app.Service.CreateRecord(app.Ctx(u), f.ID, herdbook.RecordInput{
			AnimalIDs: []uuid.UUID{app.MustAnimal(u, f.ID, "ODD").ID},
			Name:      odd, Description: &text, Type: "HEALTH", AppliedAt: ptrTime(),
			Items: []herdbook.RecordItemInput{{Name: &odd, Description: &text, Metadata: map[string]any{"note": text, "n": 1e21, "nested": map[string]any{"a": []any{1, "x", nil}}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		herdbooktest.InTx(t, d.Client, func(ctx context.Context, c *ent.Client) error {
			for i, name := range []string{"photo.jpg", odd} {
				fl, err := c.File.Create().SetFarmID(f.ID).SetName(name).SetMimeType("image/jpeg").SetSize(int64(1000 + i)).
					SetStorageKey(fmt.Sprintf("fast/%d", i)).Save(ctx)
				if err != nil {
					return err
				}
				if err := c.FileRecord.CreateBulk(herdbook.FileRecordLinks(c, f.ID, fl.ID, r.ID)...).Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
		vars := map[string]any{"f": f.ID.String(), "n": 50, "yes": true}
		for name, q := range map[string]string{
			"harness": harnessRecordsPage,
			"everything": `query($f: ID!) { farm(id: $f) { id records(first: 20, orderBy: {field: NAME, direction: DESC}) {
				__typename totalCount pageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor }
				edges { __typename cursor node { __typename id createdAt updatedAt isActive recordedAt recordedByUserID recordedByClientID
					voidedAt voidedByUserID voidedByClientID voidReason amendsID supersededByID farmID type name description appliedAt acknowledgeWithdrawal
					items { __typename id createdAt updatedAt isActive recordedAt recordedByUserID recordedByClientID voidedAt voidedByUserID
						voidedByClientID voidReason amendsID supersededByID recordID name description metadata }
					files { __typename id createdAt updatedAt isActive farmID name mimeType size } } } } } }`,
			"aliases and fragments": `query($f: ID!, $yes: Boolean!) { farm(id: $f) { page: records(first: 5) { count: totalCount
				edges { node { ...R key: id ... on Record { n2: name } skipped: name @skip(if: $yes) kept: name @include(if: $yes)
					first: items { ...I } second: items { id } } } } } }
				fragment R on Record { id name description items { id } }
				fragment I on RecordItem { metadata itemName: name }`,
			"farms":      `query { farms(first: 5) { edges { node { name records(first: 3, orderBy: {field: NAME}) { totalCount edges { node { name items { id name } files { name size } } } } } } } }`,
			"falls back": `query($f: ID!) { farm(id: $f) { records(first: 5) { totalCount edges { node { id name animals { tag } groups { name } } } } } }`,
			"empty":      `query($f: ID!) { farm(id: $f) { records(first: 0) { totalCount edges { node { id } } pageInfo { hasNextPage endCursor } } } }`,
		} {
			answer := func(slow bool) []byte {
				graph.SetSlowRecordsPage(slow)
				defer graph.SetSlowRecordsPage(false)
				body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
				res := app.Do("POST", "/graphql", u.Token, body)
				if res.Status != 200 || bytes.Contains(res.Body, []byte(`"errors"`)) {
					t.Fatalf("%s: %d %s", name, res.Status, res.Body)
				}
				return res.Body
			}
			fast, slow := answer(false), answer(true)
			if !bytes.Equal(fast, slow) {
				t.Errorf("%s: the one-pass page differs from the executor's:\n%s\n%s", name, fast, slow)
			}
			if !bytes.Contains(fast, []byte(`"edges"`)) {
				t.Errorf("%s: no edges in %s", name, fast)
			}
		}
	})
}
