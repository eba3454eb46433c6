// Package s3server starts a real S3-protocol server for tests: versitygw
// (Apache-2.0) with its POSIX backend, on a loopback port, with a bucket
// made for the test. .ci/run installs versitygw; a test that needs it
// fails in CI when it is missing and is skipped elsewhere.
package s3server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Server is a running versitygw.
type Server struct {
	// Endpoint is host:port; URL is http://Endpoint.
	Endpoint  string
	URL       string
	AccessKey string
	SecretKey string
	Bucket    string
	Region    string

	bin string
	dir string
	cmd *exec.Cmd
	log bytes.Buffer
}

// Binary finds versitygw on PATH or in GOPATH/bin.
func Binary() (string, error) {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	p := filepath.Join(gopath, "bin", "versitygw")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("versitygw not found on PATH or in %s (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0; .ci/run does)", filepath.Dir(p))
	}
	return p, nil
}

// Start starts versitygw for t with a fresh bucket; it is stopped when the
// test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	s := &Server{Endpoint: addr, URL: "http://" + addr, AccessKey: "floe-test", SecretKey: "floe-test-secret-key",
		Bucket: "floe-checkpoints", Region: "us-east-1", bin: bin, dir: dir}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	if err := s.makeBucket(); err != nil {
		t.Fatalf("versitygw on %s: %v\n%s", addr, err, s.log.String())
	}
	return s
}

func (s *Server) start() error {
	s.cmd = exec.Command(s.bin, "--port", s.Endpoint, "posix", s.dir)
	s.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.AccessKey, "ROOT_SECRET_KEY="+s.SecretKey)
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	return s.cmd.Start()
}

// Restart starts a stopped server again on the same address and data.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	if err := s.makeBucket(); err != nil {
		t.Fatalf("versitygw restart: %v\n%s", err, s.log.String())
	}
}

// makeBucket waits for the server and creates the bucket.
func (s *Server) makeBucket() error {
	c, err := minio.New(s.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""), Region: s.Region})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = c.MakeBucket(ctx, s.Bucket, minio.MakeBucketOptions{Region: s.Region})
		cancel()
		if code := minio.ToErrorResponse(err).Code; code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists" {
			err = nil
		}
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Env returns the AWS_* variables that point a Floe process at the server.
func (s *Server) Env() []string {
	return []string{"AWS_ENDPOINT_URL=" + s.URL, "AWS_ACCESS_KEY_ID=" + s.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s.SecretKey, "AWS_REGION=" + s.Region}
}

// Stop kills the server.
func (s *Server) Stop() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}
