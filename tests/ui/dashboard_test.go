package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/floe-stream/floe/scheduler/api"
)

// clicks is an unbounded job that runs until cancelled: a rate-limited
// generator of records for a few keys, keyed across an exchange to a
// process function that counts each key's records in queryable state
// ("seen"), and on to a file. Its plan has two vertices joined by a hash
// edge.
const clicks = `
name: clicks
parallelism: 2
modules:
  testops: %s
source: {type: generator, uid: clicks, count: 0, rate: 400, kind: random, keys: 5}
operators:
  - {type: keyBy, uid: by-user, key: "csv:0"}
  - {type: process, uid: count, module: testops, function: state}
sink: {type: file, uid: out, path: %q}
`

// fanout is an unbounded job whose graph is not a line: two rate-limited
// generators of records for the same few keys, unioned and keyed to the
// process function that counts each key's records in keyed state, whose
// output two sinks read, one at another parallelism. Its plan has five
// vertices: two sources, each sending on a hash edge to the count, which
// sends forward to one sink and rebalances to the other.
const fanout = `
name: fanout
parallelism: 2
modules:
  testops: %s
sources:
  - {type: generator, uid: web, count: 0, rate: 200, kind: random, keys: 5}
  - {type: generator, uid: app, count: 0, rate: 100, kind: random, keys: 5, parallelism: 1}
operators:
  - {type: union, uid: all, inputs: [web, app]}
  - {type: keyBy, uid: by-user, key: "csv:0"}
  - {type: process, uid: count, module: testops, function: state}
sinks:
  - {type: file, uid: out, path: %q}
  - {type: file, uid: copy, path: %q, parallelism: 1}
`

// numbers is a bounded job, submitted through the dashboard.
const numbers = `
name: numbers
modules:
  testops: testops.wasm
source: {type: generator, uid: numbers, count: 2000}
operators:
  - {type: map, uid: upper, module: testops, function: upper}
sink: {type: file, uid: out, path: "${output}"}
`

// key is one of the generator's keys: "key-" and the key's number, of six
// digits at least.
const key = "key-000003"

// wait bounds every wait of the test for the job or the page to reach a
// state; none is expected to take more than a few seconds.
const wait = 30 * time.Second

func TestDashboardFollowsAndRescalesARunningJob(t *testing.T) {
	needChromium(t)
	f := startFloe(t, "clicks", func(dir string) string {
		return fmt.Sprintf(clicks, filepath.Join(modules, "testops.wasm"), filepath.Join(dir, "out"))
	})
	id := f.jobID(t)
	f.waitJob(t, id, "running with records through both vertices", func(j api.JobStatus) bool {
		return j.State == api.JobRunning && len(j.Vertices) == 2 && j.Vertices[1].RecordsIn > 0
	})
	s := &session{f: f, b: startBrowser(t), id: id, shots: screenshotDir(t)}
	// Each step leaves the job as the next expects it: running, until the
	// rescale and the cancel.
	steps := []struct {
		name string
		run  func(*testing.T)
	}{
		{"jobs list", s.jobsList},
		{"token", s.token},
		{"job page", s.jobPage},
		{"records per second", s.rates},
		{"state lookup", s.stateLookup},
		{"savepoint", s.savepoint},
		{"rescale", s.rescale},
		{"task managers", s.taskManagers},
		{"submit", s.submit},
		{"cancel", s.cancel},
	}
	for _, step := range steps {
		if !t.Run(step.name, step.run) {
			break
		}
	}
	s.b.checkConsole(t)
}

