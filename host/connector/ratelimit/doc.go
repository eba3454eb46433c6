// Package ratelimit paces rate-limited sources with a token bucket.
//
// Tokens accrue at the configured rate and each record spends one. The bucket
// holds at most one batch worth of tokens, so a source that was idle or slow
// never bursts more than one batch above its rate. Time comes from an injected
// connector.Clock, and a Limiter never sleeps longer than MaxWait per call, so
// a source can keep the promise that Next returns within about 100 ms.
package ratelimit
