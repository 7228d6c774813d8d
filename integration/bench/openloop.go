package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// openLoop sends req at rate requests/s for per, open loop: each request
// leaves at its scheduled time (pace) on a goroutine of its own, whatever
// the earlier ones are doing, so a slow server meets a queue rather than
// fewer requests. Latency counts from the moment the request is written
// (to the first byte of the answer with ttfb); how late that was against
// the schedule, the generator's own lag, is returned apart. lat is sorted.
func openLoop(ctx context.Context, rc *rawClient, req []byte, rate int, per time.Duration, ttfb bool) (lat, lag []time.Duration, sent, errs int) {
	sent = int(float64(rate) * per.Seconds())
	lat = make([]time.Duration, 0, sent)
	lag = make([]time.Duration, 0, sent)
	var mu sync.Mutex
	var wg sync.WaitGroup
	pace(ctx, rate, sent, func(scheduled time.Time) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := rc.do(req, false)
			end := time.Now()
			if ttfb {
				end = r.firstByte
			}
			if err == nil && r.status != http.StatusOK {
				err = fmt.Errorf("status %d", r.status)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs++
				return
			}
			lat = append(lat, end.Sub(r.sent))
			lag = append(lag, r.sent.Sub(scheduled))
		}()
	})
	wg.Wait()
	slices.Sort(lat)
	return lat, lag, sent, errs
}

// quantile of sorted latencies; 0 when there are none.
func quantile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// rateRow is what maxRateUnder reads of a measured rate: its p99 (added
// latency for the proxy, latency for verify) and its failed requests.
type rateRow struct {
	rate int
	p99  time.Duration
	errs int
}

// maxRateUnder is the highest rate up to which every row, lower rates
// included, had no error and a p99 under bound; 0 when the lowest fails. A
// p99 is noisy (the direct p99 alone moves by milliseconds between rows),
// so a lucky row above a failing one does not count.
func maxRateUnder(rows []rateRow, bound time.Duration) int {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b rateRow) int { return a.rate - b.rate })
	best := 0
	for _, r := range rows {
		if r.errs > 0 || r.p99 >= bound {
			break
		}
		best = r.rate
	}
	return best
}

// micros prints a latency in whole microseconds.
func micros(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/1e3) }

// printLag prints the load generator's lag over every measured request.
func printLag(w io.Writer, lag []time.Duration) {
	if len(lag) == 0 {
		return
	}
	lag = slices.Sorted(slices.Values(lag))
	fmt.Fprintf(w, "load generator lag (request written minus its scheduled time; latencies count from the write): p50 %s, p99 %s\n",
		micros(quantile(lag, .5)), micros(quantile(lag, .99)))
}
