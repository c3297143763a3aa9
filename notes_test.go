package herdbook_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestAnimalNotes: an animal's notes are the records in force that name it directly with a
// description, newest first (the later of two on one day first), as many as asked; a record
// without words, one about another animal, one voided and one only through a group are not
// its notes. Reading them costs the same statements for 2 notes as for 12. Another farm's
// animal, an unknown id and a request without credentials are refused.
func TestAnimalNotes(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		ctx := app.Ctx(owner)
		farm := app.MustFarm(owner, "Notes")
		cow := app.MustAnimal(owner, farm.ID, "N-1")
		other := app.MustAnimal(owner, farm.ID, "N-2")
		herd := app.MustGroup(owner, farm.ID, "Herd")
		recordFact(t, app, ctx, farm.ID, evidence.Fact{Kind: evidence.KindMembership, AnimalID: cow.ID.String(), GroupID: herd.ID.String(), StartDate: "2024-01-01"})
		note := func(animals []uuid.UUID, groups []uuid.UUID, day, text string) uuid.UUID {
			t.Helper()
			at, err := time.Parse(time.DateOnly, day)
			if err != nil {
				t.Fatal(err)
			}
			at = at.Add(12 * time.Hour)
			in := herdbook.RecordInput{AnimalIDs: animals, GroupIDs: groups, Name: herdbook.NoteRecordName, Type: "OTHER", AppliedAt: &at}
			if text != "" {
				in.Description = &text
			}
			r, err := app.Service.CreateRecord(ctx, farm.ID, in)
			if err != nil {
				t.Fatal(err)
			}
			return r.ID
		}
		texts := func(first *int) string {
			t.Helper()
			got, err := app.Service.AnimalNotes(ctx, farm.ID, cow.ID, first)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range got {
				out = append(out, r.AppliedAt.Format(time.DateOnly)+" "+*r.Description)
			}
			return strings.Join(out, " | ")
		}
		one := []uuid.UUID{cow.ID}
		note(one, nil, "2025-03-01", "Lame, left hind")
		note(one, nil, "2025-04-01", "Quiet in the crush")
		note(one, nil, "2025-04-01", "Kicks: mind the right side")
		note(one, nil, "2025-05-01", "")                            // no words: not a note
		note([]uuid.UUID{other.ID}, nil, "2025-06-01", "Not hers")  // another animal's
		note(nil, []uuid.UUID{herd.ID}, "2025-06-02", "The herd's") // through her group only
		voided := note(one, nil, "2025-06-03", "Written on the wrong cow")
		if _, err := app.Service.VoidRecord(ctx, farm.ID, voided, "wrong animal"); err != nil {
			t.Fatal(err)
		}

		t.Run("OK", func(t *testing.T) {
			want := "2025-04-01 Kicks: mind the right side | 2025-04-01 Quiet in the crush | 2025-03-01 Lame, left hind"
			if got := texts(nil); got != want {
				t.Fatalf("notes %q, want %q", got, want)
			}
			if got := texts(ptr(1)); got != "2025-04-01 Kicks: mind the right side" {
				t.Fatalf("first 1: %q", got)
			}
			if got := texts(ptr(0)); got != "" {
				t.Fatalf("first 0: %q", got)
			}
			if _, err := app.Service.AnimalNotes(ctx, farm.ID, cow.ID, ptr(-1)); herdbook.ErrorCode(err) != herdbook.EINVALID {
				t.Fatalf("first -1: %v, want %s", err, herdbook.EINVALID)
			}
		})

		t.Run("Statements", func(t *testing.T) {
			cost := func() int64 {
				return app.Queries(func() {
					if _, err := app.Service.AnimalNotes(ctx, farm.ID, other.ID, ptr(50)); err != nil {
						t.Fatal(err)
					}
				})
			}
			few := cost()
			for i := range 10 {
				note([]uuid.UUID{other.ID}, nil, fmt.Sprintf("2025-07-%02d", i+1), fmt.Sprintf("Note %d", i))
			}
			if got, err := app.Service.AnimalNotes(ctx, farm.ID, other.ID, ptr(50)); err != nil || len(got) != 11 {
				t.Fatalf("%d notes, %v; want 11", len(got), err)
			}
			if many := cost(); few != many {
				t.Fatalf("%d statements for 1 note, %d for 11; want the same", few, many)
			}
		})

		t.Run("ErrNotFound", func(t *testing.T) {
			stranger := app.MustUser()
			theirs := app.MustFarm(stranger, "Elsewhere")
			theirCow := app.MustAnimal(stranger, theirs.ID, "E-1")
			// Another farm's animal asked through this farm, an unknown id, and another
			// farm the user is no member of.
			if _, err := app.Service.AnimalNotes(ctx, farm.ID, theirCow.ID, nil); herdbook.ErrorCode(err) != herdbook.ENOTFOUND {
				t.Fatalf("another farm's animal: %v, want %s", err, herdbook.ENOTFOUND)
			}
			if _, err := app.Service.AnimalNotes(ctx, farm.ID, uuid.New(), nil); herdbook.ErrorCode(err) != herdbook.ENOTFOUND {
				t.Fatalf("unknown id: %v, want %s", err, herdbook.ENOTFOUND)
			}
			if _, err := app.Service.AnimalNotes(ctx, theirs.ID, theirCow.ID, nil); err == nil {
				t.Fatal("a farm the user is no member of answered its animal's notes")
			}
		})

		t.Run("ErrUnauthorized", func(t *testing.T) {
			if _, err := app.Service.AnimalNotes(context.Background(), farm.ID, cow.ID, nil); herdbook.ErrorCode(err) != herdbook.EUNAUTHORIZED {
				t.Fatalf("without credentials: %v, want %s", err, herdbook.EUNAUTHORIZED)
			}
		})
	})
}
