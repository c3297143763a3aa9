package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

// purchase is a valid acquisition record body for medicine m (GB VMR 2013 reg. 17: product,
// batch, date, quantity, supplier; EU 2019/6 Art. 108(2): supplier's address, proof).
func purchase(m string, set map[string]any) map[string]any {
	b := map[string]any{"medicine_id": m, "batch": "B-17", "expiry_date": "2027-06-30", "quantity": 100, "quantity_unit": "ml",
		"supplier_name": "Hill Vets Ltd", "supplier_address": "1 High Street, Hexham NE46 1AA", "purchased_on": "2025-02-20",
		"document_reference": "INV-2291"}
	for k, v := range set {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

func TestMedicinePurchases(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner, reader, stranger := app.MustUser(), app.MustUser(), app.MustUser()
		noScope := app.MustUser(herdbook.ScopeReadFarms)
		f := app.MustFarm(owner, "Home Farm")
		app.MustMember(f.ID, reader, herdbook.RoleReader)
		app.MustMember(f.ID, noScope, herdbook.RoleOwner)
		other := app.MustFarm(stranger, "Other Farm")
		base := "/v1/farm/" + f.ID.String() + "/medicine-purchases"
		med := mustCreate(t, app, "/v1/farm/"+f.ID.String()+"/medicines", owner.Token,
			map[string]any{"name": "Oxytetracycline LA", "withdrawal_meat_days": 28, "withdrawal_milk_hours": 168})["id"].(string)
		otherMed := mustCreate(t, app, "/v1/farm/"+other.ID.String()+"/medicines", stranger.Token,
			map[string]any{"name": "Theirs", "withdrawal_meat_days": 1, "withdrawal_milk_hours": 1})["id"].(string)
		var otherFile, ownFile uuid.UUID
		herdbooktest.InTx(t, app.DB.Client, func(ctx context.Context, c *ent.Client) error {
			for farm, id := range map[uuid.UUID]*uuid.UUID{other.ID: &otherFile, f.ID: &ownFile} {
				fl, err := c.File.Create().SetFarmID(farm).SetName("invoice.pdf").SetMimeType("application/pdf").SetSize(10).
					SetStorageKey(uuid.NewString()).Save(ctx)
				if err != nil {
					return err
				}
				*id = fl.ID
			}
			return nil
		})

		t.Run("Auth", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", base, "", nil), http.StatusUnauthorized, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, app.Do("POST", base, "", purchase(med, nil)), http.StatusUnauthorized, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", base, noScope.Token, nil), http.StatusForbidden, "ForbiddenError", "read:records")
			herdbooktest.WantEnvelope(t, app.Do("GET", base, stranger.Token, nil), http.StatusNotFound, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("POST", base, reader.Token, purchase(med, nil)), http.StatusUnauthorized, "Unauthorized", "EDITOR")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+f.ID.String()+"/medicine-stock", "", nil), http.StatusUnauthorized, "Unauthorized", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+f.ID.String()+"/medicine-stock", stranger.Token, nil), http.StatusNotFound, "ServiceError", "")
		})
		t.Run("ErrInput", func(t *testing.T) {
			for _, c := range []struct {
				name  string
				body  any
				field string
			}{
				{"Malformed", `{"medicine_id":`, ""},
				{"UnknownField", purchase(med, map[string]any{"price": 3}), "price"},
				{"MedicineMissing", purchase(med, map[string]any{"medicine_id": nil}), "medicine_id"},
				{"MedicineNotUUID", purchase(med, map[string]any{"medicine_id": "penicillin"}), "medicine_id"},
				{"MedicineUnknown", purchase(uuid.NewString(), nil), "medicine_id"},
				{"MedicineOfOtherFarm", purchase(otherMed, nil), "medicine_id"},
				{"BatchMissing", purchase(med, map[string]any{"batch": nil}), "batch"},
				{"BatchBlank", purchase(med, map[string]any{"batch": " "}), "batch"},
				{"BatchWrongType", purchase(med, map[string]any{"batch": 17}), "batch"},
				{"QuantityWrongType", purchase(med, map[string]any{"quantity": "100ml"}), "quantity"},
				{"QuantityZero", purchase(med, map[string]any{"quantity": 0}), "quantity"},
				{"QuantityTooLarge", purchase(med, map[string]any{"quantity": 1e12}), "quantity"},
				{"UnitMissing", purchase(med, map[string]any{"quantity_unit": nil}), "quantity_unit"},
				{"SupplierMissing", purchase(med, map[string]any{"supplier_name": nil}), "supplier_name"},
				{"AddressMissing", purchase(med, map[string]any{"supplier_address": nil}), "supplier_address"},
				{"DateMissing", purchase(med, map[string]any{"purchased_on": nil}), "purchased_on"},
				{"DateNotADate", purchase(med, map[string]any{"purchased_on": "2025-02-30"}), "purchased_on"},
				{"DateInFuture", purchase(med, map[string]any{"purchased_on": "2999-01-01"}), "purchased_on"},
				{"ExpiryNotADate", purchase(med, map[string]any{"expiry_date": "06/2027"}), "expiry_date"},
				{"NoProof", purchase(med, map[string]any{"document_reference": nil}), "document_reference"},
				{"FileNotUUID", purchase(med, map[string]any{"file_id": "x"}), "file_id"},
				{"FileUnknown", purchase(med, map[string]any{"file_id": uuid.NewString()}), "file_id"},
				{"FileOfOtherFarm", purchase(med, map[string]any{"file_id": otherFile.String()}), "file_id"},
			} {
				t.Run(c.name, func(t *testing.T) {
					herdbooktest.WantEnvelope(t, app.Do("POST", base, owner.Token, c.body), http.StatusBadRequest, "ValidationError", c.field)
				})
			}
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/not-a-uuid", owner.Token, nil), http.StatusBadRequest, "ValidationError", "purchase_id")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"/"+uuid.NewString(), owner.Token, nil), http.StatusNotFound, "ServiceError", "")
			herdbooktest.WantEnvelope(t, app.Do("GET", base+"?take=-1", owner.Token, nil), http.StatusBadRequest, "ValidationError", "take")
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+f.ID.String()+"/medicine-stock?as_of=2025-02-30", owner.Token, nil),
				http.StatusBadRequest, "ValidationError", "as_of")
		})

		var id string
		t.Run("CreateAndRead", func(t *testing.T) {
			p := mustCreate(t, app, base, owner.Token, purchase(med, nil))
			id = p["id"].(string)
			if p["medicine_name"] != "Oxytetracycline LA" || p["quantity"] != float64(100) || p["supplier_address"] != "1 High Street, Hexham NE46 1AA" ||
				p["recorded_by"] != owner.ID.String() || p["file_id"] != nil {
				t.Fatalf("created %v", p)
			}
			// A file of the farm is proof enough without a reference.
			byFile := mustCreate(t, app, base, owner.Token, purchase(med, map[string]any{"document_reference": nil, "file_id": ownFile.String(),
				"batch": "C-2", "purchased_on": "2025-01-10", "expiry_date": nil}))
			if byFile["file_id"] != ownFile.String() || byFile["document_reference"] != nil || byFile["expiry_date"] != nil {
				t.Fatalf("by file %v", byFile)
			}
			got := app.Do("GET", base+"/"+id, reader.Token, nil).JSON(t)
			if got["id"] != id || got["batch"] != "B-17" {
				t.Fatalf("get %v", got)
			}
			list := app.Do("GET", base, reader.Token, nil).JSON(t)
			recs := list["records"].([]any)
			if list["total"] != float64(2) || recs[0].(map[string]any)["batch"] != "C-2" {
				t.Fatalf("list, oldest purchase first: %v", list)
			}
			// Another farm's purchase is not found through it.
			herdbooktest.WantEnvelope(t, app.Do("GET", "/v1/farm/"+other.ID.String()+"/medicine-purchases/"+id, stranger.Token, nil), http.StatusNotFound, "ServiceError", "")
			if res := app.Do("GET", "/api/v1/farm/"+f.ID.String()+"/medicine-purchases/"+id, owner.Token, nil); res.Status != http.StatusOK {
				t.Fatalf("/api/v1: %d", res.Status)
			}
		})
		t.Run("DateBoundByFarmZone", func(t *testing.T) {
			// Until the farm sets its zone, tomorrow in UTC is the latest day (a farm ahead of
			// UTC may live in it); once set, the farm's own today is. Pago Pago is UTC-11: its
			// today is never after UTC's today.
			tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
			mustCreate(t, app, base, owner.Token, purchase(med, map[string]any{"batch": "T-1", "purchased_on": tomorrow}))
			if res := app.Do("PUT", "/v1/farm/"+f.ID.String()+"/settings", owner.Token, map[string]any{"time_zone": "Pacific/Pago_Pago"}); res.Status != http.StatusOK {
				t.Fatalf("settings: %d %s", res.Status, res.Body)
			}
			herdbooktest.WantEnvelope(t, app.Do("POST", base, owner.Token, purchase(med, map[string]any{"batch": "T-2", "purchased_on": tomorrow})),
				http.StatusBadRequest, "ValidationError", "purchased_on")
		})
		t.Run("ListStatementsDoNotGrow", func(t *testing.T) {
			count := func() int64 {
				return app.Queries(func() {
					if res := app.Do("GET", base+"?take=50", reader.Token, nil); res.Status != http.StatusOK {
						t.Fatalf("list: %d", res.Status)
					}
				})
			}
			few := count()
			for i := range 10 {
				mustCreate(t, app, base, owner.Token, purchase(med, map[string]any{"batch": fmt.Sprint("L", i), "purchased_on": "2024-12-01"}))
			}
			if many := count(); many != few {
				t.Fatalf("statements: %d with few purchases, %d with more", few, many)
			}
		})
	})
}

