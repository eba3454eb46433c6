package jobspec

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	scalarType    = reflect.TypeFor[Scalar]()
	rawSourceType = reflect.TypeFor[rawSource]()
	rawSinkType   = reflect.TypeFor[rawSink]()
	rawParamType  = reflect.TypeFor[rawParam]()
)

// shaper checks a node tree against the raw types before anything is
// decoded. It is what makes decoding strict: yaml.v3 offers KnownFields only
// on a Decoder reading bytes, not on Node.Decode, and its messages name a Go
// type and a line rather than a field path. The shaper reports unknown and
// repeated fields and wrongly shaped values by path, and removes them from
// the tree so that decoding succeeds and later phases report the rest.
type shaper struct{ p *problems }

// check reports whether n has the shape that t expects, rejecting path when
// it does not. Inside a mapping it drops the fields that are unknown,
// repeated or wrongly shaped; inside a list it nulls wrongly shaped items.
func (s shaper) check(n *yaml.Node, t reflect.Type, path string) bool {
	n = deref(n)
	switch {
	case isNull(n):
		return true
	case t == scalarType:
		return s.want(n, yaml.ScalarNode, path)
	case t.Kind() == reflect.Pointer:
		return s.check(n, t.Elem(), path)
	case t == rawParamType && n.Kind == yaml.ScalarNode:
		return true // a default value
	case t == rateFieldType && n.Kind == yaml.SequenceNode:
		return s.items(n, path, reflect.TypeFor[rawRateStep]())
	case t == rateFieldType:
		return s.want(n, yaml.ScalarNode, path)
	case t == rawSourceType:
		return s.want(n, yaml.MappingNode, path) && s.fields(n, path, sources.sectionFields(t))
	case t == rawSinkType:
		return s.want(n, yaml.MappingNode, path) && s.fields(n, path, sinks.sectionFields(t))
	case t.Kind() == reflect.Struct:
		return s.want(n, yaml.MappingNode, path) && s.fields(n, path, structFields(t))
	case t.Kind() == reflect.Map:
		return s.want(n, yaml.MappingNode, path) && s.fields(n, path, anyField(t.Elem()))
	case t.Kind() == reflect.Slice:
		return s.want(n, yaml.SequenceNode, path) && s.items(n, path, t.Elem())
	}
	panic(fmt.Sprintf("jobspec: raw type %v has no shape", t))
}

// want reports whether n is of kind, rejecting path when it is not.
func (s shaper) want(n *yaml.Node, kind yaml.Kind, path string) bool {
	if n.Kind == kind {
		return true
	}
	s.p.reject(path, "must be %s, got %s", kindName(kind), kindName(n.Kind))
	return false
}

// fieldTypes tells the type a mapping expects under a field name, and lists
// the names it knows for messages.
type fieldTypes struct {
	typeOf func(name string) (reflect.Type, bool)
	known  []string
}

// structFields returns the exported fields of a raw struct, named by their
// yaml tags.
func structFields(t reflect.Type) fieldTypes {
	types := map[string]reflect.Type{}
	var known []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		types[name] = f.Type
		known = append(known, name)
	}
	return fieldTypes{typeOf: func(name string) (reflect.Type, bool) { t, ok := types[name]; return t, ok }, known: known}
}

// anyField returns the fields of a map, where any name holds elem.
func anyField(elem reflect.Type) fieldTypes {
	return fieldTypes{typeOf: func(string) (reflect.Type, bool) { return elem, true }}
}

// fields checks every field of the mapping n and keeps only the good ones.
// It returns true: the mapping itself is well shaped.
func (s shaper) fields(n *yaml.Node, path string, ft fieldTypes) bool {
	firstLine := map[string]int{}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if s.field(k, v, path, ft, firstLine) {
			kept = append(kept, k, v)
		}
	}
	n.Content = kept
	return true
}

// field checks the field named by key k with value v.
func (s shaper) field(k, v *yaml.Node, path string, ft fieldTypes, firstLine map[string]int) bool {
	if k.Kind != yaml.ScalarNode {
		s.p.at(k.Line, path, "a field name must be a single value, got %s", kindName(k.Kind))
		return false
	}
	child := childPath(path, k.Value)
	if first, ok := firstLine[k.Value]; ok {
		s.p.at(k.Line, child, "repeated field; it is already set at line %d", first)
		return false
	}
	firstLine[k.Value] = k.Line
	t, ok := ft.typeOf(k.Value)
	if !ok {
		s.p.at(k.Line, child, "unknown field (known fields: %s)", strings.Join(ft.known, ", "))
		return false
	}
	s.p.lines[child] = k.Line
	return s.check(v, t, child)
}

// items checks every item of the list n. It replaces null and wrongly
// shaped items by an empty mapping, so that decoding keeps every item (yaml.v3
// drops null ones) and the others keep their index.
func (s shaper) items(n *yaml.Node, path string, elem reflect.Type) bool {
	for i, item := range n.Content {
		child := itemPath(path, i)
		s.p.lines[child] = item.Line
		if !s.check(item, elem, child) || isNull(deref(item)) {
			n.Content[i] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: item.Line}
		}
	}
	return true
}

// deref returns the node an alias stands for, or n itself.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is an explicit or implicit null, such as the value
// of "path:" with nothing after it.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.ScalarNode:
		return "a single value"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return "a YAML document"
}

// childPath returns the path of field name inside path.
func childPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// itemPath returns the path of the i-th item of the list at path.
func itemPath(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}
