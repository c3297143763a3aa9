package blob_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/herdbook/herdbook/internal/blob"
)

// fakeS3 starts an in-memory S3 server and returns a store over one of its buckets.
func fakeS3(t testing.TB) *blob.S3 {
	s, _ := fakeS3Server(t)
	return s
}

// fakeS3Server is fakeS3 that also returns the server's host:port.
func fakeS3Server(t testing.TB) (*blob.S3, string) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("herdbook"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	s, err := blob.NewS3(blob.S3Options{
		Endpoint: u.Host, Bucket: "herdbook", Region: "us-east-1", Prefix: "test/", Insecure: true, PathStyle: true,
		AccessKey: "key", SecretKey: "secret", PartSize: 5 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, u.Host
}

func localStore(t testing.TB) *blob.Local {
	t.Helper()
	s, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stores lists every implementation the shared suite runs against.
func stores(t *testing.T) map[string]blob.Store {
	return map[string]blob.Store{"local": localStore(t), "s3": fakeS3(t)}
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func get(t *testing.T, s blob.Store, key string, off, n int64) []byte {
	t.Helper()
	rc, err := s.Get(context.Background(), key, off, n)
	if err != nil {
		t.Fatalf("get %s [%d,+%d]: %v", key, off, n, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantMissing(t *testing.T, s blob.Store, key string) {
	t.Helper()
	if _, err := s.Stat(context.Background(), key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("stat %s: %v, want ErrNotFound", key, err)
	}
	if _, err := s.Get(context.Background(), key, 0, -1); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("get %s: %v, want ErrNotFound", key, err)
	}
}

// failingReader yields n bytes of data, then fails.
type failingReader struct {
	r io.Reader
}

var errBroken = errors.New("the client went away")

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errBroken
	}
	return n, err
}

// TestStore is the one suite every Store passes.
func TestStore(t *testing.T) {
	t.Parallel()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			t.Run("PutGetStat", func(t *testing.T) {
				data := []byte("hello, herd")
				if err := s.Put(ctx, "a/b/one.txt", bytes.NewReader(data), int64(len(data)), "text/plain"); err != nil {
					t.Fatal(err)
				}
				if got := get(t, s, "a/b/one.txt", 0, -1); !bytes.Equal(got, data) {
					t.Fatalf("got %q", got)
				}
				info, err := s.Stat(ctx, "a/b/one.txt")
				if err != nil || info.Size != int64(len(data)) {
					t.Fatalf("stat = %+v, %v", info, err)
				}
			})
			t.Run("UnknownSize", func(t *testing.T) {
				data := randomBytes(100_000, 1)
				if err := s.Put(ctx, "unknown", bytes.NewReader(data), -1, "application/octet-stream"); err != nil {
					t.Fatal(err)
				}
				if got := get(t, s, "unknown", 0, -1); !bytes.Equal(got, data) {
					t.Fatal("content differs")
				}
			})
			t.Run("Empty", func(t *testing.T) {
				if err := s.Put(ctx, "empty", strings.NewReader(""), -1, ""); err != nil {
					t.Fatal(err)
				}
				if got := get(t, s, "empty", 0, -1); len(got) != 0 {
					t.Fatalf("got %q", got)
				}
			})
			t.Run("Ranges", func(t *testing.T) {
				data := []byte("0123456789")
				if err := s.Put(ctx, "ranges", bytes.NewReader(data), 10, ""); err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					off, n int64
					want   string
				}{{0, -1, "0123456789"}, {3, 4, "3456"}, {7, -1, "789"}, {8, 100, "89"}, {10, -1, ""}, {12, 3, ""}, {0, 0, ""}} {
					if got := string(get(t, s, "ranges", c.off, c.n)); got != c.want {
						t.Errorf("[%d,+%d] = %q, want %q", c.off, c.n, got, c.want)
					}
				}
			})
			t.Run("Replace", func(t *testing.T) {
				for _, v := range []string{"first", "second"} {
					if err := s.Put(ctx, "replace", strings.NewReader(v), -1, ""); err != nil {
						t.Fatal(err)
					}
				}
				if got := get(t, s, "replace", 0, -1); string(got) != "second" {
					t.Fatalf("got %q", got)
				}
			})
			t.Run("Missing", func(t *testing.T) {
				wantMissing(t, s, "no/such/blob")
			})
			t.Run("Delete", func(t *testing.T) {
				if err := s.Put(ctx, "gone", strings.NewReader("x"), 1, ""); err != nil {
					t.Fatal(err)
				}
				for range 2 { // the second delete finds nothing and still succeeds
					if err := s.Delete(ctx, "gone"); err != nil {
						t.Fatal(err)
					}
				}
				wantMissing(t, s, "gone")
			})
			t.Run("ErrReaderFails", func(t *testing.T) {
				err := s.Put(ctx, "broken", &failingReader{r: bytes.NewReader(randomBytes(1000, 2))}, -1, "")
				if !errors.Is(err, errBroken) {
					t.Fatalf("err = %v, want the reader's error", err)
				}
				wantMissing(t, s, "broken")
			})
			t.Run("ErrReaderFailsAfterParts", func(t *testing.T) {
				// Past two S3 parts, so that the multipart upload has to be aborted.
				err := s.Put(ctx, "broken-big", &failingReader{r: bytes.NewReader(randomBytes(11<<20, 3))}, -1, "")
				if !errors.Is(err, errBroken) {
					t.Fatalf("err = %v, want the reader's error", err)
				}
				wantMissing(t, s, "broken-big")
			})
			t.Run("ErrSizeMismatch", func(t *testing.T) {
				if err := s.Put(ctx, "short", strings.NewReader("abc"), 4, ""); err == nil {
					t.Fatal("a short body was accepted")
				}
				wantMissing(t, s, "short")
				if err := s.Put(ctx, "long", strings.NewReader("abcde"), 4, ""); err == nil {
					t.Fatal("a long body was accepted")
				}
				wantMissing(t, s, "long")
			})
			t.Run("ErrContextCanceled", func(t *testing.T) {
				cctx, cancel := context.WithCancel(ctx)
				cancel()
				if err := s.Put(cctx, "canceled", bytes.NewReader(randomBytes(1000, 4)), -1, ""); err == nil {
					t.Fatal("a canceled put succeeded")
				}
				wantMissing(t, s, "canceled")
			})
			t.Run("Multipart", func(t *testing.T) {
				// Sizes around the 5 MiB part: under, exactly one, exactly two, two and a bit.
				for i, n := range []int{5<<20 - 1, 5 << 20, 10 << 20, 10<<20 + 3} {
					data := randomBytes(n, uint64(10+i))
					key := fmt.Sprintf("multi/%d", n)
					size := int64(n)
					if i%2 == 1 {
						size = -1
					}
					if err := s.Put(ctx, key, bytes.NewReader(data), size, "video/mp4"); err != nil {
						t.Fatalf("%d bytes: %v", n, err)
					}
					if got := get(t, s, key, 0, -1); !bytes.Equal(got, data) {
						t.Fatalf("%d bytes: content differs (%d bytes back)", n, len(got))
					}
					if got := get(t, s, key, int64(n-10), 5); !bytes.Equal(got, data[n-10:n-5]) {
						t.Fatalf("%d bytes: range differs", n)
					}
				}
			})
			t.Run("ErrBadKeys", func(t *testing.T) {
				for _, key := range []string{"", "../escape", "/abs", "a//b", "a/./b", ".hidden", "a/../b", "sp ace", "a\\b", strings.Repeat("k", 513)} {
					if err := s.Put(ctx, key, strings.NewReader("x"), 1, ""); err == nil {
						t.Errorf("key %q was accepted", key)
					}
					if _, err := s.Get(ctx, key, 0, -1); err == nil || errors.Is(err, blob.ErrNotFound) {
						t.Errorf("get of key %q: %v", key, err)
					}
				}
			})
			t.Run("ReadSeeker", func(t *testing.T) {
				data := randomBytes(70_000, 5)
				if err := s.Put(ctx, "seek", bytes.NewReader(data), -1, ""); err != nil {
					t.Fatal(err)
				}
				rs := blob.ReadSeeker(ctx, s, "seek", int64(len(data)))
				defer rs.Close()
				if end, err := rs.Seek(0, io.SeekEnd); err != nil || end != int64(len(data)) {
					t.Fatalf("seek end = %d, %v", end, err)
				}
				if _, err := rs.Seek(60_000, io.SeekStart); err != nil {
					t.Fatal(err)
				}
				part := make([]byte, 100)
				if _, err := io.ReadFull(rs, part); err != nil || !bytes.Equal(part, data[60_000:60_100]) {
					t.Fatalf("read after seek: %v", err)
				}
				if _, err := rs.Seek(-50, io.SeekEnd); err != nil {
					t.Fatal(err)
				}
				rest, err := io.ReadAll(rs)
				if err != nil || !bytes.Equal(rest, data[len(data)-50:]) {
					t.Fatalf("tail: %d bytes, %v", len(rest), err)
				}
			})
		})
	}
}

