package herdbook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/file"
	"github.com/herdbook/herdbook/ent/filerecord"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/schema/onfarm"
	"github.com/herdbook/herdbook/internal/blob"
)

// Upload limits of SPEC.md. A megabyte is 2^20 bytes, as for the JSON body limit.
const (
	MaxUploadFiles  = 10
	MaxImageSize    = 10 << 20
	MaxVideoSize    = 100 << 20
	MaxDocumentSize = 5 << 20
	// MaxUploadBody caps a whole upload request: ten of the largest files plus room for the
	// multipart framing and the form fields.
	MaxUploadBody = MaxUploadFiles*MaxVideoSize + 1<<20
	// MaxFileNameBytes is the longest file name kept (the column's limit).
	MaxFileNameBytes = 255
	// DefaultFileRetention is how long a deleted file's bytes are kept before the purge.
	DefaultFileRetention = 30 * 24 * time.Hour
)

// sniffLen is how much of a file decides its type, as for http.DetectContentType.
const sniffLen = 512

// WithBlobStore gives the service the store that holds file contents. Without one, file
// operations answer EUNAVAILABLE.
func WithBlobStore(st blob.Store) Option { return func(s *Service) { s.blobs = st } }

func (s *Service) store() (blob.Store, error) {
	if s.blobs == nil {
		return nil, Errorf(EUNAVAILABLE, "file storage is not configured on this server")
	}
	return s.blobs, nil
}

// FileType is one accepted upload type: the MIME type stored and served, and its size limit.
type FileType struct {
	MIME  string
	Label string // as people name it: "PNG image"
	Class string // images, videos or documents: the limit is per class
	Limit int64
	text  func(io.Reader) error // the whole-content check of text formats; nil for binary ones
}

// FileTypes lists the accepted upload types, in the order SPEC.md gives them.
var FileTypes = []FileType{
	{MIME: "image/jpeg", Label: "JPEG image", Class: "images", Limit: MaxImageSize},
	{MIME: "image/png", Label: "PNG image", Class: "images", Limit: MaxImageSize},
	{MIME: "image/gif", Label: "GIF image", Class: "images", Limit: MaxImageSize},
	{MIME: "image/webp", Label: "WebP image", Class: "images", Limit: MaxImageSize},
	{MIME: "video/mp4", Label: "MP4 video", Class: "videos", Limit: MaxVideoSize},
	{MIME: "video/quicktime", Label: "QuickTime video", Class: "videos", Limit: MaxVideoSize},
	{MIME: "video/x-msvideo", Label: "AVI video", Class: "videos", Limit: MaxVideoSize},
	{MIME: "application/json", Label: "JSON document", Class: "documents", Limit: MaxDocumentSize, text: checkJSON},
	{MIME: "application/pdf", Label: "PDF document", Class: "documents", Limit: MaxDocumentSize},
	{MIME: "text/csv", Label: "CSV document", Class: "documents", Limit: MaxDocumentSize, text: checkCSV},
}

const acceptedTypes = "JPEG, PNG, GIF or WebP images; MP4, QuickTime or AVI videos; JSON, PDF or CSV documents"

func fileType(mime string) FileType {
	i := slices.IndexFunc(FileTypes, func(t FileType) bool { return t.MIME == mime })
	return FileTypes[i]
}

// ISO base media brands (the ftyp box) of MP4 video, and of the still-image formats that
// share the container and must not pass for video.
var (
	mp4Brands = map[string]bool{
		"isom": true, "iso2": true, "iso3": true, "iso4": true, "iso5": true, "iso6": true,
		"mp41": true, "mp42": true, "mp71": true, "avc1": true, "dash": true, "M4V ": true,
		"M4VH": true, "M4VP": true, "f4v ": true, "mmp4": true, "MSNV": true, "NDAS": true,
		"3gp4": true, "3gp5": true, "3gp6": true, "3g2a": true,
	}
	stillBrands = map[string]bool{
		"heic": true, "heix": true, "heim": true, "heis": true, "mif1": true, "msf1": true,
		"avif": true, "avis": true, "hevc": true, "hevx": true, "jpeg": true, "crx ": true,
	}
	// Top-level atoms that open QuickTime files written before the ftyp box existed.
	quickTimeAtoms = map[string]bool{"moov": true, "mdat": true, "wide": true, "pnot": true, "free": true, "skip": true}
)

