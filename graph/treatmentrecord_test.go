package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestTreatmentRecordGraph: factCreate's treatment takes the keeper's record of EU 2019/6
// Art. 108(2) (quantity, prescribing vet, course, reason), and the withdrawal runs from the
// last administration.
func TestTreatmentRecordGraph(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Course Farm")
		farmZone(t, app, owner, f.ID)
		cow := app.MustAnimal(owner, f.ID, "C-1")
		v := map[string]any{"f": f.ID.String(), "cow": cow.ID.String()}
		out := app.GraphQL(owner.Token, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Penicillin", withdrawalMeatDays: 10,
			withdrawalMilkHours: 72}) { medicine { id } } }`, v)
		wantNoErrors(t, out)
		v["m"] = dig(t, out, "data.medicineCreate.medicine.id")
		out = app.GraphQL(owner.Token, `mutation($f: ID!, $m: ID!, $cow: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $cow,
			date: "2025-03-03", lastAdministration: "2025-03-01"}}}) { record { id } } }`, v)
		if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), "last_administration") {
			t.Fatalf("a course that ends before it starts: %v", out)
		}
		out = app.GraphQL(owner.Token, `mutation($f: ID!, $m: ID!, $cow: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $cow,
			date: "2025-03-01", quantityTotal: 30}}}) { record { id } } }`, v)
		if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), "quantity_unit") {
			t.Fatalf("a quantity without a unit: %v", out)
		}
		out = app.GraphQL(owner.Token, `mutation($f: ID!, $m: ID!, $cow: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $cow,
			date: "2025-03-01", lastAdministration: "2025-03-05", quantityPerAnimal: 10, quantityTotal: 50, quantityUnit: "ml",
			prescribingVet: "A. Vet", prescribingPractice: "Hill Vets, Hexham", reason: "lameness", batch: "B-9"}}}) { record { id items { metadata } } } }`, v)
		wantNoErrors(t, out)
		md := fmt.Sprint(dig(t, out, "data.factCreate.record.items.0.metadata"))
		for _, want := range []string{"last_administration:2025-03-05", "quantity_total:50", "prescribing_vet:A. Vet", "reason:lameness"} {
			if !strings.Contains(md, want) {
				t.Errorf("metadata lacks %s: %s", want, md)
			}
		}
		// 2025-03-05 + 10 days = 2025-03-15; milk 72 h from the end of the bare last day in the
		// farm's zone (UTC), 2025-03-06T00:00Z.
		out = app.GraphQL(owner.Token, `query($f: ID!) { node(id: $f) { ... on Farm { withdrawals(asOf: "2025-03-10") { nodes { meatClearOn milkClearAt } } } } }`, v)
		wantNoErrors(t, out)
		if dig(t, out, "data.node.withdrawals.nodes.0.meatClearOn") != "2025-03-15" || dig(t, out, "data.node.withdrawals.nodes.0.milkClearAt") != "2025-03-09T00:00:00Z" {
			t.Fatalf("withdrawal of the course: %v", out)
		}
	})
}
