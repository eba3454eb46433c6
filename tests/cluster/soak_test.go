package cluster

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// The soak test's load and disturbances. The input grows by about 4,000
// words a second for the whole run; a task manager is killed every 15 to 45
// seconds at random, and the job is rescaled every minute.
const (
	soakWordsPerTick  = 400
	soakTick          = 100 * time.Millisecond
	soakRescaleEvery  = time.Minute
	soakKillMin       = 15 * time.Second
	soakKillSpread    = 30 * time.Second
	soakStatusEvery   = 15 * time.Second
	soakCheckpointsIn = "1s"
)

// soakParallelisms are the parallelisms the job alternates between, one
// rescale after another; it starts with the first.
var soakParallelisms = [2]int{2, 3}

// soakDuration returns how long the soak test disturbs the job: the Go
// duration in FLOE_SOAK_DURATION, 10 minutes without it. It skips the test
// unless FLOE_SOAK=1.
func soakDuration(t *testing.T) time.Duration {
	t.Helper()
	if os.Getenv("FLOE_SOAK") != "1" {
		t.Skip("a soak test: run it with make soak, or with FLOE_SOAK=1")
	}
	v := os.Getenv("FLOE_SOAK_DURATION")
	if v == "" {
		return 10 * time.Minute
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("FLOE_SOAK_DURATION=%q: want a positive Go duration such as 10m", v)
	}
	return d
}

