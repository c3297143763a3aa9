package rest

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/schema/schematype"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// The book's corrections and audit trail (docs/audit.md). SPEC.md fixes the record body, so
// who wrote an entry and when (recorded_by, recorded_at) is shown by these endpoints, not
// added to it: the void and amend answers carry each entry's trace, and the audit list
// carries every change.

// authorJSON is who wrote or voided an entry: the user and the OAuth client of the token.
type authorJSON struct {
	UserID   *string `json:"user_id"`
	ClientID *string `json:"client_id"`
}

func author(user *uuid.UUID, client *string) *authorJSON {
	if user == nil && client == nil {
		return nil
	}
	a := &authorJSON{ClientID: client}
	if user != nil {
		s := user.String()
		a.UserID = &s
	}
	return a
}

// traceJSON is an entry's place in the book: when and by whom it was recorded, and whether,
// when, by whom and why it was voided or superseded.
type traceJSON struct {
	ID             string      `json:"id"`
	RecordID       string      `json:"record_id"`
	IsActive       bool        `json:"is_active"`
	RecordedAt     time.Time   `json:"recorded_at"`
	RecordedBy     *authorJSON `json:"recorded_by"`
	VoidedAt       *time.Time  `json:"voided_at"`
	VoidedBy       *authorJSON `json:"voided_by"`
	VoidReason     *string     `json:"void_reason"`
	AmendsID       *string     `json:"amends_id"`
	SupersededByID *string     `json:"superseded_by_id"`
}

func idPtr(u *uuid.UUID) *string {
	if u == nil {
		return nil
	}
	s := u.String()
	return &s
}

func recordTrace(r *ent.Record) traceJSON {
	return traceJSON{ID: r.ID.String(), RecordID: r.ID.String(), IsActive: r.IsActive, RecordedAt: r.RecordedAt.UTC(),
		RecordedBy: author(r.RecordedByUserID, r.RecordedByClientID), VoidedAt: utcPtr(r.VoidedAt),
		VoidedBy: author(r.VoidedByUserID, r.VoidedByClientID), VoidReason: r.VoidReason,
		AmendsID: idPtr(r.AmendsID), SupersededByID: idPtr(r.SupersededByID)}
}

func itemTrace(it *ent.RecordItem) traceJSON {
	return traceJSON{ID: it.ID.String(), RecordID: it.RecordID.String(), IsActive: it.IsActive, RecordedAt: it.RecordedAt.UTC(),
		RecordedBy: author(it.RecordedByUserID, it.RecordedByClientID), VoidedAt: utcPtr(it.VoidedAt),
		VoidedBy: author(it.VoidedByUserID, it.VoidedByClientID), VoidReason: it.VoidReason,
		AmendsID: idPtr(it.AmendsID), SupersededByID: idPtr(it.SupersededByID)}
}

type reasonBody struct {
	Reason nullable[string] `json:"reason" text:"prose"`
}

func (b reasonBody) reason(fe *fieldList) string {
	if v := notNull(fe, "reason", b.Reason); v != nil {
		return *v
	}
	return ""
}

func (h *Handler) voidRecord(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "record_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b reasonBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	reason := b.reason(&fe)
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	rec, err := h.svc.VoidRecord(r.Context(), farmID, id, reason)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, recordTrace(rec))
}

// amendBody is PUT's record body with the reason; items given replace the record's items.
type amendBody struct {
	Reason nullable[string] `json:"reason" text:"prose"`
	recordBody
}

func (h *Handler) amendRecord(w http.ResponseWriter, r *http.Request) {
	farmID, id, err := h.pathIDs(r, "farm_id", "record_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b amendBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	a := herdbook.RecordAmendment{
		Reason: reasonBody{b.Reason}.reason(&fe),
		RecordPatch: herdbook.RecordPatch{
			AnimalIDs:   fe.uuids("animal_ids", b.AnimalIDs),
			GroupIDs:    fe.uuids("group_ids", b.GroupIDs),
			Name:        notNull(&fe, "name", b.Name),
			Type:        notNull(&fe, "type", b.Type),
			AppliedAt:   fe.dateTime("applied_at", notNull(&fe, "applied_at", b.AppliedAt)),
			Description: b.Description.optional(),
			Items:       itemInputs(b.RecordItems),
		},
		AssociationsSet: b.AnimalIDs != nil || b.GroupIDs != nil,
		ItemsSet:        b.RecordItems != nil,
	}
	if ack := notNull(&fe, "acknowledge_withdrawal", b.AcknowledgeWithdrawal); ack != nil {
		a.AcknowledgeWithdrawal = *ack
	}
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	rec, old, err := h.svc.AmendRecord(r.Context(), farmID, id, a)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, map[string]any{
		"record": h.newRecordReadJSON(rec), "trace": recordTrace(rec), "superseded": recordTrace(old),
	})
}

