package jobspec

import (
	"slices"
	"strconv"
	"strings"
)

// Redacted is what Redact puts in place of a secret parameter's value.
const Redacted = "[secret]"

// Redact returns text with every value of a secret parameter of j replaced by
// Redacted. Apply it to any text that is logged or shown and may quote a
// value of the job: a failure message naming a path built from a parameter,
// for one. A nil Job redacts nothing.
func (j *Job) Redact(text string) string {
	if j == nil {
		return text
	}
	var vs []string
	for _, name := range j.Secrets {
		if v := j.Params[name]; v != "" {
			vs = append(vs, v)
		}
	}
	return redact(text, vs)
}

// redact replaces every occurrence of each of secrets in text by Redacted,
// the longest first so that a secret holding another is replaced whole. A
// secret is also replaced as %q quotes it, escapes and all, since most
// messages quote values that way.
func redact(text string, secrets []string) string {
	if len(secrets) == 0 {
		return text
	}
	var forms []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		forms = append(forms, s)
		if q := strconv.Quote(s); q[1:len(q)-1] != s {
			forms = append(forms, q[1:len(q)-1])
		}
	}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	for _, f := range forms {
		text = strings.ReplaceAll(text, f, Redacted)
	}
	return text
}

// RedactError returns err with Redact applied to its message, or err itself
// when it quotes no secret. errors.Is and errors.As still find what err
// wraps, so a caller can tell a bad request from a failure as before.
func (j *Job) RedactError(err error) error {
	if err == nil {
		return nil
	}
	if msg := j.Redact(err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

// redactedError is an error whose message hides secret values.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

// Unwrap returns the original error, whose message may hold secrets: use it
// to match, not to print.
func (e *redactedError) Unwrap() error { return e.err }
