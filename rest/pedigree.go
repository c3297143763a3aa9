package rest

import (
	"net/http"
	"strconv"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// ancestorJSON is one place in a pedigree chart.
type ancestorJSON struct {
	AnimalID    string  `json:"animal_id"`
	Generation  int     `json:"generation"`
	Relation    string  `json:"relation"`
	Probability float64 `json:"probability"`
}

type pedigreeJSON struct {
	AnimalID           string         `json:"animal_id"`
	Inbreeding         float64        `json:"inbreeding"`
	UncertainAncestors []string       `json:"uncertain_ancestors"`
	Ancestors          []ancestorJSON `json:"ancestors"`
}

func (h *Handler) animalPedigree(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "animal_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	depth := 0
	if s, ok := r.URL.Query()["depth"]; ok {
		n, err := strconv.Atoi(s[0])
		if err != nil || len(s) > 1 {
			httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "depth", Message: "must be an integer from 1 to 8"}))
			return
		}
		if depth = n; n == 0 {
			depth = -1 // 0 is out of range, not "the default"
		}
	}
	p, err := h.svc.Pedigree(r.Context(), farmID, id, depth)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := pedigreeJSON{AnimalID: p.AnimalID.String(), Inbreeding: p.Inbreeding, UncertainAncestors: p.UncertainAncestors,
		Ancestors: make([]ancestorJSON, len(p.Ancestors))}
	for i, a := range p.Ancestors {
		out.Ancestors[i] = ancestorJSON{AnimalID: a.ID, Generation: a.Generation, Relation: a.Relation, Probability: a.Probability}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

func (h *Handler) kinship(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	ids := [2]uuid.UUID{}
	for i, name := range []string{"a", "b"} {
		v, ok := r.URL.Query()[name]
		switch {
		case !ok || v[0] == "":
			fe.add(name, "is required")
		case len(v) > 1:
			fe.add(name, "must be given once")
		default:
			id, err := uuid.Parse(v[0])
			if err != nil || len(v[0]) != 36 {
				fe.add(name, "must be a UUID")
			}
			ids[i] = id
		}
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	k, err := h.svc.Kinship(r.Context(), farmID, ids[0], ids[1])
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]float64{"coancestry": k})
}
