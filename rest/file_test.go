package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/blob"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
	"github.com/herdbook/herdbook/rest"
)

// upPart is one part of a test upload form.
type upPart struct {
	field, filename string
	body            []byte
}

func field(name, value string) upPart { return upPart{field: name, body: []byte(value)} }
func fileP(name string, content []byte) upPart {
	return upPart{field: "files", filename: name, body: content}
}

// form encodes parts as multipart/form-data and returns the body and its Content-Type.
func form(t testing.TB, parts ...upPart) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		var (
			w   io.Writer
			err error
		)
		if p.filename != "" || p.field == "files" {
			w, err = mw.CreateFormFile(p.field, p.filename)
		} else {
			w, err = mw.CreateFormField(p.field)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(p.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

// Sample contents, one per accepted type, made the way real files begin.
func samplePNG(t testing.TB) []byte {
	var b bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sampleJPEG(t testing.TB) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sampleGIF(t testing.TB) []byte {
	var b bytes.Buffer
	if err := gif.Encode(&b, image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func riff(form string, payload []byte) []byte {
	b := []byte("RIFF\x00\x00\x00\x00" + form)
	return append(b, payload...)
}

// isoMedia is an ftyp box with the brands, then an mdat box of n bytes of filler.
func isoMedia(major string, n int, compatible ...string) []byte {
	ftyp := []byte("\x00\x00\x00\x00ftyp" + major + "\x00\x00\x02\x00" + strings.Join(compatible, ""))
	ftyp[3] = byte(len(ftyp))
	return append(ftyp, bytes.Repeat([]byte{0x42}, n)...)
}

func samplePDF(n int) []byte {
	b := []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n")
	for len(b) < n {
		b = append(b, "% filler line of a test document\n"...)
	}
	return b[:n]
}

var sampleCSV = []byte("tag,weight_kg,note\nC-1,412,\"calm, good feeder\"\nC-2,398,\n")

// blobCounter counts the blobs of a test store, to prove failed uploads leave none behind.
type blobCounter func(t testing.TB) int

func localCounter(dir string) blobCounter {
	return func(t testing.TB) int {
		n := 0
		err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// newStore returns a blob store of the kind and a way to count what it holds.
func newStore(t testing.TB, kind string) (blob.Store, blobCounter) {
	t.Helper()
	switch kind {
	case "local":
		dir := t.TempDir()
		st, err := blob.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		return st, localCounter(dir)
	case "s3":
		backend := s3mem.New()
		if err := backend.CreateBucket("files"); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(gofakes3.New(backend).Server())
		t.Cleanup(srv.Close)
		u, _ := url.Parse(srv.URL)
		st, err := blob.NewS3(blob.S3Options{Endpoint: u.Host, Bucket: "files", Region: "us-east-1", Insecure: true, PathStyle: true, AccessKey: "k", SecretKey: "s"})
		if err != nil {
			t.Fatal(err)
		}
		return st, func(t testing.TB) int {
			res, err := backend.ListBucket("files", &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
			if err != nil {
				t.Fatal(err)
			}
			return len(res.Contents)
		}
	}
	t.Fatalf("unknown store %q", kind)
	return nil, nil
}

// fileWorld is an app with a farm, its members and a record, ready for file tests.
type fileWorld struct {
	app                     *herdbooktest.App
	d                       *db.DB
	count                   blobCounter
	owner, editor, reader   herdbooktest.User
	stranger, noWrite, noRd herdbooktest.User
	farm, otherFarm         uuid.UUID
	rec, otherRec           uuid.UUID
}

func newFileWorld(t *testing.T, d *db.DB, storeKind string) *fileWorld {
	t.Helper()
	st, count := newStore(t, storeKind)
	app := herdbooktest.NewApp(t, d, herdbooktest.Options{Blobs: st})
	w := &fileWorld{app: app, d: d, count: count}
	w.owner, w.editor, w.reader, w.stranger = app.MustUser(), app.MustUser(), app.MustUser(), app.MustUser()
	w.farm = app.MustFarm(w.owner, "Home Farm").ID
	app.MustMember(w.farm, w.editor, herdbook.RoleEditor)
	app.MustMember(w.farm, w.reader, herdbook.RoleReader)
	w.noWrite = w.owner
	w.noWrite.Token = app.MustToken(w.owner.ID, herdbook.ScopeReadRecords, herdbook.ScopeReadFarms)
	w.noRd = w.owner
	w.noRd.Token = app.MustToken(w.owner.ID, herdbook.ScopeReadFarms, herdbook.ScopeWriteRecords)
	w.otherFarm = app.MustFarm(w.stranger, "Other Farm").ID
	w.rec = w.mustRecord(t, w.owner, w.farm)
	w.otherRec = w.mustRecord(t, w.stranger, w.otherFarm)
	return w
}

func (w *fileWorld) mustRecord(t *testing.T, u herdbooktest.User, farm uuid.UUID) uuid.UUID {
	t.Helper()
	a := w.app.MustAnimal(u, farm, "A-"+uuid.NewString()[:8])
	r, err := w.app.Service.CreateRecord(w.app.Ctx(u), farm, herdbook.RecordInput{
		AnimalIDs: []uuid.UUID{a.ID}, Name: "Weighing", Type: "OTHER", AppliedAt: ptrTime(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// rows counts file rows, deleted ones included.
func (w *fileWorld) rows(t testing.TB) int {
	n, err := w.d.Client.File.Query().Count(herdbook.IncludeInactive(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mustUpload uploads the parts into the world's farm as the owner and returns the files.
func (w *fileWorld) mustUpload(t *testing.T, prefix string, parts ...upPart) []map[string]any {
	t.Helper()
	res := w.upload(t, prefix, w.owner.Token, append([]upPart{field("farm_id", w.farm.String())}, parts...)...)
	if res.Status != http.StatusCreated {
		t.Fatalf("upload: status %d: %s", res.Status, res.Body)
	}
	var out []map[string]any
	for _, f := range res.JSON(t)["files"].([]any) {
		out = append(out, f.(map[string]any))
	}
	if len(out) != len(parts) {
		t.Fatalf("%d files back for %d sent", len(out), len(parts))
	}
	return out
}

func (w *fileWorld) upload(t testing.TB, prefix, token string, parts ...upPart) herdbooktest.Response {
	body, ct := form(t, parts...)
	return w.app.Do("POST", prefix+"/file", token, body, "Content-Type", ct)
}

// wantNothingStored fails unless a refused upload left no row and no blob.
func (w *fileWorld) wantNothingStored(t *testing.T, rows, blobs int) {
	t.Helper()
	if got := w.rows(t); got != rows {
		t.Fatalf("file rows %d, want %d", got, rows)
	}
	if got := w.count(t); got != blobs {
		t.Fatalf("blobs %d, want %d", got, blobs)
	}
}

var fileFields = []string{"id", "created_at", "updated_at", "name", "is_active", "mime_type", "size", "url"}

func wantFileFields(t *testing.T, f map[string]any) {
	t.Helper()
	for _, k := range fileFields {
		if v, ok := f[k]; !ok || v == nil {
			t.Fatalf("file field %s missing or null: %v", k, f)
		}
	}
}

// TestFiles drives every file operation, under both prefixes, on both stores and both
// databases.
func TestFiles(t *testing.T) {
	t.Parallel()
	for _, storeKind := range []string{"local", "s3"} {
		t.Run(storeKind, func(t *testing.T) {
			t.Parallel()
			herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
				w := newFileWorld(t, d, storeKind)
				for _, prefix := range rest.Prefixes {
					t.Run(strings.TrimPrefix(prefix, "/"), func(t *testing.T) { testFileFlow(t, w, prefix) })
				}
			})
		})
	}
}

func testFileFlow(t *testing.T, w *fileWorld, prefix string) {
	app := w.app
	pdf := samplePDF(3000)
	var files []map[string]any
	t.Run("UploadEveryType", func(t *testing.T) {
		cases := []struct {
			name    string
			content []byte
			mime    string
		}{
			{"calf.png", samplePNG(t), "image/png"},
			{"calf.jpg", sampleJPEG(t), "image/jpeg"},
			{"calf.gif", sampleGIF(t), "image/gif"},
			{"calf.webp", riff("WEBP", []byte("VP8 \x10\x00\x00\x00")), "image/webp"},
			{"birth.mp4", isoMedia("isom", 2000, "isom", "mp41"), "video/mp4"},
			{"birth.mov", isoMedia("qt  ", 2000, "qt  "), "video/quicktime"},
			{"birth.avi", riff("AVI ", []byte("LIST\x00\x00\x00\x00hdrlavih")), "video/x-msvideo"},
			{"Kälber ü.pdf", pdf, "application/pdf"},
			{"weights.json", []byte(`{"weights": [412, 398], "unit": "kg"}`), "application/json"},
			{"weights.csv", sampleCSV, "text/csv"},
		}
		var parts []upPart
		for _, c := range cases {
			parts = append(parts, fileP(c.name, c.content))
		}
		files = w.mustUpload(t, prefix, parts...)
		for i, c := range cases {
			f := files[i]
			wantFileFields(t, f)
			if f["name"] != c.name || f["mime_type"] != c.mime || f["size"] != float64(len(c.content)) || f["is_active"] != true {
				t.Fatalf("file %d = %v, want %s %s %d bytes", i, f, c.name, c.mime, len(c.content))
			}
			if f["url"] != app.URL+"/v1/file/"+f["id"].(string)+"/content" {
				t.Fatalf("url = %v", f["url"])
			}
		}
	})
	if len(files) == 0 {
		t.Fatal("no files to go on with")
	}
	pdfID := files[7]["id"].(string)
	pngID := files[0]["id"].(string)

	t.Run("Get", func(t *testing.T) {
		res := app.Do("GET", prefix+"/file/"+pdfID, w.reader.Token, nil)
		if res.Status != 200 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		f := res.JSON(t)
		wantFileFields(t, f)
		if f["id"] != pdfID || f["farm_id"] != w.farm.String() || fmt.Sprint(f["record_ids"]) != "[]" {
			t.Fatalf("file = %v", f)
		}
	})
	t.Run("Content", func(t *testing.T) {
		res := app.Do("GET", prefix+"/file/"+pdfID+"/content", w.reader.Token, nil)
		if res.Status != 200 || !bytes.Equal(res.Body, pdf) {
			t.Fatalf("status %d, %d bytes", res.Status, len(res.Body))
		}
		h := res.Header
		if h.Get("Content-Type") != "application/pdf" || h.Get("Content-Length") != "3000" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("headers %v", h)
		}
		_, params, err := mime.ParseMediaType(h.Get("Content-Disposition"))
		if err != nil || !strings.HasPrefix(h.Get("Content-Disposition"), "attachment;") || params["filename"] != "Kälber ü.pdf" {
			t.Fatalf("Content-Disposition %q: %v %v", h.Get("Content-Disposition"), params, err)
		}
		if !strings.Contains(h.Get("Content-Disposition"), `filename="K_lber _.pdf"`) {
			t.Fatalf("no ASCII fallback: %q", h.Get("Content-Disposition"))
		}
		img := app.Do("GET", prefix+"/file/"+pngID+"/content", w.reader.Token, nil)
		if img.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(img.Header.Get("Content-Disposition"), "inline;") {
			t.Fatalf("image headers %v", img.Header)
		}
		csv := app.Do("GET", prefix+"/file/"+files[9]["id"].(string)+"/content", w.reader.Token, nil)
		if csv.Header.Get("Content-Type") != "text/csv; charset=utf-8" || !bytes.Equal(csv.Body, sampleCSV) {
			t.Fatalf("csv: %v %q", csv.Header, csv.Body)
		}
	})
	t.Run("Range", func(t *testing.T) {
		path := prefix + "/file/" + pdfID + "/content"
		res := app.Do("GET", path, w.reader.Token, nil, "Range", "bytes=100-199")
		if res.Status != http.StatusPartialContent || !bytes.Equal(res.Body, pdf[100:200]) {
			t.Fatalf("status %d, body %q", res.Status, res.Body)
		}
		if res.Header.Get("Content-Range") != "bytes 100-199/3000" || res.Header.Get("Content-Length") != "100" || res.Header.Get("Content-Type") != "application/pdf" {
			t.Fatalf("headers %v", res.Header)
		}
		res = app.Do("GET", path, w.reader.Token, nil, "Range", "bytes=-10")
		if res.Status != 206 || !bytes.Equal(res.Body, pdf[2990:]) {
			t.Fatalf("suffix range: %d %q", res.Status, res.Body)
		}
		res = app.Do("GET", path, w.reader.Token, nil, "Range", "bytes=0-1,2990-2991")
		if res.Status != 206 || !strings.HasPrefix(res.Header.Get("Content-Type"), "multipart/byteranges") ||
			!bytes.Contains(res.Body, pdf[:2]) || !bytes.Contains(res.Body, pdf[2990:2992]) {
			t.Fatalf("multi range: %d %v", res.Status, res.Header)
		}
		if res := app.Do("GET", path, w.reader.Token, nil, "Range", "bytes=5000-"); res.Status != http.StatusRequestedRangeNotSatisfiable {
			t.Fatalf("unsatisfiable range: %d", res.Status)
		}
		etag := app.Do("GET", path, w.reader.Token, nil).Header.Get("ETag")
		if res := app.Do("GET", path, w.reader.Token, nil, "If-None-Match", etag); etag == "" || res.Status != http.StatusNotModified {
			t.Fatalf("If-None-Match %q: %d", etag, res.Status)
		}
		if res := app.Do("GET", path, w.reader.Token, nil, "Range", "bytes=0-9", "If-Range", `"stale"`); res.Status != 200 || len(res.Body) != 3000 {
			t.Fatalf("If-Range with another validator: %d, %d bytes", res.Status, len(res.Body))
		}
	})
	t.Run("List", func(t *testing.T) {
		res := app.Do("GET", prefix+"/file?farm_id="+w.farm.String()+"&take=3&skip=1", w.reader.Token, nil)
		if res.Status != 200 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		body := res.JSON(t)
		list := body["files"].([]any)
		if body["total"].(float64) < float64(len(files)) || len(list) != 3 {
			t.Fatalf("total %v, %d files", body["total"], len(list))
		}
		for _, f := range list {
			wantFileFields(t, f.(map[string]any))
		}
		all := app.Do("GET", prefix+"/file?farm_id="+w.farm.String(), w.reader.Token, nil).JSON(t)["files"].([]any)
		if all[1].(map[string]any)["id"] != list[0].(map[string]any)["id"] {
			t.Fatal("skip=1 does not start at the second file")
		}
	})
	t.Run("AttachDetach", func(t *testing.T) {
		r1, r2 := w.mustRecord(t, w.owner, w.farm), w.mustRecord(t, w.owner, w.farm)
		path := prefix + "/file/" + pngID + "/associations"
		res := app.Do("POST", path, w.editor.Token, map[string]any{"record_ids": []string{r1.String(), r2.String(), r1.String()}})
		if res.Status != 200 {
			t.Fatalf("attach: %d %s", res.Status, res.Body)
		}
		if got := fmt.Sprint(res.JSON(t)["record_ids"]); got != fmt.Sprint([]string{r1.String(), r2.String()}) {
			t.Fatalf("record_ids %s", got)
		}
		// Attaching again changes nothing.
		if res := app.Do("POST", path, w.editor.Token, map[string]any{"record_ids": []string{r1.String()}}); res.Status != 200 || len(res.JSON(t)["record_ids"].([]any)) != 2 {
			t.Fatalf("re-attach: %d %s", res.Status, res.Body)
		}
		recFiles := func(rec uuid.UUID) []string {
			res := app.Do("GET", prefix+"/farm/"+w.farm.String()+"/records/"+rec.String(), w.reader.Token, nil)
			if res.Status != 200 {
				t.Fatalf("record read: %d %s", res.Status, res.Body)
			}
			var ids []string
			for _, f := range res.JSON(t)["files"].([]any) {
				fm := f.(map[string]any)
				wantFileFields(t, fm)
				ids = append(ids, fm["id"].(string))
			}
			return ids
		}
		if got := recFiles(r1); fmt.Sprint(got) != fmt.Sprint([]string{pngID}) {
			t.Fatalf("record files after attach: %v", got)
		}
		// Detach removes only what is named.
		res = app.Do("DELETE", path, w.editor.Token, map[string]any{"record_ids": []string{r1.String(), uuid.NewString()}})
		if res.Status != 200 || fmt.Sprint(res.JSON(t)["record_ids"]) != fmt.Sprint([]string{r2.String()}) {
			t.Fatalf("detach: %d %s", res.Status, res.Body)
		}
		if got := recFiles(r1); len(got) != 0 {
			t.Fatalf("record files after detach: %v", got)
		}
		if got := recFiles(r2); fmt.Sprint(got) != fmt.Sprint([]string{pngID}) {
			t.Fatalf("the other record lost its file: %v", got)
		}
		records := app.Do("GET", prefix+"/farm/"+w.farm.String()+"/records?take=500", w.reader.Token, nil).JSON(t)["records"].([]any)
		found := false
		for _, r := range records {
			rm := r.(map[string]any)
			if rm["id"] == r2.String() {
				found = len(rm["files"].([]any)) == 1
			}
		}
		if !found {
			t.Fatal("the record list does not show the attached file")
		}
	})
	t.Run("UploadWithRecord", func(t *testing.T) {
		res := w.upload(t, prefix, w.editor.Token, field("farm_id", w.farm.String()), field("record_id", w.rec.String()), fileP("note.csv", sampleCSV))
		if res.Status != 201 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		id := res.JSON(t)["files"].([]any)[0].(map[string]any)["id"].(string)
		got := app.Do("GET", prefix+"/file/"+id, w.reader.Token, nil).JSON(t)["record_ids"]
		if fmt.Sprint(got) != fmt.Sprint([]string{w.rec.String()}) {
			t.Fatalf("record_ids = %v", got)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		r := w.mustRecord(t, w.owner, w.farm)
		f := w.mustUpload(t, prefix, fileP("gone.json", []byte(`[1, 2, 3]`)))[0]
		id := f["id"].(string)
		if res := app.Do("POST", prefix+"/file/"+id+"/associations", w.owner.Token, map[string]any{"record_ids": []string{r.String()}}); res.Status != 200 {
			t.Fatalf("attach: %d %s", res.Status, res.Body)
		}
		before := app.Do("GET", prefix+"/file?farm_id="+w.farm.String(), w.reader.Token, nil).JSON(t)["total"].(float64)
		if res := app.Do("DELETE", prefix+"/file/"+id, w.editor.Token, nil); res.Status != http.StatusNoContent || len(res.Body) != 0 {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		for _, p := range []string{"/file/" + id, "/file/" + id + "/content"} {
			herdbooktest.WantEnvelope(t, app.Do("GET", prefix+p, w.owner.Token, nil), 404, "ServiceError", "not found")
		}
		herdbooktest.WantEnvelope(t, app.Do("DELETE", prefix+"/file/"+id, w.editor.Token, nil), 404, "ServiceError", "not found")
		after := app.Do("GET", prefix+"/file?farm_id="+w.farm.String(), w.reader.Token, nil).JSON(t)["total"].(float64)
		if after != before-1 {
			t.Fatalf("total %v after delete, was %v", after, before)
		}
		rec := app.Do("GET", prefix+"/farm/"+w.farm.String()+"/records/"+r.String(), w.reader.Token, nil).JSON(t)
		if n := len(rec["files"].([]any)); n != 0 {
			t.Fatalf("a deleted file is still listed on its record: %v", rec["files"])
		}
		// Soft delete: the row and the bytes stay until the purge.
		row, err := w.d.Client.File.Get(herdbook.IncludeInactive(context.Background()), uuid.MustParse(id))
		if err != nil || row.IsActive || row.DeletedAt == nil {
			t.Fatalf("row after delete: %+v, %v", row, err)
		}
		if _, err := app.Blobs.Stat(context.Background(), row.StorageKey); err != nil {
			t.Fatalf("the blob went at once: %v", err)
		}
	})
	t.Run("Access", func(t *testing.T) {
		otherFile := func() string {
			res := w.upload(t, prefix, w.stranger.Token, field("farm_id", w.otherFarm.String()), fileP("theirs.png", samplePNG(t)))
			if res.Status != 201 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			return res.JSON(t)["files"].([]any)[0].(map[string]any)["id"].(string)
		}()
		body := map[string]any{"record_ids": []string{w.rec.String()}}
		ops := []struct {
			name, method, path string
			body               any
			write              bool
		}{
			{"List", "GET", "/file?farm_id=" + w.farm.String(), nil, false},
			{"Get", "GET", "/file/" + pdfID, nil, false},
			{"Content", "GET", "/file/" + pdfID + "/content", nil, false},
			{"Attach", "POST", "/file/" + pdfID + "/associations", body, true},
			{"Detach", "DELETE", "/file/" + pdfID + "/associations", body, true},
			{"Delete", "DELETE", "/file/" + pngID, nil, true},
		}
		for _, op := range ops {
			t.Run(op.name, func(t *testing.T) {
				herdbooktest.WantEnvelope(t, app.Do(op.method, prefix+op.path, "", op.body), 401, "Unauthorized", "authentication")
				herdbooktest.WantEnvelope(t, app.Do(op.method, prefix+op.path, "not-a-token", op.body), 401, "Unauthorized", "")
				scopeless := w.noRd
				if op.write {
					scopeless = w.noWrite
				}
				herdbooktest.WantEnvelope(t, app.Do(op.method, prefix+op.path, scopeless.Token, op.body), 403, "ForbiddenError", "scope")
				herdbooktest.WantEnvelope(t, app.Do(op.method, prefix+op.path, w.stranger.Token, op.body), 404, "ServiceError", "not found")
				if op.write {
					herdbooktest.WantEnvelope(t, app.Do(op.method, prefix+op.path, w.reader.Token, op.body), 401, "Unauthorized", "EDITOR")
				}
			})
		}
		t.Run("OtherFarmsFile", func(t *testing.T) {
			for _, op := range []struct{ method, path string }{
				{"GET", "/file/" + otherFile}, {"GET", "/file/" + otherFile + "/content"}, {"DELETE", "/file/" + otherFile},
			} {
				herdbooktest.WantEnvelope(t, app.Do(op.method, prefix+op.path, w.owner.Token, nil), 404, "ServiceError", "file "+otherFile+" not found")
			}
			herdbooktest.WantEnvelope(t, app.Do("POST", prefix+"/file/"+otherFile+"/associations", w.owner.Token, body), 404, "ServiceError", "not found")
		})
		t.Run("UnknownFile", func(t *testing.T) {
			unknown := uuid.NewString()
			for _, p := range []string{"/file/" + unknown, "/file/" + unknown + "/content"} {
				herdbooktest.WantEnvelope(t, app.Do("GET", prefix+p, w.owner.Token, nil), 404, "ServiceError", "not found")
			}
			herdbooktest.WantEnvelope(t, app.Do("GET", prefix+"/file/not-a-uuid", w.owner.Token, nil), 400, "ValidationError", "file_id")
			herdbooktest.WantEnvelope(t, app.Do("GET", prefix+"/file/not-a-uuid", "", nil), 401, "Unauthorized", "")
		})
		t.Run("ListErrors", func(t *testing.T) {
			herdbooktest.WantEnvelope(t, app.Do("GET", prefix+"/file", w.owner.Token, nil), 400, "ValidationError", "farm_id: is required")
			herdbooktest.WantEnvelope(t, app.Do("GET", prefix+"/file?farm_id=nope", w.owner.Token, nil), 400, "ValidationError", "farm_id: must be a UUID")
			herdbooktest.WantEnvelope(t, app.Do("GET", prefix+"/file?farm_id="+w.otherFarm.String(), w.owner.Token, nil), 404, "ServiceError", "not found")
			herdbooktest.WantEnvelope(t, app.Do("GET", prefix+"/file?farm_id="+w.farm.String()+"&take=-1", w.owner.Token, nil), 400, "ValidationError", "take")
		})
		t.Run("AssociationErrors", func(t *testing.T) {
			path := prefix + "/file/" + pdfID + "/associations"
			for name, c := range map[string]struct {
				body any
				want string
			}{
				"OtherFarmsRecord": {map[string]any{"record_ids": []string{w.rec.String(), w.otherRec.String()}}, `record_ids[1]: no active record`},
				"UnknownRecord":    {map[string]any{"record_ids": []string{uuid.NewString()}}, `record_ids[0]: no active record`},
				"BadID":            {map[string]any{"record_ids": []string{"nope"}}, `record_ids[0]: must be a UUID`},
				"Empty":            {map[string]any{"record_ids": []string{}}, `record_ids: must name at least one record`},
				"Missing":          {map[string]any{}, `record_ids: is required`},
				"UnknownField":     {map[string]any{"record_ids": []string{w.rec.String()}, "file_ids": []string{}}, `file_ids: is not a known field`},
				"NotJSON":          {"record_ids=1", "malformed JSON"},
			} {
				t.Run(name, func(t *testing.T) {
					herdbooktest.WantEnvelope(t, app.Do("POST", path, w.owner.Token, c.body), 400, "ValidationError", c.want)
				})
			}
			// Nothing was attached by the refused requests.
			if ids := app.Do("GET", prefix+"/file/"+pdfID, w.owner.Token, nil).JSON(t)["record_ids"].([]any); len(ids) != 0 {
				t.Fatalf("record_ids %v", ids)
			}
		})
	})
	t.Run("UploadErrors", func(t *testing.T) { testUploadErrors(t, w, prefix) })
}

func testUploadErrors(t *testing.T, w *fileWorld, prefix string) {
	farm := field("farm_id", w.farm.String())
	png := samplePNG(t)
	elevenPNGs := []upPart{farm}
	for i := range 11 {
		elevenPNGs = append(elevenPNGs, fileP(fmt.Sprintf("p%d.png", i), png))
	}
	big := samplePDF(6 << 20)
	cases := []struct {
		name   string
		token  string
		parts  []upPart
		status int
		errMsg string
	}{
		{"ErrElevenFiles", w.owner.Token, elevenPNGs, 400, "files: at most 10 files per request"},
		{"ErrPDFTooLarge", w.owner.Token, []upPart{farm, fileP("big.pdf", big)}, 400, `files[0] "big.pdf": is larger than 5 MB, the limit for documents`},
		{"ErrWindowsExecutable", w.owner.Token, []upPart{farm, fileP("x.png", append([]byte("MZ\x90\x00\x03\x00\x00\x00"), bytes.Repeat([]byte{0}, 600)...))}, 400, `files[0] "x.png": content is a Windows executable`},
		{"ErrELF", w.owner.Token, []upPart{farm, fileP("cow.png", append([]byte("\x7fELF\x02\x01\x01"), bytes.Repeat([]byte{1}, 100)...))}, 400, `files[0] "cow.png": content is an ELF executable`},
		{"ErrHTML", w.owner.Token, []upPart{farm, fileP("page.csv", []byte("<!DOCTYPE html><html><script>alert(1)</script></html>"))}, 400, "content is text/html"},
		{"ErrZip", w.owner.Token, []upPart{farm, fileP("a.pdf", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"))}, 400, "content is application/zip"},
		{"ErrHEIC", w.owner.Token, []upPart{farm, fileP("a.mp4", isoMedia("heic", 100, "mif1", "heic"))}, 400, "HEIF or AVIF image"},
		{"ErrBadJSON", w.owner.Token, []upPart{farm, fileP("a.json", []byte(`{"a": [1, 2}`))}, 400, `files[0] "a.json": is not valid JSON`},
		{"ErrTruncatedJSON", w.owner.Token, []upPart{farm, fileP("a.json", []byte(`{"a": [1, 2]`))}, 400, "is not valid JSON"},
		{"ErrTwoJSONValues", w.owner.Token, []upPart{farm, fileP("a.json", []byte(`{} {}`))}, 400, "more than one value"},
		{"ErrBinaryAfterTextStart", w.owner.Token, []upPart{farm, fileP("a.csv", append(bytes.Repeat([]byte("a,b\n"), 200), 0, 1, 2))}, 400, "control byte 0x00"},
		{"ErrNotUTF8", w.owner.Token, []upPart{farm, fileP("a.csv", append(bytes.Repeat([]byte("a,b\n"), 200), 0xff, 0xfe))}, 400, "is not UTF-8"},
		{"ErrBadCSVQuotes", w.owner.Token, []upPart{farm, fileP("a.csv", []byte("a,b\n\"open,quote\n"))}, 400, "is not valid CSV"},
		{"ErrEmptyFile", w.owner.Token, []upPart{farm, fileP("empty.png", nil)}, 400, `files[0] "empty.png": is empty`},
		{"ErrNoFileName", w.owner.Token, []upPart{farm, {field: "files", body: png}}, 400, "needs a file name"},
		{"ErrMissingFarmID", w.owner.Token, []upPart{fileP("a.png", png)}, 400, "farm_id: is required"},
		{"ErrBadFarmID", w.owner.Token, []upPart{field("farm_id", "nope"), fileP("a.png", png)}, 400, "farm_id: must be a UUID"},
		{"ErrFarmIDAfterFiles", w.owner.Token, []upPart{fileP("a.png", png), farm}, 400, "farm_id: is required, as a form field before the files"},
		{"ErrRecordIDAfterFiles", w.owner.Token, []upPart{farm, fileP("a.png", png), field("record_id", w.rec.String())}, 400, "record_id: must come before the files"},
		{"ErrUnknownField", w.owner.Token, []upPart{farm, field("title", "x"), fileP("a.png", png)}, 400, "title: is not a known field"},
		{"ErrWrongFileField", w.owner.Token, []upPart{farm, {field: "file", filename: "a.png", body: png}}, 400, "file: is not a known field"},
		{"ErrNoFiles", w.owner.Token, []upPart{farm}, 400, "files: at least one file is required"},
		{"ErrOtherFarmsRecord", w.owner.Token, []upPart{farm, field("record_id", w.otherRec.String()), fileP("a.png", png)}, 400, "record_id: no active record"},
		{"ErrOtherFarm", w.owner.Token, []upPart{field("farm_id", w.otherFarm.String()), fileP("a.png", png)}, 404, "not found"},
		{"ErrUnknownFarm", w.owner.Token, []upPart{field("farm_id", uuid.NewString()), fileP("a.png", png)}, 404, "not found"},
		{"ErrNoAuth", "", []upPart{farm, fileP("a.png", png)}, 401, "authentication required"},
		{"ErrNoAuthMalformed", "", []upPart{fileP("a.png", png)}, 401, "authentication required"},
		{"ErrMissingScope", w.noWrite.Token, []upPart{farm, fileP("a.png", png)}, 403, "write:records"},
		{"ErrReaderWrites", w.reader.Token, []upPart{farm, fileP("a.png", png)}, 401, "EDITOR"},
		// A good file next to bad ones: every bad one is named, and the good one is not kept.
		{"ErrSomeBad", w.owner.Token, []upPart{farm, fileP("ok.png", png), fileP("bad.json", []byte("{")), fileP("ok.csv", sampleCSV), fileP("evil.gif", []byte("MZ"))}, 400, `files[1] "bad.json": is not valid JSON`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows, blobs := w.rows(t), w.count(t)
			res := w.upload(t, prefix, c.token, c.parts...)
			name := map[int]string{400: "ValidationError", 401: "Unauthorized", 403: "ForbiddenError", 404: "ServiceError"}[c.status]
			herdbooktest.WantEnvelope(t, res, c.status, name, c.errMsg)
			w.wantNothingStored(t, rows, blobs)
		})
	}
	t.Run("ErrSomeBadListsEach", func(t *testing.T) {
		res := w.upload(t, prefix, w.owner.Token, farm, fileP("ok.png", png), fileP("bad.json", []byte("{")), fileP("evil.gif", []byte("MZ")))
		herdbooktest.WantEnvelope(t, res, 400, "ValidationError", `files[2] "evil.gif": content is a Windows executable`)
		if n := len(res.JSON(t)["errors"].([]any)); n != 2 {
			t.Fatalf("%d errors, want 2: %s", n, res.Body)
		}
	})
	t.Run("ErrMalformedMultipart", func(t *testing.T) {
		rows, blobs := w.rows(t), w.count(t)
		body, ct := form(t, farm, fileP("a.png", png))
		for name, c := range map[string]struct {
			body []byte
			ct   string
			want string
		}{
			"NotMultipart":   {[]byte(`{"farm_id": "x"}`), "application/json", "must be multipart/form-data"},
			"NoBoundary":     {body, "multipart/form-data", "must be multipart/form-data"},
			"Truncated":      {body[:len(body)-40], ct, "malformed multipart form"},
			"WrongBoundary":  {body, "multipart/form-data; boundary=other", "malformed multipart form"},
			"GarbageHeaders": {[]byte("--b\r\nno colon here\r\n\r\nx\r\n--b--\r\n"), "multipart/form-data; boundary=b", "malformed multipart form"},
		} {
			t.Run(name, func(t *testing.T) {
				res := w.app.Do("POST", prefix+"/file", w.owner.Token, c.body, "Content-Type", c.ct)
				herdbooktest.WantEnvelope(t, res, 400, "ValidationError", c.want)
			})
		}
		w.wantNothingStored(t, rows, blobs)
	})
}

// TestFileListQueryCount proves the file list costs the same number of queries for 5 files
// as for 50.
func TestFileListQueryCount(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		u := app.MustUser()
		f := app.MustFarm(u, "Counted")
		seedFiles(t, d, f.ID, 50)
		counts := map[int]int64{}
		for _, n := range []int{5, 50} {
			counts[n] = app.Queries(func() {
				res := app.Do("GET", fmt.Sprintf("/v1/file?farm_id=%s&take=%d", f.ID, n), u.Token, nil)
				if got := len(res.JSON(t)["files"].([]any)); got != n {
					t.Fatalf("%d files, want %d", got, n)
				}
			})
		}
		if counts[5] != counts[50] {
			t.Fatalf("queries grow with the page: %v", counts)
		}
		t.Logf("file list: %d queries for any page size", counts[50])
	})
}

// seedFiles writes n file rows straight to the database (no bytes): lists do not read them.
func seedFiles(t testing.TB, d *db.DB, farmID uuid.UUID, n int) {
	t.Helper()
	herdbooktest.InTx(t, d.Client, func(ctx context.Context, c *ent.Client) error {
		for i := range n {
			id := uuid.New()
			if err := c.File.Create().SetID(id).SetFarmID(farmID).SetName(fmt.Sprintf("f%03d.png", i)).
				SetMimeType("image/png").SetSize(100).SetStorageKey("files/" + farmID.String() + "/" + id.String()).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func BenchmarkFileListREST(b *testing.B) {
	for _, dia := range herdbooktest.Dialects() {
		b.Run(dia, func(b *testing.B) {
			app := herdbooktest.NewApp(b, herdbooktest.MustDB(b, dia))
			u := app.MustUser()
			f := app.MustFarm(u, "Bench")
			seedFiles(b, app.DB, f.ID, 200)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := app.Do("GET", "/v1/file?farm_id="+f.ID.String()+"&take=50", u.Token, nil); res.Status != 200 {
					b.Fatal(res.Status)
				}
			}
		})
	}
}

// videoReader yields an MP4 of exactly size bytes without holding it: an ftyp box, then
// filler made on the fly.
type videoReader struct {
	head []byte
	size int64
	off  int64
}

func newVideoReader(size int64) *videoReader {
	return &videoReader{head: isoMedia("isom", 0, "isom", "mp42"), size: size}
}

func (v *videoReader) Read(p []byte) (int, error) {
	if v.off >= v.size {
		return 0, io.EOF
	}
	if rest := v.size - v.off; int64(len(p)) > rest {
		p = p[:rest]
	}
	for i := range p {
		if pos := v.off + int64(i); pos < int64(len(v.head)) {
			p[i] = v.head[pos]
		} else {
			p[i] = byte(pos * 31)
		}
	}
	v.off += int64(len(p))
	return len(p), nil
}

// streamUpload posts one generated video as a chunked multipart body, never whole in memory.
func streamUpload(t testing.TB, app *herdbooktest.App, token string, farmID uuid.UUID, size int64) (int, []byte) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := mw.WriteField("farm_id", farmID.String())
		if err == nil {
			var fw io.Writer
			if fw, err = mw.CreateFormFile("files", "birth.mp4"); err == nil {
				_, err = io.Copy(fw, newVideoReader(size))
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequest("POST", app.URL+"/v1/file", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := app.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, body
}

// TestUploadMemoryStaysFlat uploads a 100 MB video, the largest file the API takes, and
// proves the server streams it: the heap in use never grows by more than a small fraction of
// the file, and the whole request allocates far less than the file's size. It runs on its own
// (not in parallel) so that other tests do not blur the measurement.
func TestUploadMemoryStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 100 MB")
	}
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	u := app.MustUser()
	f := app.MustFarm(u, "Big Files")
	const size = herdbook.MaxVideoSize
	const budget = 20 << 20

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var (
		peak atomic.Uint64
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	status, body := streamUpload(t, app, u.Token, f.ID, size)
	close(stop)
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if status != http.StatusCreated {
		t.Fatalf("status %d: %s", status, body)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	growth := int64(peak.Load()) - int64(before.HeapInuse)
	t.Logf("100 MB upload: heap in use grew by at most %.1f MB, %.1f MB allocated in all", float64(growth)/(1<<20), float64(allocated)/(1<<20))
	if growth > budget || allocated > budget {
		t.Fatalf("the upload is not streamed: heap growth %d bytes, allocated %d bytes (budget %d)", growth, allocated, budget)
	}
	// The stored file is whole.
	var answer struct{ Files []map[string]any }
	if err := json.Unmarshal(body, &answer); err != nil || len(answer.Files) != 1 || answer.Files[0]["size"] != float64(size) || answer.Files[0]["mime_type"] != "video/mp4" {
		t.Fatalf("answer %s: %v", body, err)
	}
	// One byte more is refused, and leaves nothing behind.
	status, body = streamUpload(t, app, u.Token, f.ID, size+1)
	if status != 400 || !bytes.Contains(body, []byte("is larger than 100 MB, the limit for videos")) {
		t.Fatalf("over the limit: %d %s", status, body)
	}
	if n := localCounter(app.Blobs.(*blob.Local).Dir())(t); n != 1 {
		t.Fatalf("%d blobs stored, want 1", n)
	}
}

// TestFileContentCORS checks that a browser on the web origin may ask for byte ranges and read
// the headers that describe them, as a player or PDF viewer does.
func TestFileContentCORS(t *testing.T) {
	t.Parallel()
	const origin = "https://app.herdbook.example"
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"), herdbooktest.Options{WebOrigin: origin})
	u := app.MustUser()
	f := app.MustFarm(u, "CORS Farm")
	body, ct := form(t, field("farm_id", f.ID.String()), fileP("a.pdf", samplePDF(500)))
	res := app.Do("POST", "/v1/file", u.Token, body, "Content-Type", ct)
	if res.Status != 201 {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	path := "/v1/file/" + res.JSON(t)["files"].([]any)[0].(map[string]any)["id"].(string) + "/content"
	send := func(method string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, app.URL+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		r, err := app.Server.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r
	}
	// Browsers send the requested headers lowercase and sorted.
	pre := send("OPTIONS", "Origin", origin, "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "authorization,if-none-match,range")
	if pre.StatusCode >= 300 || pre.Header.Get("Access-Control-Allow-Origin") != origin || !strings.Contains(strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers")), "range") {
		t.Fatalf("preflight: %d %v", pre.StatusCode, pre.Header)
	}
	got := send("GET", "Origin", origin, "Authorization", "Bearer "+u.Token, "Range", "bytes=0-9")
	exposed := strings.ToLower(got.Header.Get("Access-Control-Expose-Headers"))
	if got.StatusCode != 206 || !strings.Contains(exposed, "content-range") || !strings.Contains(exposed, "content-disposition") || !strings.Contains(exposed, "etag") {
		t.Fatalf("ranged GET: %d, exposed %q", got.StatusCode, exposed)
	}
}
