package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMaxRateUnder(t *testing.T) {
	ms := time.Millisecond
	row := func(rate int, p99 time.Duration, errs int) ProxyRow {
		return ProxyRow{Rate: rate, AddedP99: p99, Errs: errs}
	}
	for _, tt := range []struct {
		name string
		rows []ProxyRow
		want int
	}{
		{"all under", []ProxyRow{row(100, ms/2, 0), row(200, ms/2, 0)}, 200},
		{"a lucky row above a failing one", []ProxyRow{row(100, 3*ms, 0), row(200, 0, 0), row(300, 2*ms, 0)}, 0},
		{"stops at the first failure", []ProxyRow{row(100, ms/2, 0), row(200, 2*ms, 0), row(300, ms/2, 0)}, 100},
		{"errors fail a row", []ProxyRow{row(100, ms/2, 1)}, 0},
		{"order of the rows does not matter", []ProxyRow{row(300, ms/2, 0), row(100, ms/2, 0), row(200, 5*ms, 0)}, 100},
		{"the bound is exclusive", []ProxyRow{row(100, ms, 0)}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, maxRateUnder(tt.rows, ms))
		})
	}
}
