package rest

import (
	"net/http"
	"strconv"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// The calving operation and the growth answers (docs/breeding.md).

type calvingBody struct {
	DamID     *string              `json:"dam_id"`
	Date      *string              `json:"date"`
	SireID    *string              `json:"sire_id"`
	SireBasis *string              `json:"sire_basis"`
	DNALab    *string              `json:"dna_lab"`
	Calves    []herdbook.CalfInput `json:"calves"`
}

func calvingJSON(c *herdbook.Calving) map[string]any {
	tasks := make([]taskJSON, len(c.Tasks))
	for i, t := range c.Tasks {
		tasks[i] = newTaskJSON(t)
	}
	calves := c.Calves
	if calves == nil {
		calves = []herdbook.Calf{}
	}
	return map[string]any{"id": c.ID, "dam_id": c.DamID, "date": c.Date, "sire": c.Sire, "calves": calves,
		"tasks": tasks, "record_id": c.ID, "created_at": c.CreatedAt.UTC()}
}

func (h *Handler) createCalving(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b calvingBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	if b.DamID == nil {
		fe.add("dam_id", "is required")
	}
	if b.Date == nil {
		fe.add("date", "is required")
	}
	if b.Calves == nil {
		fe.add("calves", "is required")
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	c, created, err := h.svc.RecordCalving(r.Context(), farmID, herdbook.CalvingInput{
		DamID: *b.DamID, Date: *b.Date, SireID: b.SireID, SireBasis: b.SireBasis, DNALab: b.DNALab, Calves: b.Calves,
	})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	httpapi.WriteJSON(w, status, calvingJSON(c))
}

func (h *Handler) listCalvings(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var (
		q  herdbook.CalvingQuery
		fe fieldList
	)
	query := r.URL.Query()
	for name, dst := range map[string]**int{"skip": &q.Skip, "take": &q.Take} {
		if s := query.Get(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				fe.add(name, "must be a whole number")
				continue
			}
			*dst = &n
		}
	}
	q.From, q.To = query.Get("from"), query.Get("to")
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	list, total, err := h.svc.Calvings(r.Context(), farmID, q)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]map[string]any, len(list))
	for i, c := range list {
		out[i] = calvingJSON(c)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": out})
}

func (h *Handler) getCalving(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "calving_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	c, err := h.svc.Calving(r.Context(), farmID, id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, calvingJSON(c))
}

func (h *Handler) animalWeights(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "animal_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	q := r.URL.Query()
	out, err := h.svc.AnimalWeights(r.Context(), farmID, id, q.Get("from"), q.Get("to"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}
