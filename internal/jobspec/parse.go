package jobspec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"gopkg.in/yaml.v3"
)

// Parse reads the job spec in data. Module paths in the spec are relative to
// baseDir ("" means the working directory). set holds the --set parameter
// values, which override the params defaults; it may be nil.
//
// On failure the error joins one *FieldError per problem found, sorted by
// line, so its message lists one problem per line.
func Parse(data []byte, baseDir string, set map[string]string) (*Job, error) {
	return parse(data, baseDir, set, "")
}

// Load reads the job spec in the file at path, as Parse does with the file's
// directory as baseDir. Each FieldError it returns names the file.
func Load(path string, set map[string]string) (*Job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read job spec: %w", err)
	}
	return parse(data, filepath.Dir(path), set, path)
}

// parse runs the phases that doc.go describes; file names the spec in
// messages.
func parse(data []byte, baseDir string, set map[string]string, file string) (*Job, error) {
	p := newProblems(file)
	root := readRoot(data, p)
	if root == nil {
		return nil, p.err()
	}
	shaper{p}.check(root, reflect.TypeFor[rawJob](), "")
	ps := newParams(root, set, p)
	p.secrets = ps.secretValues()
	ps.substitute(root, p)
	ps.checkSet(set, p)
	var raw rawJob
	if err := root.Decode(&raw); err != nil {
		p.add("", "%v", err)
		return nil, p.err()
	}
	job := build(&raw, baseDir, ps.values, p)
	job.Secrets = slices.Sorted(maps.Keys(ps.secret))
	if err := p.err(); err != nil {
		return nil, err
	}
	return job, nil
}

// readRoot returns the top-level mapping of the one YAML document in data,
// or nil after recording why there is none.
func readRoot(data []byte, p *problems) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		p.syntax(err)
		return nil
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		p.add("", "a job spec is a single YAML document; remove everything from the second --- on")
		return nil
	}
	root := deref(doc.Content[0])
	switch {
	case isNull(root):
		p.add("", "the job spec is empty")
	case root.Kind != yaml.MappingNode:
		p.at(root.Line, "", "a job spec must be a mapping of fields, got %s", kindName(root.Kind))
	default:
		return root
	}
	return nil
}

// syntax records a YAML syntax error. yaml.v3's message keeps its own
// "line N:", which is only approximate: the parser often counts from 0.
func (p *problems) syntax(err error) {
	if errors.Is(err, io.EOF) {
		p.add("", "the job spec is empty")
		return
	}
	p.add("", "%v", err)
}
