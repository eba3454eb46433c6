package cluster

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/textgen"
)

// The Kafka tests run a kfake cluster inside the test process, on
// loopback; the task managers, separate processes, connect to it. Each
// feeds generated text into topic "lines" at a steady rate while it
// disturbs the job, runs the word count from Kafka to Kafka with an
// exactly-once sink, and reads topic "counts" as a read-committed consumer
// would: every "word,count" must appear exactly once, and each word's
// largest count must be its number of occurrences.

// broker is a kfake cluster of one broker that the test can stop and start
// again on the same port with the same data.
type broker struct {
	t    *testing.T
	addr string
	dir  string
	mu   sync.Mutex
	c    *kfake.Cluster
}

// startBroker starts a broker with topics "lines" and "counts" of
// partitions partitions each. It is closed when the test ends, after the
// cluster's processes have stopped.
func startBroker(t *testing.T, partitions int32) *broker {
	t.Helper()
	b := &broker{t: t, dir: t.TempDir()}
	port := 0
	if host, p, err := net.SplitHostPort(freeAddr(t)); err == nil && host != "" {
		port, _ = strconv.Atoi(p)
	}
	b.start(port, kfake.SeedTopics(partitions, "lines", "counts"))
	b.addr = b.c.ListenAddrs()[0]
	t.Cleanup(b.stop)
	return b
}

func (b *broker) start(port int, opts ...kfake.Opt) {
	b.t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.DataDir(b.dir)}, opts...)...)
	if err != nil {
		b.t.Fatalf("starting kfake: %v", err)
	}
	b.mu.Lock()
	b.c = c
	b.mu.Unlock()
}

func (b *broker) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c != nil {
		b.c.Close()
		b.c = nil
	}
}

// restart stops the broker, waits for down, and starts it again on the same
// port with the data it had.
func (b *broker) restart(down time.Duration) {
	b.t.Helper()
	b.stop()
	time.Sleep(down)
	_, p, _ := net.SplitHostPort(b.addr)
	port, _ := strconv.Atoi(p)
	b.start(port)
}

// client returns a client of the broker, closed when the test ends.
func (b *broker) client(opts ...kgo.Opt) *kgo.Client {
	b.t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.addr)}, opts...)...)
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(cl.Close)
	return cl
}

// feeder produces lines of text into topic "lines" at a steady rate.
type feeder struct {
	done chan struct{}
	err  error
}

