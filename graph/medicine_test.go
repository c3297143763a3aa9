package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestMedicineGraph runs the medicine list, a treatment, the withdrawal list and the guard
// through GraphQL.
func TestMedicineGraph(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Medicine Farm")
		farmZone(t, app, owner, f.ID)
		app.MustMember(f.ID, reader, "READER")
		cow := app.MustAnimal(owner, f.ID, "UK-1")
		v := map[string]any{"f": f.ID.String(), "cow": cow.ID.String()}
		do := func(t *testing.T, token, query string) map[string]any {
			t.Helper()
			return app.GraphQL(token, query, v)
		}
		out := do(t, owner.Token, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Oxytetracycline", withdrawalMeatDays: 28,
			withdrawalMilkHours: 96, speciesWithdrawals: [{species: SHEEP, withdrawalMeatDays: 14, withdrawalMilkHours: 0}]}) {
			medicine { id name version withdrawalMeatDays speciesWithdrawals { species withdrawalMeatDays } } } }`)
		wantNoErrors(t, out)
		v["m"] = dig(t, out, "data.medicineCreate.medicine.id")
		if dig(t, out, "data.medicineCreate.medicine.version") != float64(1) || dig(t, out, "data.medicineCreate.medicine.speciesWithdrawals.0.species") != "SHEEP" {
			t.Fatalf("created %v", out)
		}

		t.Run("Errors", func(t *testing.T) {
			out := do(t, owner.Token, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "", withdrawalMeatDays: -1, withdrawalMilkHours: 0}) { medicine { id } } }`)
			if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), "withdrawal_meat_days") || !strings.Contains(fmt.Sprint(out), "name") {
				t.Fatalf("invalid input: %v", out)
			}
			out = do(t, reader.Token, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "X", withdrawalMeatDays: 1, withdrawalMilkHours: 0}) { medicine { id } } }`)
			if out["data"] != nil || !strings.Contains(fmt.Sprint(out), "needs the EDITOR role") {
				t.Fatalf("reader creates: %v", out)
			}
			out = do(t, owner.Token, `query($f: ID!) { node(id: $f) { ... on Farm { medicines(after: "nope") { totalCount } } } }`)
			if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), "after") {
				t.Fatalf("bad cursor: %v", out)
			}
		})

		out = do(t, owner.Token, `mutation($f: ID!, $m: ID!) { medicineUpdate(input: {farmID: $f, id: $m, withdrawalMeatDays: 35, activeSubstance: "oxytetracycline"}) {
			medicine { version withdrawalMeatDays activeSubstance } } }`)
		wantNoErrors(t, out)
		if dig(t, out, "data.medicineUpdate.medicine.version") != float64(2) {
			t.Fatalf("updated %v", out)
		}

		// A treatment through factCreate; then a sale before the clear date is refused, and
		// goes through acknowledged.
		out = do(t, owner.Token, `mutation($f: ID!, $m: ID!, $cow: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $cow,
			date: "2024-02-20", batch: "B-1", dose: 10, unit: "ml"}}}) { record { id } } }`)
		wantNoErrors(t, out)
		out = do(t, owner.Token, `mutation($f: ID!, $m: ID!, $cow: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $cow,
			date: "2024-02-20", withdrawalMeatDays: 3}}}) { record { id } } }`)
		if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), "withdrawal_meat_days") {
			t.Fatalf("a shorter override: %v", out)
		}
		sale := `mutation($f: ID!, $cow: ID!, $ack: Boolean) { recordCreate(input: {farmID: $f, name: "Sold", type: MOVEMENT, appliedAt: "2024-03-01T00:00:00Z", animalIDs: [$cow],
			acknowledgeWithdrawal: $ack, items: [{name: "sale", metadata: {birth_history: {kind: "sale", animal_id: $cow, date: "2024-03-01"}}}]}) {
			record { id acknowledgeWithdrawal } } }`
		out = do(t, owner.Token, sale)
		if errorCode(out) != "WITHDRAWAL" || !strings.Contains(fmt.Sprint(out), "2024-03-26") {
			t.Fatalf("sale during withdrawal: %v", out)
		}
		v["ack"] = true
		out = do(t, owner.Token, sale)
		wantNoErrors(t, out)
		if dig(t, out, "data.recordCreate.record.acknowledgeWithdrawal") != true {
			t.Fatalf("acknowledged %v", out)
		}

		out = do(t, reader.Token, `query($f: ID!) { node(id: $f) { ... on Farm {
			w: withdrawals(asOf: "2024-02-29") { totalCount nodes { animalID animalTag meatClearOn milkClearAt treatments { medicineName medicineVersion date meatClearOn } } }
			later: withdrawals(asOf: "2024-03-26") { totalCount } } } }`)
		wantNoErrors(t, out)
		// As of 29 February: the cow is sold (acknowledged) on 1 March, and from that day the board
		// leaves her off (issue 28.8).
		// 2024 is a leap year: 20 February + 35 days = 26 March; milk 96 h from 00:00 UTC.
		if dig(t, out, "data.node.w.totalCount") != float64(1) || dig(t, out, "data.node.w.nodes.0.meatClearOn") != "2024-03-26" ||
			dig(t, out, "data.node.w.nodes.0.milkClearAt") != "2024-02-25T00:00:00Z" || dig(t, out, "data.node.w.nodes.0.treatments.0.medicineVersion") != float64(2) ||
			dig(t, out, "data.node.later.totalCount") != float64(0) {
			t.Fatalf("withdrawals %v", out)
		}
		// Animal.withdrawal is the animal's line of the same board, null off it (cleared, or
		// sold by then), and exact where a page of the board does not hold the animal.
		out = do(t, reader.Token, `query($f: ID!, $cow: ID!) { node(id: $cow) { ... on Animal {
			w: withdrawal(asOf: "2024-02-29") { animalID animalTag meatClearOn milkClearAt treatments { medicineName medicineVersion } }
			sold: withdrawal(asOf: "2024-03-05") { animalID }
			cleared: withdrawal(asOf: "2024-03-26") { animalID } } }
			farm: node(id: $f) { ... on Farm { page: withdrawals(asOf: "2024-02-29", take: 0) { totalCount nodes { animalID } } } } }`)
		wantNoErrors(t, out)
		if dig(t, out, "data.node.w.animalID") != v["cow"] || dig(t, out, "data.node.w.animalTag") != "UK-1" || dig(t, out, "data.node.w.meatClearOn") != "2024-03-26" ||
			dig(t, out, "data.node.w.milkClearAt") != "2024-02-25T00:00:00Z" || dig(t, out, "data.node.w.treatments.0.medicineVersion") != float64(2) ||
			dig(t, out, "data.node.cleared") != nil || dig(t, out, "data.node.sold") != nil || dig(t, out, "data.farm.page.totalCount") != float64(1) || len(dig(t, out, "data.farm.page.nodes").([]any)) != 0 {
			t.Fatalf("the animal's withdrawal %v", out)
		}
		out = do(t, app.MustUser().Token, `query($cow: ID!) { node(id: $cow) { ... on Animal { withdrawal(asOf: "2024-02-29") { animalID } } } }`)
		if errorCode(out) == "" {
			t.Fatalf("a stranger reads the animal's withdrawal: %v", out)
		}
		out = do(t, reader.Token, `query($cow: ID!) { node(id: $cow) { ... on Animal { withdrawal(asOf: "29/02/2024") { animalID } } } }`)
		if errorCode(out) != "BAD_USER_INPUT" {
			t.Fatalf("a bad date: %v", out)
		}

		t.Run("Node", func(t *testing.T) {
			out := do(t, reader.Token, `query($m: ID!) { node(id: $m) { id ... on Medicine { name version } } nodes(ids: [$m]) { id } }`)
			wantNoErrors(t, out)
			if dig(t, out, "data.node.name") != "Oxytetracycline" || dig(t, out, "data.nodes.0.id") != v["m"] {
				t.Fatalf("node %v", out)
			}
			stranger := app.MustUser()
			out = do(t, stranger.Token, `query($m: ID!) { node(id: $m) { id } }`)
			if errorCode(out) == "" {
				t.Fatalf("a stranger reads the medicine: %v", out)
			}
		})

		out = do(t, owner.Token, `mutation($f: ID!, $m: ID!) { medicineDelete(input: {farmID: $f, id: $m}) { deletedMedicineID } }`)
		wantNoErrors(t, out)
		if dig(t, out, "data.medicineDelete.deletedMedicineID") != v["m"] {
			t.Fatalf("deleted %v", out)
		}
	})
}

// TestMedicinesStatements: the medicine list and the withdrawal list cost the same number
// of statements for 1 and for 20 entries.
func TestMedicinesStatements(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Count Farm")
		farmZone(t, app, owner, f.ID)
		v := map[string]any{"f": f.ID.String()}
		add := func(n int) {
			for i := range n {
				out := app.GraphQL(owner.Token, fmt.Sprintf(`mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "M%d", withdrawalMeatDays: 10, withdrawalMilkHours: 0}) { medicine { id } } }`, i), v)
				wantNoErrors(t, out)
				a := app.MustAnimal(owner, f.ID, fmt.Sprint("A", n, "-", i))
				out = app.GraphQL(owner.Token, `mutation($f: ID!, $m: ID!, $a: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $a, date: "2025-05-01"}}}) { record { id } } }`,
					map[string]any{"f": f.ID.String(), "m": dig(t, out, "data.medicineCreate.medicine.id"), "a": a.ID.String()})
				wantNoErrors(t, out)
			}
		}
		// Each count asks a day not asked before, so that both derive the board whole (after a
		// write a board kept for the day is patched instead, in statements of its own:
		// herdbook's patch.go, rest's TestWithdrawalsStatements).
		count := func(want int, asOf string) int64 {
			return app.Queries(func() {
				out := app.GraphQL(owner.Token, `query($f: ID!, $d: Date) { node(id: $f) { ... on Farm {
					medicines(first: 100) { totalCount edges { cursor node { id name speciesWithdrawals { species } } } pageInfo { hasNextPage endCursor } }
					withdrawals(asOf: $d) { totalCount nodes { animalTag treatments { medicineName } } } } } }`, map[string]any{"f": v["f"], "d": asOf})
				wantNoErrors(t, out)
				if dig(t, out, "data.node.medicines.totalCount") != float64(want) || dig(t, out, "data.node.withdrawals.totalCount") != float64(want) {
					t.Fatalf("totals %v, want %d", out, want)
				}
			})
		}
		add(1)
		few := count(1, "2025-05-05")
		add(19)
		many := count(20, "2025-05-06")
		if few != many {
			t.Fatalf("statements: %d for 1 medicine and treated animal, %d for 20", few, many)
		}
		t.Logf("medicines + withdrawals: %d statements", many)

		// Paging on: the second page starts after the first's end cursor.
		out := app.GraphQL(owner.Token, `query($f: ID!) { node(id: $f) { ... on Farm { medicines(first: 15) { pageInfo { hasNextPage endCursor } } } } }`, v)
		v["after"] = dig(t, out, "data.node.medicines.pageInfo.endCursor")
		out = app.GraphQL(owner.Token, `query($f: ID!, $after: String) { node(id: $f) { ... on Farm { medicines(first: 15, after: $after) { edges { node { name } } pageInfo { hasNextPage hasPreviousPage } } } } }`, v)
		wantNoErrors(t, out)
		if n := len(dig(t, out, "data.node.medicines.edges").([]any)); n != 5 || dig(t, out, "data.node.medicines.pageInfo.hasNextPage") != false ||
			dig(t, out, "data.node.medicines.pageInfo.hasPreviousPage") != true {
			t.Fatalf("second page %v", out)
		}
	})
}

// farmZone sets the farm's time zone to UTC: bare treatment dates are the farm's local days.
func farmZone(t *testing.T, app *herdbooktest.App, owner herdbooktest.User, farmID uuid.UUID) {
	t.Helper()
	zone := "UTC"
	if _, err := app.Service.UpdateFarmSettings(app.Ctx(owner), farmID, herdbook.FarmSettingsPatch{TimeZone: herdbook.Optional[string]{Set: true, Value: &zone}}); err != nil {
		t.Fatal(err)
	}
}
