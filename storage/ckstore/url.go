package ckstore

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/floe-stream/floe/storage/ckstore/internal/object"
)

// Location is a parsed store URL.
type Location struct {
	// Scheme is "file" or "s3".
	Scheme string
	// Dir is a file store's root directory: absolute and clean.
	Dir string
	// Bucket and Prefix name an s3 store's objects. Prefix has no leading
	// or trailing slash and may be empty.
	Bucket, Prefix string
}

// String returns the location's canonical URL.
func (l Location) String() string {
	switch l.Scheme {
	case "file":
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(l.Dir)}).String()
	case "s3":
		if l.Prefix == "" {
			return "s3://" + l.Bucket
		}
		return "s3://" + l.Bucket + "/" + l.Prefix
	}
	return ""
}

// ParseURL parses a store URL:
//
//   - file:///abs/dir (or file://localhost/abs/dir) names a local directory;
//   - a bare path, absolute or relative to the working directory, does too
//     (write ./name for a relative directory whose name contains a colon);
//   - s3://bucket or s3://bucket/prefix names objects in a bucket.
//
// Other schemes, queries, fragments and user information are errors. An
// error quotes the URL without any user information.
func ParseURL(raw string) (Location, error) {
	loc, err := parseURL(raw)
	if err != nil {
		return Location{}, fmt.Errorf("checkpoint: store URL %q: %w", redact(raw), err)
	}
	return loc, nil
}

func parseURL(raw string) (Location, error) {
	if raw == "" {
		return Location{}, errors.New("empty")
	}
	if !hasScheme(raw) {
		dir, err := filepath.Abs(raw)
		return Location{Scheme: "file", Dir: dir}, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Location{}, errors.New("malformed URL")
	}
	switch {
	case u.User != nil:
		return Location{}, errors.New("credentials do not belong in the URL; use options or the environment")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return Location{}, errors.New("queries and fragments are not supported")
	}
	switch u.Scheme {
	case "file":
		return parseFile(u)
	case "s3":
		return parseS3(u)
	}
	return Location{}, fmt.Errorf("unsupported scheme %q (want file:// or s3://)", u.Scheme)
}

// hasScheme reports whether raw starts with a URL scheme. A single letter
// is a Windows drive, not a scheme.
func hasScheme(raw string) bool {
	scheme, _, ok := strings.Cut(raw, ":")
	if !ok || len(scheme) < 2 || strings.Contains(scheme, "/") {
		return false
	}
	for i, c := range scheme {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !strings.ContainsRune("0123456789+-.", c)) {
			return false
		}
	}
	return true
}

func parseFile(u *url.URL) (Location, error) {
	switch {
	case u.Host != "" && u.Host != "localhost":
		return Location{}, fmt.Errorf("host %q: only local files are supported", u.Host)
	case u.Opaque != "" || !strings.HasPrefix(u.Path, "/"):
		return Location{}, errors.New("want file:///absolute/path")
	}
	return Location{Scheme: "file", Dir: filepath.Clean(filepath.FromSlash(u.Path))}, nil
}

func parseS3(u *url.URL) (Location, error) {
	if u.Opaque != "" || u.Host == "" {
		return Location{}, errors.New("want s3://bucket or s3://bucket/prefix")
	}
	if err := checkBucket(u.Host); err != nil {
		return Location{}, err
	}
	prefix := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), "/")
	if prefix != "" {
		if err := object.CheckPath(prefix); err != nil {
			return Location{}, fmt.Errorf("prefix: %w", err)
		}
	}
	return Location{Scheme: "s3", Bucket: u.Host, Prefix: prefix}, nil
}

// checkBucket applies S3's bucket naming rules, in short: 3 to 63
// lowercase letters, digits, dots and hyphens, starting and ending with a
// letter or digit.
func checkBucket(b string) error {
	bad := len(b) < 3 || len(b) > 63 || !alnum(b[0]) || !alnum(b[len(b)-1]) || strings.Contains(b, "..")
	for i := range len(b) {
		bad = bad || !alnum(b[i]) && b[i] != '.' && b[i] != '-'
	}
	if bad {
		return fmt.Errorf("invalid bucket name %q: want 3-63 lowercase letters, digits, dots and hyphens", b)
	}
	return nil
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

// redact removes user information from a URL for an error message; a URL
// too broken to parse is not quoted at all.
func redact(raw string) string {
	if !hasScheme(raw) {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	u.User = nil
	return u.String()
}
