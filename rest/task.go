package rest

import (
	"net/http"
	"strconv"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// taskJSON is SPEC.md's FarmTask.
type taskJSON struct {
	ID           string       `json:"id"`
	FarmID       string       `json:"farm_id"`
	BirthEventID string       `json:"birth_event_id"`
	Name         string       `json:"name"`
	Status       string       `json:"status"`
	DueDate      *time.Time   `json:"due_date"`
	CreatedAt    time.Time    `json:"created_at"`
	UpdatedAt    time.Time    `json:"updated_at"`
	Animals      []animalJSON `json:"animals"`
}

type animalJSON struct {
	ID string `json:"id"`
}

func newTaskJSON(t *ent.FarmTask) taskJSON {
	out := taskJSON{
		ID: t.ID.String(), FarmID: t.FarmID.String(), BirthEventID: t.BirthEventID.String(), Name: t.Name,
		Status: string(t.Status), DueDate: utcPtr(t.DueDate), CreatedAt: t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC(),
		Animals: make([]animalJSON, 0, len(t.Edges.Animals)),
	}
	for _, a := range t.Edges.Animals {
		out.Animals = append(out.Animals, animalJSON{ID: a.ID.String()})
	}
	return out
}

func (h *Handler) listTasks(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var (
		q  herdbook.FarmTaskQuery
		fe fieldList
	)
	query := r.URL.Query()
	for name, dst := range map[string]**int{"skip": &q.Skip, "take": &q.Take} {
		if query.Has(name) { // empty is not a number either
			n, err := strconv.Atoi(query.Get(name))
			if err != nil {
				fe.add(name, "must be a whole number")
				continue
			}
			*dst = &n
		}
	}
	if s := query.Get("status"); s != "" {
		q.Status = &s
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	tasks, total, cursor, err := h.svc.FarmTaskFeed(r.Context(), farmID, q, updatedSince(r))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]taskJSON, len(tasks))
	for i, t := range tasks {
		out[i] = newTaskJSON(t)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": out, "next_cursor": cursor})
}

type taskBody struct {
	Status          nullable[string] `json:"status"`
	DueDate         nullable[string] `json:"due_date"`
	RequestID       nullable[string] `json:"request_id"`
	PreviewID       nullable[string] `json:"preview_id"`
	ProtocolVersion nullable[int]    `json:"protocol_version"`
}

func (h *Handler) updateTask(w http.ResponseWriter, r *http.Request) {
	farmID, taskID, err := h.pathIDs(r, "farm_id", "task_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b taskBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	p := herdbook.FarmTaskPatch{DueDate: b.DueDate.optional(), ProtocolVersion: b.ProtocolVersion.ptr()}
	if s := b.Status.ptr(); s != nil {
		p.Status = *s
	}
	if s := b.RequestID.ptr(); s != nil {
		p.RequestID = *s
	} else {
		p.RequestID = r.Header.Get("Idempotency-Key")
	}
	if s := b.PreviewID.ptr(); s != nil {
		id := fe.uuids("preview_id", []string{*s})
		if len(id) == 1 {
			p.PreviewID = &id[0]
		}
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, herdbook.Invalid(renameField(fe, "preview_id[0]", "preview_id")...))
		return
	}
	t, err := h.svc.UpdateFarmTask(r.Context(), farmID, taskID, p)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newTaskJSON(t))
}

func renameField(fe fieldList, from, to string) []herdbook.FieldError {
	out := make([]herdbook.FieldError, len(fe))
	for i, f := range fe {
		if f.Field == from {
			f.Field = to
		}
		out[i] = f
	}
	return out
}
