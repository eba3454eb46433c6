package jobspec

// ForgetCalls clears where j names functions, for tests that compare whole
// jobs with ones built by hand; TestCheckFunctions checks them.
func ForgetCalls(j *Job) { j.calls = nil }
