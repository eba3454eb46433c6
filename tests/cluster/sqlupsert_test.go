package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// sqlUpsertScript counts bids and sums their prices per auction, an
// updating result, into an upsert-kafka table keyed by auction.
const sqlUpsertScript = `SET parallelism = 2;
SET checkpoint_interval = '300ms';

CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts BIGINT)
  WITH (connector = 'file', path = '${input}', rate = '3000');

CREATE TABLE per_auction (auction BIGINT, n BIGINT, total BIGINT, PRIMARY KEY (auction) NOT ENFORCED)
  WITH (connector = 'upsert-kafka', brokers = '${brokers}', topic = 'counts');

INSERT INTO per_auction SELECT auction, COUNT(*), SUM(price) FROM bids GROUP BY auction HAVING COUNT(*) < 900;
`

// TestSQLUpsertKafkaHoldsTheTable runs an updating GROUP BY into an
// upsert-kafka table on real processes, with a task manager SIGKILLed
// midway: the committed topic, read as a table (the last value of each
// key, a tombstone removing it), equals the query's result computed from
// the input. HAVING makes some auctions leave the result, as deletes.
func TestSQLUpsertKafkaHoldsTheTable(t *testing.T) {
	b := startBroker(t, 2)
	c := kafkaCluster(t)
	dir := t.TempDir()
	input := filepath.Join(dir, "bids.csv")
	sqlBids(t, input, 12_000)
	want := map[string]string{}
	n, total := map[int64]int64{}, map[int64]int64{}
	for i := range 12_000 {
		auction, price := int64(i*7%13), int64(100+i*31%900)
		n[auction]++
		total[auction] += price
	}
	for a := range n {
		if n[a] < 900 {
			want[fmt.Sprint(a)] = fmt.Sprintf("%d,%d,%d", a, n[a], total[a])
		}
	}
	script := filepath.Join(dir, "upsert.sql")
	if err := os.WriteFile(script, []byte(sqlUpsertScript), 0o644); err != nil {
		t.Fatal(err)
	}
	id := c.submit(script, "--set", "input="+input, "--set", "brokers="+b.addr)
	c.waitCheckpointAfter(id, 1)
	job := c.job(id)
	victim := c.taskManager(job.Vertices[len(job.Vertices)-1].Subtasks[0].TaskManager)
	t.Logf("SIGKILL %s, attempt %d", victim.name, job.Attempt)
	victim.kill()
	c.startTaskManager(2)
	c.wait(id, 3*time.Minute)
	if job := c.job(id); job.Attempt < 2 {
		t.Errorf("attempt %d at the end, want a restart after the kill", job.Attempt)
	}

	cl := b.client(kgo.ConsumeTopics("counts"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(200*time.Millisecond))
	defer cl.Close()
	table, tombstones := map[string]string{}, 0
	for quiet := 0; quiet < 3; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		got := 0
		fs.EachRecord(func(r *kgo.Record) {
			got++
			if r.Value == nil {
				tombstones++
				delete(table, string(r.Key))
				return
			}
			if k, _, _ := strings.Cut(string(r.Value), ","); k != string(r.Key) {
				t.Errorf("record %q has key %q, want its auction", r.Value, r.Key)
			}
			table[string(r.Key)] = string(r.Value)
		})
		if got == 0 {
			quiet++
		}
	}
	if tombstones == 0 {
		t.Error("no tombstone: HAVING should have removed auctions")
	}
	for k, v := range want {
		if table[k] != v {
			t.Errorf("auction %s: %q, want %q", k, table[k], v)
		}
	}
	for k, v := range table {
		if _, ok := want[k]; !ok {
			t.Errorf("auction %s: %q left in the table, want it deleted", k, v)
		}
	}
}
