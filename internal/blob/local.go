package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Local keeps blobs as files under a directory, one file per key. It suits a single node
// (a laptop, a small farm office); nodes that share load need a shared store such as S3.
type Local struct {
	root string
}

var _ Store = (*Local)(nil)

// NewLocal returns a store under dir, creating it when missing.
func NewLocal(dir string) (*Local, error) {
	if dir == "" {
		return nil, errors.New("blob: empty local directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("blob: create %s: %w", abs, err)
	}
	return &Local{root: abs}, nil
}

// Dir returns the directory the store writes to.
func (l *Local) Dir() string { return l.root }

func (l *Local) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Put writes r to a temporary file beside the target and renames it into place once every
// byte is on disk, so that readers never see a partial blob and a failed upload (a client
// that goes away, a size limit that trips) leaves nothing behind.
func (l *Local) Put(ctx context.Context, key string, r io.Reader, size int64, _ string) (err error) {
	path, err := l.path(key)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	f, err := os.CreateTemp(dir, ".upload-*")
	if err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	n, err := io.Copy(f, ctxReader{ctx: ctx, r: r})
	if err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	if size >= 0 && n != size {
		return fmt.Errorf("blob: put %s: got %d bytes, want %d", key, n, size)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	return nil
}

// Get opens the file and positions it at offset.
func (l *Local) Get(_ context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	path, err := l.path(key)
	if err != nil {
		return nil, err
	}
	if offset < 0 {
		return nil, fmt.Errorf("blob: negative offset %d", offset)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("blob: %w", err)
		}
	}
	if length < 0 {
		return f, nil
	}
	return readCloser{Reader: io.LimitReader(f, length), Closer: f}, nil
}

// Stat reports the file's size; a local store keeps no content type.
func (l *Local) Stat(_ context.Context, key string) (Info, error) {
	path, err := l.path(key)
	if err != nil {
		return Info{}, err
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return Info{}, fmt.Errorf("blob: %w", err)
	}
	return Info{Size: fi.Size()}, nil
}

// Delete removes the file; a missing file is already deleted.
func (l *Local) Delete(_ context.Context, key string) error {
	path, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: %w", err)
	}
	return nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// ctxReader stops a copy as soon as its context ends, so that an abandoned upload does not
// keep writing.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