// SniffFile decides the type of a file from its first bytes (up to 512), never from its name
// or the type the client claims. It returns the accepted type, or false and what the content
// looks like instead. Text formats are only candidates here: their whole content is checked
// while it is stored.
//
// http.DetectContentType knows JPEG, PNG, GIF, WebP and PDF, but not QuickTime, it names AVI
// differently, and it calls JSON and CSV plain text; the checks before it cover those.
func SniffFile(head []byte) (FileType, string, bool) {
	if len(head) >= 12 {
		box := string(head[4:8])
		switch {
		case box == "ftyp":
			return sniffISOMedia(head)
		case quickTimeAtoms[box] && binary.BigEndian.Uint32(head[:4]) >= 8:
			return fileType("video/quicktime"), "", true
		case string(head[:4]) == "RIFF":
			switch form := string(head[8:12]); form {
			case "WEBP":
				return fileType("image/webp"), "", true
			case "AVI ":
				return fileType("video/x-msvideo"), "", true
			case "WAVE":
				return FileType{}, "WAVE audio", false
			default:
				return FileType{}, "a RIFF file of form " + strconv.Quote(form), false
			}
		}
	}
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return fileType("application/pdf"), "", true
	case bytes.HasPrefix(head, []byte("MZ")):
		return FileType{}, "a Windows executable", false
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return FileType{}, "an ELF executable", false
	case bytes.HasPrefix(head, []byte{0xfe, 0xed, 0xfa}), bytes.HasPrefix(head, []byte{0xcf, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(head, []byte{0xce, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(head, []byte{0xca, 0xfe, 0xba, 0xbe}):
		return FileType{}, "a Mach-O executable or Java class", false
	case bytes.HasPrefix(head, []byte("#!")):
		return FileType{}, "a script", false
	}
	detected := http.DetectContentType(head)
	switch detected {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return fileType(detected), "", true
	case "text/plain; charset=utf-8":
		body := bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
		if len(body) > 0 && (body[0] == '{' || body[0] == '[') {
			return fileType("application/json"), "", true
		}
		return fileType("text/csv"), "", true
	}
	mt, _, err := mime.ParseMediaType(detected)
	if err != nil || mt == "application/octet-stream" {
		return FileType{}, "of an unrecognised binary type", false
	}
	if strings.HasPrefix(mt, "text/") && mt != "text/html" && mt != "text/xml" {
		return FileType{}, mt + " text that is not UTF-8", false
	}
	return FileType{}, mt, false
}

func sniffISOMedia(head []byte) (FileType, string, bool) {
	major := string(head[8:12])
	switch {
	case major == "qt  ":
		return fileType("video/quicktime"), "", true
	case stillBrands[major]:
		return FileType{}, "an HEIF or AVIF image (brand " + strconv.Quote(major) + ")", false
	case mp4Brands[major]:
		return fileType("video/mp4"), "", true
	}
	// An unfamiliar major brand still counts as MP4 when it declares compatibility with one.
	end := min(int(binary.BigEndian.Uint32(head[:4])), len(head))
	for i := 16; i+4 <= end; i += 4 {
		if mp4Brands[string(head[i:i+4])] {
			return fileType("video/mp4"), "", true
		}
	}
	return FileType{}, "an ISO media file of brand " + strconv.Quote(major), false
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// textError says why a text document was refused.
type textError struct{ msg string }

func (e *textError) Error() string { return e.msg }

// textReader passes text through and fails on bytes that are not UTF-8 or are control
// characters other than tab, line feed, carriage return and form feed: what a JSON or CSV
// document never holds, and what a binary file dressed up as one always does.
type textReader struct {
	r       io.Reader
	pending [utf8.UTFMax]byte
	np      int
	off     int64
}

func (t *textReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if verr := t.check(p[:n]); verr != nil {
		return 0, verr // withheld, so that the parser reports this and not its own confusion
	}
	if err == io.EOF && t.np > 0 {
		return n, &textError{fmt.Sprintf("is not UTF-8 text: it ends inside a character at byte %d", t.off)}
	}
	return n, err
}

func (t *textReader) check(b []byte) error {
	for len(b) > 0 {
		if t.np > 0 { // finish the character a previous read cut in two
			for t.np < utf8.UTFMax && !utf8.FullRune(t.pending[:t.np]) && len(b) > 0 {
				t.pending[t.np] = b[0]
				t.np++
				b = b[1:]
			}
			if !utf8.FullRune(t.pending[:t.np]) {
				return nil
			}
			if r, size := utf8.DecodeRune(t.pending[:t.np]); r == utf8.RuneError && size <= 1 {
				return &textError{fmt.Sprintf("is not UTF-8 text: invalid byte at %d", t.off)}
			}
			t.off += int64(t.np)
			t.np = 0
			continue
		}
		c := b[0]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7f {
				return &textError{fmt.Sprintf("is not text: control byte 0x%02x at byte %d", c, t.off)}
			}
			b = b[1:]
			t.off++
			continue
		}
		if !utf8.FullRune(b) {
			t.np = copy(t.pending[:], b)
			return nil
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			return &textError{fmt.Sprintf("is not UTF-8 text: invalid byte at %d", t.off)}
		}
		b = b[size:]
		t.off += int64(size)
	}
	return nil
}

// checkJSON accepts exactly one JSON value. It walks the tokens instead of decoding into
// memory, so a 5 MB document costs a buffer, not a tree.
func checkJSON(r io.Reader) error {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(3)
	}
	dec := json.NewDecoder(br)
	dec.UseNumber()
	depth, done := 0, false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if !done {
				return &textError{"is not valid JSON: the document ends before its value does"}
			}
			return nil
		}
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return &textError{fmt.Sprintf("is not valid JSON: %s (near byte %d)", syn.Error(), syn.Offset)}
		}
		if err != nil {
			return err
		}
		if done {
			return &textError{"is not valid JSON: it holds more than one value"}
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		done = depth == 0
	}
}