func TestDashboardDrawsAGraphJob(t *testing.T) {
	needChromium(t)
	f := startFloe(t, "fanout", func(dir string) string {
		return fmt.Sprintf(fanout, filepath.Join(modules, "testops.wasm"), filepath.Join(dir, "out"), filepath.Join(dir, "copy"))
	})
	id := f.jobID(t)
	f.waitJob(t, id, "running with records into every sink", func(j api.JobStatus) bool {
		if j.State != api.JobRunning || len(j.Vertices) == 0 {
			return false
		}
		for _, v := range j.Vertices {
			if len(v.Inputs) > 0 && v.RecordsIn == 0 {
				return false
			}
		}
		return true
	})
	b := startBrowser(t)
	b.open(t, f.url+"#/jobs/"+id)
	job := checkGraph(t, b, f, id)
	// NB: the test means a graph with a union and a fan-out; a plan that
	// made the job a line would pass the checks above trivially.
	union, readers := false, map[int]int{}
	for _, v := range job.Vertices {
		union = union || len(v.Inputs) > 1
		for _, in := range v.Inputs {
			readers[in.Stage]++
		}
	}
	fanned := false
	for _, n := range readers {
		fanned = fanned || n > 1
	}
	if !union || !fanned {
		t.Errorf("the job's graph has a vertex with several inputs: %t, a vertex with several readers: %t; want both", union, fanned)
	}
	checkStateSizes(t, b, f, id)
	b.screenshot(t, screenshotDir(t), "job-graph")
	b.checkConsole(t)
}

// session is the test's floe run, its job and the browser on its
// dashboard.
type session struct {
	f     *floe
	b     *browser
	id    string
	shots string
}

// jobsList checks that the jobs list shows the job.
func (s *session) jobsList(t *testing.T) {
	s.b.open(t, s.f.url+"#/")
	s.b.waitTrue(t, "the jobs list shows the running job", fmt.Sprintf(
		`(() => { const r = document.querySelector('#jobs tr[data-job=%q]'); return !!r && r.textContent.includes('clicks') && r.textContent.includes('RUNNING'); })()`, s.id))
	s.b.screenshot(t, s.shots, "jobs")
}

// token checks that, behind a server that wants a token, the page asks
// for one, and with it shows the jobs.
func (s *session) token(t *testing.T) {
	proxy := tokenProxy(t, s.f.url, "s3cret")
	s.b.open(t, proxy+"#/")
	s.b.waitTrue(t, "the page to ask for a token", `!document.querySelector('#token').hidden`)
	s.b.do(t, chromedp.SendKeys(chromedp.CSS("#token-input"), "s3cret"), chromedp.Click(chromedp.CSS("#token button")))
	s.b.waitTrue(t, "the jobs list with the token", fmt.Sprintf(
		`!!document.querySelector('#jobs tr[data-job=%q]') && document.querySelector('#token').hidden && sessionStorage.getItem('floe.token') === 's3cret'`, s.id))
}

// jobPage checks that the job page draws one node per vertex, with the
// parallelism the API reports and the edges the plan has, in a row as the
// job is a line; shows the state sizes the metrics report; shows the logs
// panel when the scheduler serves a job's logs and hides it when it
// answers 404, as one without the endpoint does; and charts checkpoints.
func (s *session) jobPage(t *testing.T) {
	s.b.open(t, s.f.url+"#/jobs/"+s.id)
	job := checkGraph(t, s.b, s.f, s.id)
	if job.Vertices[0].Output != "hash" || len(job.Vertices[1].Inputs) != 1 {
		t.Errorf("the first vertex's output is %q and the second's inputs %+v, want one hash edge: the job keys its records", job.Vertices[0].Output, job.Vertices[1].Inputs)
	}
	checkRow(t, s.b)
	checkStateSizes(t, s.b, s.f, s.id)
	hidden := s.f.statusOf(t, "/v1/jobs/"+s.id+"/logs") == http.StatusNotFound
	s.b.waitTrue(t, fmt.Sprintf("the logs panel hidden: %t", hidden), fmt.Sprintf(
		`document.querySelector('#view').dataset.loaded === 'true' && document.querySelector('#logs').hidden === %t`, hidden))
	s.b.waitTrue(t, "the checkpoint chart shows a checkpoint", `document.querySelectorAll('svg[data-chart=duration] rect.bar').length > 0`)
	// The job's spec has no autoscaler: section.
	s.b.waitTrue(t, "the autoscaler panel says it is off", `document.querySelector('#autoscaler-policy').textContent === 'Off.'`)
}

