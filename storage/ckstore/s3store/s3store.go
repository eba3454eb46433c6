package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/floe-stream/floe/storage/ckstore/internal/object"
)

// maxKeyLen is S3's limit on the length of a key.
const maxKeyLen = 1024

// Store is a checkpoint store in an S3 bucket. It is safe for concurrent
// use.
type Store struct {
	core     minio.Core
	bucket   string
	prefix   string // "" or ends with "/"
	partSize int64
	url      string // s3://bucket/prefix, for messages
}

// New connects to the bucket that cfg names and checks that it exists,
// creating it if cfg.CreateBucket is set.
func New(ctx context.Context, cfg Config) (*Store, error) {
	s := &Store{bucket: cfg.Bucket, partSize: cfg.PartSize, url: "s3://" + path.Join(cfg.Bucket, cfg.Prefix)}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("s3store: %s: %w", s.url, err)
	}
	if cfg.Prefix != "" {
		s.prefix = cfg.Prefix + "/"
	}
	if s.partSize == 0 {
		s.partSize = DefaultPartSize
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:      credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken),
		Secure:     cfg.Secure,
		Region:     cfg.Region,
		Transport:  cfg.Transport,
		MaxRetries: cfg.MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("s3store: %s at %s: %w", s.url, cfg.Endpoint, err)
	}
	s.core = minio.Core{Client: client}
	if err := s.ensureBucket(ctx, cfg.Region, cfg.CreateBucket); err != nil {
		return nil, fmt.Errorf("s3store: %s at %s: %w", s.url, cfg.Endpoint, err)
	}
	return s, nil
}

func (s *Store) ensureBucket(ctx context.Context, region string, create bool) error {
	ok, err := s.core.BucketExists(ctx, s.bucket)
	switch {
	case err != nil:
		return fmt.Errorf("checking bucket %q: %w", s.bucket, err)
	case ok:
		return nil
	case !create:
		return fmt.Errorf("bucket %q does not exist (create it, or set CreateBucket)", s.bucket)
	}
	err = s.core.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: region})
	if err != nil && errorCode(err) != minio.BucketAlreadyOwnedByYou {
		return fmt.Errorf("creating bucket %q: %w", s.bucket, err)
	}
	return nil
}

// String returns the store's s3:// URL.
func (s *Store) String() string {
	return s.url
}

// Put uploads the object at p from r; see the package documentation for
// how. size is r's length, or -1 if unknown; a reader of another length
// fails the Put with ErrSizeMismatch. On any error the previous object at
// p, if any, is unchanged.
func (s *Store) Put(ctx context.Context, p string, r io.Reader, size int64) error {
	key, err := s.key("put", p)
	if err != nil {
		return err
	}
	r = object.ExactReader(r, size)
	// Read up to one byte more than a part: if that is all there is, the
	// object goes up in one replayable PUT.
	head, err := readHead(r, size, s.partSize+1)
	if err != nil {
		return s.fail("put", p, err)
	}
	// NB: MD5 instead of streaming SHA-256 signatures, which minio-go
	// sends over plain HTTP and gets wrong for empty objects.
	opts := minio.PutObjectOptions{
		ContentType:          "application/octet-stream",
		PartSize:             uint64(s.partSize),
		SendContentMd5:       true,
		DisableContentSha256: true,
	}
	if int64(len(head)) <= s.partSize {
		_, err = s.core.Client.PutObject(ctx, s.bucket, key, bytes.NewReader(head), int64(len(head)), opts)
	} else {
		body := io.MultiReader(bytes.NewReader(head), r)
		_, err = s.core.Client.PutObject(ctx, s.bucket, key, body, size, opts)
	}
	if err != nil {
		return s.fail("put", p, err)
	}
	return nil
}

// readHead reads up to limit bytes of r.
func readHead(r io.Reader, size, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	if size >= 0 {
		buf.Grow(int(min(size+1, limit)))
	}
	_, err := io.CopyN(&buf, r, limit)
	if err == io.EOF {
		err = nil
	}
	return buf.Bytes(), err
}

