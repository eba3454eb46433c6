package rest_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/internal/rest"
)

// sha256Hex is the digest the scheduler must answer for b, computed here
// independently of the code under test.
func sha256Hex(b string) string {
	sum := sha256.Sum256([]byte(b))
	return hex.EncodeToString(sum[:])
}

// push pushes wasm under name and returns the answer.
func (e *env) push(t *testing.T, name, wasm string) api.ModuleInfo {
	t.Helper()
	var info api.ModuleInfo
	decode(t, e.do(http.MethodPost, "/v1/modules?name="+name, strings.NewReader(wasm), "application/wasm"), http.StatusCreated, &info)
	return info
}

func TestPushListGetDeleteModule(t *testing.T) {
	e := newEnv(t, rest.Options{})
	a, b := "\x00asm module a", "\x00asm module b"
	if info := e.push(t, "wc", a); info.Digest != sha256Hex(a) || info.Name != "wc" || info.Size != int64(len(a)) {
		t.Errorf("push a = %+v, want digest %s, name wc, size %d", info, sha256Hex(a), len(a))
	}
	e.push(t, "alpha", b)

	var list struct{ Modules []api.ModuleInfo }
	decode(t, e.do(http.MethodGet, "/v1/modules", nil, ""), http.StatusOK, &list)
	if len(list.Modules) != 2 || list.Modules[0].Digest != sha256Hex(b) || list.Modules[1].Digest != sha256Hex(a) {
		t.Errorf("list = %+v, want b (alpha) then a (wc)", list.Modules)
	}

	for _, path := range []string{"/v1/modules/" + sha256Hex(a), "/v1/modules/sha256:" + sha256Hex(a)} {
		var info api.ModuleInfo
		decode(t, e.do(http.MethodGet, path, nil, ""), http.StatusOK, &info)
		if info.Digest != sha256Hex(a) || info.Name != "wc" {
			t.Errorf("GET %s = %+v", path, info)
		}
	}
	if rec := e.do(http.MethodHead, "/v1/modules/"+sha256Hex(a), nil, ""); rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Errorf("HEAD of a pushed module: %d with body %q, want 200 and none", rec.Code, rec.Body)
	}

	rec := e.do(http.MethodDelete, "/v1/modules/"+sha256Hex(a), nil, "")
	if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
		t.Fatalf("DELETE: %d %q, want 204 and no body", rec.Code, rec.Body)
	}
	if rec := e.do(http.MethodHead, "/v1/modules/"+sha256Hex(a), nil, ""); rec.Code != http.StatusNotFound {
		t.Errorf("HEAD of a deleted module: %d, want 404", rec.Code)
	}
	if msg := errorOf(t, e.do(http.MethodGet, "/v1/modules/"+sha256Hex(a), nil, ""), http.StatusNotFound); !strings.Contains(msg, "no module sha256:"+sha256Hex(a)) {
		t.Errorf("GET of a deleted module: %q", msg)
	}
}

// TestModuleDigestsAreChecked checks that only a hex SHA-256 names a
// module: anything else is a 400, before any lookup.
func TestModuleDigestsAreChecked(t *testing.T) {
	e := newEnv(t, rest.Options{})
	for _, d := range []string{"abc", strings.Repeat("A", 64), strings.Repeat("a", 65), "sha512:" + strings.Repeat("a", 64), "..%2F..%2Fetc"} {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			rec := e.do(method, "/v1/modules/"+d, nil, "")
			if msg := errorOf(t, rec, http.StatusBadRequest); !strings.Contains(msg, "not a module digest") {
				t.Errorf("%s %s: %q", method, d, msg)
			}
		}
	}
	if msg := errorOf(t, e.do(http.MethodPost, "/v1/modules", strings.NewReader(""), ""), http.StatusBadRequest); !strings.Contains(msg, "empty") {
		t.Errorf("an empty push: %q", msg)
	}
}

// refSpec names module ops by the digest of opsWasm.
const opsWasm = "\x00asm ops"

