package bench

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkLoopbackRTT measures this machine's floor for one hop of a
// proxied request: a 16-byte TCP echo to another process on loopback, back
// to back ("busy") and after a 1 ms gap in which the other process's threads
// park ("idle"). A proxy adds two such hops to a call (client to proxy, and
// the upstream's answer back to the proxy), so on a machine whose idle hop
// costs ~130 µs that is the larger part of a 0.2 ms budget before any work.
//
//	go test -run '^$' -bench LoopbackRTT -benchtime 2000x ./integration/bench/
func BenchmarkLoopbackRTT(b *testing.B) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestEchoHelperProcess$")
	cmd.Env = append(os.Environ(), "GATEWAY_BENCH_ECHO_HELPER=1")
	stdin, err := cmd.StdinPipe()
	require.NoError(b, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(b, err)
	require.NoError(b, cmd.Start())
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(b, err)
	c, err := net.Dial("tcp", addr[:len(addr)-1])
	require.NoError(b, err)
	defer c.Close()
	buf := make([]byte, 16)
	for _, tc := range []struct {
		name string
		gap  time.Duration
	}{{"busy", 0}, {"idle", time.Millisecond}} {
		b.Run(tc.name, func(b *testing.B) {
			rtt := make([]time.Duration, 0, b.N)
			for b.Loop() {
				if tc.gap > 0 {
					b.StopTimer()
					time.Sleep(tc.gap)
					b.StartTimer()
				}
				t0 := time.Now()
				_, err := c.Write(buf)
				if err == nil {
					_, err = io.ReadFull(c, buf)
				}
				require.NoError(b, err)
				rtt = append(rtt, time.Since(t0))
			}
			slices.Sort(rtt)
			b.ReportMetric(float64(rtt[len(rtt)/2])/1e3, "rtt-p50-µs")
			b.ReportMetric(float64(rtt[len(rtt)*99/100])/1e3, "rtt-p99-µs")
		})
	}
}

// TestEchoHelperProcess is BenchmarkLoopbackRTT's other process, not a test:
// it echoes on a loopback port, printed on stdout, until stdin closes.
func TestEchoHelperProcess(t *testing.T) {
	if os.Getenv("GATEWAY_BENCH_ECHO_HELPER") == "" {
		t.Skip("helper process of BenchmarkLoopbackRTT; runs only when the benchmark starts it")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	os.Stdout.WriteString(ln.Addr().String() + "\n")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { // a plain loop: io.Copy would splice through a pipe
				b := make([]byte, 64)
				for {
					n, err := c.Read(b)
					if err != nil {
						return
					}
					if _, err := c.Write(b[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	_, _ = io.Copy(io.Discard, os.Stdin)
	ln.Close()
}
