//go:build !unix

package fit

import "time"

// cpuTime is not measured here: the benchmark's cpu-ns/op is then 0 and only its wall time counts.
func cpuTime() time.Duration { return 0 }
