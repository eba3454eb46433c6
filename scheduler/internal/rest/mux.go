package rest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/floe-stream/floe/scheduler/api"
)

// This file adapts the table's patterns to what ServeMux can match. Two
// kinds of pattern need help:
//
//   - A custom method after the last wildcard, "{name}:batchGet" (in the
//     style of Google's AIP-136). ServeMux cannot match a wildcard followed
//     by a literal within one segment, so the wildcard takes the whole
//     segment and guard checks and strips the ":batchGet".
//   - A last wildcard that may be any percent-encoded segment, such as a
//     state's key. ServeMux unescapes a segment before matching it, and
//     takes the segment "%2F", unescaped to "/", for a trailing slash that
//     a single wildcard never matches. So the wildcard is served as a multi
//     wildcard, "{key...}", and guard checks that the raw path has exactly
//     one non-empty segment there, so that an unescaped "/" is still not
//     part of a key.

// muxRoute is how New serves one pattern of the table.
type muxRoute struct {
	// pattern is what ServeMux matches, without a method.
	pattern string
	// wildcard is the name of the last wildcard, if guard checks it.
	wildcard string
	// verb is the custom method the last segment ends in, if any.
	verb string
	// segments, if not 0, is the number of segments of a matching path,
	// which guard checks in the raw path.
	segments int
}

// serving returns how to serve pattern p of the table, all of whose
// patterns are all.
func serving(p string, all []string) muxRoute {
	if i := strings.LastIndex(p, "}:"); i >= 0 {
		open := strings.LastIndex(p[:i], "{")
		return muxRoute{pattern: p[:i+1], wildcard: p[open+1 : i], verb: p[i+2:]}
	}
	last := p[strings.LastIndex(p, "/")+1:]
	if !strings.HasPrefix(last, "{") || !strings.HasSuffix(last, "}") || strings.HasSuffix(last, "...}") || extended(p, all) {
		return muxRoute{pattern: p}
	}
	// NB: only a pattern that no other extends gets a multi wildcard:
	// ServeMux refuses a "GET /a/{x...}" beside a method-less "/a/{x}/b"
	// as a conflict, neither being more specific than the other.
	name := last[1 : len(last)-1]
	return muxRoute{pattern: p[:len(p)-1] + "...}", wildcard: name, segments: strings.Count(p, "/")}
}

// extended reports whether a pattern of all continues p with more segments.
func extended(p string, all []string) bool {
	for _, q := range all {
		if strings.HasPrefix(q, p+"/") {
			return true
		}
	}
	return false
}

// guard returns next if m needs no checks, and otherwise a handler that
// answers 404 for a path that m.pattern matches but the table's pattern
// does not, and calls next for the others, with the custom method stripped
// from the last wildcard's value.
func (h *handler) guard(m muxRoute, next http.Handler) http.Handler {
	if m.verb == "" && m.segments == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m.segments > 0 && !hasSegments(r.URL.EscapedPath(), m.segments) {
			msg := fmt.Sprintf("no such endpoint: %s %s (escape a \"/\" within a path segment as %%2F)", r.Method, r.URL.EscapedPath())
			h.serve(func(*handler, *http.Request) (int, any, error) {
				return 0, nil, &statusError{api.ErrNotFound, msg}
			})(w, r)
			return
		}
		if m.verb != "" {
			value, ok := strings.CutSuffix(r.PathValue(m.wildcard), ":"+m.verb)
			if !ok || value == "" {
				h.serve(notFound)(w, r)
				return
			}
			r.SetPathValue(m.wildcard, value)
		}
		next.ServeHTTP(w, r)
	})
}

// hasSegments reports whether the escaped path has n segments, the last
// not empty.
func hasSegments(escaped string, n int) bool {
	return strings.Count(escaped, "/") == n && !strings.HasSuffix(escaped, "/")
}
