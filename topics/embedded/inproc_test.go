package embedded

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/nettest"
)

func pipeEnds() (client, server *pipeConn) {
	return newPipe(inprocAddr("client-1"), inprocAddr("127.0.0.1:9092"))
}

// TestPipeConformance runs x/net's net.Conn conformance suite (basic and
// ping-pong I/O, racy reads and writes, read/write/past/present/future
// deadlines, Close unblocking, concurrent methods).
func TestPipeConformance(t *testing.T) {
	nettest.TestConn(t, func() (c1, c2 net.Conn, stop func(), err error) {
		a, b := pipeEnds()
		return a, b, func() { a.Close(); b.Close() }, nil
	})
}

func TestPipe(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, c, s *pipeConn)
	}{
		{"write does not wait for a reader", func(t *testing.T, c, _ *pipeConn) {
			n, err := c.Write([]byte("request"))
			require.NoError(t, err)
			require.Equal(t, 7, n)
		}},
		{"an empty read does not wait", func(t *testing.T, c, _ *pipeConn) {
			n, err := c.Read(nil)
			require.NoError(t, err)
			require.Zero(t, n)
		}},
		{"peer reads what was written before Close, then EOF", func(t *testing.T, c, s *pipeConn) {
			_, err := c.Write([]byte("last words"))
			require.NoError(t, err)
			require.NoError(t, c.Close())
			got, err := io.ReadAll(s)
			require.NoError(t, err)
			require.Equal(t, "last words", string(got))
		}},
		{"write to a closed peer fails", func(t *testing.T, c, s *pipeConn) {
			require.NoError(t, s.Close())
			_, err := c.Write([]byte("x"))
			require.ErrorIs(t, err, io.ErrClosedPipe)
		}},
		{"peer Close unblocks a blocked writer", func(t *testing.T, c, s *pipeConn) {
			errc := make(chan error, 1)
			go func() {
				_, err := c.Write(make([]byte, pipeBufSize+1)) // one byte past the buffer
				errc <- err
			}()
			require.Never(t, func() bool { return len(errc) > 0 }, 50*time.Millisecond, 5*time.Millisecond)
			require.NoError(t, s.Close())
			require.ErrorIs(t, <-errc, io.ErrClosedPipe)
		}},
		{"own Close unblocks a blocked reader", func(t *testing.T, c, _ *pipeConn) {
			errc := make(chan error, 1)
			go func() {
				_, err := c.Read(make([]byte, 1))
				errc <- err
			}()
			require.NoError(t, c.Close())
			require.ErrorIs(t, <-errc, net.ErrClosed)
		}},
		{"a write larger than the buffer arrives whole and in order", func(t *testing.T, c, s *pipeConn) {
			want := make([]byte, 3*pipeBufSize+17)
			_, _ = rand.Read(want)
			errc := make(chan error, 1)
			go func() {
				_, err := c.Write(want)
				errc <- err
			}()
			got := make([]byte, len(want))
			_, err := io.ReadFull(s, got)
			require.NoError(t, err)
			require.NoError(t, <-errc)
			require.True(t, bytes.Equal(want, got))
		}},
		{"a passed read deadline is a net.Error timeout", func(t *testing.T, c, _ *pipeConn) {
			require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Millisecond)))
			_, err := c.Read(make([]byte, 1))
			var nerr net.Error
			require.ErrorAs(t, err, &nerr)
			require.True(t, nerr.Timeout())
			require.ErrorIs(t, err, os.ErrDeadlineExceeded)
		}},
		{"a cleared deadline reads again", func(t *testing.T, c, s *pipeConn) {
			require.NoError(t, c.SetReadDeadline(time.Now().Add(-time.Second)))
			_, err := c.Read(make([]byte, 1))
			require.ErrorIs(t, err, os.ErrDeadlineExceeded)
			require.NoError(t, c.SetReadDeadline(time.Time{}))
			_, err = s.Write([]byte("y"))
			require.NoError(t, err)
			buf := make([]byte, 1)
			_, err = c.Read(buf)
			require.NoError(t, err)
			require.Equal(t, "y", string(buf))
		}},
		{"deadlines of a closed conn fail", func(t *testing.T, c, _ *pipeConn) {
			require.NoError(t, c.Close())
			require.ErrorIs(t, c.SetDeadline(time.Now()), net.ErrClosed)
		}},
		{"addresses name the ends", func(t *testing.T, c, s *pipeConn) {
			require.Equal(t, "inproc", c.LocalAddr().Network())
			require.Equal(t, "client-1", c.LocalAddr().String())
			require.Equal(t, "127.0.0.1:9092", c.RemoteAddr().String())
			require.Equal(t, c.LocalAddr(), s.RemoteAddr())
			require.Equal(t, c.RemoteAddr(), s.LocalAddr())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := pipeEnds()
			defer c.Close()
			defer s.Close()
			tc.run(t, c, s)
		})
	}
}

func TestListener(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := newListener(tcp)
	defer l.Close()

	accepted := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()

	// Both kinds of connection come out of the one Accept.
	tc, err := net.Dial("tcp", tcp.Addr().String())
	require.NoError(t, err)
	defer tc.Close()
	require.Equal(t, "tcp", (<-accepted).RemoteAddr().Network())
	ic, err := l.dialInproc(context.Background())
	require.NoError(t, err)
	defer ic.Close()
	server := <-accepted
	require.Equal(t, inprocNetwork, server.RemoteAddr().Network())
	require.Equal(t, tcp.Addr().String(), ic.RemoteAddr().String())

	// closeInproc closes the server ends: the client reads EOF.
	l.closeInproc()
	_, err = ic.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF)

	// A closed listener refuses both and ends Accept.
	require.NoError(t, l.Close())
	_, ok := <-accepted
	require.False(t, ok, "Accept returned after Close")
	_, err = l.dialInproc(context.Background())
	require.ErrorIs(t, err, net.ErrClosed)
	_, err = net.DialTimeout("tcp", tcp.Addr().String(), time.Second)
	require.Error(t, err)
}

func TestListenerDialHonoursContext(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := newListener(tcp)
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = l.dialInproc(ctx) // nobody accepts
	require.True(t, errors.Is(err, context.Canceled), "err %v", err)
	require.Empty(t, l.inproc, "the refused connection is forgotten")
}
