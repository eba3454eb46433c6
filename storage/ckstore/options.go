package ckstore

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/floe-stream/floe/storage/ckstore/s3store"
)

// Options carries the settings of s3:// stores; file stores ignore them.
//
// Each setting left empty is taken from the standard AWS environment
// variables, so flags (which fill Options) take precedence over the
// environment:
//
//	Endpoint      AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL, then AWS S3
//	Region        AWS_REGION, then AWS_DEFAULT_REGION, then asked of the server
//	credentials   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
//
// Credentials go together: if any of AccessKey, SecretKey and SessionToken
// is set, all three come from Options and none from the environment. With
// no credentials anywhere, requests are anonymous. (Credential files and
// instance metadata are not consulted.)
type Options struct {
	// Endpoint is the server, as "host:port" or as a URL such as
	// "http://127.0.0.1:9000", whose scheme then decides TLS.
	Endpoint string
	// Insecure turns TLS off for an endpoint given without a scheme. It
	// conflicts with an https:// endpoint.
	Insecure bool
	// Region is the bucket's region.
	Region string
	// AccessKey, SecretKey and SessionToken are the credentials.
	AccessKey, SecretKey, SessionToken string
	// CreateBucket creates a missing bucket; without it, Open fails on a
	// missing bucket, naming it.
	CreateBucket bool
}

// awsEndpoint is S3's global endpoint; minio-go picks the regional one.
const awsEndpoint = "s3.amazonaws.com"

// s3Config resolves the settings for the s3 location loc from o and, where
// o leaves them empty, from getenv.
func s3Config(loc Location, o Options, getenv func(string) string) (s3store.Config, error) {
	cfg := s3store.Config{
		Bucket:       loc.Bucket,
		Prefix:       loc.Prefix,
		Region:       firstSet(o.Region, getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION")),
		CreateBucket: o.CreateBucket,
	}
	endpoint := firstSet(o.Endpoint, getenv("AWS_ENDPOINT_URL_S3"), getenv("AWS_ENDPOINT_URL"))
	var err error
	if cfg.Endpoint, cfg.Secure, err = parseEndpoint(endpoint, o.Insecure); err != nil {
		return s3store.Config{}, err
	}
	if o.AccessKey != "" || o.SecretKey != "" || o.SessionToken != "" {
		cfg.AccessKey, cfg.SecretKey, cfg.SessionToken = o.AccessKey, o.SecretKey, o.SessionToken
	} else {
		cfg.AccessKey, cfg.SecretKey, cfg.SessionToken = getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"), getenv("AWS_SESSION_TOKEN")
	}
	if (cfg.AccessKey == "") != (cfg.SecretKey == "") {
		return s3store.Config{}, errors.New("checkpoint: S3 access key and secret key must be set together")
	}
	return cfg, nil
}

// parseEndpoint splits an endpoint into minio-go's host[:port] and TLS
// flag.
func parseEndpoint(endpoint string, insecure bool) (host string, secure bool, err error) {
	switch {
	case endpoint == "":
		return awsEndpoint, !insecure, nil
	case !strings.Contains(endpoint, "://"):
		return strings.TrimSuffix(endpoint, "/"), !insecure, nil
	}
	u, err := url.Parse(endpoint)
	switch {
	case err != nil || u.Host == "" || u.User != nil || strings.Trim(u.Path, "/") != "" || u.RawQuery != "":
		return "", false, fmt.Errorf("checkpoint: S3 endpoint %q: want host:port or http(s)://host:port", redact(endpoint))
	case u.Scheme == "http":
		return u.Host, false, nil
	case u.Scheme == "https" && insecure:
		return "", false, fmt.Errorf("checkpoint: S3 endpoint %q is https but Insecure is set", u.Host)
	case u.Scheme == "https":
		return u.Host, true, nil
	}
	return "", false, fmt.Errorf("checkpoint: S3 endpoint %q: scheme must be http or https", redact(endpoint))
}

// firstSet returns the first non-empty value, or "".
func firstSet(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