// rates checks that the source's records/s figure changes while the job
// runs: it takes at least two different positive values.
func (s *session) rates(t *testing.T) {
	seen := map[string]bool{}
	s.b.waitTrue(t, "the source's records/s to take two different values", "false", func() bool {
		r := s.b.eval(t, `document.querySelector('#graph g.vertex[data-stage="0"] .rate').dataset.rate`)
		if v, err := strconv.ParseFloat(r, 64); err == nil && v > 0 {
			seen[r] = true
		}
		return len(seen) >= 2
	})
}

// stateLookup checks that the state lookup shows the API's answers: a
// key's count, and the error for a state the job does not have.
func (s *session) stateLookup(t *testing.T) {
	lookup := func(name, key string) {
		s.b.do(t, chromedp.Click(chromedp.CSS("#state-name")))
		s.b.eval(t, `document.querySelector('#state-name').value = document.querySelector('#state-key').value = '', 'cleared'`)
		s.b.do(t, chromedp.SendKeys(chromedp.CSS("#state-name"), name), chromedp.SendKeys(chromedp.CSS("#state-key"), key),
			chromedp.Click(chromedp.CSS("#state-lookup")))
	}
	lookup("seen", key)
	s.b.waitTrue(t, "the state lookup to show a count for "+key, `/^[1-9][0-9]* \(int64\)$/.test(document.querySelector('#state-result').textContent)`)
	var v api.StateValue
	s.f.get(t, "/v1/jobs/"+s.id+"/state/seen/"+key, &v)
	if !v.Found || v.Type != "int64" {
		t.Errorf("the API has %+v for %s, want an int64", v, key)
	}
	apiErr := s.f.errorOf(t, "/v1/jobs/"+s.id+"/state/no-such-state/k")
	lookup("no-such-state", "k")
	s.b.waitTrue(t, "the state lookup to show the API's error "+strconv.Quote(apiErr), fmt.Sprintf(
		`(() => { const e = document.querySelector('#state-result .error'); return !!e && e.textContent === %q; })()`, apiErr))
	s.b.screenshot(t, s.shots, "job")
}

// savepoint checks that a savepoint taken through the page is there,
// where the page says.
func (s *session) savepoint(t *testing.T) {
	s.b.do(t, chromedp.Click(chromedp.CSS("#savepoint")))
	s.b.waitTrue(t, "the page to give the savepoint's path", `/^Savepoint \d+ at file:\/\/\//.test(document.querySelector('#action-msg').textContent)`)
	msg := s.b.eval(t, `document.querySelector('#action-msg').textContent`)
	path := strings.TrimPrefix(msg[strings.Index(msg, " at ")+4:], "file://")
	if _, err := os.Stat(filepath.Join(path, "_metadata")); err != nil {
		t.Errorf("the page says %q, but the savepoint has no metadata: %v", msg, err)
	}
}

// rescale checks that a rescale through the page, one below the job's
// parallelism, reaches the job, and that the graph follows.
func (s *session) rescale(t *testing.T) {
	want := s.f.job(t, s.id).Parallelism - 1
	s.b.do(t, chromedp.Click(chromedp.CSS("#rescale-n")))
	s.b.eval(t, `document.querySelector('#rescale-n').select(), 'selected'`)
	s.b.do(t, chromedp.SendKeys(chromedp.CSS("#rescale-n"), strconv.Itoa(want)), chromedp.Click(chromedp.CSS("#rescale")))
	s.b.waitTrue(t, "the page to confirm the rescale", fmt.Sprintf(`document.querySelector('#action-msg').textContent.startsWith('Rescale to %d requested')`, want))
	s.f.waitJob(t, s.id, fmt.Sprintf("rescaled to %d", want), func(j api.JobStatus) bool {
		if j.State != api.JobRunning || j.Parallelism != want {
			return false
		}
		for _, v := range j.Vertices {
			if v.Parallelism != want || v.Subtasks[0].State != api.TaskRunning {
				return false
			}
		}
		return true
	})
	checkGraph(t, s.b, s.f, s.id)
}

