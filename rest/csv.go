package rest

import (
	"errors"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/internal/httpapi"
)

// csvFlushRows is how many rows are written between flushes, so that a large export reaches
// the client as it is read instead of piling up in buffers.
const csvFlushRows = 500

// writeCSV streams a service table as text/csv. Errors known before the first row answer
// the envelope (the caller handles them); an error after the header is sent can no longer
// change the status, so the connection is cut instead, and the client sees a broken
// transfer rather than a short file that looks complete.
func writeCSV(w http.ResponseWriter, r *http.Request, t *herdbook.Table, filename string) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	cw := herdbook.NewCSVWriter(w)
	rc := http.NewResponseController(w)
	if err := cw.Write(t.Header); err != nil {
		return
	}
	n := 0
	err := t.Rows(func(row []string) error {
		if err := cw.Write(row); err != nil {
			return err
		}
		if n++; n%csvFlushRows == 0 {
			cw.Flush()
			if err := cw.Error(); err != nil {
				return err
			}
			if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return err
			}
		}
		return nil
	})
	if err == nil {
		cw.Flush()
		err = cw.Error()
	}
	if err != nil {
		slog.WarnContext(r.Context(), "CSV export cut short", "err", err, "rows", n, "request_id", httpapi.RequestID(r.Context()))
		panic(http.ErrAbortHandler)
	}
}

func (h *Handler) exportRecords(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	q := r.URL.Query()
	t, err := h.svc.ExportRecords(r.Context(), farmID, q.Get("from"), q.Get("to"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	writeCSV(w, r, t, "records.csv")
}

// MaxImportBody is the largest animals import accepted: about 200,000 rows of a register.
const MaxImportBody = 32 << 20

// importFile reads the CSV file of an import form: the part named file, which must be the
// form's only part. It is read lazily, so the service checks the caller's access before a
// byte of the body is judged.
type importFile struct {
	mr  *multipart.Reader
	err error
	cur *multipart.Part
}

func (f *importFile) Read(b []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.cur == nil {
		p, err := f.mr.NextPart()
		switch {
		case errors.Is(err, io.EOF):
			f.err = herdbook.Invalid(herdbook.FieldError{Field: "file", Message: "is required: send the CSV as the form's part named file"})
		case err != nil:
			f.err = importReadError(err)
		case p.FormName() != "file":
			f.err = herdbook.Invalid(herdbook.FieldError{Field: p.FormName(), Message: "is not a field of this form; send the CSV as the part named file"})
		}
		if f.err != nil {
			return 0, f.err
		}
		f.cur = p
	}
	n, err := f.cur.Read(b)
	switch {
	case errors.Is(err, io.EOF):
		p, next := f.mr.NextPart()
		switch {
		case next == nil:
			f.err = herdbook.Invalid(herdbook.FieldError{Field: p.FormName(), Message: "the form must have one part only, named file"})
		case !errors.Is(next, io.EOF):
			f.err = importReadError(next)
		default:
			f.err = io.EOF
		}
		return n, f.err
	case err != nil:
		f.err = importReadError(err)
		return n, f.err
	}
	return n, nil
}

func importReadError(err error) error {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return herdbook.Errorf(herdbook.ETOOLARGE, "the upload is larger than %d bytes; split the file", tooLarge.Limit)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return httpapi.BodyInvalid("malformed multipart form: the body ends before its closing boundary")
	}
	if e := httpapi.ReadError(err); e != nil {
		return e
	}
	return httpapi.BodyInvalid("malformed multipart form: " + err.Error())
}

// importRowJSON is one row's outcome in an import's answer.
type importRowJSON struct {
	Row      int     `json:"row"`
	Tag      string  `json:"tag"`
	AnimalID *string `json:"animal_id"`
	Action   string  `json:"action"`
}

// importRequest reads what every file import takes: the farm from the path, dry_run from
// the query, and a multipart form whose part named file holds what (the CSV, the session
// file), read by the service as it streams, within MaxImportBody. A bad farm id or dry_run
// is answered here (ok false); a bad form is the file's error, answered when it is read.
func (h *Handler) importRequest(w http.ResponseWriter, r *http.Request, what string) (farmID uuid.UUID, dry bool, file *importFile, ok bool) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return uuid.Nil, false, nil, false
	}
	switch v := r.URL.Query().Get("dry_run"); v {
	case "", "false":
	case "true":
		dry = true
	default:
		httpapi.WriteError(w, r, herdbook.Invalid(herdbook.FieldError{Field: "dry_run", Message: "must be true or false"}))
		return uuid.Nil, false, nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxImportBody)
	file = &importFile{}
	if file.mr, file.err = r.MultipartReader(); file.err != nil {
		file.err = httpapi.BodyInvalid("must be multipart/form-data with a boundary, " + what + " in the part named file")
	}
	return farmID, dry, file, true
}

