package rest

import (
	"net/http"
	"time"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// registryCredentialsJSON is what may be seen of a holding's credentials at its registry:
// never the password (docs/registry.md, "Sending").
type registryCredentialsJSON struct {
	HoldingID string    `json:"holding_id"`
	Adapter   *string   `json:"adapter"`
	Username  string    `json:"username"`
	Sending   bool      `json:"sending"`
	Active    bool      `json:"active"`
	LastError *string   `json:"last_error"`
	UpdatedAt time.Time `json:"updated_at"`
}

func newRegistryCredentialsJSON(v *herdbook.RegistryCredentials) registryCredentialsJSON {
	return registryCredentialsJSON{HoldingID: v.HoldingID.String(), Adapter: v.Adapter, Username: v.Username, Sending: v.Sending,
		Active: v.Active, LastError: v.LastError, UpdatedAt: v.UpdatedAt}
}

type registryCredentialsBody struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
	Sending  *bool   `json:"sending"`
}

func (h *Handler) getRegistryCredentials(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "holding_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	v, err := h.svc.HoldingRegistryCredentials(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newRegistryCredentialsJSON(v))
}

func (h *Handler) putRegistryCredentials(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "holding_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b registryCredentialsBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	v, created, err := h.svc.SetHoldingRegistryCredentials(r.Context(), id,
		herdbook.RegistryCredentialsInput{Username: b.Username, Password: b.Password, Sending: b.Sending})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	httpapi.WriteJSON(w, status, newRegistryCredentialsJSON(v))
}

func (h *Handler) deleteRegistryCredentials(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "holding_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if err := h.svc.DeleteHoldingRegistryCredentials(r.Context(), id); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
