package rest

import (
	"net/http"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// medicinePurchaseJSON is an acquisition record (docs/medicines.md#purchases).
type medicinePurchaseJSON struct {
	ID                string    `json:"id"`
	FarmID            string    `json:"farm_id"`
	CreatedAt         time.Time `json:"created_at"`
	MedicineID        string    `json:"medicine_id"`
	MedicineName      string    `json:"medicine_name"`
	Batch             string    `json:"batch"`
	ExpiryDate        *string   `json:"expiry_date"`
	Quantity          float64   `json:"quantity"`
	QuantityUnit      string    `json:"quantity_unit"`
	SupplierName      string    `json:"supplier_name"`
	SupplierAddress   string    `json:"supplier_address"`
	PurchasedOn       string    `json:"purchased_on"`
	DocumentReference *string   `json:"document_reference"`
	FileID            *string   `json:"file_id"`
	RecordedBy        *string   `json:"recorded_by"`
}

func idString(id *uuid.UUID) *string {
	if id == nil {
		return nil
	}
	s := id.String()
	return &s
}

func newMedicinePurchaseJSON(p *herdbook.MedicinePurchase) medicinePurchaseJSON {
	return medicinePurchaseJSON{ID: p.ID.String(), FarmID: p.FarmID.String(), CreatedAt: p.CreatedAt.UTC(),
		MedicineID: p.MedicineID.String(), MedicineName: p.MedicineName, Batch: p.Batch, ExpiryDate: p.ExpiryDate,
		Quantity: p.Quantity, QuantityUnit: p.QuantityUnit, SupplierName: p.SupplierName, SupplierAddress: p.SupplierAddress,
		PurchasedOn: p.PurchasedOn, DocumentReference: p.DocumentReference, FileID: idString(p.FileID), RecordedBy: idString(p.CreatedBy)}
}

type medicinePurchaseBody struct {
	MedicineID        *string  `json:"medicine_id"`
	Batch             *string  `json:"batch"`
	ExpiryDate        *string  `json:"expiry_date"`
	Quantity          *float64 `json:"quantity"`
	QuantityUnit      *string  `json:"quantity_unit"`
	SupplierName      *string  `json:"supplier_name"`
	SupplierAddress   *string  `json:"supplier_address" text:"prose"`
	PurchasedOn       *string  `json:"purchased_on"`
	DocumentReference *string  `json:"document_reference"`
	FileID            *string  `json:"file_id"`
}

func (h *Handler) listMedicinePurchases(w http.ResponseWriter, r *http.Request) {
	farmList(h, h.svc.MedicinePurchases, newMedicinePurchaseJSON)(w, r)
}

// bodyID parses an optional uuid field of a body.
func (f *fieldList) bodyID(field string, raw *string) *uuid.UUID {
	if raw == nil {
		return nil
	}
	id, err := uuid.Parse(*raw)
	if err != nil || len(*raw) != 36 {
		f.add(field, "must be a UUID")
		return nil
	}
	return &id
}

func (h *Handler) createMedicinePurchase(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b medicinePurchaseBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	in := herdbook.MedicinePurchaseInput{MedicineID: fe.bodyID("medicine_id", b.MedicineID), Batch: b.Batch,
		ExpiryDate: b.ExpiryDate, Quantity: b.Quantity, QuantityUnit: b.QuantityUnit, SupplierName: b.SupplierName,
		SupplierAddress: b.SupplierAddress, PurchasedOn: b.PurchasedOn, DocumentReference: b.DocumentReference,
		FileID: fe.bodyID("file_id", b.FileID)}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := h.svc.CreateMedicinePurchase(r.Context(), farmID, in)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, newMedicinePurchaseJSON(p))
}

func (h *Handler) getMedicinePurchase(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "purchase_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := h.svc.MedicinePurchaseByID(r.Context(), farmID, id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newMedicinePurchaseJSON(p))
}

// medicineStockLineJSON is one product's batch in the stock balance.
type medicineStockLineJSON struct {
	MedicineID             string   `json:"medicine_id"`
	MedicineName           string   `json:"medicine_name"`
	Batch                  *string  `json:"batch"`
	Unit                   *string  `json:"unit"`
	Purchased              float64  `json:"purchased"`
	Administered           float64  `json:"administered"`
	Balance                float64  `json:"balance"`
	Negative               bool     `json:"negative"`
	ExpiryDate             *string  `json:"expiry_date"`
	Purchases              int      `json:"purchases"`
	Treatments             int      `json:"treatments"`
	UnquantifiedTreatments int      `json:"unquantified_treatments"`
	Warnings               []string `json:"warnings"`
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (h *Handler) medicineStock(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	st, err := h.svc.MedicineStock(r.Context(), farmID, r.URL.Query().Get("as_of"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]medicineStockLineJSON, len(st.Lines))
	for i, l := range st.Lines {
		out[i] = medicineStockLineJSON{MedicineID: l.MedicineID.String(), MedicineName: l.MedicineName, Batch: orNull(l.Batch),
			Unit: orNull(l.Unit), Purchased: l.Purchased, Administered: l.Administered, Balance: l.Balance, Negative: l.Negative,
			ExpiryDate: l.ExpiryDate, Purchases: l.Purchases, Treatments: l.Treatments, UnquantifiedTreatments: l.Unquantified,
			Warnings: l.Warnings}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"as_of": st.AsOf, "total": len(out), "records": out})
}