// checkCSV accepts text that parses as CSV: quotes balanced and well placed. Rows may differ in
// length, as spreadsheet exports often do.
func checkCSV(r io.Reader) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	for {
		_, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && !errors.As(err, new(*textError)) {
			return &textError{fmt.Sprintf("is not valid CSV: line %d: %v", pe.Line, pe.Err)}
		}
		if err != nil {
			return err
		}
	}
}

// textCheck runs a text format's check on content as it streams past: it is written to like
// a file, and Close gives the verdict. The check reads from a pipe in its own goroutine, so
// the upload is never held in memory; after a verdict it drains the pipe so writers never
// block.
type textCheck struct {
	pw   *io.PipeWriter
	done chan error
}

func newTextCheck(check func(io.Reader) error) *textCheck {
	pr, pw := io.Pipe()
	c := &textCheck{pw: pw, done: make(chan error, 1)}
	go func() {
		err := check(&textReader{r: pr})
		_, _ = io.Copy(io.Discard, pr)
		c.done <- err
	}()
	return c
}

func (c *textCheck) Write(p []byte) (int, error) {
	_, _ = c.pw.Write(p)
	return len(p), nil
}

// Close ends the content and returns the check's verdict.
func (c *textCheck) Close() error {
	_ = c.pw.Close()
	return <-c.done
}

// Abort ends the check without a verdict, when the content was refused for another reason.
func (c *textCheck) Abort() {
	_ = c.pw.CloseWithError(errUploadAborted)
	<-c.done
}

var errUploadAborted = errors.New("upload aborted")

// errTooLarge is what sizeLimit reads once a file passes its type's limit.
var errTooLarge = errors.New("file too large")

// sizeLimit counts what it passes on and fails once there is more than limit: it reads at
// most limit+1 bytes of its source. It keeps the source's own errors apart, because those
// (a broken body, a client gone) end the whole request, where a file over its limit ends only
// that file.
type sizeLimit struct {
	r      io.Reader
	limit  int64
	n      int64
	over   bool
	srcErr error
}

