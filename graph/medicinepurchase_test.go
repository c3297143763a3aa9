package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// TestMedicinePurchaseGraph records a purchase with medicinePurchaseCreate, pages
// Farm.medicinePurchases and reads Farm.medicineStock after a treatment drew on the batch.
func TestMedicinePurchaseGraph(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader := app.MustUser(), app.MustUser()
		f := app.MustFarm(owner, "Purchase Farm")
		farmZone(t, app, owner, f.ID)
		app.MustMember(f.ID, reader, "READER")
		cow := app.MustAnimal(owner, f.ID, "C-1")
		v := map[string]any{"f": f.ID.String(), "cow": cow.ID.String()}
		out := app.GraphQL(owner.Token, `mutation($f: ID!) { medicineCreate(input: {farmID: $f, name: "Penicillin", withdrawalMeatDays: 10,
			withdrawalMilkHours: 72}) { medicine { id } } }`, v)
		wantNoErrors(t, out)
		v["m"] = dig(t, out, "data.medicineCreate.medicine.id")
		create := `mutation($f: ID!, $m: ID!) { medicinePurchaseCreate(input: {farmID: $f, medicineID: $m, batch: "B-1", expiryDate: "2027-01-31",
			quantity: 100, quantityUnit: "ml", supplierName: "Hill Vets", supplierAddress: "1 High St, Hexham", purchasedOn: "2025-02-01",
			documentReference: "INV-1"}) { medicinePurchase { id medicineName batch expiryDate quantity quantityUnit purchasedOn recordedBy } } }`
		out = app.GraphQL(reader.Token, create, v)
		if out["data"] != nil || !strings.Contains(fmt.Sprint(out), "EDITOR") {
			t.Fatalf("a reader records a purchase: %v", out)
		}
		out = app.GraphQL(owner.Token, strings.Replace(create, `documentReference: "INV-1"`, ``, 1), v)
		if errorCode(out) != "BAD_USER_INPUT" || !strings.Contains(fmt.Sprint(out), "document_reference") {
			t.Fatalf("a purchase without proof: %v", out)
		}
		out = app.GraphQL(owner.Token, create, v)
		wantNoErrors(t, out)
		if dig(t, out, "data.medicinePurchaseCreate.medicinePurchase.medicineName") != "Penicillin" ||
			dig(t, out, "data.medicinePurchaseCreate.medicinePurchase.expiryDate") != "2027-01-31" ||
			dig(t, out, "data.medicinePurchaseCreate.medicinePurchase.recordedBy") != owner.ID.String() {
			t.Fatalf("created %v", out)
		}
		out = app.GraphQL(owner.Token, `mutation($f: ID!, $m: ID!, $cow: ID!) { factCreate(input: {farmID: $f, fact: {treatment: {medicineID: $m, animalID: $cow,
			date: "2025-03-01", batch: "B-1", quantityTotal: 130, quantityUnit: "ml"}}}) { record { id } } }`, v)
		wantNoErrors(t, out)
		out = app.GraphQL(reader.Token, `query($f: ID!) { node(id: $f) { ... on Farm {
			medicinePurchases(first: 10) { totalCount edges { cursor node { batch supplierName supplierAddress documentReference } } pageInfo { hasNextPage } }
			medicineStock(asOf: "2025-03-31") { asOf lines { medicineName batch unit purchased administered balance negative warnings } } } } }`, v)
		wantNoErrors(t, out)
		if dig(t, out, "data.node.medicinePurchases.totalCount") != float64(1) || dig(t, out, "data.node.medicinePurchases.edges.0.node.supplierAddress") != "1 High St, Hexham" {
			t.Fatalf("purchases: %v", out)
		}
		if dig(t, out, "data.node.medicineStock.lines.0.balance") != float64(-30) || dig(t, out, "data.node.medicineStock.lines.0.negative") != true ||
			dig(t, out, "data.node.medicineStock.asOf") != "2025-03-31" {
			t.Fatalf("stock: %v", out)
		}
	})
}
