package graph_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestAnimalNotesGraphQL: Animal.notes answers the notes the crush writes (recordCreate, type
// OTHER, named Note, the text its description), newest first, 3 unless asked; another farm's
// animal and an unknown id are no node for the user, and without a token it is
// UNAUTHENTICATED.
func TestAnimalNotesGraphQL(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Notes")
		a := app.MustAnimal(u, f.ID, "N-1")
		for i, text := range []string{"Lame", "Quiet", "Kicks", "Swollen knee"} {
			wantNoErrors(t, app.GraphQL(u.Token, `mutation($f: ID!, $a: ID!, $at: Time!, $d: String!) {
				recordCreate(input: {farmID: $f, animalIDs: [$a], name: "Note", type: OTHER, appliedAt: $at, description: $d}) { record { id } } }`,
				map[string]any{"f": f.ID.String(), "a": a.ID.String(), "at": fmt.Sprintf("2025-05-0%dT00:00:00Z", i+1), "d": text}))
		}
		notes := `query($id: ID!, $n: Int) { node(id: $id) { ... on Animal { notes(first: $n) { name type appliedAt description } } } }`
		out := app.GraphQL(u.Token, notes, map[string]any{"id": a.ID.String()})
		wantNoErrors(t, out)
		if got := fmt.Sprint(dig(t, out, "data.node.notes")); got != "[map[appliedAt:2025-05-04T00:00:00Z description:Swollen knee name:Note type:OTHER] "+
			"map[appliedAt:2025-05-03T00:00:00Z description:Kicks name:Note type:OTHER] map[appliedAt:2025-05-02T00:00:00Z description:Quiet name:Note type:OTHER]]" {
			t.Fatalf("notes %s", got)
		}
		out = app.GraphQL(u.Token, notes, map[string]any{"id": a.ID.String(), "n": 10})
		if got := len(dig(t, out, "data.node.notes").([]any)); got != 4 {
			t.Fatalf("first 10: %d notes, want 4", got)
		}

		stranger := app.MustUser()
		theirs := app.MustAnimal(stranger, app.MustFarm(stranger, "Elsewhere").ID, "E-1")
		for name, id := range map[string]string{"another farm's animal": theirs.ID.String(), "an unknown id": uuid.NewString()} {
			out := app.GraphQL(u.Token, notes, map[string]any{"id": id})
			if dig(t, out, "data.node") != nil {
				t.Fatalf("%s: %v", name, out)
			}
		}
		out = app.GraphQL("", notes, map[string]any{"id": a.ID.String()})
		if errorCode(out) != "UNAUTHENTICATED" || dig(t, out, "data.node") != nil {
			t.Fatalf("without a token: %v", out)
		}
	})
}
