package rest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// seedNoticeHerd writes n calves straight through ent (as herdbooktest.MustBigHerd does, with
// the facts' index columns and animal links the API's write path gives them), each born on
// the farm of one of the farm's dams in March 2026 and tagged; every fifth also bought in,
// every seventh dead. It returns how many notices the herd should have.
func seedNoticeHerd(tb testing.TB, d *db.DB, farmID uuid.UUID, n int) {
	tb.Helper()
	ctx := context.Background()
	tx, err := d.Client.Tx(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	c := tx.Client()
	tctx := ent.NewTxContext(ctx, tx)
	dam := uuid.New()
	if err := c.Animal.Create().SetID(dam).SetFarmID(farmID).SetTag("DAM").Exec(tctx); err != nil {
		tb.Fatal(err)
	}
	var facts []map[string]any
	var animals []*ent.AnimalCreate
	for i := 1; i <= n; i++ {
		id := uuid.New()
		animals = append(animals, c.Animal.Create().SetID(id).SetFarmID(farmID).SetTag(fmt.Sprintf("C-%05d", i)))
		born := time.Date(2026, 3, 1+i%20, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		facts = append(facts,
			map[string]any{"kind": "birth", "dam_id": dam.String(), "date": born, "offspring_ids": []string{id.String()}},
			map[string]any{"kind": "identifier", "animal_id": id.String(), "scheme": "visual", "value": fmt.Sprintf("UK1234561%05d", i), "start_date": born})
		if i%5 == 0 {
			facts = append(facts, map[string]any{"kind": "purchase", "animal_id": id.String(), "date": born, "holding_scheme": "uk.cph", "holding_number": "12/345/6789"})
		}
		if i%7 == 0 {
			facts = append(facts, map[string]any{"kind": "death", "animal_id": id.String(), "date": "2026-03-25"})
		}
	}
	for len(animals) > 0 {
		k := min(len(animals), 500)
		if err := c.Animal.CreateBulk(animals[:k]...).Exec(tctx); err != nil {
			tb.Fatal(err)
		}
		animals = animals[k:]
	}
	for lo := 0; lo < len(facts); lo += 100 {
		rid := uuid.New()
		if err := c.Record.Create().SetID(rid).SetFarmID(farmID).SetName("Calving book").SetType(record.TypeOTHER).
			SetAppliedAt(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)).Exec(tctx); err != nil {
			tb.Fatal(err)
		}
		var items []*ent.RecordItemCreate
		var links []*ent.FactAnimalCreate
		for _, f := range facts[lo:min(lo+100, len(facts))] {
			md := map[string]any{"birth_history": f}
			text, err := schematype.MetadataOf(md)
			if err != nil {
				tb.Fatal(err)
			}
			itemID := uuid.New()
			items = append(items, herdbook.WithFactColumns(c.RecordItem.Create().SetID(itemID).SetRecordID(rid).SetFarmID(farmID).SetMetadata(text), md))
			links = append(links, herdbook.FactLinks(c, farmID, itemID, md)...)
		}
		if err := c.RecordItem.CreateBulk(items...).Exec(tctx); err != nil {
			tb.Fatal(err)
		}
		if err := c.FactAnimal.CreateBulk(links...).Exec(tctx); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// TestNoticesStatements (issue 29.2): the notices of a farm cost the same number of
// statements whatever its herd: 30 calves or 600.
func TestNoticesStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		nf := newNoticeFarm(t, d)
		count := func(n int) (int64, int) {
			f := nf.app.MustFarm(nf.owner, fmt.Sprintf("Farm of %d", n))
			nf.app.MustMember(f.ID, nf.reader, herdbook.RoleReader)
			base := "/v1/farm/" + f.ID.String()
			h := cphHolding()
			h["identifier"] = fmt.Sprintf("34/123/%04d", n)
			if res := nf.app.Do("PUT", base+"/holding", nf.owner.Token, h); res.Status != 201 {
				t.Fatalf("holding: %d %s", res.Status, res.Body)
			}
			seedNoticeHerd(t, d, f.ID, n)
			var total int
			q := nf.app.Queries(func() {
				res := nf.app.Do("GET", base+"/notices", nf.reader.Token, nil)
				if res.Status != 200 {
					t.Fatalf("notices: %d %s", res.Status, res.Body)
				}
				total = int(res.JSON(t)["total"].(float64))
			})
			return q, total
		}
		small, ns := count(30)
		large, nl := count(600)
		// Each calf: birth and tagging; each fifth a move on; each seventh a death.
		if ns != 30*2+6+4 || nl != 600*2+120+85 {
			t.Errorf("notices: %d and %d", ns, nl)
		}
		if small != large {
			t.Errorf("statements: %d for 30 calves, %d for 600", small, large)
		}
		t.Logf("statements per notices request: %d", small)
	})
}

// BenchmarkNotices10000 derives the notices of a 10,000-calf holding (docs/performance.md):
// go test ./rest -run - -bench Notices10000 -benchtime 3x.
func BenchmarkNotices10000(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) { benchNotices(b, herdbooktest.MustDB(b, dia)) })
	}
}

func benchNotices(b *testing.B, d *db.DB) {
	{
		app := herdbooktest.NewApp(b, d, herdbooktest.Options{Clock: func() time.Time { return noticeNow }})
		owner := app.MustUser()
		f := app.MustFarm(owner, "Big Holding")
		in := herdbook.HoldingInput{Scheme: ptr("uk.cph"), Identifier: ptr("34/123/1234"), KeeperName: ptr("K"), RuleSet: ptr("gb_cts"), TimeZone: ptr("Europe/London")}
		if _, err := app.Service.CreateHolding(app.Ctx(owner), f.ID, in); err != nil {
			b.Fatal(err)
		}
		seedNoticeHerd(b, d, f.ID, 10000)
		ctx := app.Ctx(owner)
		b.Run("derive", func(b *testing.B) {
			var notices int
			q := app.Queries(func() {
				for i := 0; i < b.N; i++ {
					_, ns, err := app.Service.FarmNotices(ctx, f.ID, herdbook.NoticeFilter{})
					if err != nil {
						b.Fatal(err)
					}
					notices = len(ns)
				}
			})
			b.ReportMetric(float64(q)/float64(b.N), "statements/op")
			b.ReportMetric(float64(notices), "notices")
		})

		// The same holding reconciled with a registry's copy of every calf.
		b.Run("reconcile", func(b *testing.B) {
			cp := herdbook.RegistryCopy{AsOf: "2026-03-20"}
			for i := 1; i <= 10000; i++ {
				cp.Animals = append(cp.Animals, herdbook.RegistryAnimal{Tag: fmt.Sprintf("UK1234561%05d", i), Sex: "F"})
			}
			var diffs int
			b.ResetTimer()
			q := app.Queries(func() {
				for i := 0; i < b.N; i++ {
					rec, err := app.Service.ReconcileRegistryCopy(ctx, f.ID, cp)
					if err != nil {
						b.Fatal(err)
					}
					diffs = len(rec.Differences)
				}
			})
			b.ReportMetric(float64(q)/float64(b.N), "statements/op")
			b.ReportMetric(float64(diffs), "differences")
		})
	}
}

func ptr[T any](v T) *T { return &v }
