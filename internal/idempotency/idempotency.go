// Package idempotency makes writes safe to retry: a POST, PUT, PATCH or DELETE sent with an
// Idempotency-Key header runs once per user and key, and a retry with the same key and the
// same request gets the first answer again. The REST facade and the GraphQL endpoint share
// it; the rules (key format, lifetime, conflicts, waiting) live in the service layer.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"sort"
	"strings"

	herdbook "github.com/herdbook/herdbook"
)

// Header is the request header that carries the key.
const Header = "Idempotency-Key"

// ReplayedHeader marks an answer replayed from storage.
const ReplayedHeader = "Idempotent-Replayed"

// Limits of what is kept: bodies are spooled to a temporary file past memSpool, so that a
// large upload costs disk, not memory; answers larger than maxAnswer are not stored (the
// key is freed instead, and a retry runs again).
const (
	memSpool      = 1 << 20
	maxJSONBody   = 10 << 20   // SPEC's limit of every JSON request
	maxUploadBody = 1100 << 20 // ten 100 MB videos and their multipart framing
	maxAnswer     = 10 << 20
)

// Store is the part of the service the middleware needs.
type Store interface {
	BeginIdempotent(ctx context.Context, key, fingerprint string) (*herdbook.IdempotentAnswer, *herdbook.IdempotentPlace, error)
}

// Middleware runs keyed writes once. onError writes an error in the transport's own shape.
// Requests without the header, reads, and anonymous requests pass through untouched (the
// handler answers 401 to the latter).
func Middleware(store Store, onError func(http.ResponseWriter, *http.Request, error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		// A handler that knows its routes (Routable) answers a request for none of them
		// itself (404 or 405), key or no key: the key is checked after routing.
		routable := func(*http.Request) bool { return true }
		if rt, ok := next.(interface{ Routable(*http.Request) bool }); ok {
			routable = rt.Routable
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key, ok := r.Header[Header]
			if !ok || !isWrite(r.Method) || herdbook.ViewerFrom(r.Context()) == nil || !routable(r) {
				next.ServeHTTP(w, r)
				return
			}
			if len(key) != 1 {
				onError(w, r, herdbook.Invalid(herdbook.FieldError{Field: Header, Message: "must be sent once"}))
				return
			}
			limit := int64(maxJSONBody)
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); strings.HasPrefix(mt, "multipart/") {
				limit = maxUploadBody
			}
			body, err := spool(r.Body, limit)
			if err != nil {
				onError(w, r, err)
				return
			}
			defer body.Close()
			sum, err := fingerprint(r, body)
			if err != nil {
				onError(w, r, err)
				return
			}
			answer, place, err := store.BeginIdempotent(r.Context(), key[0], sum)
			if err != nil {
				onError(w, r, err)
				return
			}
			if answer != nil {
				replay(w, *answer)
				return
			}
			if _, err := body.Seek(0, io.SeekStart); err != nil {
				_ = place.Release(r.Context())
				onError(w, r, err)
				return
			}
			r.Body = body
			rec := &recorder{ResponseWriter: w}
			completed := false
			defer func() {
				if !completed { // the handler panicked: let a retry run again
					_ = place.Release(r.Context())
				}
			}()
			next.ServeHTTP(rec, r)
			completed = true
			if rec.status == 0 {
				rec.status = http.StatusOK
			}
			if !keep(rec.status) || rec.overflow {
				_ = place.Release(r.Context())
				return
			}
			_ = place.Complete(r.Context(), herdbook.IdempotentAnswer{
				Status: rec.status, ContentType: rec.Header().Get("Content-Type"), Body: rec.buf.Bytes(),
			})
		})
	}
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// keep tells the answers worth replaying: everything the request itself decided. Server
// errors, outages and rate limits say nothing about the request, so a retry runs again.
func keep(status int) bool {
	return status < 500 && status != http.StatusTooManyRequests
}

func replay(w http.ResponseWriter, a herdbook.IdempotentAnswer) {
	if a.ContentType != "" {
		w.Header().Set("Content-Type", a.ContentType)
	}
	w.Header().Set(ReplayedHeader, "true")
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
}

// fingerprint hashes what makes two requests the same one: method, path, query and body.
// A multipart body is hashed by its parts (names, file names, types and contents), because
// clients draw a new boundary for each attempt of the same upload.
func fingerprint(r *http.Request, body io.ReadSeeker) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", r.Method, r.URL.Path, canonicalQuery(r))
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if strings.HasPrefix(mediaType, "multipart/") && params["boundary"] != "" {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				// Not well-formed: hash the bytes; the handler will say what is wrong.
				return rawFingerprint(h, body)
			}
			fmt.Fprintf(h, "part %q %q %q\n", part.FormName(), part.FileName(), part.Header.Get("Content-Type"))
			if _, err := io.Copy(h, part); err != nil {
				return rawFingerprint(h, body)
			}
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	return rawFingerprint(h, body)
}

func rawFingerprint(h hash.Hash, body io.ReadSeeker) (string, error) {
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	if _, err := io.Copy(h, body); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func canonicalQuery(r *http.Request) string {
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range q[k] {
			fmt.Fprintf(&b, "%q=%q&", k, v)
		}
	}
	return b.String()
}

// spooled is a request body read to the end once, so that it can be hashed and then read
// again by the handler: in memory when small, in a temporary file past memSpool.
type spooled struct {
	io.ReadSeeker
	file *os.File
}

func (s *spooled) Close() error {
	if s.file == nil {
		return nil
	}
	_ = s.file.Close()
	return os.Remove(s.file.Name())
}

func spool(body io.ReadCloser, limit int64) (*spooled, error) {
	if body == nil || body == http.NoBody {
		return &spooled{ReadSeeker: bytes.NewReader(nil)}, nil
	}
	defer body.Close()
	var mem bytes.Buffer
	n, err := io.Copy(&mem, io.LimitReader(body, memSpool+1))
	if err != nil {
		return nil, readError(err)
	}
	if n <= memSpool {
		return &spooled{ReadSeeker: bytes.NewReader(mem.Bytes())}, nil
	}
	f, err := os.CreateTemp("", "herdbook-idempotent-*")
	if err != nil {
		return nil, err
	}
	s := &spooled{ReadSeeker: f, file: f}
	if _, err := f.Write(mem.Bytes()); err != nil {
		_ = s.Close()
		return nil, err
	}
	copied, err := io.Copy(f, io.LimitReader(body, limit-n+1))
	if err != nil {
		_ = s.Close()
		return nil, readError(err)
	}
	if n+copied > limit {
		_ = s.Close()
		return nil, herdbook.Errorf(herdbook.ETOOLARGE, "the body is larger than %d bytes", limit)
	}
	return s, nil
}

func readError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return herdbook.Errorf(herdbook.ETOOLARGE, "the body is larger than %d bytes", tooLarge.Limit)
	}
	return herdbook.Invalid(herdbook.FieldError{Field: "body", Message: "could not be read: " + err.Error()})
}

// recorder passes the answer through and keeps a copy to store.
type recorder struct {
	http.ResponseWriter
	status   int
	buf      bytes.Buffer
	overflow bool
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if !r.overflow {
		if r.buf.Len()+len(p) > maxAnswer {
			r.overflow = true
			r.buf = bytes.Buffer{}
		} else {
			r.buf.Write(p)
		}
	}
	return r.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (read deadlines, flushes).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
