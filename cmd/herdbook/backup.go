package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/herdbook/herdbook/internal/backup"
	"github.com/herdbook/herdbook/internal/db"
)

// blobDir is the local file store's directory, or "" when files live in S3 (whose own
// versioning or replication backs them up: docs/operations.md).
func (c *config) blobDir() (string, error) {
	if strings.TrimSpace(c.BlobURL) == "" {
		return filepath.Join(c.DataDir, "blobs"), nil
	}
	u, err := url.Parse(c.BlobURL)
	if err != nil {
		return "", fmt.Errorf("--blob-url: %w", err)
	}
	if u.Scheme == "file" {
		return u.Path, nil
	}
	return "", nil
}

func (e env) backup(ctx context.Context, args []string) error {
	var c config
	fs := e.newFlags("backup")
	e.dbFlags(fs, &c)
	e.fileFlags(fs, &c)
	out := fs.String("output", "", "directory to write the backup into: new or empty (required)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("backup: --output DIR is required")
	}
	blobs, err := c.blobDir()
	if err != nil {
		return err
	}
	d, err := db.Open(ctx, c.databaseURL())
	if err != nil {
		return err
	}
	defer d.Close()
	logger := c.logger(e.stderr)
	m, err := backup.Create(ctx, d, *out, backup.Options{DatabaseURL: c.databaseURL(), BlobDir: blobs,
		Progress: func(s string) { logger.Info(s) }})
	if err != nil {
		return err
	}
	if blobs == "" {
		logger.Warn("files are in S3: back the bucket up with the provider's tools (docs/operations.md)")
	}
	if c.JSON {
		return printJSON(e.stdout, map[string]any{"output": *out, "manifest": m})
	}
	fmt.Fprintf(e.stdout, "backup written to %s: %s database at revision %s, %d files (%d bytes)\n",
		*out, m.Dialect, m.Revision, m.Blobs, m.BlobBytes)
	return nil
}

func (e env) restore(ctx context.Context, args []string) error {
	var c config
	fs := e.newFlags("restore")
	e.dbFlags(fs, &c)
	e.fileFlags(fs, &c)
	from := fs.String("from", "", "backup directory written by herdbook backup (required)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *from == "" {
		return errors.New("restore: --from DIR is required")
	}
	blobs, err := c.blobDir()
	if err != nil {
		return err
	}
	logger := c.logger(e.stderr)
	m, err := backup.Restore(ctx, *from, backup.Options{DatabaseURL: c.databaseURL(), BlobDir: blobs,
		Progress: func(s string) { logger.Info(s) }})
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(e.stdout, map[string]any{"from": *from, "manifest": m})
	}
	fmt.Fprintf(e.stdout, "restored %s (%s database at revision %s, %d files); start the server to apply newer migrations\n",
		*from, m.Dialect, m.Revision, m.Blobs)
	return nil
}