var refSpec = strings.Replace(spec, "ops: ops.wasm", "ops: ops@sha256:"+sha256Hex(opsWasm), 1)

func TestSubmitNamesAModuleByDigest(t *testing.T) {
	e := newEnv(t, rest.Options{})
	rec := e.submit(t, part{"spec", "job.yaml", refSpec})
	if msg := errorOf(t, rec, http.StatusBadRequest); !strings.Contains(msg, `module "ops": the scheduler has no module sha256:`+sha256Hex(opsWasm)) {
		t.Errorf("a job naming an unknown digest: %q", msg)
	}
	e.push(t, "ops", opsWasm)
	var out struct{ ID string }
	decode(t, e.submit(t, part{"spec", "job.yaml", refSpec}), http.StatusCreated, &out)
	if subs := e.fake.Submissions(); len(subs[len(subs)-1].Modules) != 0 {
		t.Errorf("the job uploaded modules %v, want none", subs[len(subs)-1].Modules)
	}
	if msg := errorOf(t, e.submit(t, part{"spec", "job.yaml", refSpec}, part{"ops", "ops.wasm", opsWasm}), http.StatusBadRequest); !strings.Contains(msg, "named by digest") {
		t.Errorf("a job naming a module by digest and uploading it: %q", msg)
	}

	del := e.do(http.MethodDelete, "/v1/modules/"+sha256Hex(opsWasm), nil, "")
	if msg := errorOf(t, del, http.StatusConflict); !strings.Contains(msg, out.ID) {
		t.Errorf("deleting the module of a running job: %q, want it named", msg)
	}
	var info api.ModuleInfo
	decode(t, e.do(http.MethodGet, "/v1/modules/"+sha256Hex(opsWasm), nil, ""), http.StatusOK, &info)
	if len(info.UsedBy) != 1 || info.UsedBy[0] != out.ID {
		t.Errorf("usedBy = %v, want [%s]", info.UsedBy, out.ID)
	}
	decode(t, e.do(http.MethodDelete, "/v1/jobs/"+out.ID, nil, ""), http.StatusOK, &struct{}{})
	if rec := e.do(http.MethodDelete, "/v1/modules/"+sha256Hex(opsWasm), nil, ""); rec.Code != http.StatusNoContent {
		t.Errorf("deleting the module once its job is canceled: %d %s", rec.Code, rec.Body)
	}
}

func TestPushModuleTooLarge(t *testing.T) {
	e := newEnv(t, rest.Options{MaxUpload: 16})
	rec := e.do(http.MethodPost, "/v1/modules", strings.NewReader(strings.Repeat("x", 17)), "application/wasm")
	errorOf(t, rec, http.StatusRequestEntityTooLarge)
}

// TestSubmitSendsDigestsForUploads checks the moduleDigest field: a module
// the spec names by path, sent by digest instead of uploaded.
func TestSubmitSendsDigestsForUploads(t *testing.T) {
	e := newEnv(t, rest.Options{})
	e.push(t, "ops", opsWasm)
	decode(t, e.submit(t, part{"spec", "job.yaml", spec}, part{"moduleDigest", "", "ops=sha256:" + sha256Hex(opsWasm)}), http.StatusCreated, &struct{}{})
	if s := e.fake.Submissions()[0]; len(s.Modules) != 0 || s.Digests["ops"] != sha256Hex(opsWasm) {
		t.Errorf("submission modules %v, digests %v", s.Modules, s.Digests)
	}
	for _, bad := range []string{"ops", "ops=" + sha256Hex(opsWasm), "=sha256:" + sha256Hex(opsWasm), "ops=x@sha256:" + sha256Hex(opsWasm)} {
		rec := e.submit(t, part{"spec", "job.yaml", spec}, part{"moduleDigest", "", bad})
		if msg := errorOf(t, rec, http.StatusBadRequest); !strings.Contains(msg, "want NAME=sha256:HEX") {
			t.Errorf("moduleDigest %q: %q", bad, msg)
		}
	}
}
