package client_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// Submit a job from its spec file and wait for it to end, as
// `floe job submit` followed by `floe job wait` does.
func ExampleClient_SubmitFiles() {
	c := client.New("http://127.0.0.1:8081", nil)
	ctx := context.Background()
	id, err := c.SubmitFiles(ctx, "udfs/wordcount/job.yaml", client.SubmitOptions{
		Set:         map[string]string{"input": "words.txt", "output": "counts/"},
		Parallelism: 4,
	})
	if err != nil {
		log.Fatal(err)
	}
	job, err := c.Wait(ctx, id, time.Second)
	if err != nil {
		log.Fatal(err)
	}
	if job.State != api.JobFinished {
		log.Fatalf("job %s %s: %s", id, job.State, job.Message)
	}
	fmt.Println("done")
}

// Read how often the running wordcount job has seen a word, from its
// queryable state counts, as `floe state get --job ID --state counts the`
// does.
func ExampleClient_GetInt64() {
	c := client.New("http://127.0.0.1:8081", nil)
	n, found, err := c.GetInt64(context.Background(), "4f2a9c1e0b7d3e65", "counts", "the")
	if err != nil {
		log.Fatal(err)
	}
	if !found {
		n = 0 // the job has not seen the word yet
	}
	fmt.Println("the:", n)
}
