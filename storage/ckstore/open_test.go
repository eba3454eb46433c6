package ckstore_test

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe-stream/floe/storage/ckstore"
	"github.com/floe-stream/floe/storage/ckstore/internal/fakes3"
	"github.com/floe-stream/floe/storage/ckstore/storetest"
)

func TestOpenFile(t *testing.T) {
	fileURL := func(dir string) string {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
	}
	for name, form := range map[string]func(dir string) string{"url": fileURL, "bare": filepath.Clean} {
		t.Run(name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) ckstore.Store {
				dir := filepath.Join(t.TempDir(), "chk")
				s, err := ckstore.Open(context.Background(), form(dir), ckstore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if want := fileURL(dir); s.String() != want {
					t.Errorf("String() = %q, want %q", s.String(), want)
				}
				return s
			})
		})
	}
}

// TestOpenS3 opens s3:// stores configured by the environment, with
// minio-go's default part size, and runs the conformance suite on them.
func TestOpenS3(t *testing.T) {
	srv := fakes3.Start(t)
	setS3Env(t, srv)
	storetest.Run(t, func(t *testing.T) ckstore.Store {
		t.Cleanup(srv.CloseConnections)
		u := "s3://" + srv.Bucket() + "/jobs/j1"
		s, err := ckstore.Open(context.Background(), u, ckstore.Options{CreateBucket: true})
		if err != nil {
			t.Fatal(err)
		}
		if s.String() != u {
			t.Errorf("String() = %q, want %q", s.String(), u)
		}
		return s
	})
}

func setS3Env(t *testing.T, srv *fakes3.Server) {
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t")
	t.Setenv("AWS_SESSION_TOKEN", "t0ken")
}

func TestOpenS3MissingBucket(t *testing.T) {
	srv := fakes3.Start(t)
	setS3Env(t, srv)
	t.Cleanup(srv.CloseConnections)
	_, err := ckstore.Open(context.Background(), "s3://no-such-bucket/x", ckstore.Options{})
	if err == nil || !strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist`) {
		t.Fatalf("Open: error = %v, want one naming the missing bucket", err)
	}
	for _, secret := range []string{"AKIAEXAMPLE", "s3cr3t", "t0ken"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error shows a credential: %v", err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := ckstore.Open(ctx, "gs://bucket", ckstore.Options{}); err == nil {
		t.Error("Open(gs://) succeeded")
	}
	_, err := ckstore.Open(ctx, "s3://bucket", ckstore.Options{Endpoint: "127.0.0.1:1", AccessKey: "AKIAEXAMPLE"})
	if err == nil || !strings.Contains(err.Error(), "s3://bucket") || strings.Contains(err.Error(), "AKIAEXAMPLE") {
		t.Errorf("Open with half the credentials: error = %v", err)
	}
}
