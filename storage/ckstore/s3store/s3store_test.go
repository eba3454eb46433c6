package s3store_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/floe-stream/floe/storage/ckstore"
	"github.com/floe-stream/floe/storage/ckstore/internal/fakes3"
	"github.com/floe-stream/floe/storage/ckstore/s3store"
	"github.com/floe-stream/floe/storage/ckstore/storetest"
)

// partSize is small, so the suite's large objects go up in several parts.
const partSize = 5 << 20

func newStore(t *testing.T, cfg s3store.Config) *s3store.Store {
	t.Helper()
	s, err := s3store.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	srv := fakes3.Start(t)
	for _, prefix := range []string{"", "jobs/j1"} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) ckstore.Store {
				cfg := srv.Config(t, prefix)
				cfg.PartSize = partSize
				return newStore(t, cfg)
			})
		})
	}
}

func TestPrefixIsolation(t *testing.T) {
	srv := fakes3.Start(t)
	ctx := context.Background()
	cfg := srv.Config(t, "")
	root := newStore(t, cfg)
	cfg.Prefix, cfg.CreateBucket = "jobs/j1", false
	j1 := newStore(t, cfg)
	cfg.Prefix = "jobs/j10"
	j10 := newStore(t, cfg)
	for _, s := range []*s3store.Store{root, j1, j10} {
		if err := s.Put(ctx, "m", strings.NewReader("x"), 1); err != nil {
			t.Fatal(err)
		}
	}
	for s, want := range map[*s3store.Store]string{root: "jobs/j1/m jobs/j10/m m", j1: "m", j10: "m"} {
		got, err := s.List(ctx, "")
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%s: List = %q, %v; want %q", s, got, err, want)
		}
	}
	if got := j1.String(); got != "s3://"+cfg.Bucket+"/jobs/j1" {
		t.Errorf("String() = %q", got)
	}
}

func TestMissingBucket(t *testing.T) {
	srv := fakes3.Start(t)
	cfg := srv.Config(t, "")
	cfg.CreateBucket = false
	_, err := s3store.New(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), `bucket "`+cfg.Bucket+`" does not exist`) {
		t.Fatalf("New on a missing bucket: error = %v", err)
	}
	if strings.Contains(err.Error(), cfg.SecretKey) || strings.Contains(err.Error(), cfg.AccessKey) {
		t.Errorf("error shows a credential: %v", err)
	}
	cfg.CreateBucket = true
	newStore(t, cfg)
	newStore(t, cfg) // existing bucket
}

// TestFailedUploadAborted checks that a multipart upload whose source
// fails is aborted, not left to linger.
func TestFailedUploadAborted(t *testing.T) {
	srv := fakes3.Start(t)
	ctx := context.Background()
	cfg := srv.Config(t, "p")
	cfg.PartSize = partSize
	s := newStore(t, cfg)
	boom := errors.New("source failed")
	r := &failAfter{r: bytes.NewReader(make([]byte, 4*partSize)), n: 3 * partSize, err: boom}
	if err := s.Put(ctx, "big", r, -1); !errors.Is(err, boom) {
		t.Fatalf("Put: error = %v, want %v", err, boom)
	}
	core, err := minio.NewCore(cfg.Endpoint, &minio.Options{Transport: cfg.Transport})
	if err != nil {
		t.Fatal(err)
	}
	uploads, err := core.ListMultipartUploads(ctx, cfg.Bucket, "", "", "", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(uploads.Uploads) != 0 {
		t.Errorf("uploads left after a failed Put: %+v", uploads.Uploads)
	}

	// The check above can see an upload that is left.
	id, err := core.NewMultipartUpload(ctx, cfg.Bucket, "p/other", minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uploads, err = core.ListMultipartUploads(ctx, cfg.Bucket, "", "", "", "", 100)
	if err != nil || len(uploads.Uploads) != 1 {
		t.Errorf("ListMultipartUploads = %+v, %v; want the upload just started", uploads.Uploads, err)
	}
	if err := core.AbortMultipartUpload(ctx, cfg.Bucket, "p/other", id); err != nil {
		t.Error(err)
	}
}

type failAfter struct {
	r   *bytes.Reader
	n   int
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	n, err := f.r.Read(p[:min(len(p), f.n)])
	f.n -= n
	return n, err
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []s3store.Config{
		{Bucket: "b"},
		{Endpoint: "127.0.0.1:1"},
		{Endpoint: "127.0.0.1:1", Bucket: "bkt", AccessKey: "only-key"},
		{Endpoint: "127.0.0.1:1", Bucket: "bkt", PartSize: 1 << 20},
	} {
		if _, err := s3store.New(context.Background(), cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}
