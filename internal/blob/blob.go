// Package blob stores the bytes of uploaded files. The service layer sees only Store, a
// small interface of our own, so that the local directory used on a laptop and the
// S3-compatible bucket used in production are interchangeable, and both are tested by the
// same suite.
//
// Every implementation streams: Put reads its input in small chunks and Get returns a reader,
// so a 100 MB video never sits in memory. A Put that fails leaves nothing under its key.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// ErrNotFound is returned (wrapped) by Get and Stat when no blob has the key.
var ErrNotFound = errors.New("blob: not found")

// Info describes a stored blob.
type Info struct {
	Size        int64
	ContentType string
}

// Store keeps blobs under keys such as "files/<farm>/<file>" (see ValidKey).
type Store interface {
	// Put stores the bytes of r under key, replacing any blob there. With size >= 0, r must
	// yield exactly size bytes; with size < 0 Put reads r to its end. When Put returns an
	// error, including one from r, nothing new is left under key.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Get returns a reader over length bytes of the blob from offset (to its end when length
	// is negative). An offset at or past the end gives an empty reader.
	Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Stat returns the size and content type of the blob.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes the blob. Deleting a missing key is not an error, so that retries and
	// the purge job are idempotent.
	Delete(ctx context.Context, key string) error
}

// ValidKey reports whether key is safe for every store: relative, '/'-separated, at most 512
// bytes of [A-Za-z0-9._-/], with no empty segment and none starting with '.', so that no key
// can climb out of a directory or collide with a store's hidden temporary files.
func ValidKey(key string) bool {
	if key == "" || len(key) > 512 {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg[0] == '.' {
			return false
		}
		for _, c := range seg {
			ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
			if !ok {
				return false
			}
		}
	}
	return true
}

func checkKey(key string) error {
	if !ValidKey(key) {
		return fmt.Errorf("blob: invalid key %q", key)
	}
	return nil
}

// Config tells Open which store to use.
type Config struct {
	// URL selects the store: empty or file:///abs/dir for a local directory, or
	// s3://bucket?endpoint=host:port&region=…&insecure=1&prefix=…&path_style=1 for an
	// S3-compatible service.
	URL string
	// Dir is the local directory used when URL is empty.
	Dir string
	// AccessKey and SecretKey are the S3 credentials. They never travel in the URL, which
	// ends up in logs and process listings. Empty keys fall back to the AWS_* / MINIO_*
	// environment variables and then to the instance's IAM role.
	AccessKey, SecretKey string
}

// Open returns the store cfg describes. It makes no network call: a bad bucket or endpoint
// shows on first use.
func Open(cfg Config) (Store, error) {
	if strings.TrimSpace(cfg.URL) == "" {
		if cfg.Dir == "" {
			return nil, errors.New("blob: neither a URL nor a local directory is configured")
		}
		return NewLocal(cfg.Dir)
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("blob: bad URL: %w", err)
	}
	switch u.Scheme {
	case "file":
		dir := u.Path
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("blob: file URL must name a local path, e.g. file:///var/lib/herdbook/blobs")
		}
		if !filepath.IsAbs(dir) {
			return nil, fmt.Errorf("blob: file URL must hold an absolute path")
		}
		return NewLocal(dir)
	case "s3":
		o, err := parseS3URL(u)
		if err != nil {
			return nil, err
		}
		o.AccessKey, o.SecretKey = cfg.AccessKey, cfg.SecretKey
		return NewS3(o)
	}
	return nil, fmt.Errorf("blob: unknown URL scheme %q (want file or s3)", u.Scheme)
}

// Describe returns cfg's store in words that are safe to log.
func Describe(cfg Config) string {
	if strings.TrimSpace(cfg.URL) == "" {
		return "local directory " + cfg.Dir
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return "an unparsable blob URL"
	}
	u.User = nil
	return u.Redacted()
}

// ReadSeeker returns an io.ReadSeekCloser over a blob of known size, so that
// http.ServeContent can answer Range requests from it. It opens the store only when read,
// and again after each Seek, asking for the rest of the blob from the new position.
func ReadSeeker(ctx context.Context, s Store, key string, size int64) io.ReadSeekCloser {
	return &readSeeker{ctx: ctx, s: s, key: key, size: size}
}

type readSeeker struct {
	ctx  context.Context
	s    Store
	key  string
	size int64
	pos  int64
	rc   io.ReadCloser
}

func (r *readSeeker) Read(p []byte) (int, error) {
	if r.pos >= r.size {
		return 0, io.EOF
	}
	if r.rc == nil {
		rc, err := r.s.Get(r.ctx, r.key, r.pos, -1)
		if err != nil {
			return 0, err
		}
		r.rc = rc
	}
	if rest := r.size - r.pos; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := r.rc.Read(p)
	r.pos += int64(n)
	if err == io.EOF && r.pos < r.size {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (r *readSeeker) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = r.pos + offset
	case io.SeekEnd:
		abs = r.size + offset
	default:
		return 0, errors.New("blob: bad whence")
	}
	if abs < 0 {
		return 0, errors.New("blob: negative position")
	}
	if abs != r.pos && r.rc != nil {
		_ = r.rc.Close()
		r.rc = nil
	}
	r.pos = abs
	return abs, nil
}

func (r *readSeeker) Close() error {
	if r.rc == nil {
		return nil
	}
	err := r.rc.Close()
	r.rc = nil
	return err
}
