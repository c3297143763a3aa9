package rest

import (
	"net/http"
	"time"

	"github.com/herdbook/herdbook/ent"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// farmJSON is SPEC.md's Farm.
type farmJSON struct {
	ID                  string       `json:"id"`
	CreatedAt           time.Time    `json:"created_at"`
	UpdatedAt           time.Time    `json:"updated_at"`
	Name                string       `json:"name"`
	AllowPrivateThreads bool         `json:"allow_private_threads"`
	CurrentMonthStart   *time.Time   `json:"current_month_start"`
	IsActive            bool         `json:"is_active"`
	Species             string       `json:"species"`
	SpeciesOther        *string      `json:"species_other"`
	FarmUsers           []memberJSON `json:"farm_users"`
}

// memberJSON is SPEC.md's FarmMember.
type memberJSON struct {
	ID        string    `json:"id"`
	FarmID    string    `json:"farm_id"`
	UserID    string    `json:"user_id"`
	IsActive  bool      `json:"is_active"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	User      userJSON  `json:"user"`
}

type userJSON struct {
	ID               string  `json:"id"`
	FullName         *string `json:"full_name"`
	PhoneNumberLocal string  `json:"phone_number_local"`
}

func newFarmJSON(f *ent.Farm) farmJSON {
	out := farmJSON{
		ID:                  f.ID.String(),
		CreatedAt:           f.CreatedAt.UTC(),
		UpdatedAt:           f.UpdatedAt.UTC(),
		Name:                f.Name,
		AllowPrivateThreads: f.AllowPrivateThreads,
		CurrentMonthStart:   utcPtr(f.CurrentMonthStart),
		IsActive:            f.IsActive,
		Species:             string(f.Species),
		SpeciesOther:        f.SpeciesOther,
		FarmUsers:           make([]memberJSON, 0, len(f.Edges.Members)),
	}
	for _, m := range f.Edges.Members {
		mj := memberJSON{
			ID:        m.ID.String(),
			FarmID:    m.FarmID.String(),
			UserID:    m.UserID.String(),
			IsActive:  m.IsActive,
			Role:      string(m.Role),
			CreatedAt: m.CreatedAt.UTC(),
			UpdatedAt: m.UpdatedAt.UTC(),
			User:      userJSON{ID: m.UserID.String()},
		}
		if u := m.Edges.User; u != nil {
			mj.User.FullName, mj.User.PhoneNumberLocal = u.FullName, u.PhoneNumberLocal
		}
		out.FarmUsers = append(out.FarmUsers, mj)
	}
	return out
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (h *Handler) listFarms(w http.ResponseWriter, r *http.Request) {
	p, err := page(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	farms, total, cursor, err := h.svc.FarmFeed(r.Context(), herdbook.FeedPage{Page: p, Since: updatedSince(r)})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]farmJSON, len(farms))
	for i, f := range farms {
		out[i] = newFarmJSON(f)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": out, "next_cursor": cursor})
}

type farmCreateBody struct {
	Name         *string          `json:"name"`
	Species      *string          `json:"species"`
	SpeciesOther nullable[string] `json:"species_other"`
}

func (h *Handler) createFarm(w http.ResponseWriter, r *http.Request) {
	var b farmCreateBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	if b.Name == nil {
		fe.add("name", "is required")
	}
	if b.Species == nil {
		fe.add("species", "is required")
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	f, threadID, err := h.svc.CreateFarm(r.Context(), herdbook.FarmInput{
		Name: *b.Name, Species: *b.Species, SpeciesOther: b.SpeciesOther.ptr(),
	})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, map[string]any{"farm": newFarmJSON(f), "welcome_thread_id": threadID.String()})
}

func (h *Handler) getFarm(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	f, err := h.svc.Farm(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"farm": newFarmJSON(f)})
}

type farmUpdateBody struct {
	AllowPrivateThreads nullable[bool]   `json:"allow_private_threads"`
	Name                nullable[string] `json:"name"`
	Species             nullable[string] `json:"species"`
	SpeciesOther        nullable[string] `json:"species_other"`
}

func (h *Handler) updateFarm(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b farmUpdateBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	patch := herdbook.FarmPatch{
		Name:                notNull(&fe, "name", b.Name),
		Species:             notNull(&fe, "species", b.Species),
		SpeciesOther:        b.SpeciesOther.optional(),
		AllowPrivateThreads: notNull(&fe, "allow_private_threads", b.AllowPrivateThreads),
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	f, err := h.svc.UpdateFarm(r.Context(), id, patch)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"farm": newFarmJSON(f)})
}

func (h *Handler) deleteFarm(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if err := h.svc.DeleteFarm(r.Context(), id); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