// TestS3AbortsFailedUploads looks into the bucket with a separate client: a multipart
// upload that failed half way must not linger (S3 bills for the parts of unfinished uploads).
func TestS3AbortsFailedUploads(t *testing.T) {
	t.Parallel()
	s, host := fakeS3Server(t)
	ctx := context.Background()
	if err := s.Put(ctx, "half", &failingReader{r: bytes.NewReader(randomBytes(12<<20, 6))}, -1, ""); !errors.Is(err, errBroken) {
		t.Fatalf("err = %v", err)
	}
	c, err := minio.NewCore(host, &minio.Options{Creds: credentials.NewStaticV4("key", "secret", ""), Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	ups, err := c.ListMultipartUploads(ctx, "herdbook", "", "", "", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(ups.Uploads) != 0 {
		t.Fatalf("unfinished uploads left: %+v", ups.Uploads)
	}
	objs, err := c.ListObjectsV2("herdbook", "", "", "", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Contents) != 0 {
		t.Fatalf("objects left: %+v", objs.Contents)
	}
}

// TestLocalLeavesNoTemporaryFiles checks the temp-then-rename rule from the outside: after
// failed uploads the directory holds only the blobs that were stored.
func TestLocalLeavesNoTemporaryFiles(t *testing.T) {
	t.Parallel()
	s := localStore(t)
	ctx := context.Background()
	if err := s.Put(ctx, "farm/kept", strings.NewReader("ok"), -1, ""); err != nil {
		t.Fatal(err)
	}
	_ = s.Put(ctx, "farm/broken", &failingReader{r: strings.NewReader("partial")}, -1, "")
	_ = s.Put(ctx, "farm/short", strings.NewReader("abc"), 10, "")
	var names []string
	err := filepath.WalkDir(s.Dir(), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(s.Dir(), path)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(names) != "[farm/kept]" {
		t.Fatalf("files left: %v", names)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t.Run("DefaultLocal", func(t *testing.T) {
		s, err := blob.Open(blob.Config{Dir: filepath.Join(dir, "blobs")})
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := s.(*blob.Local); !ok || l.Dir() != filepath.Join(dir, "blobs") {
			t.Fatalf("store = %#v", s)
		}
		if _, err := os.Stat(filepath.Join(dir, "blobs")); err != nil {
			t.Fatal("the directory was not created")
		}
	})
	t.Run("FileURL", func(t *testing.T) {
		s, err := blob.Open(blob.Config{URL: "file://" + filepath.Join(dir, "other")})
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := s.(*blob.Local); !ok || l.Dir() != filepath.Join(dir, "other") {
			t.Fatalf("store = %#v", s)
		}
	})
	t.Run("S3URL", func(t *testing.T) {
		s, err := blob.Open(blob.Config{URL: "s3://bucket/some/prefix?endpoint=127.0.0.1:9000&region=eu-west-1&insecure=1&path_style=true", AccessKey: "a", SecretKey: "b"})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.(*blob.S3); !ok {
			t.Fatalf("store = %#v", s)
		}
	})
	for name, cfg := range map[string]blob.Config{
		"ErrNothing":        {},
		"ErrScheme":         {URL: "ftp://host/x"},
		"ErrRelativeFile":   {URL: "file:relative/dir"},
		"ErrNoBucket":       {URL: "s3://?endpoint=x"},
		"ErrUnknownParam":   {URL: "s3://bucket?endpont=x"},
		"ErrSecretsInURL":   {URL: "s3://key:secret@bucket"},
		"ErrBadPrefix":      {URL: "s3://bucket?prefix=../up"},
		"ErrRemoteFileHost": {URL: "file://server/share"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := blob.Open(cfg); err == nil {
				t.Fatalf("%+v was accepted", cfg)
			}
		})
	}
	t.Run("DescribeHidesSecrets", func(t *testing.T) {
		d := blob.Describe(blob.Config{URL: "s3://bucket?endpoint=x", SecretKey: "hush"})
		if strings.Contains(d, "hush") || !strings.Contains(d, "bucket") {
			t.Fatalf("Describe = %q", d)
		}
	})
}
