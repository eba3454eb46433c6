package ckstore

import (
	"os"
	"strings"
	"testing"

	"github.com/floe-stream/floe/storage/ckstore/s3store"
)

// awsEnv lists the variables that s3Config reads.
var awsEnv = []string{
	"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
}

// setEnv clears the AWS variables, then sets env, for the test's duration.
func setEnv(t *testing.T, env map[string]string) {
	for _, k := range awsEnv {
		t.Setenv(k, "")
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
}

func TestS3ConfigPrecedence(t *testing.T) {
	loc := Location{Scheme: "s3", Bucket: "bkt", Prefix: "p"}
	base := s3store.Config{Bucket: "bkt", Prefix: "p"}
	with := func(f func(*s3store.Config)) s3store.Config {
		c := base
		f(&c)
		return c
	}
	fullEnv := map[string]string{
		"AWS_ENDPOINT_URL":      "http://127.0.0.1:9000",
		"AWS_REGION":            "eu-west-1",
		"AWS_DEFAULT_REGION":    "us-west-2",
		"AWS_ACCESS_KEY_ID":     "env-key",
		"AWS_SECRET_ACCESS_KEY": "env-secret",
		"AWS_SESSION_TOKEN":     "env-token",
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		opts Options
		want s3store.Config
	}{{
		name: "defaults: AWS, TLS, anonymous",
		want: with(func(c *s3store.Config) { c.Endpoint, c.Secure = "s3.amazonaws.com", true }),
	}, {
		name: "environment only",
		env:  fullEnv,
		want: with(func(c *s3store.Config) {
			c.Endpoint, c.Region = "127.0.0.1:9000", "eu-west-1"
			c.AccessKey, c.SecretKey, c.SessionToken = "env-key", "env-secret", "env-token"
		}),
	}, {
		name: "options over environment",
		env:  fullEnv,
		opts: Options{Endpoint: "minio.internal:9000", Region: "ap-south-1", AccessKey: "opt-key", SecretKey: "opt-secret", CreateBucket: true},
		want: with(func(c *s3store.Config) {
			c.Endpoint, c.Secure, c.Region, c.CreateBucket = "minio.internal:9000", true, "ap-south-1", true
			c.AccessKey, c.SecretKey = "opt-key", "opt-secret" // no env token mixed in
		}),
	}, {
		name: "AWS_DEFAULT_REGION when AWS_REGION is unset",
		env:  map[string]string{"AWS_DEFAULT_REGION": "us-west-2"},
		want: with(func(c *s3store.Config) { c.Endpoint, c.Secure, c.Region = "s3.amazonaws.com", true, "us-west-2" }),
	}, {
		name: "AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL",
		env:  map[string]string{"AWS_ENDPOINT_URL_S3": "https://s3.example.com", "AWS_ENDPOINT_URL": "http://other:1"},
		want: with(func(c *s3store.Config) { c.Endpoint, c.Secure = "s3.example.com", true }),
	}, {
		name: "option endpoint URL decides TLS",
		opts: Options{Endpoint: "http://localhost:9000/"},
		want: with(func(c *s3store.Config) { c.Endpoint = "localhost:9000" }),
	}, {
		name: "Insecure for an endpoint without scheme",
		opts: Options{Endpoint: "localhost:9000", Insecure: true},
		want: with(func(c *s3store.Config) { c.Endpoint = "localhost:9000" }),
	}, {
		name: "Insecure with the default endpoint",
		opts: Options{Insecure: true},
		want: with(func(c *s3store.Config) { c.Endpoint = "s3.amazonaws.com" }),
	}} {
		t.Run(tt.name, func(t *testing.T) {
			setEnv(t, tt.env)
			got, err := s3Config(loc, tt.opts, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("s3Config =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}

func TestS3ConfigErrors(t *testing.T) {
	loc := Location{Scheme: "s3", Bucket: "bkt"}
	for _, tt := range []struct {
		name string
		env  map[string]string
		opts Options
		want string
	}{
		{"key without secret", nil, Options{AccessKey: "AKIAEXAMPLE"}, "access key and secret key must be set together"},
		{"secret without key", nil, Options{SecretKey: "s3cr3t"}, "access key and secret key must be set together"},
		{"env key without secret", map[string]string{"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE"}, Options{}, "must be set together"},
		{"https and Insecure", nil, Options{Endpoint: "https://s3.example.com", Insecure: true}, "is https but Insecure is set"},
		{"bad scheme", nil, Options{Endpoint: "ftp://host"}, "scheme must be http or https"},
		{"path in endpoint", nil, Options{Endpoint: "http://host/bucket"}, "want host:port"},
		{"credentials in endpoint", map[string]string{"AWS_ENDPOINT_URL": "http://AKIAEXAMPLE:s3cr3t@host"}, Options{}, "want host:port"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			setEnv(t, tt.env)
			_, err := s3Config(loc, tt.opts, os.Getenv)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "AKIAEXAMPLE") {
				t.Errorf("error shows a credential: %v", err)
			}
		})
	}
}
