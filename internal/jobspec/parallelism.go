package jobspec

import "fmt"

// SourceParallelism returns the number of subtasks of Sources[i].
func (j *Job) SourceParallelism(i int) int { return j.orDefault(j.Sources[i].Parallelism) }

// OperatorParallelism returns the number of subtasks of Operators[i].
func (j *Job) OperatorParallelism(i int) int { return j.orDefault(j.Operators[i].Parallelism) }

// SinkParallelism returns the number of subtasks of Sinks[i].
func (j *Job) SinkParallelism(i int) int { return j.orDefault(j.Sinks[i].Parallelism) }

// orDefault returns p, or the job's default parallelism when p is 0.
func (j *Job) orDefault(p int) int {
	if p == 0 {
		return j.Parallelism
	}
	return p
}

// WithParallelism sets the job's default parallelism to n, as a
// --parallelism flag asks. Stages whose parallelism the spec sets explicitly
// keep it. On error the job is left unchanged.
func (j *Job) WithParallelism(n int) error {
	if n < 1 {
		return fmt.Errorf("parallelism override: must be >= 1, got %d", n)
	}
	if n > j.MaxParallelism {
		return fmt.Errorf("parallelism override: %d exceeds maxParallelism %d", n, j.MaxParallelism)
	}
	j.Parallelism = n
	return nil
}

// WithOperatorParallelism sets the parallelism of the source, operator or
// sink whose uid is uid, overriding the job's default for it.
func (j *Job) WithOperatorParallelism(uid string, n int) error {
	if n < 1 || n > j.MaxParallelism {
		return fmt.Errorf("parallelism of %s: %d is not within 1..maxParallelism %d", uid, n, j.MaxParallelism)
	}
	for i := range j.Sources {
		if j.Sources[i].UID == uid {
			j.Sources[i].Parallelism = n
			return nil
		}
	}
	for i := range j.Operators {
		if j.Operators[i].UID == uid {
			j.Operators[i].Parallelism = n
			return nil
		}
	}
	for i := range j.Sinks {
		if j.Sinks[i].UID == uid {
			j.Sinks[i].Parallelism = n
			return nil
		}
	}
	return fmt.Errorf("no source, operator or sink with uid %q", uid)
}
