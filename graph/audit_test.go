package graph_test

import (
	"testing"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestBookCorrectionsGraph: recordVoid, recordAmend and their item variants keep the entry
// with who, when and why, and Farm.audit lists the changes (issue 19, deliver item 4).
func TestBookCorrectionsGraph(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, editor, reader := app.MustUser(), app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Graph Audit")
		app.MustMember(f.ID, editor, herdbook.RoleEditor)
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		cow := app.MustAnimal(owner, f.ID, "C").ID.String()
		vars := map[string]any{"f": f.ID.String(), "cow": cow}
		create := `mutation($f: ID!, $cow: ID!) { recordCreate(input: {farmID: $f, animalIDs: [$cow], name: "Sold", type: MOVEMENT, appliedAt: "2025-04-01T00:00:00Z",
			items: [{name: "sale", metadata: {birth_history: {kind: "sale", animal_id: $cow, date: "2025-04-01"}}}]}) { record { id recordedAt recordedByUserID recordedByClientID items { id } } } }`
		out := app.GraphQL(editor.Token, create, vars)
		wantNoErrors(t, out)
		if dig(t, out, "data.recordCreate.record.recordedByUserID") != editor.ID.String() || dig(t, out, "data.recordCreate.record.recordedAt") == nil ||
			dig(t, out, "data.recordCreate.record.recordedByClientID") == nil {
			t.Fatalf("author of a new record = %v", out)
		}
		vars["r"] = dig(t, out, "data.recordCreate.record.id")
		vars["i"] = dig(t, out, "data.recordCreate.record.items.0.id")

		out = app.GraphQL(editor.Token, `mutation($f: ID!, $r: ID!, $i: ID!, $cow: ID!) {
			recordItemAmend(input: {farmID: $f, recordID: $r, id: $i, reason: "Sold a day later.", metadata: {birth_history: {kind: "sale", animal_id: $cow, date: "2025-04-02"}}}) {
				recordItem { id amendsID name metadata } superseded { id isActive supersededByID voidReason voidedByUserID } } }`, vars)
		wantNoErrors(t, out)
		if dig(t, out, "data.recordItemAmend.recordItem.amendsID") != vars["i"] || dig(t, out, "data.recordItemAmend.superseded.supersededByID") != dig(t, out, "data.recordItemAmend.recordItem.id") ||
			dig(t, out, "data.recordItemAmend.superseded.isActive") != false || dig(t, out, "data.recordItemAmend.recordItem.name") != "sale" ||
			dig(t, out, "data.recordItemAmend.superseded.voidedByUserID") != editor.ID.String() {
			t.Fatalf("item amend = %v", out)
		}
		vars["i2"] = dig(t, out, "data.recordItemAmend.recordItem.id")

		out = app.GraphQL(editor.Token, `mutation($f: ID!, $r: ID!) {
			recordAmend(input: {farmID: $f, id: $r, reason: "Wrong title.", name: "Sold to market"}) {
				record { id name amendsID items { metadata } } superseded { id supersededByID voidedAt voidReason } } }`, vars)
		wantNoErrors(t, out)
		if dig(t, out, "data.recordAmend.record.amendsID") != vars["r"] || dig(t, out, "data.recordAmend.record.name") != "Sold to market" ||
			dig(t, out, "data.recordAmend.record.items.0.metadata.birth_history.date") != "2025-04-02" ||
			dig(t, out, "data.recordAmend.superseded.supersededByID") != dig(t, out, "data.recordAmend.record.id") || dig(t, out, "data.recordAmend.superseded.voidReason") != "Wrong title." {
			t.Fatalf("amend = %v", out)
		}
		vars["r2"] = dig(t, out, "data.recordAmend.record.id")

		out = app.GraphQL(editor.Token, `mutation($f: ID!, $r2: ID!) { recordVoid(input: {farmID: $f, id: $r2, reason: "Not sold after all."}) { record { id isActive voidedAt voidReason voidedByUserID } } }`, vars)
		wantNoErrors(t, out)
		if dig(t, out, "data.recordVoid.record.isActive") != false || dig(t, out, "data.recordVoid.record.voidReason") != "Not sold after all." {
			t.Fatalf("void = %v", out)
		}

		out = app.GraphQL(reader.Token, `query($f: ID!, $r2: ID!) { farm(id: $f) {
			all: audit(first: 50) { totalCount edges { node { action entity recordID recordItemID userID clientID reason oldValue newValue at } } }
			one: audit(recordID: $r2) { totalCount edges { node { action reason } } }
			none: audit(from: "2999-01-01T00:00:00Z") { totalCount } } }`, vars)
		wantNoErrors(t, out)
		if n := dig(t, out, "data.farm.all.totalCount").(float64); n < 6 {
			t.Fatalf("trail = %v", out)
		}
		if dig(t, out, "data.farm.all.edges.0.node.action") != "create" || dig(t, out, "data.farm.all.edges.0.node.userID") != editor.ID.String() {
			t.Fatalf("first entry = %v", dig(t, out, "data.farm.all.edges.0"))
		}
		one := dig(t, out, "data.farm.one.edges").([]any)
		if last := one[len(one)-1].(map[string]any)["node"].(map[string]any); last["action"] != "void" || last["reason"] != "Not sold after all." {
			t.Fatalf("entries of the corrected record = %v", one)
		}
		if dig(t, out, "data.farm.none.totalCount") != float64(0) {
			t.Fatalf("future trail = %v", out)
		}

		for _, tc := range []struct{ name, token, query, code string }{
			{"ErrVoidNoReason", editor.Token, `mutation($f: ID!, $r: ID!) { recordVoid(input: {farmID: $f, id: $r, reason: ""}) { record { id } } }`, "BAD_USER_INPUT"},
			{"ErrVoidReader", reader.Token, `mutation($f: ID!, $cow: ID!) { recordVoid(input: {farmID: $f, id: $cow, reason: "x"}) { record { id } } }`, "UNAUTHENTICATED"},
			{"ErrVoidUnknown", editor.Token, `mutation($f: ID!, $cow: ID!) { recordVoid(input: {farmID: $f, id: $cow, reason: "x"}) { record { id } } }`, "NOT_FOUND"},
			{"ErrAmendNoReason", editor.Token, `mutation($f: ID!, $r: ID!) { recordAmend(input: {farmID: $f, id: $r, reason: " "}) { record { id } } }`, "BAD_USER_INPUT"},
			{"ErrItemVoidUnknown", editor.Token, `mutation($f: ID!, $r2: ID!, $cow: ID!) { recordItemVoid(input: {farmID: $f, recordID: $r2, id: $cow, reason: "x"}) { recordItem { id } } }`, "NOT_FOUND"},
			{"ErrAuditAnonymous", "", `query($f: ID!) { farm(id: $f) { audit { totalCount } } }`, "UNAUTHENTICATED"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := app.Do("POST", "/graphql", tc.token, map[string]any{"query": tc.query, "variables": vars}).JSON(t)
				if got := errorCode(res); got != tc.code {
					t.Fatalf("code %q, want %q: %v", got, tc.code, res)
				}
			})
		}
	})
}

