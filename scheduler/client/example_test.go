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