// feed starts producing the lines of text at rate lines per second.
func (b *broker) feed(text []byte, rate int) *feeder {
	lines := bytes.SplitAfter(text, []byte("\n"))
	cl := b.client(kgo.DefaultProduceTopic("lines"))
	f := &feeder{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		const tick = 50 * time.Millisecond
		per := max(1, rate*int(tick)/int(time.Second))
		start := time.Now()
		for i := 0; i < len(lines); i += per {
			var recs []*kgo.Record
			for _, l := range lines[i:min(i+per, len(lines))] {
				if l = bytes.TrimSuffix(l, []byte("\n")); len(l) > 0 {
					recs = append(recs, &kgo.Record{Value: l})
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			err := cl.ProduceSync(ctx, recs...).FirstErr()
			cancel()
			if err != nil {
				f.err = err
				return
			}
			time.Sleep(time.Until(start.Add(time.Duration(i/per+1) * tick)))
		}
	}()
	return f
}

// wait waits until every line is produced.
func (f *feeder) wait(t *testing.T) {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(3 * time.Minute):
		t.Fatal("feeding the lines did not finish")
	}
	if f.err != nil {
		t.Fatalf("feeding the lines: %v", f.err)
	}
}

// counts reads topic "counts" as a read-committed consumer.
type counts struct {
	cl    *kgo.Client
	seen  map[string]map[int64]int
	lines int64
}

func (b *broker) counts() *counts {
	return &counts{
		cl: b.client(kgo.ConsumeTopics("counts"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(200*time.Millisecond)),
		seen: map[string]map[int64]int{},
	}
}

// poll reads what is committed for at most wait, and returns how many
// records it read.
func (c *counts) poll(t *testing.T, wait time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	fs := c.cl.PollFetches(ctx)
	n := 0
	fs.EachRecord(func(r *kgo.Record) {
		n++
		w, cnt, ok := strings.Cut(string(r.Value), ",")
		v, err := strconv.ParseInt(cnt, 10, 64)
		if !ok || err != nil || string(r.Key) != w {
			t.Fatalf("bad record %q with key %q", r.Value, r.Key)
		}
		if c.seen[w] == nil {
			c.seen[w] = map[int64]int{}
		}
		c.seen[w][v]++
		c.lines++
	})
	return n
}

// until reads until it has read n records.
func (c *counts) until(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for c.lines < n {
		if time.Now().After(deadline) {
			t.Fatalf("read %d committed counts, want %d", c.lines, n)
		}
		c.poll(t, time.Second)
	}
}

// readAll reads until it has one record per word of the input, then waits
// for two more checkpoints of the job, so that anything a replay wrote
// twice is committed too, and reads until the topic has nothing more.
func (c *counts) readAll(t *testing.T, cl *cluster, id string, words int64) {
	t.Helper()
	c.until(t, words)
	cl.waitCheckpointAfter(id, cl.waitCheckpointAfter(id, cl.latestCheckpoint(id)))
	for quiet := 0; quiet < 2; {
		if c.poll(t, 500*time.Millisecond) == 0 {
			quiet++
		}
	}
}

// latestCheckpoint returns the highest id of the job's checkpoints so far,
// complete or not.
func (c *cluster) latestCheckpoint(id string) int64 {
	c.t.Helper()
	cps, err := c.client.Checkpoints(context.Background(), id)
	if err != nil {
		c.t.Fatal(err)
	}
	var latest int64
	for _, cp := range cps {
		latest = max(latest, cp.ID)
	}
	return latest
}

// check compares what was read with the word count of the input.
func (c *counts) check(t *testing.T, want map[string]int64, words int64) {
	t.Helper()
	bad := 0
	for w, n := range want {
		for k := int64(1); k <= n && bad < 10; k++ {
			if c.seen[w][k] != 1 {
				t.Errorf("word %q: %q appears %d times (true count %d)", w, fmt.Sprintf("%s,%d", w, k), c.seen[w][k], n)
				bad++
			}
		}
	}
	if c.lines != words || len(c.seen) != len(want) {
		t.Errorf("%d counts of %d distinct words, want %d of %d", c.lines, len(c.seen), words, len(want))
	}
}

// kafkaText returns words words of generated text and its word count.
func kafkaText(t *testing.T, words int, seed uint64) ([]byte, map[string]int64, int64) {
	t.Helper()
	var text bytes.Buffer
	if err := textgen.Write(&text, words, seed); err != nil {
		t.Fatal(err)
	}
	want := textgen.Count(text.Bytes())
	var n int64
	for _, c := range want {
		n += c
	}
	return text.Bytes(), want, n
}

// kafkaWordCount writes the spec of the word count from topic "lines" to
// topic "counts" of b, keyed by word, exactly once.
func kafkaWordCount(t *testing.T, name string, b *broker) string {
	t.Helper()
	return writeSpec(t, name, fmt.Sprintf(`name: %s
parallelism: 2
modules: {wordcount: wordcount.wasm}
source: {type: kafka, uid: lines, brokers: "%s", topics: lines, group: %s, discoveryInterval: 1s}
operators:
  - {type: flatMap, uid: split, module: wordcount, function: split}
  - {type: keyBy, uid: by-word, key: value}
  - {type: process, uid: count, module: wordcount, function: count}
sink: {type: kafka, uid: out, brokers: "%s", topic: counts, key: "csv:0"}
restartStrategy: {type: fixedDelay, attempts: 10, delay: 500ms}
`, name, b.addr, name, b.addr))
}

// kafkaCluster starts a scheduler and two task managers of two slots
// with file checkpoint storage.
func kafkaCluster(t *testing.T) *cluster {
	t.Helper()
	return newCluster(t, clusterConfig{taskManagers: 2, slots: 2,
		schedulerArgs: []string{"--checkpoint-storage", "file://" + filepath.Join(t.TempDir(), "checkpoints")}})
}

// TestKafkaExactlyOnceAcrossTaskManagerKills runs the word count from Kafka
// to Kafka with checkpoints every 500 ms while lines arrive for about 10 s,
// and SIGKILLs a task manager of the job at two random moments, starting a
// fresh one each time.
func TestKafkaExactlyOnceAcrossTaskManagerKills(t *testing.T) {
	b := startBroker(t, 4)
	c := kafkaCluster(t)
	text, want, words := kafkaText(t, 200_000, 41)
	out := b.counts()
	id := c.submit(kafkaWordCount(t, "kafka-exactly-once", b), "--checkpoint-interval", "500ms")
	f := b.feed(text, 2500)
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill schedule seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 9))
	for kill := 1; kill <= 2; kill++ {
		// Once the job runs again and completes a checkpoint, kill at a
		// random moment.
		c.waitCheckpointAfter(id, c.latestCheckpoint(id))
		time.Sleep(time.Duration(200+r.IntN(2000)) * time.Millisecond)
		job := c.job(id)
		if api.Terminal(job.State) {
			t.Fatalf("job ended %s before kill %d: %s", job.State, kill, job.Message)
		}
		victim := c.taskManager(job.Vertices[r.IntN(len(job.Vertices))].Subtasks[0].TaskManager)
		t.Logf("kill %d: SIGKILL %s with the job %s, attempt %d", kill, victim.name, job.State, job.Attempt)
		victim.kill()
		c.startTaskManager(2)
	}
	f.wait(t)
	out.readAll(t, c, id, words)
	out.check(t, want, words)
	if job := c.job(id); job.Attempt < 3 {
		t.Errorf("attempt %d at the end, want at least 3 after two kills", job.Attempt)
	}
	checkGroupCaughtUp(t, c, b, "kafka-exactly-once")
	c.floe(time.Minute, "job", "cancel", id)
}

