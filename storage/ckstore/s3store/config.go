package s3store

import (
	"errors"
	"fmt"
	"net/http"
)

// DefaultPartSize is the multipart part size used when Config.PartSize is
// zero. Objects up to this size are sent in a single PUT.
const DefaultPartSize = 16 << 20

// minPartSize is the smallest part S3 accepts (except for the last one).
const minPartSize = 5 << 20

// Config says which bucket to use and how to reach it. It holds secrets:
// never log it.
type Config struct {
	// Endpoint is the server's host and optional port, without a scheme,
	// such as "s3.amazonaws.com" or "127.0.0.1:9000".
	Endpoint string
	// Secure selects HTTPS.
	Secure bool
	// Region is the bucket's region; empty asks the server.
	Region string
	// AccessKey and SecretKey sign requests; with both empty, requests are
	// anonymous. SessionToken is for temporary credentials.
	AccessKey, SecretKey, SessionToken string

	// Bucket holds the objects, under Prefix (no leading or trailing
	// slash; empty for the bucket's root).
	Bucket, Prefix string
	// CreateBucket makes New create a missing bucket instead of failing.
	CreateBucket bool

	// PartSize is the multipart part size, at least 5 MiB; zero means
	// DefaultPartSize. Each Put of an object larger than this holds about
	// two parts in memory.
	PartSize int64
	// MaxRetries bounds the attempts per request; zero means minio-go's
	// default (10).
	MaxRetries int
	// Transport carries the requests; nil means a transport of the Store's
	// own.
	Transport http.RoundTripper
}

func (c *Config) validate() error {
	switch {
	case c.Endpoint == "":
		return errors.New("no endpoint")
	case c.Bucket == "":
		return errors.New("no bucket")
	case (c.AccessKey == "") != (c.SecretKey == ""):
		return errors.New("access key and secret key must be set together")
	case c.PartSize != 0 && c.PartSize < minPartSize:
		return fmt.Errorf("part size %d is below the 5 MiB minimum", c.PartSize)
	}
	return nil
}
