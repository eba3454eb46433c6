package rest_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/floe-stream/floe/internal/auth"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// openAPI is the part of docs/openapi.yaml that the tests compare with the
// code.
type openAPI struct {
	Paths map[string]map[string]yaml.Node `yaml:"paths"`
	// Security is the security every operation has unless it says
	// otherwise.
	Security   []map[string][]string `yaml:"security"`
	Components struct {
		SecuritySchemes map[string]struct {
			Type   string `yaml:"type"`
			Scheme string `yaml:"scheme"`
		} `yaml:"securitySchemes"`
		Schemas map[string]schema `yaml:"schemas"`
	} `yaml:"components"`
}

// schema is an object schema: its own properties, or the properties of
// the schemas in its allOf, which are given inline or by $ref.
type schema struct {
	Ref        string               `yaml:"$ref"`
	Required   []string             `yaml:"required"`
	Properties map[string]yaml.Node `yaml:"properties"`
	AllOf      []schema             `yaml:"allOf"`
}

// flatten returns the schema's properties and required ones, those of its
// allOf included, resolving $ref in doc.
func (s schema) flatten(doc *openAPI) (props, required []string) {
	for p := range s.Properties {
		props = append(props, p)
	}
	required = slices.Clone(s.Required)
	for _, part := range s.AllOf {
		if name, ok := strings.CutPrefix(part.Ref, "#/components/schemas/"); ok {
			part = doc.Components.Schemas[name]
		}
		p, r := part.flatten(doc)
		props, required = append(props, p...), append(required, r...)
	}
	slices.Sort(props)
	slices.Sort(required)
	return props, required
}