func (h *Handler) importAnimals(w http.ResponseWriter, r *http.Request) {
	farmID, dry, file, ok := h.importRequest(w, r, "the CSV")
	if !ok {
		return
	}
	res, err := h.svc.ImportAnimals(r.Context(), farmID, file, herdbook.ImportOptions{DryRun: dry})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	rows := make([]importRowJSON, len(res.Animals))
	for i, a := range res.Animals {
		rows[i] = importRowJSON{Row: a.Row, Tag: a.Tag, Action: string(a.Action)}
		if a.AnimalID != nil {
			id := a.AnimalID.String()
			rows[i].AnimalID = &id
		}
	}
	status := http.StatusCreated
	if res.DryRun {
		status = http.StatusOK
	}
	httpapi.WriteJSON(w, status, map[string]any{
		"dry_run": res.DryRun, "rows": res.Rows, "created": res.Created, "updated": res.Updated,
		"unchanged": res.Unchanged, "groups_created": res.GroupsCreated, "facts": res.Facts, "animals": rows,
	})
}

func (h *Handler) exportAnimals(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	t, err := h.svc.ExportAnimals(r.Context(), farmID, r.URL.Query().Get("as_of"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	writeCSV(w, r, t, "animals.csv")
}

func (h *Handler) exportBreeding(w http.ResponseWriter, r *http.Request) {
	farmID, err := h.pathID(r, "farm_id")
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	q := r.URL.Query()
	t, err := h.svc.ExportBreeding(r.Context(), farmID, q.Get("from"), q.Get("to"))
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	writeCSV(w, r, t, "breeding.csv")
}

func (h *Handler) importBreeding(w http.ResponseWriter, r *http.Request) {
	farmID, dry, file, ok := h.importRequest(w, r, "the CSV")
	if !ok {
		return
	}
	res, err := h.svc.ImportBreeding(r.Context(), farmID, file, dry)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	status := http.StatusCreated
	if res.DryRun {
		status = http.StatusOK
	}
	httpapi.WriteJSON(w, status, map[string]any{"dry_run": res.DryRun, "rows": res.Rows, "created": res.Created, "skipped": res.Skipped})
}

// weighingRowJSON is one weighing's outcome in a session file import's answer.
type weighingRowJSON struct {
	Line     int     `json:"line"`
	AnimalID string  `json:"animal_id"`
	Tag      string  `json:"tag"`
	EID      *string `json:"eid"`
	Date     string  `json:"date"`
	Time     *string `json:"time"`
	KG       float64 `json:"kg"`
	Action   string  `json:"action"`
}

// importWeighings reads a weigh-scale session file (docs/csv.md, "Weigh-scale session
// files") from the same form as the other imports, with what the file may not say in the
// query: unit, date_order and date.
func (h *Handler) importWeighings(w http.ResponseWriter, r *http.Request) {
	farmID, dry, file, ok := h.importRequest(w, r, "the session file")
	if !ok {
		return
	}
	q := r.URL.Query()
	opts := herdbook.WeighImportOptions{DryRun: dry, Unit: q.Get("unit"), DateOrder: q.Get("date_order"), Date: q.Get("date")}
	res, err := h.svc.ImportWeighings(r.Context(), farmID, file, opts)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	rows := make([]weighingRowJSON, len(res.Weighings))
	for i, wr := range res.Weighings {
		kg, _ := strconv.ParseFloat(wr.KG, 64)
		rows[i] = weighingRowJSON{Line: wr.Line, AnimalID: wr.AnimalID.String(), Tag: wr.Tag, Date: wr.Date, KG: kg, Action: string(wr.Action)}
		if wr.EID != "" {
			rows[i].EID = &wr.EID
		}
		if wr.Time != "" {
			rows[i].Time = &wr.Time
		}
	}
	status := http.StatusCreated
	if res.DryRun {
		status = http.StatusOK
	}
	httpapi.WriteJSON(w, status, map[string]any{
		"dry_run": res.DryRun, "layout": res.Layout, "rows": res.Rows, "recorded": res.Recorded,
		"unchanged": res.Unchanged, "ignored_columns": res.Ignored, "weighings": rows,
	})
}