// taskManagers checks that the task managers page lists the task manager
// with the job's tasks.
func (s *session) taskManagers(t *testing.T) {
	job := s.f.job(t, s.id)
	tasks := 0
	for _, v := range job.Vertices {
		tasks += v.Parallelism
	}
	tm := job.Vertices[0].Subtasks[0].TaskManager
	s.b.open(t, s.f.url+"#/taskmanagers")
	s.b.waitTrue(t, fmt.Sprintf("the task manager %s with %d tasks", tm, tasks), fmt.Sprintf(
		`(() => { const r = document.querySelector('#taskmanagers tr[data-tm=%q]'); return !!r && r.textContent.includes('%d tasks'); })()`, tm, tasks))
	s.b.screenshot(t, s.shots, "taskmanagers")
}

// submit checks that a job submitted through the page (spec, module, a
// parameter and a parallelism, uploaded as multipart) runs to its end, on
// the slot the rescale freed.
func (s *session) submit(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "numbers.yaml")
	if err := os.WriteFile(spec, []byte(numbers), 0o644); err != nil {
		t.Fatal(err)
	}
	s.b.open(t, s.f.url+"#/submit")
	s.b.do(t, chromedp.SetUploadFiles(chromedp.CSS("#spec"), []string{spec}),
		chromedp.SetUploadFiles(chromedp.CSS("#modules"), []string{filepath.Join(modules, "testops.wasm")}),
		chromedp.SendKeys(chromedp.CSS("#params"), "output="+filepath.Join(dir, "out")),
		chromedp.SendKeys(chromedp.CSS("#parallelism"), "1"))
	s.b.screenshot(t, s.shots, "submit")
	s.b.do(t, chromedp.Click(chromedp.CSS("#submit")))
	var second string
	s.b.waitTrue(t, "the page to show the submitted job", "false", func() bool {
		h := s.b.eval(t, `location.hash`)
		second = strings.TrimPrefix(h, "#/jobs/")
		return second != h && second != s.id
	})
	j := s.f.waitJob(t, second, "finished", func(j api.JobStatus) bool { return api.Terminal(j.State) })
	if j.State != api.JobFinished || j.Name != "numbers" || j.Parallelism != 1 {
		t.Errorf("the job submitted through the page is %s %q at parallelism %d (%s), want numbers FINISHED at 1", j.Name, j.State, j.Parallelism, j.Message)
	}
	s.b.waitTrue(t, "the page to show the submitted job finished", `document.querySelector('h1').textContent === 'numbers FINISHED'`)
}

// cancel checks that cancelling takes two clicks, and reaches the job.
func (s *session) cancel(t *testing.T) {
	s.b.open(t, s.f.url+"#/jobs/"+s.id)
	s.b.waitTrue(t, "the job page", `document.querySelectorAll('#graph g.vertex').length > 0`)
	s.b.do(t, chromedp.Click(chromedp.CSS("#cancel")))
	if st := s.f.job(t, s.id).State; st != api.JobRunning {
		t.Fatalf("the job is %s after one click on cancel, want it still RUNNING", st)
	}
	s.b.do(t, chromedp.Click(chromedp.CSS("#cancel")))
	s.f.waitJob(t, s.id, "cancelled", func(j api.JobStatus) bool { return j.State == api.JobCanceled })
	s.b.waitTrue(t, "the page to show the job cancelled", `document.querySelector('h1 .state').textContent === 'CANCELED'`)
}

