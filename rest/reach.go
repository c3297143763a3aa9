package rest

import (
	"net/http"

	"github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// reachConflictJSON is a group treatment whose stored reach the membership facts contradict.
type reachConflictJSON struct {
	RecordID     string `json:"record_id"`
	RecordItemID string `json:"record_item_id"`
	GroupID      string `json:"group_id"`
	Date         string `json:"date"`
	MedicineID   string `json:"medicine_id"`
	MedicineName string `json:"medicine_name"`
	AnimalID     string `json:"animal_id"`
	AnimalTag    string `json:"animal_tag"`
	Message      string `json:"message"`
}

// listReachConflicts pages through the farm's treatment reach conflicts.
func (h *Handler) listReachConflicts(w http.ResponseWriter, r *http.Request) {
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
	list, total, err := h.svc.ReachConflicts(r.Context(), farmID, p)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]reachConflictJSON, len(list))
	for i, c := range list {
		out[i] = newReachConflictJSON(c)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "records": out})
}

func newReachConflictJSON(c herdbook.ReachConflict) reachConflictJSON {
	return reachConflictJSON{RecordID: c.RecordID.String(), RecordItemID: c.RecordItemID.String(), GroupID: c.GroupID.String(),
		Date: c.Date, MedicineID: c.MedicineID.String(), MedicineName: c.MedicineName, AnimalID: c.AnimalID.String(),
		AnimalTag: c.AnimalTag, Message: c.Message}
}
