package ckstore

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tt := range []struct {
		in   string
		want Location
		str  string // the canonical URL
	}{
		{"file:///var/floe/chk", Location{Scheme: "file", Dir: "/var/floe/chk"}, "file:///var/floe/chk"},
		{"file:///var/floe/chk/", Location{Scheme: "file", Dir: "/var/floe/chk"}, "file:///var/floe/chk"},
		{"file://localhost/var/x", Location{Scheme: "file", Dir: "/var/x"}, "file:///var/x"},
		{"file:/var/x", Location{Scheme: "file", Dir: "/var/x"}, "file:///var/x"},
		{"file:///tmp/with%20space", Location{Scheme: "file", Dir: "/tmp/with space"}, "file:///tmp/with%20space"},
		{"FILE:///x", Location{Scheme: "file", Dir: "/x"}, "file:///x"},
		{"/var/floe/../chk", Location{Scheme: "file", Dir: "/var/chk"}, "file:///var/chk"},
		{"chk/dir", Location{Scheme: "file", Dir: abs("chk/dir")}, "file://" + abs("chk/dir")},
		{"./odd:name", Location{Scheme: "file", Dir: abs("odd:name")}, "file://" + abs("odd:name")},
		{"s3://bucket", Location{Scheme: "s3", Bucket: "bucket"}, "s3://bucket"},
		{"s3://bucket/", Location{Scheme: "s3", Bucket: "bucket"}, "s3://bucket"},
		{"s3://my.bucket-1/jobs/j1", Location{Scheme: "s3", Bucket: "my.bucket-1", Prefix: "jobs/j1"}, "s3://my.bucket-1/jobs/j1"},
		{"s3://bucket/jobs/j1/", Location{Scheme: "s3", Bucket: "bucket", Prefix: "jobs/j1"}, "s3://bucket/jobs/j1"},
	} {
		got, err := ParseURL(tt.in)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseURL(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if got.String() != tt.str {
			t.Errorf("ParseURL(%q).String() = %q, want %q", tt.in, got.String(), tt.str)
		}
		if again, err := ParseURL(got.String()); err != nil || again != got {
			t.Errorf("ParseURL(%q) = %+v, %v; does not round-trip", got.String(), again, err)
		}
	}
}

func TestParseURLErrors(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{"", "empty"},
		{"gs://bucket/x", `unsupported scheme "gs" (want file:// or s3://)`},
		{"http://host/x", `unsupported scheme "http"`},
		{"hdfs:///x", `unsupported scheme "hdfs"`},
		{"file://remote-host/x", `host "remote-host"`},
		{"file:relative/x", "want file:///absolute/path"},
		{"file:///x?sync=1", "queries and fragments are not supported"},
		{"s3://", "want s3://bucket"},
		{"s3:bucket/x", "want s3://bucket"},
		{"s3:///x", "want s3://bucket"},
		{"s3://Upper/x", `invalid bucket name "Upper"`},
		{"s3://ab", `invalid bucket name "ab"`},
		{"s3://under_score", "invalid bucket name"},
		{"s3://-dash", "invalid bucket name"},
		{"s3://a..b", "invalid bucket name"},
		{"s3://bucket/a//b", "prefix: invalid path"},
		{"s3://bucket/a/../b", "prefix: invalid path"},
		{"s3://bucket/x#frag", "queries and fragments"},
		{"s3://AKIAEXAMPLE:s3cr3t@bucket/x", "credentials do not belong in the URL"},
		{"s3://bucket/%zz", "malformed URL"},
	} {
		_, err := ParseURL(tt.in)
		if err == nil {
			t.Errorf("ParseURL(%q) succeeded", tt.in)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseURL(%q) error = %q, want it to contain %q", tt.in, err, tt.want)
		}
		if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "AKIAEXAMPLE") {
			t.Errorf("ParseURL(%q) error shows credentials: %q", tt.in, err)
		}
	}
}