// checkGraph waits until the job page draws the job's graph as the API
// reports it: one node per vertex, with its parallelism, and one edge per
// input of a vertex, labelled with its partitioning, that leaves the box
// of the vertex it reads and enters the box of the vertex that reads it,
// to its right. It returns the job's status the drawing matched.
func checkGraph(t *testing.T, b *browser, f *floe, id string) api.JobStatus {
	t.Helper()
	var job api.JobStatus
	var want, drawn string
	defer func() {
		if t.Failed() {
			t.Logf("the API's graph:\n%s\nthe page's:\n%s", want, drawn)
		}
	}()
	b.waitTrue(t, "the graph to match the job's vertices and inputs", "false", func() bool {
		job = f.job(t, id)
		want = graphOf(job)
		drawn = b.eval(t, drawnGraph)
		return drawn == want
	})
	t.Logf("graph:\n%s", drawn)
	return job
}

// graphOf lists a job's vertices and edges as the REST API reports them,
// one a line, sorted, as drawnGraph lists what the page draws.
func graphOf(job api.JobStatus) string {
	var g []string
	for _, v := range job.Vertices {
		g = append(g, fmt.Sprintf("vertex %d x%d", v.Stage, v.Parallelism))
		for _, in := range v.Inputs {
			g = append(g, fmt.Sprintf("edge %d->%d %s", in.Stage, v.Stage, in.Partitioning))
		}
	}
	sort.Strings(g)
	return strings.Join(g, "\n")
}

// drawnGraph lists the vertices and edges the page draws, one a line,
// sorted: each edge with the label it shows, and a note when its ends are
// not on the boxes of the vertices it joins, or it runs right to left.
const drawnGraph = `(() => {
	const box = (s) => { const r = document.querySelector('#graph g.vertex[data-stage="' + s + '"] rect'); return r && r.getBBox(); };
	const near = (a, b) => Math.abs(a - b) <= 3;
	const edge = (g) => {
		const a = box(g.dataset.from), b = box(g.dataset.to), p = g.querySelector('path');
		const p0 = p.getPointAtLength(0), p1 = p.getPointAtLength(p.getTotalLength());
		const ok = !!a && !!b && a.x + a.width <= b.x &&
			near(p0.x, a.x + a.width) && p0.y >= a.y && p0.y <= a.y + a.height &&
			near(p1.x, b.x) && p1.y >= b.y && p1.y <= b.y + b.height;
		return 'edge ' + g.dataset.from + '->' + g.dataset.to + ' ' + g.querySelector('text').textContent + (ok ? '' : ' (not drawn from box to box, left to right)');
	};
	return [...document.querySelectorAll('#graph g.vertex')].map((g) => 'vertex ' + g.dataset.stage + ' x' + g.dataset.parallelism)
		.concat([...document.querySelectorAll('#graph g.edge')].map(edge)).sort().join('\n');
})()`

// checkRow checks that the page draws a linear job as before graphs: its
// vertices in one row, left to right in the order of the line.
func checkRow(t *testing.T, b *browser) {
	t.Helper()
	boxes := b.eval(t, `JSON.stringify([...document.querySelectorAll('#graph g.vertex > rect:first-of-type')].map((r) => r.getBBox()).map((r) => [r.x, r.y + r.height / 2]))`)
	var xy [][2]float64
	if err := json.Unmarshal([]byte(boxes), &xy); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(xy); i++ {
		if xy[i][1] != xy[0][1] || xy[i][0] <= xy[i-1][0] {
			t.Errorf("the page draws the linear job's vertices at (left, middle) %v, want them in a row, left to right", xy)
			break
		}
	}
}

