package jobspec_test

import (
	"strings"
	"testing"

	. "github.com/floe-stream/floe/internal/jobspec"
)

// hexDigest is a well-formed digest for the cases below.
var hexDigest = strings.Repeat("0123456789abcdef", 4)

func TestParseModuleRef(t *testing.T) {
	tests := []struct {
		in      string
		want    ModuleRef
		isRef   bool
		wantErr string
	}{
		{in: "wordcount.wasm"},
		{in: "/abs/sha256.wasm"},
		{in: "sha256:" + hexDigest, want: ModuleRef{Digest: hexDigest}, isRef: true},
		{in: "wc@sha256:" + hexDigest, want: ModuleRef{Name: "wc", Digest: hexDigest}, isRef: true},
		{in: "sha256:abc", isRef: true, wantErr: "64 lower-case hex digits"},
		{in: "sha256:" + strings.ToUpper(hexDigest), isRef: true, wantErr: "64 lower-case hex digits"},
		{in: "wc@sha256:" + hexDigest + "0", isRef: true, wantErr: "64 lower-case hex digits"},
		{in: "w c@sha256:" + hexDigest, isRef: true, wantErr: "the name before @"},
		{in: "@sha256:" + hexDigest, isRef: true, wantErr: "the name before @"},
	}
	for _, tt := range tests {
		got, isRef, err := ParseModuleRef(tt.in)
		if isRef != tt.isRef || got != tt.want {
			t.Errorf("ParseModuleRef(%q) = %+v, %v; want %+v, %v", tt.in, got, isRef, tt.want, tt.isRef)
		}
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("ParseModuleRef(%q) error = %v, want one saying %q", tt.in, err, tt.wantErr)
		}
		if err == nil && isRef && got.String() != tt.in {
			t.Errorf("ModuleRef %+v renders as %q, want %q", got, got.String(), tt.in)
		}
	}
}

func TestSpecNamesModulesByDigest(t *testing.T) {
	spec := y(okName, okSource, okSink,
		"modules:",
		"  wc: wc@sha256:"+hexDigest,
		"  other: sha256:"+hexDigest,
		"  file: m.wasm",
		"operators: [{type: map, uid: a, module: wc, function: f}]")
	job, err := Parse([]byte(spec), "/specs", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ModuleRef{"wc": {Name: "wc", Digest: hexDigest}, "other": {Digest: hexDigest}}
	if len(job.ModuleRefs) != len(want) {
		t.Errorf("ModuleRefs = %v, want %v", job.ModuleRefs, want)
	}
	for name, ref := range want {
		if job.ModuleRefs[name] != ref {
			t.Errorf("ModuleRefs[%s] = %+v, want %+v", name, job.ModuleRefs[name], ref)
		}
		if p, ok := job.Modules[name]; !ok || p != "" {
			t.Errorf("Modules[%s] = %q, %v; want a declared module with no path", name, p, ok)
		}
	}
	if job.Modules["file"] != "/specs/m.wasm" {
		t.Errorf("Modules[file] = %q, want /specs/m.wasm", job.Modules["file"])
	}
	if err := job.CheckModules(); err == nil || strings.Contains(err.Error(), `"wc"`) {
		t.Errorf("CheckModules() = %v, want only the missing file reported", err)
	}
}

func TestMalformedModuleRefNamesItsLine(t *testing.T) {
	spec := y(okName, okSource, okSink, "modules:", "  wc: sha256:abc", "operators: [{type: map, uid: a, module: wc, function: f}]")
	_, err := Parse([]byte(spec), "/", nil)
	want := `line 5: modules.wc: "sha256:abc": want sha256: and 64 lower-case hex digits, as floe module push prints`
	if err == nil || err.Error() != want {
		t.Fatalf("Parse: %v, want only %q", err, want)
	}
}
