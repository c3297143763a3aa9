package graph_test

import (
	"testing"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestFactCreateMembershipEnd ends a membership through factCreate's membershipEnd, as the
// web app's animal page does: the group holds the animal the day before, not from that day
// on, the membership fact that opened it stays, and a READER is refused.
func TestFactCreateMembershipEnd(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Leaving Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		v := map[string]any{"f": f.ID.String(), "a": app.MustAnimal(owner, f.ID, "A-1").ID.String(), "g": app.MustGroup(owner, f.ID, "Heifers").ID.String()}
		wantNoErrors(t, app.GraphQL(owner.Token, `mutation($f: ID!, $a: ID!, $g: ID!) {
			factCreate(input: {farmID: $f, fact: {membership: {animalID: $a, groupID: $g, startDate: "2025-04-01"}}}) { record { id } } }`, v))

		end := `mutation($f: ID!, $a: ID!, $g: ID!) {
			factCreate(input: {farmID: $f, fact: {membershipEnd: {animalID: $a, groupID: $g, date: "2025-06-01"}}}) { record { id type appliedAt items { metadata } } } }`
		if out := app.GraphQL(reader.Token, end, v); errorCode(out) != "UNAUTHENTICATED" {
			t.Fatalf("a READER ends a membership: %v", out)
		}
		out := app.GraphQL(owner.Token, end, v)
		wantNoErrors(t, out)
		rec := dig(t, out, "data.factCreate.record").(map[string]any)
		fact := rec["items"].([]any)[0].(map[string]any)["metadata"].(map[string]any)["birth_history"].(map[string]any)
		if fact["kind"] != "membership_end" || fact["date"] != "2025-06-01" || fact["group_id"] != v["g"] || fact["animal_id"] != v["a"] {
			t.Fatalf("the fact = %v", fact)
		}
		if rec["appliedAt"] != "2025-06-01T00:00:00Z" {
			t.Errorf("appliedAt = %v, want the day it left", rec["appliedAt"])
		}

		q := `query($g: ID!, $d: Date) { node(id: $g) { ... on Group { members(asOf: $d) { totalCount } } } }`
		for day, want := range map[string]float64{"2025-03-31": 0, "2025-05-31": 1, "2025-06-01": 0, "2026-01-01": 0} {
			out := app.GraphQL(owner.Token, q, map[string]any{"g": v["g"], "d": day})
			if got := dig(t, out, "data.node.members.totalCount"); got != want {
				t.Errorf("members on %s = %v, want %v", day, got, want)
			}
		}
		// Nothing is rewritten: the membership fact that opened it is still in the timeline.
		out = app.GraphQL(owner.Token, `query($a: ID!) { node(id: $a) { ... on Animal { timeline(first: 10) { totalCount } } } }`, v)
		if got := dig(t, out, "data.node.timeline.totalCount"); got != float64(2) {
			t.Errorf("timeline holds %v records, want the membership and its end", got)
		}
	})
}
