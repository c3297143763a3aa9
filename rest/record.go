package rest

import (
	"net/http"
	"strings"
	"time"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema/schematype"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// recordJSON is SPEC.md's Record; items and files appear only in reads.
type recordJSON struct {
	Type        string    `json:"type"`
	ID          string    `json:"id"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Name        string    `json:"name"`
	IsActive    bool      `json:"is_active"`
	Description *string   `json:"description"`
	AppliedAt   time.Time `json:"applied_at"`
	// AcknowledgeWithdrawal is true when the writer let the record through the withdrawal guard;
	// omitted when false, so that SPEC.md's record body stays as it is for every other record.
	AcknowledgeWithdrawal bool        `json:"acknowledge_withdrawal,omitempty"`
	RecordItems           *[]itemJSON `json:"record_items,omitempty"`
	Files                 *[]fileJSON `json:"files,omitempty"`
}

type itemJSON struct {
	ID          string              `json:"id"`
	Description *string             `json:"description"`
	IsActive    bool                `json:"is_active"`
	Metadata    schematype.Metadata `json:"metadata"`
	Name        *string             `json:"name"`
	CreatedAt   time.Time           `json:"created_at"`
	UpdatedAt   time.Time           `json:"updated_at"`
}

type fileJSON struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Name      string    `json:"name"`
	IsActive  bool      `json:"is_active"`
	MimeType  string    `json:"mime_type"`
	Size      int64     `json:"size"`
	URL       string    `json:"url"`
}

func (h *Handler) newFileJSON(f *ent.File) fileJSON {
	return fileJSON{
		ID: f.ID.String(), CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC(), Name: f.Name,
		IsActive: f.IsActive, MimeType: f.MimeType, Size: f.Size,
		URL: strings.TrimRight(h.cfg.BaseURL, "/") + "/v1/file/" + f.ID.String() + "/content",
	}
}

func newRecordJSON(r *ent.Record) recordJSON {
	return recordJSON{
		Type: string(r.Type), ID: r.ID.String(), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		Name: r.Name, IsActive: r.IsActive, Description: r.Description, AppliedAt: r.AppliedAt.UTC(),
		AcknowledgeWithdrawal: r.AcknowledgeWithdrawal,
	}
}

// newRecordReadJSON adds the record's items and files, as list and single reads show them.
func (h *Handler) newRecordReadJSON(r *ent.Record) recordJSON {
	out := newRecordJSON(r)
	items := make([]itemJSON, 0, len(r.Edges.Items))
	for _, it := range r.Edges.Items {
		items = append(items, itemJSON{
			ID: it.ID.String(), Description: it.Description, IsActive: it.IsActive, Metadata: it.Metadata,
			Name: it.Name, CreatedAt: it.CreatedAt.UTC(), UpdatedAt: it.UpdatedAt.UTC(),
		})
	}
	files := make([]fileJSON, 0, len(r.Edges.Files))
	for _, f := range r.Edges.Files {
		files = append(files, h.newFileJSON(f))
	}
	out.RecordItems, out.Files = &items, &files
	return out
}

type itemBody struct {
	Name        nullable[string]         `json:"name"`
	Description nullable[string]         `json:"description" text:"prose"`
	Metadata    nullable[map[string]any] `json:"metadata" text:"prose"`
}

type recordBody struct {
	AnimalIDs   []string         `json:"animal_ids"`
	GroupIDs    []string         `json:"group_ids"`
	Name        nullable[string] `json:"name"`
	Type        nullable[string] `json:"type"`
	AppliedAt   nullable[string] `json:"applied_at"`
	Description nullable[string] `json:"description" text:"prose"`
	RecordItems []itemBody       `json:"record_items"`
	// AcknowledgeWithdrawal lets a departure, sale or slaughter during a meat withdrawal through.
	AcknowledgeWithdrawal nullable[bool] `json:"acknowledge_withdrawal"`
}

func itemInputs(in []itemBody) []herdbook.RecordItemInput {
	out := make([]herdbook.RecordItemInput, len(in))
	for i, it := range in {
		out[i] = herdbook.RecordItemInput{Name: it.Name.ptr(), Description: it.Description.ptr(), Metadata: it.Metadata.V}
	}
	return out
}

func (h *Handler) listRecords(w http.ResponseWriter, r *http.Request) {
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
	records, total, cursor, err := h.svc.RecordFeed(r.Context(), farmID, herdbook.FeedPage{Page: p, Since: updatedSince(r)})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	h.writeRecordPage(w, records, total, cursor)
}

func (h *Handler) createRecord(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b recordBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	in := herdbook.RecordInput{
		AnimalIDs:   fe.uuids("animal_ids", b.AnimalIDs),
		GroupIDs:    fe.uuids("group_ids", b.GroupIDs),
		AppliedAt:   fe.dateTime("applied_at", b.AppliedAt.ptr()),
		Description: b.Description.ptr(),
		Items:       itemInputs(b.RecordItems),
	}
	if ack := notNull(&fe, "acknowledge_withdrawal", b.AcknowledgeWithdrawal); ack != nil {
		in.AcknowledgeWithdrawal = *ack
	}
	if n := notNull(&fe, "name", b.Name); n != nil {
		in.Name = *n
	}
	if t := notNull(&fe, "type", b.Type); t != nil {
		in.Type = *t
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	rec, err := h.svc.CreateRecord(r.Context(), farmID, in)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, newRecordJSON(rec))
}

func (h *Handler) getRecord(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "record_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	rec, err := h.svc.Record(r.Context(), farmID, id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, h.newRecordReadJSON(rec))
}

func (h *Handler) updateRecord(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "record_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b recordBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	p := herdbook.RecordPatch{
		AnimalIDs:   fe.uuids("animal_ids", b.AnimalIDs),
		GroupIDs:    fe.uuids("group_ids", b.GroupIDs),
		Name:        notNull(&fe, "name", b.Name),
		Type:        notNull(&fe, "type", b.Type),
		AppliedAt:   fe.dateTime("applied_at", notNull(&fe, "applied_at", b.AppliedAt)),
		Description: b.Description.optional(),
		Items:       itemInputs(b.RecordItems),
	}
	if ack := notNull(&fe, "acknowledge_withdrawal", b.AcknowledgeWithdrawal); ack != nil {
		p.AcknowledgeWithdrawal = *ack
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	rec, err := h.svc.UpdateRecord(r.Context(), farmID, id, p)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, newRecordJSON(rec))
}

func (h *Handler) deleteRecord(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "record_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	// The record stays in the book, voided, with the optional reason (docs/audit.md).
	if err := h.svc.DeleteRecordWithReason(r.Context(), farmID, id, r.URL.Query().Get("reason")); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
