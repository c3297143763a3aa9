package rest

import (
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// registerAnimalJSON is the register's Animal: the animal and its profile as of a date.
type registerAnimalJSON struct {
	ID        string           `json:"id"`
	FarmID    string           `json:"farm_id"`
	Tag       string           `json:"tag"`
	Name      *string          `json:"name"`
	IsActive  bool             `json:"is_active"`
	CreatedAt time.Time        `json:"created_at"`
	UpdatedAt time.Time        `json:"updated_at"`
	Profile   herdbook.Profile `json:"profile"`
}

func newRegisterAnimalJSON(a herdbook.AnimalProfile) registerAnimalJSON {
	return registerAnimalJSON{
		ID: a.Animal.ID.String(), FarmID: a.Animal.FarmID.String(), Tag: a.Animal.Tag, Name: a.Animal.Name,
		IsActive: a.Animal.IsActive, CreatedAt: a.Animal.CreatedAt.UTC(), UpdatedAt: a.Animal.UpdatedAt.UTC(),
		Profile: a.Profile,
	}
}

func animalsJSON(as []herdbook.AnimalProfile) []registerAnimalJSON {
	out := make([]registerAnimalJSON, len(as))
	for i, a := range as {
		out[i] = newRegisterAnimalJSON(a)
	}
	return out
}

type groupJSON struct {
	ID        string    `json:"id"`
	FarmID    string    `json:"farm_id"`
	Name      string    `json:"name"`
	IsActive  bool      `json:"is_active"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func newGroupJSON(g *ent.Group) groupJSON {
	return groupJSON{ID: g.ID.String(), FarmID: g.FarmID.String(), Name: g.Name, IsActive: g.IsActive,
		CreatedAt: g.CreatedAt.UTC(), UpdatedAt: g.UpdatedAt.UTC()}
}

func (h *Handler) listAnimals(w http.ResponseWriter, r *http.Request) {
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
	q := r.URL.Query()
	if since := updatedSince(r); since != nil {
		h.animalChanges(w, r, farmID, p, since)
		return
	}
	// The position first: a change made while the page is read comes after it.
	cursor, err := h.svc.AnimalCursor(r.Context(), farmID)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	f := herdbook.AnimalFilter{AsOf: q.Get("as_of"), Status: q.Get("status"), Q: q.Get("q"), Sex: q.Get("sex"), Page: p}
	if q.Get("group_id") != "" {
		if f.Group, err = queryID(r, "group_id"); err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
	}
	animals, total, err := h.svc.Animals(r.Context(), farmID, f)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": animalsJSON(animals), "next_cursor": cursor})
}

// animalChanges answers the animals list's change feed (updated_since, docs/api.md#change-feed):
// the animals that changed after the cursor, in change order, deleted ones included
// (is_active false), each with today's profile. The register's filters select a day's
// herd, not changes, and are refused with it.
func (h *Handler) animalChanges(w http.ResponseWriter, r *http.Request, farmID uuid.UUID, p herdbook.Page, since *string) {
	var fe fieldList
	for _, name := range []string{"as_of", "status", "q", "sex", "group_id", "known_at"} {
		if r.URL.Query().Has(name) {
			fe.add(name, "cannot be combined with updated_since: the change feed lists every animal that changed")
		}
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	changed, total, cursor, err := h.svc.AnimalFeed(r.Context(), farmID, herdbook.FeedPage{Page: p, Since: since})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	ids := make([]uuid.UUID, len(changed))
	for i, a := range changed {
		ids[i] = a.ID
	}
	profiles, err := h.svc.Profiles(r.Context(), farmID, ids, "")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]herdbook.AnimalProfile, len(changed))
	for i, a := range changed {
		out[i] = herdbook.AnimalProfile{Animal: a, Profile: profiles[a.ID]}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": animalsJSON(out), "next_cursor": cursor})
}

// animalBody is the body of POST and PUT: tag and name, and biological fields written as
// dated facts.
type animalBody struct {
	Tag       *string          `json:"tag"`
	Name      nullable[string] `json:"name"`
	Sex       nullable[string] `json:"sex"`
	BirthDate nullable[string] `json:"birth_date"`
	Breed     nullable[string] `json:"breed"`
	DamID     nullable[string] `json:"dam_id"`
	SireID    nullable[string] `json:"sire_id"`
	EID       nullable[string] `json:"eid"`
}

func (b animalBody) input() (herdbook.AnimalInput, error) {
	var fe fieldList
	if b.Tag == nil {
		fe.add("tag", "is required")
	}
	id := func(field string, n nullable[string]) *uuid.UUID {
		s := n.ptr()
		if s == nil {
			return nil
		}
		u, err := uuid.Parse(*s)
		if err != nil || len(*s) != 36 {
			fe.add(field, "must be a UUID")
			return nil
		}
		return &u
	}
	in := herdbook.AnimalInput{
		Name: b.Name.ptr(), Sex: b.Sex.ptr(), BirthDate: b.BirthDate.ptr(), Breed: b.Breed.ptr(),
		DamID: id("dam_id", b.DamID), SireID: id("sire_id", b.SireID), EID: b.EID.ptr(),
	}
	if b.Tag != nil {
		in.Tag = *b.Tag
	}
	return in, fe.err()
}

func (h *Handler) createAnimal(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b animalBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	in, err := b.input()
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	a, err := h.svc.CreateAnimal(r.Context(), farmID, in)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out, err := h.svc.FarmAnimal(r.Context(), farmID, a.ID, "")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, newRegisterAnimalJSON(out))
}

func (h *Handler) getAnimal(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "animal_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	a, err := h.svc.FarmAnimal(r.Context(), farmID, id, r.URL.Query().Get("as_of"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newRegisterAnimalJSON(a))
}

func (h *Handler) updateAnimal(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "animal_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b animalBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	// The farm and the animal's place in it are checked before the body is judged.
	if _, err := h.svc.FarmAnimal(r.Context(), farmID, id, ""); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	in, err := b.input()
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if _, err := h.svc.UpdateFarmAnimal(r.Context(), farmID, id, in); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out, err := h.svc.FarmAnimal(r.Context(), farmID, id, "")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newRegisterAnimalJSON(out))
}

func (h *Handler) deleteAnimal(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "animal_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if err := h.svc.DeleteFarmAnimal(r.Context(), farmID, id); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) animalTimeline(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "animal_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := page(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	recs, total, err := h.svc.AnimalTimeline(r.Context(), farmID, id, p, nil)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]recordJSON, len(recs))
	for i, rec := range recs {
		out[i] = h.newRecordReadJSON(rec)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": out})
}

func (h *Handler) listGroups(w http.ResponseWriter, r *http.Request) {
	farmList(h, h.svc.Groups, newGroupJSON)(w, r)
}

type groupBody struct {
	Name *string `json:"name"`
	// AnimalIDs become the group's first members, from StartDate (the farm's today when
	// left out): a dated membership fact each.
	AnimalIDs []string         `json:"animal_ids"`
	StartDate nullable[string] `json:"start_date"`
}

// groupAnimalsBody sets a group's members from a day on.
type groupAnimalsBody struct {
	AnimalIDs []string         `json:"animal_ids"`
	StartDate nullable[string] `json:"start_date"`
}

func (h *Handler) createGroup(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b groupBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if b.Name == nil {
		httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "name", Message: "is required"}))
		return
	}
	var fe fieldList
	in := herdbook.GroupInput{Name: *b.Name, AnimalIDs: fe.uuids("animal_ids", b.AnimalIDs)}
	if d := b.StartDate.ptr(); d != nil {
		in.StartDate = *d
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	g, err := h.svc.CreateGroup(r.Context(), farmID, in)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, newGroupJSON(g))
}

// setGroupAnimals makes the body's animals the group's members from start_date on, by
// recording dated membership facts, and answers the group with its members that day.
func (h *Handler) setGroupAnimals(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "group_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b groupAnimalsBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	if b.AnimalIDs == nil {
		fe.add("animal_ids", "is required (an empty list leaves the group empty)")
	}
	ids := fe.uuids("animal_ids", b.AnimalIDs)
	day := ""
	if d := b.StartDate.ptr(); d != nil {
		day = *d
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	v, err := h.svc.SetFarmGroupAnimals(r.Context(), farmID, id, ids, day)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	writeGroupView(w, v)
}

func writeGroupView(w http.ResponseWriter, v herdbook.GroupView) {
	httpapi.WriteJSON(w, http.StatusOK, struct {
		groupJSON
		AsOf    string               `json:"as_of"`
		Members []registerAnimalJSON `json:"members"`
	}{newGroupJSON(v.Group), v.AsOf, animalsJSON(v.Members)})
}

func (h *Handler) getGroup(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "group_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	v, err := h.svc.GroupMembers(r.Context(), farmID, id, r.URL.Query().Get("as_of"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	writeGroupView(w, v)
}
