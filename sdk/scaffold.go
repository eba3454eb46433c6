// Package sdk carries Floe's guest SDKs and project templates inside the
// floe binary, so that `floe new --lang LANG NAME` can write a ready-to-build
// operator project anywhere, with the SDK it needs copied into the project's
// floe-sdk/ directory (no registry needed).
//
// Each language has a template directory templates/LANG whose files are Go
// text/template texts over Project; a ".tmpl" suffix is dropped and a file
// named "gitignore" becomes ".gitignore".
package sdk

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"
)

// NB: all:templates keeps the templates' dotfiles (.gitignore, .cargo).
//
//go:embed go/*.go go/floetest/*.go go/internal/nativehost/*.go c/floe.h c/floe.c rust/Cargo.toml rust/src assemblyscript/package.json assemblyscript/assembly all:templates
var files embed.FS

// Project is what templates are rendered with.
type Project struct {
	// Name is the project's name: its directory, module and job name.
	Name string
}

// language is one SDK: its template and the SDK files a project needs.
type language struct {
	name string
	// sdk copies the SDK's files into a project's floe-sdk directory.
	sdk func(dst string) error
	// next are the commands that build and run the project.
	next string
}

var languages = map[string]language{
	"go": {name: "Go", sdk: goSDK, next: "./build.sh\n  floe run job.yaml\n  cat out/part-*"},
	"c": {name: "C", sdk: func(dst string) error {
		return copyTree("c", dst, func(p string) bool { return strings.HasPrefix(path.Base(p), "floe.") })
	}, next: "make\n  floe run job.yaml\n  cat out/part-*"},
	"rust": {name: "Rust", sdk: func(dst string) error {
		return copyTree("rust", dst, func(string) bool { return true })
	}, next: "./build.sh\n  floe run job.yaml\n  cat out/part-*"},
	"as": {name: "AssemblyScript", sdk: func(dst string) error {
		return copyTree("assemblyscript", dst, func(string) bool { return true })
	}, next: "sh build.sh\n  floe run job.yaml\n  cat out/part-*"},
}

// Languages returns the languages New accepts.
func Languages() []string {
	out := make([]string, 0, len(languages))
	for l := range languages {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

var validName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)

// New writes a project named name in language lang into dir, which must not
// exist yet, and returns the commands that build and run it.
func New(lang, name, dir string) (string, error) {
	l, ok := languages[lang]
	if !ok {
		return "", fmt.Errorf("unknown language %q (want one of %s)", lang, strings.Join(Languages(), ", "))
	}
	if !validName.MatchString(name) {
		return "", fmt.Errorf("project name %q: use lower-case letters, digits, - and _, starting with a letter", name)
	}
	if _, err := os.Stat(dir); err == nil {
		return "", fmt.Errorf("%s already exists", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	root := "templates/" + lang
	err := fs.WalkDir(files, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		text, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		tmpl, err := template.New(rel).Option("missingkey=error").Parse(string(text))
		if err != nil {
			return fmt.Errorf("template %s: %w", rel, err)
		}
		var out bytes.Buffer
		if err := tmpl.Execute(&out, Project{Name: name}); err != nil {
			return fmt.Errorf("template %s: %w", rel, err)
		}
		rel = strings.TrimSuffix(rel, ".tmpl")
		if path.Base(rel) == "gitignore" {
			rel = path.Join(path.Dir(rel), ".gitignore")
		}
		mode := fs.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		return write(filepath.Join(dir, filepath.FromSlash(rel)), out.Bytes(), mode)
	})
	if err != nil {
		return "", err
	}
	if err := l.sdk(filepath.Join(dir, "floe-sdk")); err != nil {
		return "", err
	}
	return fmt.Sprintf("cd %s\n  %s", dir, l.next), nil
}

// goSDK copies the Go SDK as the module github.com/floe-stream/floe, which
// the project's go.mod replaces with ./floe-sdk: package floe with its
// native test harness floetest (and the internal package joining the two),
// so that the project's go test runs its operators natively.
func goSDK(dst string) error {
	if err := write(filepath.Join(dst, "go.mod"), []byte("module github.com/floe-stream/floe\n\ngo 1.24\n"), 0o644); err != nil {
		return err
	}
	return copyTree("go", filepath.Join(dst, "sdk", "go"), func(p string) bool { return !strings.HasSuffix(p, "_test.go") })
}

// copyTree copies the embedded tree src to dst, keeping the files keep
// accepts.
func copyTree(src, dst string, keep func(string) bool) error {
	return fs.WalkDir(files, src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !keep(p) {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		return write(filepath.Join(dst, filepath.FromSlash(strings.TrimPrefix(p, src+"/"))), b, mode)
	})
}

func write(p string, b []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, mode)
}
