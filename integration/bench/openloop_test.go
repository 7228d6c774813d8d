package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMaxRateUnder(t *testing.T) {
	ms := time.Millisecond
	row := func(rate int, p99 time.Duration, errs int) rateRow {
		return rateRow{rate: rate, p99: p99, errs: errs}
	}
	for _, tt := range []struct {
		name string
		rows []rateRow
		want int
	}{
		{"all under", []rateRow{row(100, ms/2, 0), row(200, ms/2, 0)}, 200},
		{"a lucky row above a failing one", []rateRow{row(100, 3*ms, 0), row(200, 0, 0), row(300, 2*ms, 0)}, 0},
		{"stops at the first failure", []rateRow{row(100, ms/2, 0), row(200, 2*ms, 0), row(300, ms/2, 0)}, 100},
		{"errors fail a row", []rateRow{row(100, ms/2, 1)}, 0},
		{"order of the rows does not matter", []rateRow{row(300, ms/2, 0), row(100, ms/2, 0), row(200, 5*ms, 0)}, 100},
		{"the bound is exclusive", []rateRow{row(100, ms, 0)}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, maxRateUnder(tt.rows, ms))
		})
	}
}

func TestQuantile(t *testing.T) {
	ms := time.Millisecond
	sorted := []time.Duration{1 * ms, 2 * ms, 3 * ms, 4 * ms}
	for _, tt := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"none", nil, .5, 0},
		{"median of four is the upper middle", sorted, .5, 3 * ms},
		{"p99 of four is the largest", sorted, .99, 4 * ms},
		{"p100 stays in range", sorted, 1, 4 * ms},
		{"p0 is the smallest", sorted, 0, ms},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, quantile(tt.sorted, tt.p))
		})
	}
}