func loadOpenAPI(t *testing.T) *openAPI {
	t.Helper()
	data, err := os.ReadFile("../../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPI
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	return &doc
}

// operations are the keys of an OpenAPI path item that name a method.
var operations = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// operation is the part of an OpenAPI operation that the tests compare
// with the code.
type operation struct {
	// Security is nil when the operation has the document's.
	Security *[]map[string][]string `yaml:"security"`
	Role     string                 `yaml:"x-floe-role"`
}

// TestOpenAPIPaths checks that docs/openapi.yaml documents every route and
// nothing else, each with the route's role: a bearer token and the role as
// x-floe-role, or no security at all for a route that anyone may call.
func TestOpenAPIPaths(t *testing.T) {
	doc := loadOpenAPI(t)
	if s := doc.Components.SecuritySchemes["bearerAuth"]; s.Type != "http" || s.Scheme != "bearer" {
		t.Errorf("securitySchemes.bearerAuth is %+v, want type http, scheme bearer", s)
	}
	bearer := []map[string][]string{{"bearerAuth": {}}}
	if !reflect.DeepEqual(doc.Security, bearer) {
		t.Errorf("the document's security is %v, want %v", doc.Security, bearer)
	}
	documented := make(map[rest.Route]bool)
	for path, item := range doc.Paths {
		for key, node := range item {
			if !slices.Contains(operations, key) {
				continue
			}
			var op operation
			if err := node.Decode(&op); err != nil {
				t.Fatalf("%s %s: %v", key, path, err)
			}
			documented[rest.Route{Method: strings.ToUpper(key), Pattern: path, Role: documentedRole(t, key, path, op)}] = true
		}
	}
	for _, r := range rest.Routes() {
		if !documented[r] {
			t.Errorf("route %s %s for %v is not in docs/openapi.yaml with that role", r.Method, r.Pattern, r.Role)
		}
		delete(documented, r)
	}
	for r := range documented {
		t.Errorf("docs/openapi.yaml documents %s %s for %v, which is not served for that role", r.Method, r.Pattern, r.Role)
	}
}

// documentedRole returns the role an operation documents: auth.Anyone
// for one with no security, else its x-floe-role.
func documentedRole(t *testing.T, method, path string, op operation) auth.Role {
	if op.Security != nil {
		if len(*op.Security) != 0 || op.Role != "" {
			t.Errorf("%s %s: want either security: [] or an x-floe-role", method, path)
		}
		return auth.Anyone
	}
	role, err := auth.ParseRole(op.Role)
	if err != nil {
		t.Errorf("%s %s: x-floe-role: %v", method, path, err)
	}
	return role
}

// TestOpenAPISchemas checks that the schemas of docs/openapi.yaml have the
// JSON fields of the api types, and require exactly those without
// omitempty.
func TestOpenAPISchemas(t *testing.T) {
	doc := loadOpenAPI(t)
	types := map[string]reflect.Type{
		"JobStatus":               reflect.TypeFor[api.JobStatus](),
		"Event":                   reflect.TypeFor[api.Event](),
		"VertexStatus":            reflect.TypeFor[api.VertexStatus](),
		"SubtaskStatus":           reflect.TypeFor[api.SubtaskStatus](),
		"TaskManagerStatus":       reflect.TypeFor[api.TaskManagerStatus](),
		"CheckpointStatus":        reflect.TypeFor[api.CheckpointStatus](),
		"CheckpointSubtaskStatus": reflect.TypeFor[api.CheckpointSubtaskStatus](),
		"StateValue":              reflect.TypeFor[api.StateValue](),
		"RescaleRequest":          reflect.TypeFor[api.RescaleRequest](),
		"SavepointTrigger":        reflect.TypeFor[api.SavepointTrigger](),
		"SavepointRequest":        reflect.TypeFor[rest.SavepointRequest](),
		"StopRequest":             reflect.TypeFor[rest.StopRequest](),
		"ClusterStatus":           reflect.TypeFor[api.ClusterStatus](),
		"ClusterMember":           reflect.TypeFor[api.ClusterMember](),
		"MemberRequest":           reflect.TypeFor[rest.MemberRequest](),
		"JobMetrics":              reflect.TypeFor[api.JobMetrics](),
		"VertexMetrics":           reflect.TypeFor[api.VertexMetrics](),
		"SubtaskMetrics":          reflect.TypeFor[api.SubtaskMetrics](),
		"TaskFigures":             reflect.TypeFor[api.TaskFigures](),
		"SourceProgress":          reflect.TypeFor[api.SourceProgress](),
		"CheckpointSummary":       reflect.TypeFor[api.CheckpointSummary](),
		"Exceptions":              reflect.TypeFor[api.Exceptions](),
		"Exception":               reflect.TypeFor[api.Exception](),
		"Logs":                    reflect.TypeFor[api.Logs](),
		"LogLine":                 reflect.TypeFor[api.LogLine](),
		"ModuleInfo":              reflect.TypeFor[api.ModuleInfo](),
		"AutoscalerConfig":        reflect.TypeFor[api.AutoscalerConfig](),
		"AutoscalerStatus":        reflect.TypeFor[api.AutoscalerStatus](),
		"AutoscalerDecision":      reflect.TypeFor[api.AutoscalerDecision](),
		"AutoscalerVertex":        reflect.TypeFor[api.AutoscalerVertex](),
		"AutoscalerWindow":        reflect.TypeFor[api.AutoscalerWindow](),
	}
	for name, typ := range types {
		schema, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("docs/openapi.yaml has no schema %s", name)
			continue
		}
		fields, required := jsonFields(typ)
		props, req := schema.flatten(doc)
		if !slices.Equal(props, fields) {
			t.Errorf("schema %s has properties %v, want %v", name, props, fields)
		}
		if !slices.Equal(req, required) {
			t.Errorf("schema %s requires %v, want %v", name, req, required)
		}
	}
}

// jsonFields returns the JSON names of a struct's fields, sorted, and those
// of them that are always present. The fields of an embedded struct
// without a JSON name are the struct's own, as encoding/json has it.
func jsonFields(t reflect.Type) (fields, required []string) {
	for f := range t.Fields() {
		if f.Anonymous && f.Tag.Get("json") == "" {
			f, r := jsonFields(f.Type)
			fields, required = append(fields, f...), append(required, r...)
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		fields = append(fields, name)
		if opts != "omitempty" {
			required = append(required, name)
		}
	}
	slices.Sort(fields)
	slices.Sort(required)
	return fields, required
}