func (h *Handler) voidRecordItem(w http.ResponseWriter, r *http.Request) {
	farmID, recordID, err := h.pathIDs(r, "farm_id", "record_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	itemID, err := h.pathID(r, "item_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b reasonBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	reason := b.reason(&fe)
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	it, err := h.svc.VoidRecordItem(r.Context(), farmID, recordID, itemID, reason)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, itemTrace(it))
}

// itemAmendBody is one record item with the reason; fields left out are copied.
type itemAmendBody struct {
	Reason nullable[string] `json:"reason" text:"prose"`
	itemBody
}

func itemJSONOf(it *ent.RecordItem) itemJSON {
	return itemJSON{ID: it.ID.String(), Description: it.Description, IsActive: it.IsActive, Metadata: it.Metadata,
		Name: it.Name, CreatedAt: it.CreatedAt.UTC(), UpdatedAt: it.UpdatedAt.UTC()}
}

func (h *Handler) amendRecordItem(w http.ResponseWriter, r *http.Request) {
	farmID, recordID, err := h.pathIDs(r, "farm_id", "record_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	itemID, err := h.pathID(r, "item_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var b itemAmendBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var fe fieldList
	reason := reasonBody{b.Reason}.reason(&fe)
	if err := fe.err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	in := itemInputs([]itemBody{b.itemBody})[0]
	it, old, err := h.svc.AmendRecordItem(r.Context(), farmID, recordID, itemID, reason, in)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, map[string]any{
		"record_item": itemJSONOf(it), "trace": itemTrace(it), "superseded": itemTrace(old),
	})
}

// auditEntryJSON is one change of the book.
type auditEntryJSON struct {
	ID           string              `json:"id"`
	At           time.Time           `json:"at"`
	Action       string              `json:"action"`
	Entity       string              `json:"entity"`
	RecordID     string              `json:"record_id"`
	RecordItemID *string             `json:"record_item_id"`
	UserID       *string             `json:"user_id"`
	ClientID     *string             `json:"client_id"`
	Reason       *string             `json:"reason"`
	OldValue     schematype.Metadata `json:"old_value"`
	NewValue     schematype.Metadata `json:"new_value"`
}

func auditFilter(r *http.Request) herdbook.AuditFilter {
	q := r.URL.Query()
	return herdbook.AuditFilter{AnimalID: q.Get("animal_id"), RecordID: q.Get("record_id"), UserID: q.Get("user_id"),
		From: q.Get("from"), To: q.Get("to")}
}

func (h *Handler) listAudit(w http.ResponseWriter, r *http.Request) {
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
	f := auditFilter(r)
	f.Page = p
	list, total, err := h.svc.Audit(r.Context(), farmID, f)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]auditEntryJSON, len(list))
	for i, e := range list {
		out[i] = auditEntryJSON{ID: e.ID.String(), At: e.At.UTC(), Action: e.Action, Entity: e.Entity,
			RecordID: e.RecordID.String(), RecordItemID: idPtr(e.RecordItemID), UserID: idPtr(e.UserID),
			ClientID: e.ClientID, Reason: e.Reason, OldValue: e.OldValue, NewValue: e.NewValue}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "entries": out})
}

// auditCSV streams the trail as medicineBookCSV streams the book.
func (h *Handler) auditCSV(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	var cw *herdbook.CSVWriter
	err = h.svc.AuditCSV(r.Context(), farmID, auditFilter(r), func(row []string) error {
		if cw == nil {
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.Header().Set("Content-Disposition", `attachment; filename="audit.csv"`)
			w.WriteHeader(http.StatusOK)
			cw = herdbook.NewCSVWriter(w)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
		return cw.Error()
	})
	if cw == nil {
		httpapi.WriteError(w, r, err)
		return
	}
	cw.Flush()
	if err != nil {
		slog.ErrorContext(r.Context(), "audit trail stream failed", "err", err)
		panic(http.ErrAbortHandler)
	}
}

// asKnown reads the known_at query parameter into the request's context, so that the
// derived answer fn gives is the book as it stood then (docs/audit.md). write answers a
// malformed value, after the authentication check every farm operation makes first.
func (h *Handler) asKnown(fn http.HandlerFunc, write func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, err := h.svc.KnownAt(r.Context(), r.URL.Query().Get("known_at"))
		if err != nil {
			if aerr := herdbook.RequireViewer(r.Context()); aerr != nil {
				err = aerr
			}
			write(w, r, err)
			return
		}
		fn(w, r.WithContext(ctx))
	}
}
