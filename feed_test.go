package herdbook_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestAnimalFeed covers the feed the animals list will use: changes in order, deletions
// included, and a cursor that ends where the changes end.
func TestAnimalFeed(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Animal Farm")
		ctx := app.Ctx(owner)
		a := app.MustAnimal(owner, f.ID, "A-1")
		b := app.MustAnimal(owner, f.ID, "B-1")
		all, total, c0, err := app.Service.AnimalFeed(ctx, f.ID, herdbook.FeedPage{})
		if err != nil || total != 2 || len(all) != 2 {
			t.Fatalf("full read: %d of %d, %v", len(all), total, err)
		}
		if _, err := app.Service.UpdateAnimal(ctx, b.ID, herdbook.AnimalInput{Tag: "B-2"}); err != nil {
			t.Fatal(err)
		}
		if err := app.Service.DeleteAnimal(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		got, total, c1, err := app.Service.AnimalFeed(ctx, f.ID, herdbook.FeedPage{Since: &c0})
		if err != nil || total != 2 || len(got) != 2 || got[0].ID != b.ID || got[0].Tag != "B-2" || got[1].ID != a.ID || got[1].IsActive {
			t.Fatalf("changes %v (total %d, %v)", ids(got), total, err)
		}
		if got, _, _, err := app.Service.AnimalFeed(ctx, f.ID, herdbook.FeedPage{Since: &c1}); err != nil || len(got) != 0 {
			t.Fatalf("again: %v %v", ids(got), err)
		}
		if _, _, _, err := app.Service.AnimalFeed(ctx, f.ID, herdbook.FeedPage{Since: ptr("x")}); herdbook.ErrorCode(err) != herdbook.EINVALID {
			t.Fatalf("bad cursor: %v", err)
		}
	})
}

// TestTrackedChangeNeedsTransaction: a tracked change outside a transaction is refused,
// and nothing is written.
func TestTrackedChangeNeedsTransaction(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Farm")
		err := d.Client.Animal.Create().SetFarmID(f.ID).SetTag("X").Exec(context.Background())
		if err == nil {
			t.Fatal("an animal was created outside a transaction")
		}
		if n := d.Client.Animal.Query().CountX(context.Background()); n != 0 {
			t.Fatalf("%d animals written", n)
		}
		herdbooktest.InTx(t, d.Client, func(ctx context.Context, c *ent.Client) error {
			return c.Animal.Create().SetFarmID(f.ID).SetTag("Y").Exec(ctx)
		})
	})
}

func ids(as []*ent.Animal) []uuid.UUID {
	out := make([]uuid.UUID, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}