// checkStateSizes waits until the page shows the keyed state sizes the
// metrics endpoint reports: on each vertex's box and for each subtask,
// each stateful operator's keys (as the page writes them) and bytes. The
// figures change with each heartbeat, so the endpoint is read before and
// after the page, and only an answer that is the same both times counts.
func checkStateSizes(t *testing.T, b *browser, f *floe, id string) {
	t.Helper()
	var want, shown string
	defer func() {
		if t.Failed() {
			t.Logf("the metrics endpoint's state sizes:\n%s\nthe page's:\n%s", want, shown)
		}
	}()
	b.waitTrue(t, "the page to show the state sizes the metrics endpoint reports", "false", func() bool {
		before := stateSizesOf(f.metrics(t, id))
		shown = b.eval(t, shownStateSizes)
		want = stateSizesOf(f.metrics(t, id))
		return before == want && want != "" && shown == want
	})
	t.Logf("state sizes:\n%s", shown)
}

// stateSizesOf lists the keyed state sizes of a job's metrics, one
// operator of a vertex or subtask a line, sorted, as shownStateSizes lists
// the page's.
func stateSizesOf(m api.JobMetrics) string {
	var l []string
	for _, v := range m.Vertices {
		for _, o := range v.OperatorStates {
			l = append(l, fmt.Sprintf("vertex %d %s %d keys %d bytes", v.Stage, o.Operator, o.Keys, o.Bytes))
		}
		for _, s := range v.Subtasks {
			for _, o := range s.OperatorStates {
				l = append(l, fmt.Sprintf("subtask %d/%d %s %d keys %d bytes", v.Stage, s.Subtask, o.Operator, o.Keys, o.Bytes))
			}
		}
	}
	sort.Strings(l)
	return strings.Join(l, "\n")
}

// shownStateSizes lists the state sizes the page shows: the keys as its
// text writes them, the bytes (which it rounds) from data-bytes.
const shownStateSizes = `(() => {
	const keys = (e) => { const m = e.textContent.match(/([0-9,]+) keys/); return m ? m[1].replace(/,/g, '') : '?'; };
	const vertices = [...document.querySelectorAll('#graph g.vertex .state-size')].map((e) =>
		'vertex ' + e.closest('g.vertex').dataset.stage + ' ' + e.dataset.operator + ' ' + keys(e) + ' keys ' + e.dataset.bytes + ' bytes');
	const subtasks = [...document.querySelectorAll('#subtasks tr[data-stage] .state-size')].map((e) => {
		const tr = e.closest('tr');
		return 'subtask ' + tr.dataset.stage + '/' + tr.dataset.subtask + ' ' + e.dataset.operator + ' ' + keys(e) + ' keys ' + e.dataset.bytes + ' bytes';
	});
	return vertices.concat(subtasks).sort().join('\n');
})()`

