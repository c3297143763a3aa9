package herdbook_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	herdbook "github.com/herdbook/herdbook"
	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/internal/blob"
	"github.com/herdbook/herdbook/internal/db"
	"github.com/herdbook/herdbook/internal/herdbooktest"
)

func TestSniffFile(t *testing.T) {
	t.Parallel()
	ftyp := func(major string, compatible ...string) []byte {
		b := []byte("\x00\x00\x00\x00ftyp" + major + "\x00\x00\x00\x00" + strings.Join(compatible, ""))
		b[3] = byte(len(b))
		return append(b, "\x00\x00\x00\x08mdat"...)
	}
	for _, c := range []struct {
		name string
		head []byte
		mime string // "" when refused
		what string // what a refused file is said to be
	}{
		{"JPEG", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "image/jpeg", ""},
		{"PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "image/png", ""},
		{"GIF", []byte("GIF89a\x01\x00\x01\x00"), "image/gif", ""},
		{"WebP", []byte("RIFF\x24\x00\x00\x00WEBPVP8 "), "image/webp", ""},
		{"MP4", ftyp("isom", "isom", "avc1"), "video/mp4", ""},
		{"MP4ByCompatibleBrand", ftyp("XAVC", "XAVC", "mp42"), "video/mp4", ""},
		{"QuickTime", ftyp("qt  ", "qt  "), "video/quicktime", ""},
		{"QuickTimeWithoutFtyp", []byte("\x00\x00\x00\x08wide\x00\x00\x10\x00mdat"), "video/quicktime", ""},
		{"AVI", []byte("RIFF\x00\x10\x00\x00AVI LIST"), "video/x-msvideo", ""},
		{"PDF", []byte("%PDF-1.4\n"), "application/pdf", ""},
		{"JSONObject", []byte(" \n{\"a\": 1}"), "application/json", ""},
		{"JSONArrayWithBOM", []byte("\xef\xbb\xbf[1]"), "application/json", ""},
		{"CSV", []byte("a,b\n1,2\n"), "text/csv", ""},
		{"ErrHEIC", ftyp("heic", "mif1", "heic"), "", "HEIF or AVIF image"},
		{"ErrUnknownISOBrand", ftyp("abcd", "efgh"), "", `brand "abcd"`},
		{"ErrWave", []byte("RIFF\x00\x10\x00\x00WAVEfmt "), "", "WAVE audio"},
		{"ErrWindowsExecutable", []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00"), "", "Windows executable"},
		{"ErrELF", []byte("\x7fELF\x02\x01\x01\x00"), "", "ELF executable"},
		{"ErrMachO", []byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01"), "", "Mach-O"},
		{"ErrScript", []byte("#!/bin/sh\nrm -rf /\n"), "", "a script"},
		{"ErrHTML", []byte("<html><body>hi</body></html>"), "", "text/html"},
		{"ErrZip", []byte("PK\x03\x04\x14\x00"), "", "application/zip"},
		{"ErrBinary", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, "", "unrecognised binary"},
		{"ErrUTF16", []byte("\xff\xfea\x00,\x00b\x00"), "", "not UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			typ, what, ok := herdbook.SniffFile(c.head)
			if ok != (c.mime != "") || typ.MIME != c.mime || !strings.Contains(what, c.what) {
				t.Fatalf("SniffFile = %q, %q, %v; want %q, %q", typ.MIME, what, ok, c.mime, c.what)
			}
		})
	}
}

// TestFileTypeLimits pins SPEC.md's per-class limits.
func TestFileTypeLimits(t *testing.T) {
	t.Parallel()
	want := map[string]int64{"images": 10 << 20, "videos": 100 << 20, "documents": 5 << 20}
	if len(herdbook.FileTypes) != 10 {
		t.Fatalf("%d types, want 10", len(herdbook.FileTypes))
	}
	for _, ft := range herdbook.FileTypes {
		if ft.Limit != want[ft.Class] {
			t.Errorf("%s: limit %d, want %d", ft.MIME, ft.Limit, want[ft.Class])
		}
	}
}

// fakeForm is an UploadForm over prepared parts; a part's body may fail half way.
type fakeForm struct {
	parts []*herdbook.UploadPart
	i     int
}

func (f *fakeForm) NextPart() (*herdbook.UploadPart, error) {
	if f.i == len(f.parts) {
		return nil, io.EOF
	}
	f.i++
	return f.parts[f.i-1], nil
}

func textPart(field, value string) *herdbook.UploadPart {
	return &herdbook.UploadPart{Field: field, Body: strings.NewReader(value)}
}

func filePart(name string, body io.Reader) *herdbook.UploadPart {
	return &herdbook.UploadPart{Field: "files", FileName: name, Body: body}
}

// brokenBody yields its data, then the error a transport gives when the body breaks.
type brokenBody struct {
	r   io.Reader
	err error
}

func (b *brokenBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, b.err
	}
	return n, err
}

func countFiles(t *testing.T, d *db.DB) int {
	t.Helper()
	n, err := d.Client.File.Query().Count(herdbook.IncludeInactive(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestUploadFiles(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		farm := app.MustFarm(owner, "Upload Farm")
		ctx := app.Ctx(owner)
		pdf := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("x"), 2000)...)

		t.Run("OK", func(t *testing.T) {
			files, err := app.Service.UploadFiles(ctx, &fakeForm{parts: []*herdbook.UploadPart{
				textPart("farm_id", farm.ID.String()), filePart(`C:\scans\dir/report.pdf`, bytes.NewReader(pdf)),
			}})
			if err != nil {
				t.Fatal(err)
			}
			f := files[0]
			if f.Name != "report.pdf" || f.MimeType != "application/pdf" || f.Size != int64(len(pdf)) || f.FarmID != farm.ID {
				t.Fatalf("file = %+v", f)
			}
			if f.StorageKey != "files/"+farm.ID.String()+"/"+f.ID.String() {
				t.Fatalf("storage key %q", f.StorageKey)
			}
			info, err := app.Blobs.Stat(context.Background(), f.StorageKey)
			if err != nil || info.Size != int64(len(pdf)) {
				t.Fatalf("blob: %+v, %v", info, err)
			}
		})
		t.Run("ErrBodyBreaks", func(t *testing.T) {
			// The request body fails in the second file: the first file's blob goes too.
			before := countFiles(t, d)
			broken := herdbook.Errorf(herdbook.EINVALID, "malformed multipart form")
			_, err := app.Service.UploadFiles(ctx, &fakeForm{parts: []*herdbook.UploadPart{
				textPart("farm_id", farm.ID.String()),
				filePart("a.pdf", bytes.NewReader(pdf)),
				filePart("b.pdf", &brokenBody{r: bytes.NewReader(pdf), err: broken}),
			}})
			if !errors.Is(err, broken) {
				t.Fatalf("err = %v, want the body's error", err)
			}
			if n := countFiles(t, d); n != before {
				t.Fatalf("%d rows, want %d", n, before)
			}
			wantOnlyBlobs(t, app, d)
		})
		t.Run("ErrNoStore", func(t *testing.T) {
			svc := herdbook.New(d.Client)
			_, err := svc.UploadFiles(ctx, &fakeForm{})
			if herdbook.ErrorCode(err) != herdbook.EUNAVAILABLE {
				t.Fatalf("err = %v", err)
			}
		})
		t.Run("ErrAnonymousBeforeBody", func(t *testing.T) {
			form := &fakeForm{parts: []*herdbook.UploadPart{textPart("farm_id", farm.ID.String())}}
			_, err := app.Service.UploadFiles(context.Background(), form)
			if herdbook.ErrorCode(err) != herdbook.EUNAUTHORIZED || form.i != 0 {
				t.Fatalf("err = %v after reading %d parts", err, form.i)
			}
		})
	})
}

