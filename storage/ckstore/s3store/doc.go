// Package s3store keeps checkpoint objects in an S3-compatible object store
// (AWS S3, MinIO, Ceph, ...) through minio-go. An object's key is the
// store's prefix, a slash, and the object's path.
//
// Objects up to Config.PartSize are buffered in memory and sent in one
// PUT, which the client can retry because the body can be replayed. Larger
// objects go up as a multipart upload, which S3 makes visible only when it
// completes; a failed upload is aborted, so no partial object appears
// either way. An upload that the process abandons by crashing stays
// invisible but is stored (and billed) until a bucket lifecycle rule
// removes incomplete multipart uploads; set one up.
//
// The package does no credential discovery of its own: Config carries what
// to use, and package checkpoint fills it from options and the environment.
package s3store
