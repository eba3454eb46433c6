package jobspec

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// params holds the parameters of one spec and tracks which of them the spec
// uses.
type params struct {
	// declared holds the names under the params section.
	declared map[string]bool
	// values holds every parameter that has a value: the params defaults
	// overridden by --set.
	values map[string]string
	// used holds every name that some ${name} refers to.
	used map[string]bool
	// secret holds the names declared {secret: true}.
	secret map[string]bool
}

// newParams reads the params section of the root mapping and lays the --set
// values over its defaults.
func newParams(root *yaml.Node, set map[string]string, p *problems) *params {
	ps := &params{declared: map[string]bool{}, values: map[string]string{}, used: map[string]bool{}, secret: map[string]bool{}}
	if n := lookupField(root, "params"); n != nil {
		ps.declare(deref(n), p)
	}
	maps.Copy(ps.values, set)
	return ps
}

// declare records the parameters of the params mapping n. A parameter whose
// value is null is declared without a default, so it must come from --set; so
// is a secret one, declared as {secret: true}.
func (ps *params) declare(n *yaml.Node, p *problems) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, v := n.Content[i].Value, deref(n.Content[i+1])
		if !isName(name) {
			p.reject(childPath("params", name), "invalid parameter name %q (want [A-Za-z0-9._-]+)", name)
			continue
		}
		ps.declared[name] = true
		switch {
		case v.Kind == yaml.MappingNode:
			ps.declareSecret(name, v, p)
		case !isNull(v):
			ps.values[name] = v.Value
		}
	}
}

// declareSecret records the parameter name whose params entry is the mapping
// n, which the shape phase left with a secret field at most. A secret has no
// default: a value written in the spec would be stored, replicated and sent
// with it in clear, so it comes from --set only.
func (ps *params) declareSecret(name string, n *yaml.Node, p *problems) {
	path := childPath(childPath("params", name), "secret")
	var secret Scalar
	if f := lookupField(n, "secret"); f != nil && !isNull(deref(f)) {
		secret = Scalar{value: deref(f).Value, set: true}
	}
	if !p.boolean(path, secret, false) {
		p.reject(childPath("params", name), "write {secret: true} for a secret parameter, or its default value (a secret has no default: pass it with --set %s=VALUE)", name)
		return
	}
	ps.secret[name] = true
}

// secretValues returns the values of the secret parameters, for redact.
func (ps *params) secretValues() []string {
	var vs []string
	for name := range ps.secret {
		if v := ps.values[name]; v != "" {
			vs = append(vs, v)
		}
	}
	return vs
}

// substitute expands the parameter references in every scalar value of the
// root mapping except those of the params section, whose values are taken
// literally. Mapping keys are never expanded.
func (ps *params) substitute(root *yaml.Node, p *problems) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if name := root.Content[i].Value; name != "params" {
			ps.walk(root.Content[i+1], name, p)
		}
	}
}

// walk expands the references in n and below it. Aliases are skipped: the
// node they stand for is expanded where its anchor is.
func (ps *params) walk(n *yaml.Node, path string, p *problems) {
	switch n.Kind {
	case yaml.ScalarNode:
		ps.expandScalar(n, path, p)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			ps.walk(n.Content[i+1], childPath(path, n.Content[i].Value), p)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			ps.walk(item, itemPath(path, i), p)
		}
	}
}

// expandScalar expands the references in the scalar n. The result is always
// a string node, even when it is empty: a parameter set to "" does not make a
// field absent.
func (ps *params) expandScalar(n *yaml.Node, path string, p *problems) {
	if !strings.Contains(n.Value, "$") {
		return
	}
	out, missing, err := expand(n.Value, ps.lookup)
	if err != nil {
		p.at(n.Line, path, "%v", err)
		p.bad[path] = true
		return
	}
	for _, name := range missing {
		if ps.secret[name] {
			p.at(n.Line, path, "secret parameter %q has no value: pass --set %s=VALUE", name, name)
			continue
		}
		p.at(n.Line, path, "parameter %q has no value: pass --set %s=VALUE or give it a default under params", name, name)
	}
	if len(missing) > 0 {
		p.bad[path] = true
		return
	}
	n.Value, n.Tag = out, "!!str"
}

// lookup returns the value of parameter name and records that it is used.
func (ps *params) lookup(name string) (string, bool) {
	ps.used[name] = true
	v, ok := ps.values[name]
	return v, ok
}

// checkSet reports every --set parameter that the spec neither uses nor
// declares, which is most likely a typo.
func (ps *params) checkSet(set map[string]string, p *problems) {
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if !ps.declared[name] && !ps.used[name] {
			p.add("--set "+name, "unknown parameter: the spec neither uses ${%s} nor declares it under params", name)
		}
	}
}

// expand replaces each ${name} in text by lookup(name) and each $${ by a
// literal ${. It returns the names that lookup has no value for, and an error
// for a reference that is not well formed.
func expand(text string, lookup func(name string) (string, bool)) (out string, missing []string, err error) {
	var b strings.Builder
	for i := 0; i < len(text); {
		switch {
		case strings.HasPrefix(text[i:], "$${"):
			b.WriteString("${")
			i += 3
		case strings.HasPrefix(text[i:], "${"):
			name, n, err := reference(text[i:])
			if err != nil {
				return "", nil, err
			}
			v, ok := lookup(name)
			if !ok {
				missing = append(missing, name)
			}
			b.WriteString(v)
			i += n
		default:
			b.WriteByte(text[i])
			i++
		}
	}
	return b.String(), missing, nil
}

// reference parses the ${name} at the start of s and returns name and the
// length of the reference.
func reference(s string) (name string, n int, err error) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", 0, fmt.Errorf("unterminated %q: write ${name}, or $${ for a literal ${", s)
	}
	name = s[2:end]
	if !isName(name) {
		return "", 0, fmt.Errorf("invalid parameter reference %q: a name matches [A-Za-z0-9._-]+", s[:end+1])
	}
	return name, end + 1, nil
}

// ParseSet parses --set flags of the form name=value into a map, the value
// being everything after the first '='. A later flag for the same name
// overrides an earlier one. Every malformed flag is reported.
func ParseSet(kvs []string) (map[string]string, error) {
	set := make(map[string]string, len(kvs))
	var errs []error
	for _, kv := range kvs {
		name, value, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("--set %q: want name=value", kv))
		case !isName(name):
			// NB: the value is left out: it may be a secret's, under a
			// misspelt name.
			errs = append(errs, fmt.Errorf("--set %q: invalid parameter name %q (want [A-Za-z0-9._-]+)", name+"=...", name))
		default:
			set[name] = value
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// lookupField returns the value of field name in mapping n, or nil.
func lookupField(n *yaml.Node, name string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == name {
			return n.Content[i+1]
		}
	}
	return nil
}
