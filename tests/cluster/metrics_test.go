package cluster

import (
	"net/http"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var metricsURL = regexp.MustCompile(`taskmanager: metrics on (http://\S+/metrics)`)

// TestTaskManagersServeMetrics runs word count over two floe taskmanager
// processes started with --metrics-addr, scrapes each with Prometheus's
// parser once the job has finished, and adds up their counts: the source
// stage read every line the test wrote and the count stage every word.
func TestTaskManagersServeMetrics(t *testing.T) {
	c := newCluster(t, clusterConfig{taskManagers: 2, slots: 1, taskManagerArgs: []string{"--metrics-addr", "127.0.0.1:0"}})
	in := newInput(t, 20_000, 5)
	out := filepath.Join(t.TempDir(), "out")
	id := c.submit(wordcountSpec(t, "wordcount-metrics", ""),
		"--set", "input="+in.path, "--set", "output="+out, "--parallelism", "2")
	c.wait(id, 2*time.Minute)
	job := c.job(id)
	if len(job.Vertices) != 2 {
		t.Fatalf("%d vertices, want 2", len(job.Vertices))
	}
	sums := map[string]float64{} // by vertex and metric
	series := 0
	for _, p := range c.taskManagerProcs() {
		m := metricsURL.FindStringSubmatch(p.stdout.String())
		if m == nil {
			t.Fatalf("%s does not say where it serves metrics:\n%s", p.name, p.stdout.String())
		}
		resp, err := http.Get(m[1])
		if err != nil {
			t.Fatal(err)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: parsing %s: %v", p.name, m[1], err)
		}
		for _, name := range []string{"floe_task_records_in_total", "floe_task_records_out_total"} {
			for _, s := range fams[name].GetMetric() {
				l := map[string]string{}
				for _, lp := range s.Label {
					l[lp.GetName()] = lp.GetValue()
				}
				if l["job"] != id {
					continue
				}
				series++
				sums[l["vertex"]+" "+name] += s.GetCounter().GetValue()
			}
		}
		if fams["go_goroutines"] == nil {
			t.Errorf("%s: no go_goroutines", p.name)
		}
	}
	src, count := job.Vertices[0].Name, job.Vertices[1].Name
	for _, c := range []struct {
		key  string
		want int64
	}{
		{src + " floe_task_records_in_total", in.lines},
		{src + " floe_task_records_out_total", in.words},
		{count + " floe_task_records_in_total", in.words},
	} {
		if got := sums[c.key]; got != float64(c.want) {
			t.Errorf("%s summed over the task managers = %v, want %d", c.key, got, c.want)
		}
	}
	if series != 8 {
		t.Errorf("%d series of the job, want 8: 2 metrics x 2 stages x 2 subtasks", series)
	}
}