// TestMedicineStock: purchases less the quantities treatments gave from each batch; a
// negative balance is allowed and flagged; the statement count does not grow with the farm.
func TestMedicineStock(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		f := app.MustFarm(owner, "Stock Farm")
		putSettings(t, app, f.ID, owner.Token, map[string]any{"time_zone": "UTC"}) // bare dates are the farm's local days
		base := "/v1/farm/" + f.ID.String()
		med := mustCreate(t, app, base+"/medicines", owner.Token,
			map[string]any{"name": "Penicillin", "withdrawal_meat_days": 10, "withdrawal_milk_hours": 72})["id"].(string)
		cow, calf := app.MustAnimal(owner, f.ID, "C1"), app.MustAnimal(owner, f.ID, "K1")
		herd := app.MustGroup(owner, f.ID, "Calves")
		mustCreate(t, app, base+"/medicine-purchases", owner.Token, purchase(med, map[string]any{"batch": "B-17", "quantity": 100, "purchased_on": "2025-02-01"}))
		mustCreate(t, app, base+"/medicine-purchases", owner.Token, purchase(med, map[string]any{"batch": "b-17 ", "quantity": 50, "purchased_on": "2025-03-15", "expiry_date": "2027-12-31"}))
		mustCreate(t, app, base+"/medicine-purchases", owner.Token, purchase(med, map[string]any{"batch": "X-1", "quantity": 10, "purchased_on": "2025-02-01"}))
		treat := func(extra map[string]any) {
			t.Helper()
			body := map[string]any{"kind": "treatment", "medicine_id": med, "date": "2025-03-01"}
			for k, v := range extra {
				body[k] = v
			}
			if res := fact(app, f.ID, owner.Token, []string{cow.ID.String()}, body, false); res.Status != http.StatusCreated {
				t.Fatalf("treatment: %d %s", res.Status, res.Body)
			}
		}
		for _, m := range []string{cow.ID.String(), calf.ID.String()} {
			if res := fact(app, f.ID, owner.Token, []string{m}, map[string]any{"kind": "membership", "animal_id": m,
				"group_id": herd.ID.String(), "start_date": "2025-01-01"}, false); res.Status != http.StatusCreated {
				t.Fatalf("membership: %d %s", res.Status, res.Body)
			}
		}
		// B-17: 30 ml in all, then 2 × 12 ml to the group's two members, then 20 ml to the cow = 74 ml.
		treat(map[string]any{"animal_id": cow.ID.String(), "batch": "B-17", "quantity_total": 30, "quantity_unit": "ml"})
		treat(map[string]any{"group_id": herd.ID.String(), "batch": "B-17", "quantity_per_animal": 12, "quantity_unit": "ML"})
		treat(map[string]any{"animal_id": cow.ID.String(), "batch": "B-17", "quantity_per_animal": 20, "quantity_unit": "ml", "date": "2025-03-10"})
		// 15 ml given from 10 bought: negative, flagged.
		treat(map[string]any{"animal_id": cow.ID.String(), "batch": "X-1", "quantity_total": 15, "quantity_unit": "ml"})
		// No quantity: counted, draws nothing.
		treat(map[string]any{"animal_id": cow.ID.String(), "batch": "X-1"})

		line := func(body map[string]any, batch string) map[string]any {
			for _, r := range body["records"].([]any) {
				if l := r.(map[string]any); l["batch"] == batch && l["unit"] == "ml" {
					return l
				}
			}
			t.Fatalf("no line for %s: %v", batch, body)
			return nil
		}
		t.Run("Balances", func(t *testing.T) {
			body := app.Do("GET", base+"/medicine-stock?as_of=2025-03-31", owner.Token, nil).JSON(t)
			b17 := line(body, "B-17")
			if b17["purchased"] != float64(150) || b17["administered"] != float64(74) || b17["balance"] != float64(76) ||
				b17["negative"] != false || b17["expiry_date"] != "2027-12-31" || b17["purchases"] != float64(2) || b17["treatments"] != float64(3) {
				t.Fatalf("B-17: %v", b17)
			}
			x1 := line(body, "X-1")
			if x1["balance"] != float64(-5) || x1["negative"] != true || x1["unquantified_treatments"] != float64(0) || len(x1["warnings"].([]any)) == 0 {
				t.Fatalf("X-1: %v", x1)
			}
			// As of a date: the second purchase and the later treatment are not history yet.
			body = app.Do("GET", base+"/medicine-stock?as_of=2025-03-05", owner.Token, nil).JSON(t)
			if b := line(body, "B-17"); b["purchased"] != float64(100) || b["administered"] != float64(54) || b["balance"] != float64(46) {
				t.Fatalf("B-17 on 2025-03-05: %v", b)
			}
		})
		t.Run("StatementsDoNotGrow", func(t *testing.T) {
			count := func() int64 {
				return app.Queries(func() {
					if res := app.Do("GET", base+"/medicine-stock?as_of=2025-12-31", owner.Token, nil); res.Status != http.StatusOK {
						t.Fatalf("stock: %d %s", res.Status, res.Body)
					}
				})
			}
			few := count()
			for i := range 5 {
				mustCreate(t, app, base+"/medicine-purchases", owner.Token, purchase(med, map[string]any{"batch": fmt.Sprint("S", i)}))
				g := app.MustGroup(owner, f.ID, fmt.Sprint("G", i))
				a := app.MustAnimal(owner, f.ID, fmt.Sprint("S", i))
				if res := fact(app, f.ID, owner.Token, []string{a.ID.String()}, map[string]any{"kind": "membership", "animal_id": a.ID.String(),
					"group_id": g.ID.String(), "start_date": "2025-01-01"}, false); res.Status != http.StatusCreated {
					t.Fatalf("membership: %d %s", res.Status, res.Body)
				}
				treat(map[string]any{"group_id": g.ID.String(), "batch": fmt.Sprint("S", i), "quantity_per_animal": 1, "quantity_unit": "ml"})
			}
			if many := count(); many != few {
				t.Fatalf("statements: %d, then %d with more purchases and treatments", few, many)
			}
			t.Logf("medicine stock: %d statements", few)
		})
	})
}
