package rest

import (
	"net/http"
	"regexp"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// The SPEC's birth-history operations (settings and evidence) answer 400, 401, 403 and 404
// with an empty body: they are registered with handleBodiless, and answer their own errors
// with httpapi.WriteEmpty. Our own preview and protocol operations use the envelope, which
// names the field.

func settingsJSON(st herdbook.BirthSettings) map[string]any {
	var settings any
	if st.Settings != nil {
		settings = st.Settings
	}
	return map[string]any{"species": st.Species, "settings": settings}
}

func (h *Handler) getBirthSettings(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteEmpty(w, r, err)
		return
	}
	st, err := h.svc.BirthSettings(r.Context(), farmID)
	if err != nil {
		httpapi.WriteEmpty(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, settingsJSON(st))
}

// settingsBody is BirthHistorySettings with required fields checked for presence.
type settingsBody struct {
	Version       *int            `json:"version"`
	Species       *string         `json:"species"`
	GestationDays *evidence.Range `json:"gestation_days"`
	// GestationDaysByBreed maps a sire's breed to its own gestation range.
	GestationDaysByBreed map[string]evidence.Range `json:"gestation_days_by_breed"`
	MinimumSireAgeDays   *int                      `json:"minimum_sire_age_days"`
	BirthWindows         []evidence.Window         `json:"birth_windows"`
}

func (h *Handler) putBirthSettings(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteEmpty(w, r, err)
		return
	}
	var b settingsBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteEmpty(w, r, err)
		return
	}
	var fe fieldList
	if b.Version == nil {
		fe.add("version", "is required")
	}
	if b.Species == nil {
		fe.add("species", "is required")
	}
	if err := fe.err(); err != nil {
		httpapi.WriteEmpty(w, r, err)
		return
	}
	st, err := h.svc.PutBirthSettings(r.Context(), farmID, evidence.Settings{
		Version: *b.Version, Species: *b.Species, GestationDays: b.GestationDays, GestationDaysByBreed: b.GestationDaysByBreed,
		MinimumSireAgeDays: b.MinimumSireAgeDays, BirthWindows: b.BirthWindows,
	})
	if err != nil {
		httpapi.WriteEmpty(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, settingsJSON(st))
}

var datePattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

func (h *Handler) getBirthEvidence(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteEmpty(w, r, err)
		return
	}
	q := r.URL.Query()
	damID, birthDate := q.Get("dam_id"), q.Get("birth_date")
	if !datePattern.MatchString(birthDate) {
		httpapi.WriteEmpty(w, r, herdbook.Invalid(herdbook.FieldError{Field: "birth_date", Message: "must be YYYY-MM-DD"}))
		return
	}
	ev, err := h.svc.BirthEvidence(r.Context(), farmID, damID, birthDate)
	if err != nil {
		httpapi.WriteEmpty(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, ev)
}

func protocolJSON(p herdbook.FollowUpProtocol) map[string]any {
	return map[string]any{"version": p.Version, "steps": p.Steps}
}

func (h *Handler) getProtocol(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := h.svc.FollowUpProtocol(r.Context(), farmID)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, protocolJSON(p))
}

func (h *Handler) putProtocol(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b struct {
		Steps *[]schematype.ProtocolStep `json:"steps"`
	}
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if b.Steps == nil {
		httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "steps", Message: "is required (an empty list clears the protocol)"}))
		return
	}
	p, err := h.svc.PutFollowUpProtocol(r.Context(), farmID, *b.Steps)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, protocolJSON(p))
}

type previewJSON struct {
	ID              string                   `json:"id"`
	FarmID          string                   `json:"farm_id"`
	DamID           string                   `json:"dam_id"`
	BirthDate       string                   `json:"birth_date"`
	SettingsVersion int                      `json:"settings_version"`
	ProtocolVersion int                      `json:"protocol_version"`
	Stale           bool                     `json:"stale"`
	ApprovedAt      *time.Time               `json:"approved_at"`
	BirthEventID    *uuid.UUID               `json:"birth_event_id"`
	Evidence        evidence.Evidence        `json:"evidence"`
	Tasks           []schematype.PlannedTask `json:"tasks"`
	CreatedAt       time.Time                `json:"created_at"`
}

func newPreviewJSON(p *ent.BirthPreview) previewJSON {
	return previewJSON{
		ID: p.ID.String(), FarmID: p.FarmID.String(), DamID: p.DamID.String(), BirthDate: p.BirthDate,
		SettingsVersion: p.SettingsVersion, ProtocolVersion: p.ProtocolVersion, Stale: p.Stale,
		ApprovedAt: utcPtr(p.ApprovedAt), BirthEventID: p.BirthEventID, Evidence: p.Evidence, Tasks: p.Tasks,
		CreatedAt: p.CreatedAt.UTC(),
	}
}

func (h *Handler) createPreview(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b struct {
		DamID     string `json:"dam_id"`
		BirthDate string `json:"birth_date"`
	}
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := h.svc.CreateBirthPreview(r.Context(), farmID, b.DamID, b.BirthDate)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, newPreviewJSON(p))
}

func (h *Handler) getPreview(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "preview_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := h.svc.BirthPreview(r.Context(), farmID, id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newPreviewJSON(p))
}

func (h *Handler) approvePreview(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "preview_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	// The calving of the birth (docs/breeding.md, one birth path): the dam and the day are the
	// preview's.
	var b struct {
		RequestID string               `json:"request_id"`
		SireID    *string              `json:"sire_id"`
		SireBasis *string              `json:"sire_basis"`
		DNALab    *string              `json:"dna_lab"`
		Calves    []herdbook.CalfInput `json:"calves"`
	}
	if r.ContentLength != 0 {
		if err := httpapi.DecodeJSON(w, r, &b); err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
	}
	if b.RequestID == "" {
		b.RequestID = r.Header.Get("Idempotency-Key")
	}
	ev, err := h.svc.ApproveBirthPreview(r.Context(), farmID, id, herdbook.BirthApproval{RequestID: b.RequestID,
		SireID: b.SireID, SireBasis: b.SireBasis, DNALab: b.DNALab, Calves: b.Calves})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	tasks := make([]taskJSON, len(ev.Edges.Tasks))
	for i, t := range ev.Edges.Tasks {
		tasks[i] = newTaskJSON(t)
	}
	httpapi.WriteJSON(w, http.StatusCreated, map[string]any{"birth_event": map[string]any{
		"id": ev.ID.String(), "farm_id": ev.FarmID.String(), "dam_id": ev.DamID.String(), "birth_date": ev.BirthDate,
		"preview_id": ev.PreviewID.String(), "request_id": ev.RequestID, "settings_version": ev.SettingsVersion,
		"protocol_version": ev.ProtocolVersion, "created_at": ev.CreatedAt.UTC(),
	}, "tasks": tasks})
}
