package rest

import (
	"log/slog"
	"net/http"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// medicineJSON is a medicine of the farm's list, at its current version.
type medicineJSON struct {
	ID                  string                       `json:"id"`
	FarmID              string                       `json:"farm_id"`
	CreatedAt           time.Time                    `json:"created_at"`
	UpdatedAt           time.Time                    `json:"updated_at"`
	IsActive            bool                         `json:"is_active"`
	Name                string                       `json:"name"`
	ActiveSubstance     *string                      `json:"active_substance"`
	Version             int                          `json:"version"`
	WithdrawalMeatDays  *int                         `json:"withdrawal_meat_days"`
	WithdrawalMilkHours *int                         `json:"withdrawal_milk_hours"`
	SpeciesWithdrawals  []herdbook.SpeciesWithdrawal `json:"species_withdrawals"`
	DryCow              bool                         `json:"dry_cow"`
}

func newMedicineJSON(m *ent.Medicine) medicineJSON {
	sw := m.SpeciesWithdrawals
	if sw == nil {
		sw = []herdbook.SpeciesWithdrawal{}
	}
	return medicineJSON{ID: m.ID.String(), FarmID: m.FarmID.String(), CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
		IsActive: m.IsActive, Name: m.Name, ActiveSubstance: m.ActiveSubstance, Version: m.Version,
		WithdrawalMeatDays: m.WithdrawalMeatDays, WithdrawalMilkHours: m.WithdrawalMilkHours, SpeciesWithdrawals: sw,
		DryCow: m.DryCow}
}

type medicineBody struct {
	Name                nullable[string]                       `json:"name"`
	ActiveSubstance     nullable[string]                       `json:"active_substance"`
	WithdrawalMeatDays  nullable[int]                          `json:"withdrawal_meat_days"`
	WithdrawalMilkHours nullable[int]                          `json:"withdrawal_milk_hours"`
	SpeciesWithdrawals  nullable[[]herdbook.SpeciesWithdrawal] `json:"species_withdrawals"`
	DryCow              nullable[bool]                         `json:"dry_cow"`
}

func (h *Handler) listMedicines(w http.ResponseWriter, r *http.Request) {
	farmList(h, h.svc.Medicines, newMedicineJSON)(w, r)
}

func (h *Handler) createMedicine(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b medicineBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	in := herdbook.MedicineInput{
		ActiveSubstance:     b.ActiveSubstance.ptr(),
		WithdrawalMeatDays:  b.WithdrawalMeatDays.optional(),
		WithdrawalMilkHours: b.WithdrawalMilkHours.optional(),
	}
	if d := notNull(&fe, "dry_cow", b.DryCow); d != nil {
		in.DryCow = *d
	}
	if n := notNull(&fe, "name", b.Name); n != nil {
		in.Name = *n
	}
	if sw := notNull(&fe, "species_withdrawals", b.SpeciesWithdrawals); sw != nil {
		in.SpeciesWithdrawals = *sw
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	m, err := h.svc.CreateMedicine(r.Context(), farmID, in)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, newMedicineJSON(m))
}

func (h *Handler) getMedicine(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "medicine_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	m, err := h.svc.Medicine(r.Context(), farmID, id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newMedicineJSON(m))
}

func (h *Handler) updateMedicine(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "medicine_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b medicineBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	p := herdbook.MedicinePatch{
		Name:                notNull(&fe, "name", b.Name),
		ActiveSubstance:     b.ActiveSubstance.optional(),
		WithdrawalMeatDays:  b.WithdrawalMeatDays.optional(),
		WithdrawalMilkHours: b.WithdrawalMilkHours.optional(),
		SpeciesWithdrawals:  notNull(&fe, "species_withdrawals", b.SpeciesWithdrawals),
		DryCow:              notNull(&fe, "dry_cow", b.DryCow),
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	m, err := h.svc.UpdateMedicine(r.Context(), farmID, id, p)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newMedicineJSON(m))
}