// checkGroupCaughtUp waits until the source's group has committed, on
// checkpoint completion, the end offset of every partition of "lines".
func checkGroupCaughtUp(t *testing.T, c *cluster, b *broker, group string) {
	t.Helper()
	adm := kadm.NewClient(b.client())
	var lag []string
	err := c.poll(time.Minute, func() (bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ends, err := adm.ListEndOffsets(ctx, "lines")
		if err != nil {
			return false, nil
		}
		offs, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			return false, nil
		}
		lag = nil
		ends.Each(func(e kadm.ListedOffset) {
			if o, _ := offs.Lookup(e.Topic, e.Partition); o.At != e.Offset {
				lag = append(lag, fmt.Sprintf("partition %d at %d of %d", e.Partition, o.At, e.Offset))
			}
		})
		return len(lag) == 0, nil
	})
	if err != nil {
		t.Errorf("group %s did not catch up with the end of lines: %v: %v", group, err, lag)
	}
}

// TestKafkaRescale rescales a Kafka-sourced word count over 6 partitions
// from 2 to 3 to 1 subtasks while lines arrive: the partitions' offsets
// move between subtasks as list state, and every line is counted exactly
// once.
func TestKafkaRescale(t *testing.T) {
	b := startBroker(t, 6)
	c := kafkaCluster(t)
	text, want, words := kafkaText(t, 150_000, 43)
	out := b.counts()
	id := c.submit(kafkaWordCount(t, "kafka-rescale", b), "--checkpoint-interval", "300ms")
	f := b.feed(text, 2500)
	for i, par := range []int{3, 1} {
		// Rescale once a third, then two thirds, of the counts are in.
		out.until(t, words*int64(i+1)/3)
		r := c.floe(2*time.Minute, "job", "rescale", id, "--parallelism", strconv.Itoa(par), "--wait", "--timeout", "90s")
		if r.code != 0 {
			t.Fatalf("rescale to %d: exit %d\n%s%s", par, r.code, r.stdout, r.stderr)
		}
		t.Logf("rescaled to %d after %d counts read: %s", par, out.lines, strings.TrimSpace(r.stdout))
	}
	f.wait(t)
	out.readAll(t, c, id, words)
	out.check(t, want, words)
	if job := c.job(id); job.Parallelism != 1 {
		t.Errorf("parallelism %d at the end, want 1", job.Parallelism)
	}
	// Its one source subtask now reads all 6 partitions, and once every
	// line is counted none waits: what the autoscaler is told.
	var src api.TaskFigures
	err := c.poll(30*time.Second, func() (bool, error) {
		m, err := c.client.JobMetrics(context.Background(), id)
		if err != nil || len(m.Vertices) == 0 {
			return false, err
		}
		src = m.Vertices[0].TaskFigures
		return src.Splits != nil && *src.Splits == 6 && src.Backlog != nil && *src.Backlog == 0, nil
	})
	if err != nil {
		t.Errorf("the source's metrics: splits %v, backlog %v, want 6 partitions and no backlog: %v",
			deref(src.Splits), deref(src.Backlog), err)
	}
	c.floe(time.Minute, "job", "cancel", id)
}

// deref is *p, or "absent".
func deref[T any](p *T) any {
	if p == nil {
		return "absent"
	}
	return *p
}

// TestKafkaBrokerOutage stops the broker for two seconds while the job
// runs, then starts it again on the same port with its data. The job waits
// for it, or restarts from its last checkpoint when a transaction did not
// survive: either way no count is lost or written twice.
func TestKafkaBrokerOutage(t *testing.T) {
	b := startBroker(t, 2)
	c := kafkaCluster(t)
	text, want, words := kafkaText(t, 100_000, 47)
	out := b.counts()
	id := c.submit(kafkaWordCount(t, "kafka-outage", b), "--checkpoint-interval", "500ms")
	f := b.feed(text, 2500)
	c.waitCheckpointAfter(id, c.waitCheckpointAfter(id, 0))
	before := c.job(id).Attempt
	b.restart(2 * time.Second)
	t.Logf("broker back after 2s, attempt %d before", before)
	f.wait(t)
	out.readAll(t, c, id, words)
	out.check(t, want, words)
	t.Logf("attempt %d after the outage", c.job(id).Attempt)
	c.floe(time.Minute, "job", "cancel", id)
}
