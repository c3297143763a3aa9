package rest

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// holdingJSON is a holding (docs/registry.md).
type holdingJSON struct {
	ID              string    `json:"id"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	Scheme          string    `json:"scheme"`
	Identifier      string    `json:"identifier"`
	ICARScheme      bool      `json:"icar_well_known_scheme"`
	Name            *string   `json:"name"`
	HerdMark        *string   `json:"herd_mark"`
	KeeperName      string    `json:"keeper_name"`
	KeeperReference *string   `json:"keeper_reference"`
	Address         *string   `json:"address"`
	Postcode        *string   `json:"postcode"`
	Country         string    `json:"country"`
	RuleSet         string    `json:"rule_set"`
	HerdType        string    `json:"herd_type"`
	TimeZone        string    `json:"time_zone"`
	FarmIDs         []string  `json:"farm_ids"`
}

func newHoldingJSON(h *herdbook.HoldingView) holdingJSON {
	ids := make([]string, len(h.FarmIDs))
	for i, id := range h.FarmIDs {
		ids[i] = id.String()
	}
	return holdingJSON{ID: h.ID.String(), CreatedAt: h.CreatedAt.UTC(), UpdatedAt: h.UpdatedAt.UTC(),
		Scheme: h.Scheme, Identifier: h.Identifier, ICARScheme: h.ICARScheme, Name: h.Name, HerdMark: h.HerdMark,
		KeeperName: h.KeeperName, KeeperReference: h.KeeperReference, Address: h.Address, Postcode: h.Postcode,
		Country: h.Country, RuleSet: h.RuleSet, HerdType: h.HerdType, TimeZone: h.TimeZone, FarmIDs: ids}
}

type holdingBody struct {
	Scheme          *string `json:"scheme"`
	Identifier      *string `json:"identifier"`
	Name            *string `json:"name"`
	HerdMark        *string `json:"herd_mark"`
	KeeperName      *string `json:"keeper_name"`
	KeeperReference *string `json:"keeper_reference"`
	Address         *string `json:"address"`
	Postcode        *string `json:"postcode"`
	RuleSet         *string `json:"rule_set"`
	HerdType        *string `json:"herd_type"`
	TimeZone        *string `json:"time_zone"`
	// HoldingID, on PUT …/farm/{farm_id}/holding, puts the farm on an existing holding
	// instead of creating one.
	HoldingID *string `json:"holding_id"`
}

func (b holdingBody) input() herdbook.HoldingInput {
	return herdbook.HoldingInput{Scheme: b.Scheme, Identifier: b.Identifier, Name: b.Name, HerdMark: b.HerdMark,
		KeeperName: b.KeeperName, KeeperReference: b.KeeperReference, Address: b.Address, Postcode: b.Postcode,
		RuleSet: b.RuleSet, HerdType: b.HerdType, TimeZone: b.TimeZone}
}

// holdingOf answers the holding that read finds by the path's id param: a farm's, or one
// named by its own id.
func (h *Handler) holdingOf(param string, read func(context.Context, uuid.UUID) (*herdbook.HoldingView, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := h.pathID(r, param)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		v, err := read(r.Context(), id)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, newHoldingJSON(v))
	}
}

// putFarmHolding creates the farm's holding from the body, or, with holding_id alone, puts
// the farm on that existing holding.
func (h *Handler) putFarmHolding(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b holdingBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if b.HoldingID != nil {
		id, err := uuid.Parse(*b.HoldingID)
		if err != nil || len(*b.HoldingID) != 36 {
			httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "holding_id", Message: "must be a UUID"}))
			return
		}
		if b != (holdingBody{HoldingID: b.HoldingID}) {
			httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "holding_id",
				Message: "puts the farm on an existing holding: send it alone, without the holding's fields"}))
			return
		}
		v, err := h.svc.LinkFarmToHolding(r.Context(), farmID, id)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, newHoldingJSON(v))
		return
	}
	v, err := h.svc.CreateHolding(r.Context(), farmID, b.input())
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, newHoldingJSON(v))
}

func (h *Handler) deleteFarmHolding(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if err := h.svc.UnlinkFarmFromHolding(r.Context(), farmID); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) putHolding(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "holding_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b holdingBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if b.HoldingID != nil {
		httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "holding_id", Message: "is not a field of a holding; the path names it"}))
		return
	}
	v, err := h.svc.UpdateHolding(r.Context(), id, b.input())
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newHoldingJSON(v))
}
