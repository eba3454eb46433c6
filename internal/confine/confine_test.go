package confine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/floe-stream/floe/host/connector/builtin"
	"github.com/floe-stream/floe/internal/confine"
	"github.com/floe-stream/floe/internal/jobspec"
)

// tree makes, under a temporary directory, the layout every test here
// uses, and returns the directory (resolved, since the temporary directory
// may itself lie below a link):
//
//	data/in.txt
//	data/sub/
//	data/out -> ../outside        (a link out of the root)
//	data/dangling -> ../nowhere   (a link out to nothing yet)
//	data/inner -> sub             (a link that stays inside)
//	data/loop -> loop
//	data2/
//	outside/secret
//	alias -> data                 (a link to the root)
func tree(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"data/sub", "data2", "outside"} {
		must(t, os.MkdirAll(filepath.Join(base, d), 0o755))
	}
	for _, f := range []string{"data/in.txt", "outside/secret"} {
		must(t, os.WriteFile(filepath.Join(base, f), []byte("x\n"), 0o644))
	}
	for link, target := range map[string]string{
		"data/out": "../outside", "data/dangling": "../nowhere", "data/inner": "sub", "data/loop": "loop", "alias": "data",
	} {
		must(t, os.Symlink(target, filepath.Join(base, link)))
	}
	return base
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestResolve(t *testing.T) {
	base := tree(t)
	for _, tc := range []struct {
		path, want string
	}{
		{"data/in.txt", "data/in.txt"},
		{"data/./sub/../in.txt", "data/in.txt"},
		{"data/inner", "data/sub"},
		{"data/inner/new/dir", "data/sub/new/dir"},
		{"data/out/secret", "outside/secret"},
		{"data/dangling/part-0", "nowhere/part-0"},
		{"data/missing/../inner", "data/sub"},
		{"alias/in.txt", "data/in.txt"},
		{"data/in.txt/below", "data/in.txt/below"},
		{"data/../../", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			got, err := confine.Resolve(filepath.Join(base, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(base, tc.want)
			if tc.want == "" {
				want = filepath.Dir(base)
			}
			if got != want {
				t.Errorf("Resolve(%q) = %q, want %q", tc.path, got, want)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	base := tree(t)
	for _, tc := range []struct{ path, want string }{
		{"", "empty path"},
		{filepath.Join(base, "data/loop/x"), "too many levels of symbolic links"},
	} {
		if _, err := confine.Resolve(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%q) = %v, want an error with %q", tc.path, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	base := tree(t)
	roots, err := confine.New([]string{filepath.Join(base, "data"), ""})
	must(t, err)
	for _, tc := range []struct {
		path   string
		inside bool
	}{
		{"data", true},
		{"data/in.txt", true},
		{"data/sub/new-sink-dir", true},
		{"data/inner/x", true},
		{"alias/in.txt", true},
		{"data2", false},           // a prefix of the name is not a parent
		{"data2/x", false},         //
		{"data/../outside", false}, // .. out of the root
		{"data/sub/../../outside/secret", false},
		{"data/out/secret", false},      // a link inside pointing out
		{"data/dangling/part-0", false}, // a dangling one, which creating would follow
		{"outside", false},
		{"", false}, // the parent of base
	} {
		t.Run(tc.path, func(t *testing.T) {
			p := filepath.Join(base, tc.path)
			if tc.path == "" {
				p = base + "/.."
			}
			_, err := roots.Check(p)
			if tc.inside && err != nil {
				t.Fatalf("Check(%q) = %v, want inside", tc.path, err)
			}
			if !tc.inside {
				var oe *confine.OutsideError
				if !errors.As(err, &oe) || !errors.Is(err, confine.ErrOutside) {
					t.Fatalf("Check(%q) = %v, want an OutsideError", tc.path, err)
				}
				if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), filepath.Join(base, "data")) {
					t.Errorf("error %q does not quote the path and the root", err)
				}
			}
		})
	}
}

// TestCheckRootLink checks that a root given through a link is the
// directory it leads to.
func TestCheckRootLink(t *testing.T) {
	base := tree(t)
	roots, err := confine.New([]string{filepath.Join(base, "alias")})
	must(t, err)
	if _, err := roots.Check(filepath.Join(base, "data/in.txt")); err != nil {
		t.Errorf("a path below the link's target: %v", err)
	}
	if _, err := roots.Check(filepath.Join(base, "outside/secret")); err == nil {
		t.Error("a path outside the link's target is inside")
	}
}

func TestUnrestricted(t *testing.T) {
	for _, r := range []*confine.Roots{nil, mustNew(t, nil), mustNew(t, []string{" "}[:0])} {
		if r.Restricted() {
			t.Errorf("%v restricts", r)
		}
		if _, err := r.Check("/etc/shadow"); err != nil {
			t.Errorf("unrestricted Check: %v", err)
		}
	}
}

func mustNew(t *testing.T, dirs []string) *confine.Roots {
	t.Helper()
	r, err := confine.New(dirs)
	must(t, err)
	return r
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		root, path string
		want       bool
	}{
		{"/data", "/data", true},
		{"/data", "/data/x", true},
		{"/data", "/data2", false},
		{"/data", "/dat", false},
		{"/data", "/", false},
		{"/", "/anything", true},
	} {
		if got := confine.Within(tc.root, tc.path); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.root, tc.path, got, tc.want)
		}
	}
}

func TestParseList(t *testing.T) {
	got := confine.ParseList(" /a, ,/b,")
	if strings.Join(got, "|") != "/a|/b" {
		t.Errorf("ParseList = %q", got)
	}
}

func TestCheckJob(t *testing.T) {
	base := tree(t)
	roots := mustNew(t, []string{filepath.Join(base, "data")})
	spec := func(source, sink, late, storage string) []byte {
		return []byte(`
name: j
modules: {m: m.wasm}
source: {type: file, uid: src, path: "` + source + `"}
operators:
  - {type: keyBy, uid: k, key: value}
  - {type: window, uid: w, module: m, aggregate: f, window: {type: tumbling, size: 1s}, time: processing,
     sideOutputs: {late: {type: file, path: "` + late + `"}}}
sink: {type: file, uid: out, path: "` + sink + `"}
checkpoints: {interval: 1s, storage: "` + storage + `"}
`)
	}
	d := filepath.Join(base, "data")
	for _, tc := range []struct {
		name                      string
		source, sink, late, store string
		fields                    []string
	}{
		{"inside", d + "/in.txt", d + "/out-dir", d + "/late", "file://" + d + "/ck", nil},
		{"shadow", "/etc/shadow", d + "/o", d + "/l", "s3://bucket/x", []string{"source.path"}},
		{"sink link", d + "/in.txt", d + "/out/x", d + "/l", "file://" + d + "/ck", []string{"sink.path"}},
		{"side output", d + "/in.txt", d + "/o", base + "/data2", "file://" + d + "/ck", []string{"operators[1].sideOutputs.late.path"}},
		{"storage", d + "/in.txt", d + "/o", d + "/l", "file:///etc", []string{"checkpoints.storage"}},
		{"all", "/etc/passwd", "/tmp/../etc", "/", "file://" + d + "/../outside", []string{
			"source.path", "sink.path", "operators[1].sideOutputs.late.path", "checkpoints.storage"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := jobspec.Parse(spec(tc.source, tc.sink, tc.late, tc.store), "/", nil)
			must(t, err)
			err = roots.CheckJob(j)
			var got []string
			for _, e := range unjoin(err) {
				var fe *confine.FieldError
				if !errors.As(e, &fe) || !errors.Is(e, confine.ErrOutside) {
					t.Fatalf("error %v is not a FieldError about a path outside", e)
				}
				got = append(got, fe.Field)
			}
			if strings.Join(got, ",") != strings.Join(tc.fields, ",") {
				t.Errorf("CheckJob refused %q, want %q (error: %v)", got, tc.fields, err)
			}
		})
	}
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestWrittenDirs(t *testing.T) {
	base := tree(t)
	j, err := jobspec.Parse([]byte(`
name: j
source: {type: file, uid: src, path: in.txt}
sink: {type: file, uid: out, path: "`+base+`/data/inner/o"}
`), "/", nil)
	must(t, err)
	got := confine.WrittenDirs(j)
	if len(got) != 1 || got["sink.path"] != filepath.Join(base, "data/sub/o") {
		t.Errorf("WrittenDirs = %v", got)
	}
}

func TestCheckStore(t *testing.T) {
	base := tree(t)
	roots := mustNew(t, []string{filepath.Join(base, "data")})
	for _, tc := range []struct {
		url, want string
		ok        bool
	}{
		{"s3://bucket/p", "", true},
		{"file://" + base + "/data/sp", base + "/data/sp", true},
		{base + "/data/sp", base + "/data/sp", true},
		{base + "/data/../../etc", "", false},
		{"file://" + base + "/data/out", "", false},
		{"ftp://x", "", false},
	} {
		dir, err := roots.CheckStore("dir", tc.url)
		if (err == nil) != tc.ok || dir != tc.want {
			t.Errorf("CheckStore(%q) = %q, %v; want %q, ok %v", tc.url, dir, err, tc.want, tc.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "dir: ") {
			t.Errorf("error %q does not name the field", err)
		}
	}
}

// TestCheckJobKafkaTLS checks that the files a Kafka connector reads for
// TLS are a job's paths too.
func TestCheckJobKafkaTLS(t *testing.T) {
	base := tree(t)
	roots := mustNew(t, []string{filepath.Join(base, "data")})
	j, err := jobspec.Parse([]byte(`
name: j
source: {type: kafka, uid: src, brokers: "k:9092", topics: t, tls: {caFile: /etc/ssl/ca.pem}}
sink: {type: kafka, uid: out, brokers: "k:9092", topic: o,
       tls: {certFile: "`+base+`/data/c.pem", keyFile: "`+base+`/data/out/k.pem"}}
`), "/", nil)
	must(t, err)
	err = roots.CheckJob(j)
	var fields []string
	for _, e := range unjoin(err) {
		var fe *confine.FieldError
		if errors.As(e, &fe) {
			fields = append(fields, fe.Field)
		}
	}
	if strings.Join(fields, ",") != "source.tls.caFile,sink.tls.keyFile" {
		t.Errorf("CheckJob refused %q: %v", fields, err)
	}
}
