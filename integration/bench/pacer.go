package bench

import (
	"context"
	"runtime"
	"time"
)

// pace calls send(scheduled) for n sends at rate per second, each at its
// scheduled time (open loop: send must not block). It runs on an OS thread
// of its own that sleeps with nanosecond timers (preciseSleep): the Go
// runtime's timers wake about 0.5 ms late on this kind of VM (median;
// millisecond granularity), which would shift every request by that much.
func pace(ctx context.Context, rate, n int, send func(scheduled time.Time)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Never unlocked: the thread exits with the goroutine, so its timer
		// settings (preciseSleep) never reach the runtime's other threads.
		runtime.LockOSThread()
		sleep := preciseSleeper()
		interval := time.Second / time.Duration(rate)
		start := time.Now()
		for i := 0; i < n && ctx.Err() == nil; i++ {
			next := start.Add(time.Duration(i) * interval)
			for d := time.Until(next); d > 0; d = time.Until(next) {
				sleep(d)
			}
			send(next)
		}
	}()
	<-done
}