// TestKnownAtGraph: a query with the knownAt extension reads the book as it stood then
// (issue 19, deliver item 5), in every derived field of the operation.
func TestKnownAtGraph(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Graph Known")
		cow := app.MustAnimal(owner, f.ID, "K").ID.String()
		vars := map[string]any{"f": f.ID.String(), "cow": cow}
		time.Sleep(20 * time.Millisecond)
		before := time.Now().UTC().Format(time.RFC3339Nano)
		time.Sleep(20 * time.Millisecond)
		out := app.GraphQL(owner.Token, `mutation($f: ID!, $cow: ID!) { recordCreate(input: {farmID: $f, animalIDs: [$cow], name: "Died", type: HEALTH, appliedAt: "2025-03-01T00:00:00Z",
			items: [{metadata: {birth_history: {kind: "death", animal_id: $cow, date: "2025-03-01"}}}]}) { record { id } } }`, vars)
		wantNoErrors(t, out)
		query := `query($f: ID!, $cow: ID!) { farm(id: $f) { animals(asOf: "2025-04-01") { totalCount edges { node { profile { status } } } } }
			animal: node(id: $cow) { ... on Animal { profile(asOf: "2025-04-01") { status } } } }`
		ask := func(ext map[string]any) map[string]any {
			body := map[string]any{"query": query, "variables": vars}
			if ext != nil {
				body["extensions"] = ext
			}
			return app.Do("POST", "/graphql", owner.Token, body).JSON(t)
		}
		now := ask(nil)
		wantNoErrors(t, now)
		if dig(t, now, "data.animal.profile.status") != "DIED" || dig(t, now, "data.farm.animals.edges.0.node.profile.status") != "DIED" {
			t.Fatalf("now = %v", now)
		}
		then := ask(map[string]any{"knownAt": before})
		wantNoErrors(t, then)
		if dig(t, then, "data.animal.profile.status") != "ON_FARM" || dig(t, then, "data.farm.animals.edges.0.node.profile.status") != "ON_FARM" {
			t.Fatalf("as known before the death was written = %v", then)
		}
		if res := ask(map[string]any{"knownAt": "yesterday"}); errorCode(res) != "BAD_USER_INPUT" {
			t.Fatalf("bad knownAt = %v", res)
		}
		res := app.Do("POST", "/graphql", owner.Token, map[string]any{"query": `mutation($f: ID!, $cow: ID!) { recordVoid(input: {farmID: $f, id: $cow, reason: "x"}) { record { id } } }`,
			"variables": vars, "extensions": map[string]any{"knownAt": before}}).JSON(t)
		if errorCode(res) != "BAD_USER_INPUT" {
			t.Fatalf("knownAt on a mutation = %v", res)
		}
	})
}
