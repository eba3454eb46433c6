package client_test

import (
	"context"
	"fmt"
	"log"
	"strings"
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

// Rescale the running wordcount job to 4 subtasks, with 2 for its sink, as
// `floe job rescale ID --parallelism 4 --operator out=2` does, then wait
// for the scheduler's report of the rescale, with its downtime.
func ExampleClient_Rescale() {
	c := client.New("http://127.0.0.1:8081", nil)
	ctx := context.Background()
	id := "4f2a9c1e0b7d3e65"
	before, err := c.Job(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	err = c.Rescale(ctx, id, api.RescaleRequest{Parallelism: 4, Operators: map[string]int{"out": 2}})
	if err != nil {
		log.Fatal(err) // wraps api.ErrConflict for a job without checkpoints
	}
	for {
		job, err := c.Job(ctx, id)
		if err != nil {
			log.Fatal(err)
		}
		for _, e := range job.History[len(before.History):] {
			switch {
			case strings.HasPrefix(e.Message, "rescaled to"):
				fmt.Println(e.Message) // e.g. rescaled to 4/4/2: 1.2s downtime (1.5s since the request)
				return
			case strings.HasPrefix(e.Message, "rescale abandoned"), strings.HasPrefix(e.Message, "rescale failed"):
				log.Fatal(e.Message) // the job runs on at its old parallelism
			}
		}
		if api.Terminal(job.State) {
			log.Fatalf("job %s %s: %s", id, job.State, job.Message)
		}
		time.Sleep(time.Second)
	}
}

// Stop the running wordcount job with a savepoint and start a new version
// of it from there, at another parallelism, as `floe job stop ID
// --savepoint` followed by `floe job submit --from-savepoint PATH` does.
func ExampleClient_Stop() {
	c := client.New("http://127.0.0.1:8081", nil)
	// NB: a savepoint copies all of the job's state; give it minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	sp, err := c.Stop(ctx, "4f2a9c1e0b7d3e65", "s3://floe/savepoints")
	if err != nil {
		log.Fatal(err) // wraps api.ErrConflict for a job without checkpoints
	}
	fmt.Println("savepoint:", sp.Path) // e.g. s3://floe/savepoints/savepoint-4f2a9c-12
	id, err := c.SubmitFiles(ctx, "udfs/wordcount/job.yaml", client.SubmitOptions{
		Set:           map[string]string{"input": "words.txt", "output": "counts/"},
		Parallelism:   8,
		FromSavepoint: sp.Path,
	})
	if err != nil {
		log.Fatal(err) // wraps api.ErrBadRequest for a savepoint with state the job lacks
	}
	fmt.Println("restored as", id)
}
