package blob

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// DefaultPartSize is the size of one part of an S3 multipart upload, and so the memory one
// upload in flight holds. Blobs up to this size go up in a single PUT.
const DefaultPartSize = 8 << 20

// minPartSize is S3's smallest part (all but the last).
const minPartSize = 5 << 20

// S3Options configures an S3-compatible store (AWS S3, MinIO, Ceph RGW, Garage, …).
type S3Options struct {
	Endpoint  string // host[:port]; default s3.amazonaws.com
	Bucket    string
	Region    string
	Prefix    string // prepended to every key, e.g. "herdbook/"
	Insecure  bool   // plain HTTP, for a local MinIO
	PathStyle bool   // bucket in the path instead of the host name
	AccessKey string
	SecretKey string
	PartSize  int64             // default DefaultPartSize, at least 5 MiB
	Transport http.RoundTripper // nil: minio's default
}

// S3 keeps blobs as objects of one bucket, through github.com/minio/minio-go/v7: a small
// S3 client with no cloud SDK behind it.
type S3 struct {
	core     minio.Core
	bucket   string
	prefix   string
	partSize int64
}

var _ Store = (*S3)(nil)

// NewS3 returns a store over the bucket. It makes no network call.
func NewS3(o S3Options) (*S3, error) {
	if o.Bucket == "" {
		return nil, errors.New("blob: S3 bucket name is empty")
	}
	if o.Endpoint == "" {
		o.Endpoint = "s3.amazonaws.com"
	}
	if o.PartSize == 0 {
		o.PartSize = DefaultPartSize
	}
	if o.PartSize < minPartSize {
		return nil, fmt.Errorf("blob: S3 part size must be at least %d bytes", minPartSize)
	}
	if o.Prefix != "" && !ValidKey(strings.TrimSuffix(o.Prefix, "/")) {
		return nil, fmt.Errorf("blob: bad S3 key prefix %q", o.Prefix)
	}
	var creds *credentials.Credentials
	if o.AccessKey != "" || o.SecretKey != "" {
		creds = credentials.NewStaticV4(o.AccessKey, o.SecretKey, "")
	} else {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.EnvMinio{}, &credentials.IAM{},
		})
	}
	lookup := minio.BucketLookupAuto
	if o.PathStyle {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.New(o.Endpoint, &minio.Options{
		Creds: creds, Secure: !o.Insecure, Region: o.Region, BucketLookup: lookup, Transport: o.Transport,
	})
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	return &S3{core: minio.Core{Client: c}, bucket: o.Bucket, prefix: o.Prefix, partSize: o.PartSize}, nil
}

// parseS3URL reads s3://bucket?endpoint=…&region=…&insecure=1&prefix=…&path_style=1.
// Unknown parameters are refused, so that a typo does not silently change where files go.
func parseS3URL(u *url.URL) (S3Options, error) {
	o := S3Options{Bucket: u.Host}
	if u.User != nil {
		return o, errors.New("blob: put S3 credentials in HERDBOOK_S3_ACCESS_KEY and HERDBOOK_S3_SECRET_KEY, not in the URL")
	}
	if o.Bucket == "" {
		return o, errors.New("blob: S3 URL needs a bucket: s3://BUCKET?endpoint=…")
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		o.Prefix = p + "/"
	}
	for k, vs := range u.Query() {
		v := vs[len(vs)-1]
		switch k {
		case "endpoint":
			o.Endpoint = v
		case "region":
			o.Region = v
		case "prefix":
			if p := strings.Trim(v, "/"); p != "" {
				o.Prefix = p + "/"
			}
		case "insecure":
			o.Insecure = truthy(v)
		case "path_style":
			o.PathStyle = truthy(v)
		default:
			return o, fmt.Errorf("blob: unknown S3 URL parameter %q (known: endpoint, region, prefix, insecure, path_style)", k)
		}
	}
	return o, nil
}

