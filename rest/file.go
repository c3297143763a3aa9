package rest

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// fileDetailJSON is the single-file read: SPEC.md's File plus the farm and the active
// records it is attached to.
type fileDetailJSON struct {
	fileJSON
	FarmID    string   `json:"farm_id"`
	RecordIDs []string `json:"record_ids"`
}

func (h *Handler) newFileDetailJSON(f *ent.File, recordIDs []uuid.UUID) fileDetailJSON {
	out := fileDetailJSON{fileJSON: h.newFileJSON(f), FarmID: f.FarmID.String(), RecordIDs: make([]string, len(recordIDs))}
	for i, id := range recordIDs {
		out.RecordIDs[i] = id.String()
	}
	return out
}

// queryID reads a uuid query parameter that an operation requires.
func queryID(r *http.Request, name string) (uuid.UUID, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return uuid.Nil, herdbook.Invalid(herdbook.FieldError{Field: name, Message: "is required (a query parameter)"})
	}
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return uuid.Nil, herdbook.Invalid(herdbook.FieldError{Field: name, Message: "must be a UUID"})
	}
	return id, nil
}

// uploadForm streams a multipart/form-data body part by part, without ParseMultipartForm's
// buffering in memory and temporary files. Its errors are already the service's.
type uploadForm struct {
	mr    *multipart.Reader
	err   error
	parts int
}

func (f *uploadForm) NextPart() (*herdbook.UploadPart, error) {
	if f.err != nil {
		return nil, f.err
	}
	p, err := f.mr.NextPart()
	if err != nil {
		switch {
		case errors.Is(err, io.EOF) && f.parts == 0:
			f.err = httpapi.BodyInvalid("malformed multipart form: it has no parts; does its boundary match the Content-Type's?")
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			f.err = multipartError(err)
		}
		return nil, f.err
	}
	f.parts++
	return &herdbook.UploadPart{Field: p.FormName(), FileName: p.FileName(), Body: partReader{p}}, nil
}

// partReader turns the errors of reading a part into the service's.
type partReader struct{ p *multipart.Part }

func (r partReader) Read(b []byte) (int, error) {
	n, err := r.p.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		err = multipartError(err)
	}
	return n, err
}

func multipartError(err error) error {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return herdbook.Errorf(herdbook.ETOOLARGE, "the upload is larger than %d bytes (%d files of at most %d MB, plus the form)",
			herdbook.MaxUploadBody, herdbook.MaxUploadFiles, herdbook.MaxVideoSize>>20)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return httpapi.BodyInvalid("malformed multipart form: the body ends before its closing boundary")
	}
	if e := httpapi.ReadError(err); e != nil {
		return e // it stopped arriving
	}
	return httpapi.BodyInvalid("malformed multipart form: " + err.Error())
}

func (h *Handler) uploadFiles(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, herdbook.MaxUploadBody)
	form := &uploadForm{}
	if form.mr, form.err = r.MultipartReader(); form.err != nil {
		form.err = httpapi.BodyInvalid("must be multipart/form-data with a boundary: fields farm_id and record_id, then files")
	}
	files, err := h.svc.UploadFiles(r.Context(), form)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]fileJSON, len(files))
	for i, f := range files {
		out[i] = h.newFileJSON(f)
	}
	httpapi.WriteJSON(w, http.StatusCreated, map[string]any{"files": out})
}

func (h *Handler) listFiles(w http.ResponseWriter, r *http.Request) {
	farmID, err := queryID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	p, err := page(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	files, total, err := h.svc.Files(r.Context(), farmID, p)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	out := make([]fileJSON, len(files))
	for i, f := range files {
		out[i] = h.newFileJSON(f)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"total": total, "files": out})
}

func (h *Handler) getFile(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "file_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	f, recordIDs, err := h.svc.File(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, h.newFileDetailJSON(f, recordIDs))
}

// fileContent serves a file's bytes with http.ServeContent, which answers Range, If-Range and
// conditional requests. The stored, sniffed type is sent with nosniff, and the sandbox policy
// keeps anything that slipped through from running as a page of this origin.
func (h *Handler) fileContent(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "file_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	f, content, err := h.svc.OpenFile(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	defer content.Close()
	hd := w.Header()
	ct := f.MimeType
	if strings.HasPrefix(ct, "text/") {
		ct += "; charset=utf-8"
	}
	hd.Set("Content-Type", ct)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	hd.Set("Content-Disposition", contentDisposition(f.MimeType, f.Name))
	// The bytes behind an id never change, so the id is a strong validator; no-cache makes
	// every reuse ask again, so access is checked each time.
	hd.Set("ETag", `"`+f.ID.String()+`"`)
	hd.Set("Cache-Control", "private, no-cache")
	http.ServeContent(w, r, "", f.CreatedAt, content)
}

// contentDisposition shows pictures and videos in place and has everything else saved, under
// the file's name: an ASCII fallback with nothing that could end the parameter, and the exact
// name in RFC 5987 encoding for clients that read it.
func contentDisposition(mimeType, name string) string {
	kind := "attachment"
	if strings.HasPrefix(mimeType, "image/") || strings.HasPrefix(mimeType, "video/") {
		kind = "inline"
	}
	var ascii strings.Builder
	for _, r := range name {
		if r < 0x20 || r >= 0x7f || strings.ContainsRune(`"\;%`, r) {
			r = '_'
		}
		ascii.WriteRune(r)
	}
	v := kind + `; filename="` + ascii.String() + `"`
	if ascii.String() != name {
		v += "; filename*=UTF-8''" + rfc5987(name)
	}
	return v
}

func rfc5987(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func (h *Handler) deleteFile(w http.ResponseWriter, r *http.Request) {
	id, err := h.pathID(r, "file_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	if err := h.svc.DeleteFile(r.Context(), id); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type associationsBody struct {
	RecordIDs []string `json:"record_ids"`
}

// associations reads the file id and the record ids of an attach or detach.
func (h *Handler) associations(w http.ResponseWriter, r *http.Request) (uuid.UUID, []uuid.UUID, error) {
	id, err := h.pathID(r, "file_id")
	if err != nil {
		return uuid.Nil, nil, err
	}
	var b associationsBody
	if err := httpapi.DecodeJSON(w, r, &b); err != nil {
		return uuid.Nil, nil, err
	}
	var fe fieldList
	if b.RecordIDs == nil {
		fe.add("record_ids", "is required: an array of record ids")
	}
	ids := fe.uuids("record_ids", b.RecordIDs)
	return id, ids, fe.err()
}

func (h *Handler) attachFile(w http.ResponseWriter, r *http.Request) {
	id, recordIDs, err := h.associations(w, r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	f, ids, err := h.svc.AttachFile(r.Context(), id, recordIDs)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, h.newFileDetailJSON(f, ids))
}

func (h *Handler) detachFile(w http.ResponseWriter, r *http.Request) {
	id, recordIDs, err := h.associations(w, r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	f, ids, err := h.svc.DetachFile(r.Context(), id, recordIDs)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, h.newFileDetailJSON(f, ids))
}