func (l *sizeLimit) Read(p []byte) (int, error) {
	if l.over {
		return 0, errTooLarge
	}
	if room := l.limit + 1 - l.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if err != nil && err != io.EOF {
		l.srcErr = err
	}
	if l.n > l.limit {
		l.over = true
		return 0, errTooLarge
	}
	return n, err
}

// UploadPart is one part of an upload form, in the order the client sent it.
type UploadPart struct {
	Field    string    // the form field name: farm_id, record_id or files
	FileName string    // the name the client gave the file, for file parts
	Body     io.Reader // the part's content
}

// UploadForm yields the parts of an upload form one at a time; io.EOF ends it. A transport
// reports problems of the body itself (broken framing, a body over MaxUploadBody) as *Error,
// from NextPart or from a part's Body.
type UploadForm interface {
	NextPart() (*UploadPart, error)
}

// pendingFile is a file whose bytes are stored and whose row is not written yet.
type pendingFile struct {
	id   uuid.UUID
	key  string
	name string
	mime string
	size int64
}

// storageKey places a file's bytes: one folder per farm, so that a farm's files can be listed
// or moved together by storage tools.
func storageKey(farmID, fileID uuid.UUID) string {
	return "files/" + farmID.String() + "/" + fileID.String()
}

// UploadFiles stores the files of an upload form in a farm, attaching them to a record when
// the form names one. The form's fields (farm_id, optional record_id) come before its files
// (field "files", at most MaxUploadFiles), so that access is settled before any byte is
// stored. Each file's type is sniffed from its content and checked against FileTypes and its
// class's size limit while it streams to the blob store.
//
// It is all or nothing: when any file is refused, every problem is reported (one per file,
// named files[i] "name") and no blob or row of the request remains. Checks run in the order
// authentication (401), scope write:records (403), farm membership (404), role EDITOR (401),
// then the form (400).
func (s *Service) UploadFiles(ctx context.Context, form UploadForm) ([]*ent.File, error) {
	if _, err := authenticate(ctx, ScopeWriteRecords); err != nil {
		return nil, err
	}
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	farmID, recordID, first, err := readUploadFields(form)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return nil, err
	}
	if recordID != nil {
		ok, err := s.Client(ctx).Record.Query().Where(record.FarmID(farmID), record.ID(*recordID)).Exist(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, Invalid(FieldError{Field: "record_id", Message: "no active record with this id on the farm"})
		}
	}

	var (
		pending []pendingFile
		fe      fieldErrors
		count   int
	)
	// The request's blobs go when anything fails, even after the client has gone.
	cleanup := func() {
		bg := context.WithoutCancel(ctx)
		for _, p := range pending {
			_ = st.Delete(bg, p.key)
		}
	}
	for part := first; part != nil; {
		switch part.Field {
		case "files":
			if count == MaxUploadFiles {
				cleanup()
				return nil, Invalid(FieldError{Field: "files", Message: fmt.Sprintf("at most %d files per request", MaxUploadFiles)})
			}
			p, bad, err := s.receiveFile(ctx, st, farmID, count, part, len(fe) == 0)
			count++
			if err != nil {
				cleanup()
				return nil, err
			}
			if bad != nil {
				fe = append(fe, *bad)
				// Nothing more is stored; the rest is still read and checked, so that the
				// answer lists every bad file at once.
				cleanup()
				pending = nil
			} else if p != nil {
				pending = append(pending, *p)
			}
		case "farm_id", "record_id":
			fe.add(part.Field, "must come before the files in the form")
		default:
			fe.add(formFieldName(part.Field), "is not a known field (farm_id, record_id, files)")
		}
		if _, err := io.Copy(io.Discard, part.Body); err != nil {
			cleanup()
			return nil, err
		}
		next, err := form.NextPart()
		switch {
		case errors.Is(err, io.EOF):
			part = nil
		case err != nil:
			cleanup()
			return nil, err
		default:
			part = next
		}
	}
	if count == 0 {
		fe.add("files", "at least one file is required")
	}
	if err := fe.err(); err != nil {
		cleanup()
		return nil, err
	}

	var files []*ent.File
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		builders := make([]*ent.FileCreate, len(pending))
		var links []*ent.FileRecordCreate
		for i, p := range pending {
			builders[i] = c.File.Create().SetID(p.id).SetFarmID(farmID).SetName(p.name).
				SetMimeType(p.mime).SetSize(p.size).SetStorageKey(p.key)
			if recordID != nil {
				links = append(links, FileRecordLinks(c, farmID, p.id, *recordID)...)
			}
		}
		var err error
		if files, err = c.File.CreateBulk(builders...).Save(ctx); err != nil || len(links) == 0 {
			return err
		}
		if err := c.FileRecord.CreateBulk(links...).Exec(ctx); err != nil {
			return err
		}
		// The record now lists the files: a change of the record, as the file's hook makes it
		// when a file's links change (track.File).
		return c.Record.Update().Where(record.ID(*recordID), record.FarmID(farmID)).Exec(onfarm.With(ctx, farmID))
	})
	if err != nil {
		cleanup()
		return nil, err
	}
	return files, nil
}