// tokenProxy serves the dashboard at url through a proxy that answers the
// API's requests 401 unless they carry the bearer token, as a scheduler
// with tokens does, and returns the proxy's URL.
func tokenProxy(t *testing.T, url, token string) string {
	t.Helper()
	target, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") && r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"unauthorized: a bearer token is required"}`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// floe is a running `floe run --ui`.
type floe struct {
	url    string // the dashboard's, ending in "/"
	cmd    *exec.Cmd
	stderr *syncBuffer
}

// startFloe runs the spec that body returns for a temporary directory
// (the job's files go there) with floe run --ui.
func startFloe(t *testing.T, name string, body func(dir string) string) *floe {
	t.Helper()
	dir := t.TempDir()
	spec := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(spec, []byte(body(dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &floe{stderr: &syncBuffer{}}
	f.cmd = exec.Command(floeBin, "run", spec, "--ui", "127.0.0.1:0", "--checkpoint-interval", "200ms",
		"--progress", "0", "--data-dir", filepath.Join(dir, "data"))
	f.cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cacheHome)
	f.cmd.Stderr = f.stderr
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.stop(t) })
	re := regexp.MustCompile(`serving the dashboard at (http://\S+/)`)
	deadline := time.Now().Add(wait)
	for {
		if m := re.FindStringSubmatch(f.stderr.String()); m != nil {
			f.url = m[1]
			return f
		}
		if time.Now().After(deadline) || f.cmd.ProcessState != nil {
			t.Fatalf("floe run printed no dashboard URL within %s:\n%s", wait, f.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop interrupts floe run, as Ctrl-C does, and waits for it to exit.
func (f *floe) stop(t *testing.T) {
	f.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- f.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(wait):
		f.cmd.Process.Kill()
		<-done
		t.Errorf("floe run did not exit within %s of SIGINT:\n%s", wait, f.stderr)
	}
	if t.Failed() {
		t.Logf("floe run's log:\n%s", f.stderr)
	}
}

// get decodes the answer of a GET on the REST API into v.
func (f *floe) get(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(f.url, "/") + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// statusOf returns the status code of the REST API's answer to a GET.
func (f *floe) statusOf(t *testing.T, path string) int {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(f.url, "/") + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// errorOf returns the error message of the REST API's answer to a GET
// that fails.
func (f *floe) errorOf(t *testing.T, path string) string {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(f.url, "/") + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode == http.StatusOK || body.Error == "" {
		t.Fatalf("GET %s: %s, error %q (%v); want an error", path, resp.Status, body.Error, err)
	}
	return body.Error
}

// metrics returns the job's metrics endpoint's answer.
func (f *floe) metrics(t *testing.T, id string) api.JobMetrics {
	t.Helper()
	var m api.JobMetrics
	f.get(t, "/v1/jobs/"+id+"/metrics", &m)
	return m
}

func (f *floe) job(t *testing.T, id string) api.JobStatus {
	t.Helper()
	var j api.JobStatus
	f.get(t, "/v1/jobs/"+id, &j)
	return j
}

// jobID waits for the job floe run submits and returns its id.
func (f *floe) jobID(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var list struct{ Jobs []api.JobStatus }
		f.get(t, "/v1/jobs", &list)
		if len(list.Jobs) == 1 {
			return list.Jobs[0].ID
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d jobs after %s, want the one floe run submitted", len(list.Jobs), wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitJob polls the job until ok holds for it.
func (f *floe) waitJob(t *testing.T, id, what string, ok func(api.JobStatus) bool) api.JobStatus {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		j := f.job(t, id)
		if ok(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job was not %s within %s: %s %q, parallelism %d, history %+v", what, wait, j.State, j.Message, j.Parallelism, j.History)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// browser is a headless Chromium with one tab, and what its console said.
type browser struct {
	ctx     context.Context
	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium),
		chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()))
	if os.Geteuid() == 0 {
		// NB: Chromium refuses to start as root with its sandbox on, as it
		// runs in containers.
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &browser{ctx: ctx}
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("starting %s: %v", chromium, err)
	}
	messages := chromedp.Console(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		wg.Wait()
	})
	return b
}

func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, wait)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) open(t *testing.T, url string) {
	t.Helper()
	b.do(t, chromedp.Navigate(url))
}

// eval returns the value of a JavaScript expression, as a string.
func (b *browser) eval(t *testing.T, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, wait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// waitTrue waits until the page's expression is true, or, given ok, until
// ok returns true.
func (b *browser) waitTrue(t *testing.T, what, expr string, ok ...func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		if len(ok) > 0 && ok[0]() || len(ok) == 0 && b.eval(t, expr) == "true" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; the page shows:\n%s", wait, what, b.eval(t, `document.querySelector('main').innerText`))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// screenshot saves the whole page as dir/name.png.
func (b *browser) screenshot(t *testing.T, dir, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, wait)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkConsole fails the test for any error the page logged, threw or
// that the browser reported (a blocked resource, say), but a failed
// request: the dashboard asks for optional endpoints that an older
// scheduler answers 404.
func (b *browser) checkConsole(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		if (m.Type == "error" || m.Type == "assert" || m.IsException()) && m.Source != "network" {
			t.Errorf("console %s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line)
		}
	}
}

// screenshotDir is FLOE_UI_SCREENSHOTS, or a temporary directory.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FLOE_UI_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
