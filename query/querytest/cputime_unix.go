//go:build unix

package querytest

import (
	"syscall"
	"time"
)

// CPUTime is this process's user+system CPU time: a throughput measure that
// holds up on a machine shared with other work.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