// TestSoakWordCountExactlyOnce runs the word count with checkpoints every
// second and the exactly-once file sink over a file that the test keeps
// appending to for FLOE_SOAK_DURATION. Meanwhile it SIGKILLs a task manager
// of the job at random moments, starting a replacement each time, and
// rescales the job every minute, alternating between two parallelisms. It
// then stops appending, waits until the committed output has one line per
// word written, stops the job with a savepoint, and checks that for every
// word the committed counts are exactly 1..n, n being the number of times
// the test wrote it.
//
// The output and checkpoints of a failed run are kept, and their directory
// logged, as evidence.
func TestSoakWordCountExactlyOnce(t *testing.T) {
	duration := soakDuration(t)
	dir := soakDir(t)
	c := newCluster(t, clusterConfig{taskManagers: 3, slots: 2,
		schedulerArgs: []string{"--checkpoint-storage", "file://" + filepath.Join(dir, "checkpoints")}})
	seed := uint64(time.Now().UnixNano())
	t.Logf("soak for %s, seed %d, data in %s", duration, seed, dir)
	feed := startAppender(t, filepath.Join(dir, "input.txt"), soakWordsPerTick, soakTick, seed)
	out := filepath.Join(dir, "out")
	spec := wordcountSpec(t, "soak", "\nrestartStrategy: {type: fixedDelay, attempts: 1000, delay: 500ms}\n")
	id := c.submit(spec, "--set", "input="+feed.path, "--set", "output="+out, "--set", "follow=true",
		"--parallelism", strconv.Itoa(soakParallelisms[0]), "--checkpoint-interval", soakCheckpointsIn)
	s := &soak{t: t, c: c, id: id, feed: feed, out: &committed{dir: out, lines: map[string]int64{}},
		r: rand.New(rand.NewPCG(seed, 13)), start: time.Now(), completed: map[int64]bool{}}
	s.run(duration)

	in := feed.finish(t)
	t.Logf("stopped appending after %s: %d words, %d distinct", s.since(), in.words, len(in.want))
	s.drain(in.words)
	r := c.floe(5*time.Minute, "job", "stop", id, "--savepoint", "--dir", "file://"+filepath.Join(dir, "savepoints"))
	if r.code != 0 {
		t.Fatalf("floe job stop --savepoint: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("stopped the job with savepoint %s", strings.TrimSpace(r.stdout))
	lines := checkExactlyOnce(t, out, in)
	job := c.job(id)
	t.Logf("soak of %s: %d kills, %d rescales, %d checkpoints completed, %d attempts, %d committed lines checked for %d words",
		duration, s.kills, s.rescales, len(s.completed), job.Attempt, lines, len(in.want))
	if s.kills == 0 || job.Attempt <= s.kills {
		t.Errorf("%d kills and attempt %d at the end: the job did not restart after each kill", s.kills, job.Attempt)
	}
}

// soakDir returns a directory for the soak's input, output and checkpoints.
// It is removed when the test passes and kept when it fails.
func soakDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "floe-soak-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kept the input, output, checkpoints and savepoints in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

// soak drives the disturbances of a soak run and reports its progress.
type soak struct {
	t     *testing.T
	c     *cluster
	id    string
	feed  *appender
	out   *committed
	r     *rand.Rand
	start time.Time

	kills, rescales int
	// completed holds the ids of the completed checkpoints seen.
	completed map[int64]bool
	// mark is the id of a checkpoint completed after the last disturbance.
	mark int64
}

// since returns the time since the soak started, rounded for the log.
func (s *soak) since() time.Duration { return time.Since(s.start).Round(time.Second) }

// run kills task managers at random moments and rescales the job every
// soakRescaleEvery until duration has passed, logging the job's progress
// in between.
func (s *soak) run(duration time.Duration) {
	end := time.After(duration)
	rescale := time.NewTimer(soakRescaleEvery)
	defer rescale.Stop()
	kill := time.NewTimer(s.killDelay())
	defer kill.Stop()
	status := time.NewTicker(soakStatusEvery)
	defer status.Stop()
	for {
		select {
		case <-end:
			s.status()
			return
		case <-rescale.C:
			s.rescale()
			rescale.Reset(soakRescaleEvery)
		case <-kill.C:
			s.kill()
			kill.Reset(s.killDelay())
		case <-status.C:
			s.status()
		}
	}
}

// killDelay draws the time until the next kill.
func (s *soak) killDelay() time.Duration {
	return soakKillMin + time.Duration(s.r.Int64N(int64(soakKillSpread)))
}

// settle waits until the job runs and has completed a checkpoint since the
// last disturbance, so that every disturbance finds the job making
// progress, and returns the job's status.
func (s *soak) settle() api.JobStatus {
	s.t.Helper()
	s.c.waitJob(s.id, 3*time.Minute, "running", func(j api.JobStatus) bool { return j.State == api.JobRunning })
	s.mark = s.c.waitCheckpointAfter(s.id, s.mark)
	return s.c.job(s.id)
}

// kill SIGKILLs the task manager of a random subtask of the job and starts
// a replacement.
func (s *soak) kill() {
	s.t.Helper()
	job := s.settle()
	v := job.Vertices[s.r.IntN(len(job.Vertices))]
	sub := v.Subtasks[s.r.IntN(len(v.Subtasks))]
	p := s.c.taskManager(sub.TaskManager)
	s.kills++
	s.t.Logf("%s kill %d: SIGKILL %s (%s), which runs %s subtask %d, at attempt %d",
		s.since(), s.kills, p.name, p.id, v.Name, sub.Subtask, job.Attempt)
	p.kill()
	r := s.c.startTaskManager(2)
	s.t.Logf("%s started %s (%s) in its place", s.since(), r.name, r.id)
}

// rescale switches the job to the other parallelism and waits until the
// rescale is done.
func (s *soak) rescale() {
	s.t.Helper()
	job := s.settle()
	to := soakParallelisms[0]
	if job.Parallelism == to {
		to = soakParallelisms[1]
	}
	s.t.Logf("%s rescale %d: %d -> %d at attempt %d", s.since(), s.rescales+1, job.Parallelism, to, job.Attempt)
	r := s.c.floe(3*time.Minute, "job", "rescale", s.id, "--parallelism", strconv.Itoa(to), "--wait", "--timeout", "150s")
	if r.code != 0 {
		s.t.Fatalf("floe job rescale %s --parallelism %d: exit %d\n%s%s", s.id, to, r.code, r.stdout, r.stderr)
	}
	s.rescales++
	s.t.Logf("%s %s", s.since(), strings.TrimSpace(r.stdout))
}

// status logs the job's state, the checkpoints completed so far, and how
// far the output is behind the input.
func (s *soak) status() {
	s.t.Helper()
	job := s.c.job(s.id)
	if api.Terminal(job.State) {
		s.t.Fatalf("job ended %s: %s", job.State, job.Message)
	}
	cps, err := s.c.client.Checkpoints(s.t.Context(), s.id)
	if err != nil {
		s.t.Fatalf("listing checkpoints: %v", err)
	}
	var latest int64
	for _, cp := range cps {
		if cp.Status == api.CheckpointCompleted {
			s.completed[cp.ID] = true
			latest = max(latest, cp.ID)
		}
	}
	lines, err := s.out.count()
	if err != nil {
		s.t.Fatalf("counting committed lines: %v", err)
	}
	s.t.Logf("%s %s, attempt %d, parallelism %d: %d checkpoints completed (latest %d), %d words written, %d committed",
		s.since(), job.State, job.Attempt, job.Parallelism, len(s.completed), latest, s.feed.written(), lines)
}

// drain waits until the committed output holds a line for each of the
// words written, or stops waiting after a while: the check that follows
// says what is missing.
func (s *soak) drain(words int64) {
	s.t.Helper()
	var lines int64
	err := s.c.poll(5*time.Minute, func() (bool, error) {
		var err error
		lines, err = s.out.count()
		return lines >= words, err
	})
	if err != nil {
		s.t.Errorf("the committed output has %d lines, want one per word written: %d: %v", lines, words, err)
		return
	}
	s.t.Logf("%s the committed output has caught up: %d lines", s.since(), lines)
}