func formFieldName(f string) string {
	if f == "" {
		return "(a form part without a name)"
	}
	return f
}

// readUploadFields reads the form fields that precede the first file.
func readUploadFields(form UploadForm) (farmID uuid.UUID, recordID *uuid.UUID, first *UploadPart, err error) {
	var (
		fe   fieldErrors
		seen = map[string]bool{}
	)
	vals := map[string]string{}
	for first == nil {
		part, err := form.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return uuid.Nil, nil, nil, err
		}
		switch part.Field {
		case "files":
			first = part
			continue
		case "farm_id", "record_id":
			if seen[part.Field] {
				fe.add(part.Field, "is sent twice")
			}
			seen[part.Field] = true
			b, err := io.ReadAll(io.LimitReader(part.Body, 101))
			if err != nil {
				return uuid.Nil, nil, nil, err
			}
			vals[part.Field] = strings.TrimSpace(string(b))
		default:
			fe.add(formFieldName(part.Field), "is not a known field (farm_id, record_id, files)")
		}
	}
	if raw, ok := vals["farm_id"]; !ok {
		fe.add("farm_id", "is required, as a form field before the files")
	} else if id, err := uuid.Parse(raw); err != nil || len(raw) != 36 {
		fe.add("farm_id", "must be a UUID")
	} else {
		farmID = id
	}
	if raw, ok := vals["record_id"]; ok && raw != "" {
		if id, err := uuid.Parse(raw); err != nil || len(raw) != 36 {
			fe.add("record_id", "must be a UUID")
		} else {
			recordID = &id
		}
	}
	if first == nil && vals["farm_id"] != "" {
		fe.add("files", "at least one file is required")
	}
	return farmID, recordID, first, fe.err()
}