// wantOnlyBlobs fails unless the store holds exactly the blobs of the file rows.
func wantOnlyBlobs(t *testing.T, app *herdbooktest.App, d *db.DB) {
	t.Helper()
	rows, err := d.Client.File.Query().All(herdbook.IncludeInactive(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, r := range rows {
		keys[r.StorageKey] = true
		if _, err := app.Blobs.Stat(context.Background(), r.StorageKey); err != nil {
			t.Fatalf("row %s has no blob: %v", r.ID, err)
		}
	}
	if n := len(walkLocal(t, app.Blobs.(*blob.Local))); n != len(keys) {
		t.Fatalf("%d blobs for %d rows", n, len(keys))
	}
}

func walkLocal(t *testing.T, l *blob.Local) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(l.Dir(), func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPurgeDeletedFiles moves a fake clock past the retention and checks that exactly the
// files deleted long enough ago lose their bytes, rows and associations.
func TestPurgeDeletedFiles(t *testing.T) {
	t.Parallel()
	herdbooktest.EachDB(t, func(t *testing.T, d *db.DB) {
		app := herdbooktest.NewApp(t, d)
		owner := app.MustUser()
		farm := app.MustFarm(owner, "Purge Farm")
		animal := app.MustAnimal(owner, farm.ID, "P-1")
		rec, err := app.Service.CreateRecord(app.Ctx(owner), farm.ID, herdbook.RecordInput{
			AnimalIDs: []uuid.UUID{animal.ID}, Name: "r", Type: "OTHER", AppliedAt: ptr(time.Now()),
		})
		if err != nil {
			t.Fatal(err)
		}
		var (
			mu  sync.Mutex
			now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
		svc := herdbook.New(d.Client, herdbook.WithClock(clock), herdbook.WithBlobStore(app.Blobs))
		ctx := app.Ctx(owner)

		upload := func(name string) *ent.File {
			t.Helper()
			files, err := svc.UploadFiles(ctx, &fakeForm{parts: []*herdbook.UploadPart{
				textPart("farm_id", farm.ID.String()), textPart("record_id", rec.ID.String()),
				filePart(name, strings.NewReader(`{"n": 1}`)),
			}})
			if err != nil {
				t.Fatal(err)
			}
			return files[0]
		}
		old, recent, kept := upload("old.json"), upload("recent.json"), upload("kept.json")
		if err := svc.DeleteFile(ctx, old.ID); err != nil {
			t.Fatal(err)
		}
		advance(20 * 24 * time.Hour)
		if err := svc.DeleteFile(ctx, recent.ID); err != nil {
			t.Fatal(err)
		}
		if n, err := svc.PurgeDeletedFiles(context.Background(), herdbook.DefaultFileRetention); err != nil || n != 0 {
			t.Fatalf("purged %d, %v: nothing is 30 days old yet", n, err)
		}
		advance(11 * 24 * time.Hour) // old: deleted 31 days ago; recent: 11 days ago
		n, err := svc.PurgeDeletedFiles(context.Background(), herdbook.DefaultFileRetention)
		if err != nil || n != 1 {
			t.Fatalf("purged %d, %v; want 1", n, err)
		}
		inactive := herdbook.IncludeInactive(context.Background())
		if _, err := d.Client.File.Get(inactive, old.ID); !ent.IsNotFound(err) {
			t.Fatalf("the purged row is still there: %v", err)
		}
		if _, err := app.Blobs.Stat(context.Background(), old.StorageKey); !errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("the purged blob is still there: %v", err)
		}
		for _, f := range []*ent.File{recent, kept} {
			if _, err := d.Client.File.Get(inactive, f.ID); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if _, err := app.Blobs.Stat(context.Background(), f.StorageKey); err != nil {
				t.Fatalf("%s lost its blob: %v", f.Name, err)
			}
		}
		linked, err := d.Client.Record.QueryFiles(rec).IDs(inactive)
		if err != nil || len(linked) != 2 {
			t.Fatalf("record links %v, %v; want the two unpurged files", linked, err)
		}
		// A second run finds nothing more: purging is idempotent.
		if n, err := svc.PurgeDeletedFiles(context.Background(), herdbook.DefaultFileRetention); err != nil || n != 0 {
			t.Fatalf("second run purged %d, %v", n, err)
		}

		t.Run("RunFilePurgeStopsWithItsContext", func(t *testing.T) {
			advance(30 * 24 * time.Hour) // recent is now old enough
			runCtx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				svc.RunFilePurge(runCtx, time.Hour, herdbook.DefaultFileRetention, slog.New(slog.NewTextHandler(io.Discard, nil)))
			}()
			deadline := time.Now().Add(5 * time.Second)
			for {
				if _, err := d.Client.File.Get(inactive, recent.ID); ent.IsNotFound(err) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the first run at start did not purge")
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("RunFilePurge did not stop")
			}
		})
	})
}

// TestFileTextChecks runs the whole-content checks of JSON and CSV through uploads.
func TestFileTextChecks(t *testing.T) {
	t.Parallel()
	app := herdbooktest.NewApp(t, herdbooktest.MustDB(t, "sqlite"))
	owner := app.MustUser()
	farm := app.MustFarm(owner, "Text Farm")
	big := strings.Repeat(`{"k": "`+strings.Repeat("é", 100)+`"}, `, 20_000)
	for _, c := range []struct {
		name, file, content, err string
	}{
		{"JSONNested", "a.json", `{"a": [1, {"b": null}, "x"], "c": true}`, ""},
		{"JSONLarge", "a.json", "[" + big + "1]", ""},
		{"JSONBOM", "a.json", "\ufeff[1, 2]", ""},
		{"CSVQuoted", "a.csv", "a,\"b\nc\",d\n1,2,3\n", ""},
		{"CSVRagged", "a.csv", "a,b,c\n1,2\n", ""},
		{"CSVUnicodeAcrossReads", "a.csv", strings.Repeat("Kuh,Kälber,🐄\n", 5000), ""},
		{"ErrJSONTrailingComma", "a.json", `[1, 2,]`, "is not valid JSON"},
		{"ErrJSONEndsEarly", "a.json", `{"a": `, "ends before its value"},
		{"ErrJSONControlChar", "a.json", "[\"" + strings.Repeat("a", 600) + "\x01\"]", "control byte 0x01 at byte 602"},
		{"ErrCSVBareQuote", "a.csv", "a,b\"c\n", "is not valid CSV: line 1"},
		{"ErrCSVCutCharacter", "a.csv", "a,b\nc,\xe2\x82", "ends inside a character"},
		{"ErrCSVInvalidByte", "a.csv", "a,b\nc,\xc3\x28", "invalid byte"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := app.Service.UploadFiles(app.Ctx(owner), &fakeForm{parts: []*herdbook.UploadPart{
				textPart("farm_id", farm.ID.String()), filePart(c.file, strings.NewReader(c.content)),
			}})
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if herdbook.ErrorCode(err) != herdbook.EINVALID || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err = %v, want one mentioning %q", err, c.err)
			}
		})
	}
}