func truthy(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func (s *S3) object(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return s.prefix + key, nil
}

// Put sends a blob that fits in one part as a single PUT, and anything larger as a multipart
// upload of PartSize parts read one at a time into one buffer. A failed multipart upload is
// aborted, so no object appears; a single PUT is all or nothing by itself.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) (err error) {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	// Each part is in memory before it is sent, so it goes with its Content-MD5, which the
	// server checks, and without the aws-chunked streaming signature, which costs a SHA-256
	// pass and which some S3-compatible servers do not decode in multipart uploads.
	opts := minio.PutObjectOptions{ContentType: contentType, DisableContentSha256: true}
	bufSize := s.partSize
	if size >= 0 && size < bufSize {
		bufSize = size
	}
	buf := make([]byte, bufSize)
	n, more, err := readPart(r, buf)
	if err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	if !more.ok {
		if size >= 0 && int64(n) != size {
			return fmt.Errorf("blob: put %s: got %d bytes, want %d", key, n, size)
		}
		if _, err := s.core.PutObject(ctx, s.bucket, obj, bytes.NewReader(buf[:n]), int64(n), md5Of(buf[:n]), "", opts); err != nil {
			return fmt.Errorf("blob: put %s: %w", key, err)
		}
		return nil
	}
	if size >= 0 && size <= int64(n) {
		return fmt.Errorf("blob: put %s: more than the announced %d bytes", key, size)
	}

	id, err := s.core.NewMultipartUpload(ctx, s.bucket, obj, opts)
	if err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	defer func() {
		if err != nil {
			_ = s.core.AbortMultipartUpload(context.WithoutCancel(ctx), s.bucket, obj, id)
		}
	}()
	var (
		parts []minio.CompletePart
		total int64
	)
	for part := 1; ; part++ {
		p, err := s.core.PutObjectPart(ctx, s.bucket, obj, id, part, bytes.NewReader(buf[:n]), int64(n),
			minio.PutObjectPartOptions{Md5Base64: md5Of(buf[:n]), DisableContentSha256: true})
		if err != nil {
			return fmt.Errorf("blob: put %s part %d: %w", key, part, err)
		}
		parts = append(parts, minio.CompletePart{PartNumber: part, ETag: p.ETag})
		total += int64(n)
		if !more.ok {
			break
		}
		buf[0] = more.b
		m, next, err := readPart(r, buf[1:])
		if err != nil {
			return fmt.Errorf("blob: put %s: %w", key, err)
		}
		n, more = 1+m, next
	}
	if size >= 0 && total != size {
		return fmt.Errorf("blob: put %s: got %d bytes, want %d", key, total, size)
	}
	if _, err = s.core.CompleteMultipartUpload(ctx, s.bucket, obj, id, parts, opts); err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	return nil
}

func md5Of(b []byte) string {
	sum := md5.Sum(b)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// peeked is the first byte after a full part, when there is one.
type peeked struct {
	b  byte
	ok bool
}

// readPart fills buf from r. When buf fills up it reads one byte more, so that the caller
// knows whether this part is the last: S3 wants every part but the last to be full-sized,
// and an empty trailing part is best not sent.
func readPart(r io.Reader, buf []byte) (int, peeked, error) {
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return n, peeked{}, nil
	}
	if err != nil {
		return n, peeked{}, err
	}
	var one [1]byte
	m, err := io.ReadFull(r, one[:])
	if m == 1 {
		return n, peeked{b: one[0], ok: true}, nil
	}
	if errors.Is(err, io.EOF) {
		return n, peeked{}, nil
	}
	return n, peeked{}, err
}

// Get asks for the byte range and maps a missing object to ErrNotFound.
func (s *S3) Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	if offset < 0 {
		return nil, fmt.Errorf("blob: negative offset %d", offset)
	}
	if length == 0 {
		return io.NopCloser(strings.NewReader("")), nil
	}
	var opts minio.GetObjectOptions
	switch {
	case length > 0:
		err = opts.SetRange(offset, offset+length-1)
	case offset > 0:
		err = opts.SetRange(offset, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	rc, _, _, err := s.core.GetObject(ctx, s.bucket, obj, opts)
	if err != nil {
		switch minio.ToErrorResponse(err).Code {
		case minio.NoSuchKey:
			return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
		case "InvalidRange":
			// The offset is at or past the end: there is nothing to read, as the contract says.
			return io.NopCloser(strings.NewReader("")), nil
		}
		return nil, fmt.Errorf("blob: get %s: %w", key, err)
	}
	return rc, nil
}

// Stat asks for the object's metadata.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	obj, err := s.object(key)
	if err != nil {
		return Info{}, err
	}
	oi, err := s.core.StatObject(ctx, s.bucket, obj, minio.StatObjectOptions{})
	if err != nil {
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			return Info{}, fmt.Errorf("%w: %s", ErrNotFound, key)
		}
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, err)
	}
	return Info{Size: oi.Size, ContentType: oi.ContentType}, nil
}

// Delete removes the object; S3 answers a delete of a missing key with success.
func (s *S3) Delete(ctx context.Context, key string) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	if err := s.core.RemoveObject(ctx, s.bucket, obj, minio.RemoveObjectOptions{}); err != nil {
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			return nil
		}
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}