func (h *Handler) deleteMedicine(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "medicine_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if err := h.svc.DeleteMedicine(r.Context(), farmID, id); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type withdrawalTreatmentJSON struct {
	RecordID            string     `json:"record_id"`
	RecordItemID        string     `json:"record_item_id"`
	MedicineID          string     `json:"medicine_id"`
	MedicineName        string     `json:"medicine_name"`
	MedicineVersion     int        `json:"medicine_version"`
	GroupID             *string    `json:"group_id"`
	Date                string     `json:"date"`
	WithdrawalMeatDays  int        `json:"withdrawal_meat_days"`
	WithdrawalMilkHours int        `json:"withdrawal_milk_hours"`
	MeatRule            string     `json:"meat_rule"`
	MilkRule            string     `json:"milk_rule"`
	OffLabel            bool       `json:"off_label"`
	MeatClearOn         string     `json:"meat_clear_on"`
	MilkClearAt         *time.Time `json:"milk_clear_at"`
	MilkUntilCalving    bool       `json:"milk_until_calving"`
}

type animalWithdrawalJSON struct {
	AnimalID         string                    `json:"animal_id"`
	Tag              string                    `json:"tag"`
	MeatClearOn      string                    `json:"meat_clear_on"`
	MilkClearAt      *time.Time                `json:"milk_clear_at"`
	MilkUntilCalving bool                      `json:"milk_until_calving"`
	Treatments       []withdrawalTreatmentJSON `json:"treatments"`
}

func newAnimalWithdrawalJSON(a herdbook.AnimalWithdrawal) animalWithdrawalJSON {
	out := animalWithdrawalJSON{AnimalID: a.AnimalID.String(), Tag: a.AnimalTag, MeatClearOn: a.MeatClearOn,
		MilkClearAt: a.MilkClearAt, MilkUntilCalving: a.MilkUntilCalving, Treatments: make([]withdrawalTreatmentJSON, len(a.Treatments))}
	for i, t := range a.Treatments {
		var g *string
		if t.GroupID != nil {
			s := t.GroupID.String()
			g = &s
		}
		out.Treatments[i] = withdrawalTreatmentJSON{RecordID: t.RecordID.String(), RecordItemID: t.RecordItemID.String(),
			MedicineID: t.MedicineID.String(), MedicineName: t.MedicineName, MedicineVersion: t.MedicineVersion, GroupID: g,
			Date: t.Date, WithdrawalMeatDays: t.WithdrawalMeatDays, WithdrawalMilkHours: t.WithdrawalMilkHours,
			MeatRule: t.MeatRule, MilkRule: t.MilkRule, OffLabel: t.OffLabel,
			MeatClearOn: t.MeatClearOn, MilkClearAt: t.MilkClearAt, MilkUntilCalving: t.MilkUntilCalving}
	}
	return out
}

func (h *Handler) listWithdrawals(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := page(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	list, total, err := h.svc.Withdrawals(r.Context(), farmID, r.URL.Query().Get("as_of"), p)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]animalWithdrawalJSON, len(list))
	for i, a := range list {
		out[i] = newAnimalWithdrawalJSON(a)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": out})
}

// medicineBookCSV streams the book: rows go out as the service produces them, chunk by
// chunk, so a farm's five years of treatments never sit in memory. Errors before the first
// row answer with the envelope; a failure after it cuts the stream short (the client sees a
// truncated body, never a clean end).
func (h *Handler) medicineBookCSV(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	q := r.URL.Query()
	section := herdbook.BookAdministration
	if q.Has("section") {
		section = q.Get("section")
	}
	var cw *herdbook.CSVWriter
	rows := 0
	write := func(row []string) error {
		if cw == nil {
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			name := "medicine-book.csv"
			if section == herdbook.BookAcquisitions {
				name = "medicine-acquisitions.csv"
			}
			w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
			w.WriteHeader(http.StatusOK)
			cw = herdbook.NewCSVWriter(w)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
		if rows++; rows%200 == 0 {
			cw.Flush()
			http.NewResponseController(w).Flush()
		}
		return cw.Error()
	}
	err = h.svc.InspectorBook(r.Context(), farmID, q.Get("from"), q.Get("to"), []string{section},
		herdbook.BookWriter{Section: func(_ string, header []string) error { return write(header) }, Row: write})
	if cw == nil {
		httpapi.WriteError(w, r, err)
		return
	}
	cw.Flush()
	if err != nil {
		slog.ErrorContext(r.Context(), "medicine book stream failed", "err", err)
		panic(http.ErrAbortHandler)
	}
}
