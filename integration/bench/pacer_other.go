//go:build !linux

package bench

import "time"

// preciseSleeper is time.Sleep outside Linux.
func preciseSleeper() func(time.Duration) { return time.Sleep }
