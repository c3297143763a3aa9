package rest

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// noticeJSON is a statutory notice (docs/registry.md).
type noticeJSON struct {
	Key          string          `json:"key"`
	Kind         string          `json:"kind"`
	FarmID       string          `json:"farm_id"`
	AnimalID     string          `json:"animal_id"`
	AnimalTag    string          `json:"animal_tag"`
	EventDate    string          `json:"event_date"`
	Deadline     string          `json:"deadline"`
	DaysLeft     int             `json:"days_left"`
	State        string          `json:"state"`
	RuleSet      string          `json:"rule_set"`
	Rule         string          `json:"rule"`
	Sources      []string        `json:"sources"`
	DoneOn       *string         `json:"done_on"`
	Late         bool            `json:"late"`
	Corrects     *string         `json:"corrects"`
	CorrectsKind *string         `json:"corrects_kind"`
	Submission   *submissionJSON `json:"submission"`
}

type submissionJSON struct {
	ID                string    `json:"id"`
	State             string    `json:"state"`
	Channel           string    `json:"channel"`
	RegistryReference *string   `json:"registry_reference"`
	Cause             *string   `json:"cause"`
	At                time.Time `json:"at"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newNoticeJSON(n herdbook.Notice) noticeJSON {
	out := noticeJSON{Key: n.Key, Kind: string(n.Kind), FarmID: n.FarmID, AnimalID: n.AnimalID, AnimalTag: n.AnimalTag,
		EventDate: n.EventDate, Deadline: n.Deadline, DaysLeft: n.DaysLeft, State: n.State, RuleSet: n.RuleSet, Rule: n.Rule,
		Sources: n.Sources, DoneOn: strPtr(n.DoneOn), Late: n.Late, Corrects: strPtr(n.Corrects), CorrectsKind: strPtr(string(n.CorrectsKind))}
	if out.Sources == nil {
		out.Sources = []string{}
	}
	if s := n.Submission; s != nil {
		out.Submission = &submissionJSON{ID: s.ID, State: s.State, Channel: s.Channel,
			RegistryReference: strPtr(s.Reference), Cause: strPtr(s.Cause), At: s.At.UTC()}
	}
	return out
}

func noticeFilter(r *http.Request) (herdbook.NoticeFilter, error) {
	q := r.URL.Query()
	f := herdbook.NoticeFilter{State: q.Get("state"), Kind: q.Get("kind")}
	var fe []herdbook.FieldError
	if q.Has("state") && f.State == "" {
		fe = append(fe, herdbook.FieldError{Field: "state", Message: "must not be empty"})
	}
	if q.Has("kind") && f.Kind == "" {
		fe = append(fe, herdbook.FieldError{Field: "kind", Message: "must not be empty"})
	}
	if q.Has("animal_id") {
		raw := q.Get("animal_id")
		id, err := uuid.Parse(raw)
		if err != nil || len(raw) != 36 {
			fe = append(fe, herdbook.FieldError{Field: "animal_id", Message: "must be a UUID"})
		}
		f.AnimalID = &id
	}
	return f, herdbook.Invalid(fe...)
}

func writeNotices(w http.ResponseWriter, h *ent.Holding, ns []herdbook.Notice) {
	out := make([]noticeJSON, len(ns))
	for i, n := range ns {
		out[i] = newNoticeJSON(n)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"holding_id": h.ID.String(), "rule_set": h.RuleSet,
		"total": len(out), "records": out})
}

// noticesOf answers the statutory notices list reads for the path's id param, overdue
// first: a farm's (farm_id), or those of a holding's farms the viewer is a member of
// (holding_id).
func (h *Handler) noticesOf(param string, list func(context.Context, uuid.UUID, herdbook.NoticeFilter) (*ent.Holding, []herdbook.Notice, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := h.pathID(r, param)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		f, err := noticeFilter(r)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		hold, ns, err := list(r.Context(), id, f)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		writeNotices(w, hold, ns)
	}
}

type submissionBody struct {
	State             *string `json:"state"`
	RegistryReference *string `json:"registry_reference"`
	Cause             *string `json:"cause"`
	RequestID         *string `json:"request_id"`
}

// createNoticeSubmission records a submission of a notice and the registry's answer.
func (h *Handler) createNoticeSubmission(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	key := r.PathValue("notice_key")
	var b submissionBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if b.State == nil {
		httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "state", Message: "is required"}))
		return
	}
	n, _, err := h.svc.RecordNoticeSubmission(r.Context(), farmID, key, herdbook.NoticeSubmissionInput{
		State: *b.State, Reference: b.RegistryReference, Cause: b.Cause, IdempotencyKey: b.RequestID})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, newNoticeJSON(*n))
}