// Get opens the object at p for reading. The caller must close it; it
// reads from the network while ctx lasts.
func (s *Store) Get(ctx context.Context, p string) (io.ReadCloser, error) {
	key, err := s.key("get", p)
	if err != nil {
		return nil, err
	}
	body, _, _, err := s.core.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.fail("get", p, err)
	}
	return body, nil
}

// Stat returns the size of the object at p.
func (s *Store) Stat(ctx context.Context, p string) (int64, error) {
	key, err := s.key("stat", p)
	if err != nil {
		return 0, err
	}
	info, err := s.core.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return 0, s.fail("stat", p, err)
	}
	return info.Size, nil
}

// List returns the paths of all objects that start with prefix, in
// ascending byte order. The prefix is a plain string prefix: "a/b" matches
// "a/b/c" and "a/bc"; "a/b/" matches only the former.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if err := object.CheckPrefix(prefix); err != nil {
		return nil, fmt.Errorf("s3store: list in %s: %w", s.url, err)
	}
	// NB: minio-go's iterator leaks its goroutine unless it runs to the
	// end or its context is cancelled.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var paths []string
	opts := minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}
	for info := range s.core.Client.ListObjectsIter(ctx, s.bucket, opts) {
		if info.Err != nil {
			return nil, fmt.Errorf("s3store: list %s/%s: %w", s.url, prefix, info.Err)
		}
		p, ok := strings.CutPrefix(info.Key, s.prefix)
		if ok && object.CheckPath(p) == nil {
			paths = append(paths, p)
		}
	}
	// NB: the iterator just stops when ctx is done.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("s3store: list %s/%s: %w", s.url, prefix, err)
	}
	slices.Sort(paths)
	return paths, nil
}

// Delete removes the object at p. A missing object is not an error.
func (s *Store) Delete(ctx context.Context, p string) error {
	key, err := s.key("delete", p)
	if err != nil {
		return err
	}
	err = s.core.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{})
	if err != nil && errorCode(err) != minio.NoSuchKey {
		return s.fail("delete", p, err)
	}
	return nil
}

// key checks p and returns its key.
func (s *Store) key(op, p string) (string, error) {
	if err := object.CheckPath(p); err != nil {
		return "", fmt.Errorf("s3store: %s in %s: %w", op, s.url, err)
	}
	key := s.prefix + p
	if len(key) > maxKeyLen {
		return "", fmt.Errorf("s3store: %s in %s: %w %q: key longer than %d bytes", op, s.url, object.ErrInvalidPath, p, maxKeyLen)
	}
	return key, nil
}

// fail wraps err for op on p, adding ErrNotFound for a missing object.
func (s *Store) fail(op, p string, err error) error {
	if code := errorCode(err); code == minio.NoSuchKey || code == "NotFound" {
		return fmt.Errorf("s3store: %s %s/%s: %w", op, s.url, p, object.ErrNotFound)
	}
	return fmt.Errorf("s3store: %s %s/%s: %w", op, s.url, p, err)
}

// errorCode returns the S3 error code in err, or "".
func errorCode(err error) string {
	var resp minio.ErrorResponse
	if !errors.As(err, &resp) {
		return ""
	}
	if resp.Code == "" && resp.StatusCode == http.StatusNotFound {
		return "NotFound"
	}
	return resp.Code
}

// GetRange implements checkpoint.RangeReader with an HTTP range request.
func (s *Store) GetRange(ctx context.Context, p string, off, n int64) (io.ReadCloser, error) {
	key, err := s.key("get", p)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return io.NopCloser(strings.NewReader("")), nil
	}
	opts := minio.GetObjectOptions{}
	if err := opts.SetRange(off, off+n-1); err != nil {
		return nil, s.fail("get", p, err)
	}
	body, _, _, err := s.core.GetObject(ctx, s.bucket, key, opts)
	if err != nil {
		return nil, s.fail("get", p, err)
	}
	return body, nil
}
