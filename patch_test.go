package herdbook_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"entgo.io/contrib/entgql"
	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestPatchedAnswersMatchDerived: the answers a write patches rather than derives again
// (patch.go: the register's sex, group and status sets, the dashboard's group head counts, the
// withdrawal board)
// equal the answers derived whole from the farm's facts, after each of 60 random writes on a
// farm of 30 animals in 3 groups: profile facts that change a sex, memberships opened and
// ended, arrivals, sales, deaths and moves dated before and after the day asked, treatments of
// an animal and of a group (whose reach names no animal in the fact), facts of
// several animals in one record, records and single items voided, animals created and
// deleted, writes the history checks refuse. Both today and a past day are asked, and each
// answer is read right after the write (patched) and again (kept), on both databases.
func TestPatchedAnswersMatchDerived(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		ctx := app.Ctx(owner)
		farm := app.MustFarm(owner, "Patched")
		rng := rand.New(rand.NewPCG(30, 6))
		var animals, groups []uuid.UUID
		tags := map[string]string{} // by animal id
		newAnimal := func() {
			sex := []string{evidence.SexFemale, evidence.SexMale}[rng.IntN(2)]
			tag := fmt.Sprintf("P-%03d", len(animals))
			a, err := app.Service.CreateAnimal(ctx, farm.ID, herdbook.AnimalInput{Tag: tag, Sex: &sex, BirthDate: ptr("2024-01-01")})
			if err != nil {
				t.Fatal(err)
			}
			animals = append(animals, a.ID)
			tags[a.ID.String()] = tag
		}
		for range 30 {
			newAnimal()
		}
		for i := range 3 {
			g, err := app.Service.CreateGroup(ctx, farm.ID, herdbook.GroupInput{Name: fmt.Sprintf("Group %d", i)})
			if err != nil {
				t.Fatal(err)
			}
			groups = append(groups, g.ID)
		}
		zone := "UTC" // bare treatment dates are the farm's local days
		if _, err := app.Service.UpdateFarmSettings(ctx, farm.ID, herdbook.FarmSettingsPatch{TimeZone: herdbook.Optional[string]{Set: true, Value: &zone}}); err != nil {
			t.Fatal(err)
		}
		med, err := app.Service.CreateMedicine(ctx, farm.ID, herdbook.MedicineInput{Name: "Penicillin",
			WithdrawalMeatDays: herdbook.LabelPeriod(28), WithdrawalMilkHours: herdbook.LabelPeriod(72)})
		if err != nil {
			t.Fatal(err)
		}
		today := time.Now().UTC().Format(time.DateOnly)
		past := "2025-06-15"
		days := []string{"2025-03-01", "2025-06-01", "2025-06-15", "2025-07-01", "2025-09-01", today}
		day := func() string { return days[rng.IntN(len(days))] }
		pick := func() string { return animals[rng.IntN(len(animals))].String() }
		randomFact := func() evidence.Fact {
			a, g := pick(), groups[rng.IntN(len(groups))].String()
			switch rng.IntN(9) {
			case 7:
				return evidence.Fact{Kind: evidence.KindTreatment, AnimalID: a, MedicineID: med.ID.String(), Date: day()}
			case 8:
				return evidence.Fact{Kind: evidence.KindTreatment, GroupID: g, MedicineID: med.ID.String(), Date: day()}
			case 0:
				return evidence.Fact{Kind: evidence.KindProfile, AnimalID: a, Sex: []string{evidence.SexFemale, evidence.SexMale}[rng.IntN(2)], Date: day()}
			case 1, 2:
				return evidence.Fact{Kind: evidence.KindMembership, AnimalID: a, GroupID: g, StartDate: day()}
			case 3:
				return evidence.Fact{Kind: evidence.KindMembershipEnd, AnimalID: a, GroupID: g, Date: day()}
			case 4:
				return evidence.Fact{Kind: []evidence.Kind{evidence.KindSale, evidence.KindDeath, evidence.KindMovementOut}[rng.IntN(3)], AnimalID: a, Date: day()}
			default:
				return evidence.Fact{Kind: []evidence.Kind{evidence.KindPurchase, evidence.KindMovementIn}[rng.IntN(2)], AnimalID: a, Date: day()}
			}
		}
		ids := func(t *testing.T, ctx context.Context, f herdbook.AnimalFilter) []string {
			t.Helper()
			f.Page = herdbook.Page{Take: ptr(500)}
			page, total, err := app.Service.Animals(ctx, farm.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]string, len(page))
			for i, p := range page {
				out[i] = p.Animal.ID.String()
			}
			slices.Sort(out)
			if total != len(out) {
				t.Fatalf("%+v: total %d, %d on the page", f, total, len(out))
			}
			return out
		}
		held := 0 // boards read with an animal on them
		check := func(t *testing.T, step string) {
			t.Helper()
			for _, asOf := range []string{"", past} {
				var filters []herdbook.AnimalFilter
				for _, st := range []string{"", evidence.StatusOnFarm, evidence.StatusSold, evidence.StatusDied, evidence.StatusMovedOut, evidence.StatusNotYet} {
					filters = append(filters, herdbook.AnimalFilter{AsOf: asOf, Status: st})
				}
				for _, sex := range []string{evidence.SexFemale, evidence.SexMale} {
					filters = append(filters, herdbook.AnimalFilter{AsOf: asOf, Sex: sex})
				}
				for _, g := range groups {
					filters = append(filters, herdbook.AnimalFilter{AsOf: asOf, Group: g})
				}
				for _, f := range filters {
					want := ids(t, herdbook.Afresh(ctx), f)
					for _, read := range []string{"patched", "kept"} {
						if got := ids(t, ctx, f); !slices.Equal(got, want) {
							t.Fatalf("after %s, %s, filter %+v: %d animals %v, derived whole %d %v", step, read, f, len(got), got, len(want), want)
						}
						// The register's connection, whose total of a sex is counted in memory.
						conn, err := app.Service.RegisterAnimalConnection(ctx, farm.ID, herdbook.Window{First: ptr(500)}, nil, nil, f)
						if err != nil {
							t.Fatal(err)
						}
						got := make([]string, len(conn.Edges))
						for i, e := range conn.Edges {
							got[i] = e.Node.ID.String()
						}
						slices.Sort(got)
						if conn.TotalCount != len(want) || !slices.Equal(got, want) {
							t.Fatalf("after %s, %s, register filter %+v: total %d, animals %v; derived whole %d %v", step, read, f, conn.TotalCount, got, len(want), want)
						}
						// Page by page, in tag order, from each page's end cursor.
						var paged []string
						var after *herdbook.Cursor
						for range 20 {
							page, err := app.Service.RegisterAnimalConnection(ctx, farm.ID, herdbook.Window{First: ptr(4), After: after},
								&ent.AnimalOrder{Direction: entgql.OrderDirectionAsc, Field: ent.AnimalOrderFieldTag}, nil, f)
							if err != nil {
								t.Fatal(err)
							}
							if page.TotalCount != len(want) {
								t.Fatalf("after %s, %s, register filter %+v: a page's total %d, derived whole %d", step, read, f, page.TotalCount, len(want))
							}
							for _, e := range page.Edges {
								paged = append(paged, e.Node.ID.String())
							}
							if !page.PageInfo.HasNextPage {
								break
							}
							after = page.PageInfo.EndCursor
						}
						byTag := slices.Clone(paged)
						slices.Sort(paged)
						if !slices.Equal(paged, want) || !slices.IsSortedFunc(byTag, func(a, b string) int { return strings.Compare(tags[a], tags[b]) }) {
							t.Fatalf("after %s, %s, register filter %+v, in pages of 4: %v, derived whole %v", step, read, f, byTag, want)
						}
					}
				}
			}
			board := func(ctx context.Context, asOf string) string {
				page, total, err := app.Service.Withdrawals(ctx, farm.ID, asOf, herdbook.Page{Take: ptr(500)})
				if err != nil {
					t.Fatal(err)
				}
				for _, aw := range page {
					slices.SortFunc(aw.Treatments, func(a, b herdbook.WithdrawalTreatment) int {
						return strings.Compare(a.RecordItemID.String(), b.RecordItemID.String())
					})
				}
				if total > 0 {
					held++
				}
				return fmt.Sprintf("%d %+v", total, page)
			}
			for _, asOf := range []string{"", past} {
				want := board(herdbook.Afresh(ctx), asOf)
				for _, read := range []string{"patched", "kept"} {
					if got := board(ctx, asOf); got != want {
						t.Fatalf("after %s, %s, withdrawals as of %q:\n%s\nderived whole:\n%s", step, read, asOf, got, want)
					}
				}
			}
			want, err := app.Service.GroupCounts(herdbook.Afresh(ctx), farm.ID, groups)
			if err != nil {
				t.Fatal(err)
			}
			for _, read := range []string{"patched", "kept"} {
				got, err := app.Service.GroupCounts(ctx, farm.ID, groups)
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range groups {
					if got[g] != want[g] {
						t.Fatalf("after %s, %s: group %s counts %d, derived whole %d", step, read, g, got[g], want[g])
					}
				}
			}
		}
		var start []evidence.Fact
		for i, a := range animals[:15] {
			start = append(start, evidence.Fact{Kind: evidence.KindMembership, AnimalID: a.String(), GroupID: groups[i%3].String(), StartDate: "2025-03-01"})
		}
		if err := app.Service.WriteAnimalFacts(ctx, farm.ID, start); err != nil {
			t.Fatal(err)
		}
		check(t, "the farm's creation")
		refused := 0
		for i := range 60 {
			var step string
			var err error
			switch r := rng.IntN(10); {
			case i%6 == 3:
				// A group's treatment on a day a check sees it withhold.
				g := groups[rng.IntN(len(groups))].String()
				step = fmt.Sprintf("write %d: treatment of group %s", i, g)
				err = app.Service.WriteAnimalFacts(ctx, farm.ID, []evidence.Fact{{Kind: evidence.KindTreatment, GroupID: g,
					MedicineID: med.ID.String(), Date: []string{"2025-06-01", today}[rng.IntN(2)]}})
			case r < 5:
				f := randomFact()
				step = fmt.Sprintf("write %d: %s of %s", i, f.Kind, f.AnimalID)
				err = app.Service.WriteAnimalFacts(ctx, farm.ID, []evidence.Fact{f})
			case r < 6:
				step = fmt.Sprintf("write %d: three facts in one record", i)
				err = app.Service.WriteAnimalFacts(ctx, farm.ID, []evidence.Fact{randomFact(), randomFact(), randomFact()})
			case r < 8:
				recs, qerr := d.Client.Record.Query().Where(record.FarmID(farm.ID), record.IsActive(true)).
					Order(ent.Asc(record.FieldCreatedAt)).WithItems().All(context.Background())
				if qerr != nil {
					t.Fatal(qerr)
				}
				if len(recs) == 0 {
					continue
				}
				rec := recs[rng.IntN(len(recs))]
				if r == 6 || len(rec.Edges.Items) == 0 {
					step = fmt.Sprintf("write %d: record %s voided", i, rec.ID)
					_, err = app.Service.VoidRecord(ctx, farm.ID, rec.ID, "entered twice")
				} else {
					it := rec.Edges.Items[rng.IntN(len(rec.Edges.Items))]
					step = fmt.Sprintf("write %d: item %s voided", i, it.ID)
					_, err = app.Service.VoidRecordItem(ctx, farm.ID, rec.ID, it.ID, "wrong animal")
				}
			case r < 9:
				a := rng.IntN(len(animals))
				step = fmt.Sprintf("write %d: animal %s deleted", i, animals[a])
				err = app.Service.DeleteAnimal(ctx, animals[a])
			default:
				step = fmt.Sprintf("write %d: an animal created", i)
				newAnimal()
			}
			if err != nil {
				refused++ // a write the history checks refuse changes nothing
			}
			check(t, step)
		}
		if refused > 40 || held < 20 {
			t.Fatalf("%d of 60 writes refused, %d boards with an animal: the test writes too little", refused, held)
		}
		t.Logf("%d of 60 writes refused, %d boards with an animal", refused, held)
	})
}
