package rest

import (
	"net/http"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// outsideAnimalJSON is an animal that never stands on the farm: an AI sire, an ET donor
// (docs/birth-history.md#outside-sires-and-donors).
type outsideAnimalJSON struct {
	ID                 string    `json:"id"`
	FarmID             string    `json:"farm_id"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
	Name               string    `json:"name"`
	Sex                string    `json:"sex"`
	Breed              *string   `json:"breed"`
	Registry           *string   `json:"registry"`
	RegistrationNumber *string   `json:"registration_number"`
	Batch              *string   `json:"batch"`
	BirthDate          *string   `json:"birth_date"`
}

func newOutsideAnimalJSON(a *ent.OutsideAnimal) outsideAnimalJSON {
	return outsideAnimalJSON{ID: a.ID.String(), FarmID: a.FarmID.String(), CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(),
		Name: a.Name, Sex: a.Sex, Breed: a.Breed, Registry: a.Registry, RegistrationNumber: a.RegistrationNumber,
		Batch: a.Batch, BirthDate: a.BirthDate}
}

type outsideAnimalBody struct {
	Name               *string `json:"name"`
	Sex                *string `json:"sex"`
	Breed              *string `json:"breed"`
	Registry           *string `json:"registry"`
	RegistrationNumber *string `json:"registration_number"`
	Batch              *string `json:"batch"`
	BirthDate          *string `json:"birth_date"`
}

func (b outsideAnimalBody) input() herdbook.OutsideAnimalInput {
	return herdbook.OutsideAnimalInput{Name: b.Name, Sex: b.Sex, Breed: b.Breed, Registry: b.Registry,
		RegistrationNumber: b.RegistrationNumber, Batch: b.Batch, BirthDate: b.BirthDate}
}

func (h *Handler) listOutsideAnimals(w http.ResponseWriter, r *http.Request) {
	farmList(h, h.svc.OutsideAnimals, newOutsideAnimalJSON)(w, r)
}

func (h *Handler) createOutsideAnimal(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b outsideAnimalBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	a, err := h.svc.CreateOutsideAnimal(r.Context(), farmID, b.input())
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, newOutsideAnimalJSON(a))
}

func (h *Handler) getOutsideAnimal(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "outside_animal_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	a, err := h.svc.OutsideAnimalByID(r.Context(), farmID, id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newOutsideAnimalJSON(a))
}

func (h *Handler) updateOutsideAnimal(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "outside_animal_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b outsideAnimalBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	a, err := h.svc.UpdateOutsideAnimal(r.Context(), farmID, id, b.input())
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newOutsideAnimalJSON(a))
}

func (h *Handler) deleteOutsideAnimal(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "outside_animal_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if err := h.svc.DeleteOutsideAnimal(r.Context(), farmID, id); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