// cleanFileName keeps the last path element of a client's file name, without control
// characters or invalid UTF-8.
func cleanFileName(raw string) string {
	if i := strings.LastIndexAny(raw, `/\`); i >= 0 {
		raw = raw[i+1:]
	}
	raw = strings.ToValidUTF8(raw, "\uFFFD")
	raw = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return -1
		}
		return r
	}, raw)
	raw = strings.TrimSpace(raw)
	if raw == "." || raw == ".." {
		return ""
	}
	return raw
}

func sizeWords(n int64) string { return strconv.FormatInt(n>>20, 10) + " MB" }

// receiveFile reads one file part. With keep it streams the content to the store; otherwise
// (an earlier file was refused) it only checks it. A refused file gives a FieldError and
// leaves nothing stored; an error ends the request.
func (s *Service) receiveFile(ctx context.Context, st blob.Store, farmID uuid.UUID, i int, part *UploadPart, keep bool) (*pendingFile, *FieldError, error) {
	name := cleanFileName(part.FileName)
	field := fmt.Sprintf("files[%d] %q", i, name)
	refuse := func(format string, args ...any) (*pendingFile, *FieldError, error) {
		return nil, &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}, nil
	}
	if name == "" {
		return refuse("needs a file name (the filename of its Content-Disposition)")
	}
	if len(name) > MaxFileNameBytes {
		return refuse("the file name must be at most %d bytes", MaxFileNameBytes)
	}
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(part.Body, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, nil, err
	}
	head = head[:n]
	if n == 0 {
		return refuse("is empty")
	}
	typ, what, ok := SniffFile(head)
	if !ok {
		return refuse("content is %s, which is not an accepted type (accepted: %s)", what, acceptedTypes)
	}

	lim := &sizeLimit{r: io.MultiReader(bytes.NewReader(head), part.Body), limit: typ.Limit}
	var (
		src   io.Reader = lim
		check *textCheck
	)
	if typ.text != nil {
		check = newTextCheck(typ.text)
		src = io.TeeReader(lim, check)
	}
	id := uuid.New()
	key := storageKey(farmID, id)
	if keep {
		err = st.Put(ctx, key, src, -1, typ.MIME)
	} else {
		_, err = io.Copy(io.Discard, src)
	}
	switch {
	case lim.srcErr != nil:
		if check != nil {
			check.Abort()
		}
		return nil, nil, lim.srcErr
	case lim.over:
		if check != nil {
			check.Abort()
		}
		return refuse("is larger than %s, the limit for %s (it is a %s)", sizeWords(typ.Limit), typ.Class, typ.Label)
	case err != nil:
		if check != nil {
			check.Abort()
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, nil, cerr
		}
		return nil, nil, fmt.Errorf("store file %s: %w", key, err)
	}
	if check != nil {
		if verr := check.Close(); verr != nil {
			if keep {
				_ = st.Delete(context.WithoutCancel(ctx), key)
			}
			var te *textError
			if errors.As(verr, &te) {
				return refuse("%s", te.msg)
			}
			return nil, nil, verr
		}
	}
	if !keep {
		return nil, nil, nil
	}
	return &pendingFile{id: id, key: key, name: name, mime: typ.MIME, size: lim.n}, nil, nil
}

// authorizeFile finds an active file and applies its farm's check order: authentication
// (401), scopes (403), the file and an active membership of its farm (404, worded as the file
// not being found, so that ids of other farms' files reveal nothing), then the role (401).
func (s *Service) authorizeFile(ctx context.Context, id uuid.UUID, min Role, scopes ...string) (*ent.File, error) {
	if _, err := authenticate(ctx, scopes...); err != nil {
		return nil, err
	}
	f, err := s.Client(ctx).File.Get(ctx, id)
	if err != nil {
		return nil, notFound(err, "file", id)
	}
	if _, _, err := s.authorizeFarm(ctx, f.FarmID, min, scopes...); err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return nil, Errorf(ENOTFOUND, "file %s not found", id)
		}
		return nil, err
	}
	return f, nil
}

// Files lists a farm's active files, oldest first. It costs three queries whatever the page.
func (s *Service) Files(ctx context.Context, farmID uuid.UUID, p Page) ([]*ent.File, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	q := s.Client(ctx).File.Query().Where(file.FarmID(farmID))
	total, err := q.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []*ent.File{}, total, err
	}
	fs, err := q.Order(ent.Asc(file.FieldCreatedAt), ent.Asc(file.FieldID)).Offset(offset).Limit(limit).All(ctx)
	return fs, total, err
}

// fileRecordIDs lists the active records a file is attached to, oldest first. The join
// table's key makes rows unique already, and PostgreSQL refuses DISTINCT with an ORDER BY on
// a column it does not select, so the query asks for no DISTINCT.
func (s *Service) fileRecordIDs(ctx context.Context, f *ent.File) ([]uuid.UUID, error) {
	return s.Client(ctx).File.QueryRecords(f).Unique(false).
		Order(ent.Asc(record.FieldCreatedAt), ent.Asc(record.FieldID)).IDs(ctx)
}

// File returns an active file and the ids of the active records it is attached to.
func (s *Service) File(ctx context.Context, id uuid.UUID) (*ent.File, []uuid.UUID, error) {
	f, err := s.authorizeFile(ctx, id, RoleReader, ScopeReadRecords)
	if err != nil {
		return nil, nil, err
	}
	ids, err := s.fileRecordIDs(ctx, f)
	return f, ids, err
}

// OpenFile returns an active file and a reader over its content that can seek, for Range
// requests. The caller closes the reader.
func (s *Service) OpenFile(ctx context.Context, id uuid.UUID) (*ent.File, io.ReadSeekCloser, error) {
	f, err := s.authorizeFile(ctx, id, RoleReader, ScopeReadRecords)
	if err != nil {
		return nil, nil, err
	}
	st, err := s.store()
	if err != nil {
		return nil, nil, err
	}
	info, err := st.Stat(ctx, f.StorageKey)
	if err != nil {
		// An active file without its bytes is the server's fault: log it, show "internal".
		return nil, nil, fmt.Errorf("file %s: content at %s: %w", id, f.StorageKey, err)
	}
	return f, blob.ReadSeeker(ctx, st, f.StorageKey, info.Size), nil
}

// DeleteFile soft-deletes a file: it disappears from lists, reads and records at once, and
// its bytes stay in storage until PurgeDeletedFiles removes them after the retention period.
// SPEC.md asks only for write:records; the role is EDITOR, the same as uploading, because a
// deleted file can still be restored by an administrator until the purge.
func (s *Service) DeleteFile(ctx context.Context, id uuid.UUID) error {
	if _, err := s.authorizeFile(ctx, id, RoleEditor, ScopeWriteRecords); err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		n, err := s.Client(ctx).File.Update().Where(file.ID(id), file.IsActive(true)).
			SetIsActive(false).SetDeletedAt(s.nowUTC()).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return Errorf(ENOTFOUND, "file %s not found", id)
		}
		return nil
	})
}

func validateRecordIDs(ids []uuid.UUID) error {
	var fe fieldErrors
	switch {
	case len(ids) == 0:
		fe.add("record_ids", "must name at least one record")
	case len(ids) > MaxRecordAssociations:
		fe.add("record_ids", "must have at most %d ids", MaxRecordAssociations)
	}
	return fe.err()
}

// AttachFile attaches a file to records of its farm. Every id must name an active record of
// the file's farm; ids already attached are left as they are. It returns the file and all the
// records it is now attached to.
func (s *Service) AttachFile(ctx context.Context, id uuid.UUID, recordIDs []uuid.UUID) (*ent.File, []uuid.UUID, error) {
	f, err := s.authorizeFile(ctx, id, RoleEditor, ScopeWriteRecords)
	if err != nil {
		return nil, nil, err
	}
	if err := validateRecordIDs(recordIDs); err != nil {
		return nil, nil, err
	}
	var ids []uuid.UUID
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		found, err := c.Record.Query().Where(record.FarmID(f.FarmID), record.IDIn(recordIDs...)).IDs(ctx)
		if err != nil {
			return err
		}
		ok := make(map[uuid.UUID]bool, len(found))
		for _, rid := range found {
			ok[rid] = true
		}
		var fe fieldErrors
		for i, rid := range recordIDs {
			if !ok[rid] {
				fe.add(fmt.Sprintf("record_ids[%d]", i), "no active record with this id on the file's farm")
			}
		}
		if err := fe.err(); err != nil {
			return err
		}
		have, err := c.File.QueryRecords(f).Where(record.IDIn(found...)).IDs(IncludeInactive(ctx))
		if err != nil {
			return err
		}
		if add := without(found, have); len(add) > 0 {
			if err := c.FileRecord.CreateBulk(FileRecordLinks(c, f.FarmID, id, add...)...).Exec(ctx); err != nil {
				return err
			}
			// A change of the file, and of every record that lists it, the new ones included
			// (track.File reads the file's records before the update).
			if err := c.File.UpdateOneID(id).Exec(ctx); err != nil {
				return err
			}
		}
		ids, err = s.fileRecordIDs(ctx, f)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return f, ids, nil
}

// DetachFile removes the given record associations of a file, and only those; ids that are
// not attached are ignored, so a repeated request changes nothing. The file itself stays.
func (s *Service) DetachFile(ctx context.Context, id uuid.UUID, recordIDs []uuid.UUID) (*ent.File, []uuid.UUID, error) {
	f, err := s.authorizeFile(ctx, id, RoleEditor, ScopeWriteRecords)
	if err != nil {
		return nil, nil, err
	}
	if err := validateRecordIDs(recordIDs); err != nil {
		return nil, nil, err
	}
	var ids []uuid.UUID
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		// A change of the file and of every record that lists it, the ones about to be
		// detached included (track.File reads the file's records before the update).
		if err := c.File.UpdateOneID(id).Exec(ctx); err != nil {
			return err
		}
		if _, err := c.FileRecord.Delete().Where(filerecord.FarmID(f.FarmID), filerecord.FileID(id),
			filerecord.RecordIDIn(recordIDs...)).Exec(ctx); err != nil {
			return err
		}
		var err error
		ids, err = s.fileRecordIDs(ctx, f)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return f, ids, nil
}

// FileRecordLinks returns the links attaching file fileID of farmID to records, to be created
// once the file and the records exist: File.records goes through FileRecord, whose rows name
// the farm (docs/scaling.md) and which ent's AddRecordIDs cannot give one.
func FileRecordLinks(c *ent.Client, farmID, fileID uuid.UUID, records ...uuid.UUID) []*ent.FileRecordCreate {
	links := make([]*ent.FileRecordCreate, len(records))
	for i, r := range records {
		links[i] = c.FileRecord.Create().SetFileID(fileID).SetRecordID(r).SetFarmID(farmID)
	}
	return links
}

// PurgeDeletedFiles removes the bytes of files deleted more than olderThan ago, then their
// rows and record associations: a purged file is gone, and the store holds nothing a row
// does not point to. It needs no viewer: it is the server's own housekeeping. Each file is
// purged on its own, blob first, so a failure leaves a row to retry on the next run, and
// several nodes may run it at once. It returns how many files were purged.
func (s *Service) PurgeDeletedFiles(ctx context.Context, olderThan time.Duration) (int, error) {
	st, err := s.store()
	if err != nil {
		return 0, err
	}
	ctx = IncludeInactive(ctx)
	cutoff := s.nowUTC().Add(-olderThan)
	var (
		purged int
		errs   []error
		after  uuid.UUID
	)
	for {
		batch, err := s.Client(ctx).File.Query().
			Where(file.IsActive(false), file.DeletedAtNotNil(), file.DeletedAtLT(cutoff), file.IDGT(after)).
			Order(ent.Asc(file.FieldID)).Limit(200).All(ctx)
		if err != nil {
			return purged, errors.Join(append(errs, err)...)
		}
		for _, f := range batch {
			after = f.ID
			if err := s.purgeFile(ctx, st, f); err != nil {
				errs = append(errs, fmt.Errorf("purge file %s: %w", f.ID, err))
				continue
			}
			purged++
		}
		if len(batch) < 200 || ctx.Err() != nil {
			return purged, errors.Join(errs...)
		}
	}
}

func (s *Service) purgeFile(ctx context.Context, st blob.Store, f *ent.File) error {
	if err := st.Delete(ctx, f.StorageKey); err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		// The file was reported deleted when it was; its links to records go with its row (their
		// foreign key cascades), which tells nobody anything new.
		_, err := c.File.Delete().Where(file.ID(f.ID), file.IsActive(false)).Exec(ctx)
		return err
	})
}

// RunFilePurge calls PurgeDeletedFiles (and PurgeIdempotencyKeys) at start and then every
// interval until ctx ends, logging what it did. serve runs it in a goroutine.
func (s *Service) RunFilePurge(ctx context.Context, every, retention time.Duration, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		n, err := s.PurgeDeletedFiles(ctx, retention)
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Error("file purge", "purged", n, "err", err)
		case n > 0:
			logger.Info("file purge", "purged", n, "retention", retention.String())
		}
		// The same housekeeping forgets idempotent answers past their 24 hours.
		if n, err := s.PurgeIdempotencyKeys(ctx); err != nil && ctx.Err() == nil {
			logger.Error("idempotency key purge", "err", err)
		} else if n > 0 {
			logger.Info("idempotency key purge", "purged", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
