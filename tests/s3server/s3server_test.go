package s3server

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"testing"

	"github.com/floe-stream/floe/storage/ckstore"
)

// TestCheckpointStoreAgainstVersitygw runs the checkpoint store through a
// real S3 server, including a multipart object whose bytes are compared.
func TestCheckpointStoreAgainstVersitygw(t *testing.T) {
	s := Start(t)
	for _, kv := range s.Env() {
		k, v, _ := bytes.Cut([]byte(kv), []byte("="))
		t.Setenv(string(k), string(v))
	}
	ctx := context.Background()
	store, err := ckstore.Open(ctx, "s3://"+s.Bucket+"/test", ckstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 20<<20+123)
	rand.Read(big)
	if err := store.Put(ctx, "job/shared/big.snap", bytes.NewReader(big), int64(len(big))); err != nil {
		t.Fatal(err)
	}
	rc, err := store.Get(ctx, "job/shared/big.snap")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("multipart object came back with %d bytes (equal: %v), err %v", len(got), bytes.Equal(got, big), err)
	}
	rr, ok := store.(ckstore.RangeReader)
	if !ok {
		t.Fatal("the S3 store cannot read ranges")
	}
	part, err := rr.GetRange(ctx, "job/shared/big.snap", 12345, 6789)
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(part)
	part.Close()
	if err != nil || !bytes.Equal(got, big[12345:12345+6789]) {
		t.Fatalf("range read: %d bytes, err %v", len(got), err)
	}
	names, err := store.List(ctx, "job/")
	if err != nil || len(names) != 1 || names[0] != "job/shared/big.snap" {
		t.Fatalf("List = %v, %v", names, err)
	}
	if err := store.Delete(ctx, "job/shared/big.snap"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Stat(ctx, "job/shared/big.snap"); err == nil {
		t.Fatal("object still there after Delete")
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	if _, err := ckstore.Open(ctx, "s3://"+s.Bucket+"/test", ckstore.Options{}); err == nil {
		bad, _ := ckstore.Open(ctx, "s3://"+s.Bucket+"/test", ckstore.Options{})
		if bad != nil && bad.Put(ctx, "x", bytes.NewReader([]byte("x")), 1) == nil {
			t.Fatal("a wrong secret key was accepted")
		}
	}
}
