package embedded

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// inprocNetwork names the in-process connections in addresses and errors.
const inprocNetwork = "inproc"

// pipeBufSize bounds the bytes one direction of an in-process connection
// holds unread; a writer past it waits for the reader, as on a socket.
const pipeBufSize = 1 << 20

// listener is what kfake listens on: the TCP listener (other processes, and
// any client that dials the address) plus in-process connections made by
// dialInproc. One Accept serves both, so kfake treats them alike.
type listener struct {
	tcp   net.Listener
	conns chan net.Conn // server ends of in-process connections, or TCP ones
	errc  chan error    // the TCP Accept error that ended forwarding
	done  chan struct{} // closed by Close
	fwd   sync.WaitGroup
	once  sync.Once
	seq   atomic.Uint64

	mu     sync.Mutex
	inproc map[*pipeConn]struct{} // live server ends, closed by closeInproc
}

func newListener(tcp net.Listener) *listener {
	l := &listener{
		tcp:    tcp,
		conns:  make(chan net.Conn),
		errc:   make(chan error, 1),
		done:   make(chan struct{}),
		inproc: map[*pipeConn]struct{}{},
	}
	l.fwd.Add(1)
	go l.forwardTCP()
	return l
}

// forwardTCP hands accepted TCP connections to Accept until the TCP
// listener fails or is closed.
func (l *listener) forwardTCP() {
	defer l.fwd.Done()
	for {
		c, err := l.tcp.Accept()
		if err != nil {
			l.errc <- err
			return
		}
		select {
		case l.conns <- c:
		case <-l.done:
			c.Close()
			return
		}
	}
}

func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errc:
		l.errc <- err // every later Accept fails the same way
		return nil, err
	case <-l.done:
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.tcp.Addr(), Err: net.ErrClosed}
	}
}

// Close stops accepting TCP and in-process connections; the connections
// already accepted stay open (kfake closes them when it shuts down).
func (l *listener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		err = l.tcp.Close()
		l.fwd.Wait()
	})
	return err
}

func (l *listener) Addr() net.Addr { return l.tcp.Addr() }

// dialInproc returns the client end of a new in-process connection whose
// server end kfake accepts.
func (l *listener) dialInproc(ctx context.Context) (net.Conn, error) {
	n := l.seq.Add(1)
	client, server := newPipe(
		inprocAddr("client-"+strconv.FormatUint(n, 10)),
		inprocAddr(l.tcp.Addr().String()))
	l.mu.Lock()
	l.inproc[server] = struct{}{}
	l.mu.Unlock()
	server.onClose = func() {
		l.mu.Lock()
		delete(l.inproc, server)
		l.mu.Unlock()
	}
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	server.Close()
	client.Close()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("dial %s in process: %w", l.tcp.Addr(), err)
	}
	return nil, fmt.Errorf("dial %s in process: %w", l.tcp.Addr(), net.ErrClosed)
}

// closeInproc closes every in-process connection still open.
func (l *listener) closeInproc() {
	l.mu.Lock()
	conns := make([]*pipeConn, 0, len(l.inproc))
	for c := range l.inproc {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// inprocAddr is the address of an end of an in-process connection.
type inprocAddr string

func (inprocAddr) Network() string  { return inprocNetwork }
func (a inprocAddr) String() string { return string(a) }

// newPipe returns the two ends of a buffered, in-memory, full-duplex
// connection. Unlike net.Pipe, a Write does not wait for a Read: it copies
// into the peer's buffer and wakes a blocked reader directly, so a request
// costs no syscall and no more goroutine wake-ups than it must.
func newPipe(clientAddr, serverAddr net.Addr) (client, server *pipeConn) {
	a, b := newHalf(), newHalf()
	client = &pipeConn{r: a, w: b, local: clientAddr, remote: serverAddr, closed: make(chan struct{})}
	server = &pipeConn{r: b, w: a, local: serverAddr, remote: clientAddr, closed: make(chan struct{})}
	client.rdl.init()
	client.wdl.init()
	server.rdl.init()
	server.wdl.init()
	return client, server
}

// half is one direction of a pipe: bytes written by one end, not yet read
// by the other.
type half struct {
	mu     sync.Mutex
	buf    []byte // unread: buf[off:]
	off    int
	eof    bool          // the writing end closed: reads drain buf, then io.EOF
	broken bool          // the reading end closed: writes fail
	data   chan struct{} // 1-buffered: buf gained bytes, or eof
	space  chan struct{} // 1-buffered: buf lost bytes, or broken
}

func newHalf() *half {
	return &half{data: make(chan struct{}, 1), space: make(chan struct{}, 1)}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// pipeConn is one end of an in-process connection; it implements net.Conn.
type pipeConn struct {
	r, w          *half
	rdl, wdl      deadline
	local, remote net.Addr
	wmu           sync.Mutex // one Write at a time, so writes never interleave
	closed        chan struct{}
	once          sync.Once
	onClose       func()
}

func (c *pipeConn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: inprocNetwork, Source: c.local, Addr: c.remote, Err: err}
}

func (c *pipeConn) Read(p []byte) (int, error) {
	h := c.r
	for {
		select {
		case <-c.closed:
			return 0, c.opErr("read", net.ErrClosed)
		case <-c.rdl.wait():
			return 0, c.opErr("read", os.ErrDeadlineExceeded)
		default:
		}
		if len(p) == 0 {
			return 0, nil // as a socket: an empty read does not wait for data
		}
		h.mu.Lock()
		if h.off < len(h.buf) {
			n := copy(p, h.buf[h.off:])
			h.off += n
			more := h.off < len(h.buf)
			if !more {
				h.buf, h.off = h.buf[:0], 0
				if cap(h.buf) > 64<<10 {
					h.buf = nil // do not keep a large response's buffer
				}
			}
			h.mu.Unlock()
			signal(h.space)
			if more {
				signal(h.data) // for a concurrent reader
			}
			return n, nil
		}
		if h.eof {
			h.mu.Unlock()
			signal(h.data) // for a concurrent reader
			return 0, io.EOF
		}
		h.mu.Unlock()
		select {
		case <-h.data:
		case <-c.closed:
		case <-c.rdl.wait():
		}
	}
}

func (c *pipeConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	h := c.w
	var n int
	for {
		select {
		case <-c.closed:
			return n, c.opErr("write", net.ErrClosed)
		case <-c.wdl.wait():
			return n, c.opErr("write", os.ErrDeadlineExceeded)
		default:
		}
		h.mu.Lock()
		if h.broken {
			h.mu.Unlock()
			return n, c.opErr("write", io.ErrClosedPipe)
		}
		if len(p) == 0 {
			h.mu.Unlock()
			return n, nil
		}
		if free := pipeBufSize - (len(h.buf) - h.off); free > 0 {
			k := min(free, len(p))
			if h.off > 0 && cap(h.buf)-len(h.buf) < k {
				h.buf, h.off = h.buf[:copy(h.buf, h.buf[h.off:])], 0
			}
			h.buf = append(h.buf, p[:k]...)
			h.mu.Unlock()
			signal(h.data)
			n += k
			p = p[k:]
			continue
		}
		h.mu.Unlock()
		select {
		case <-h.space:
		case <-c.closed:
		case <-c.wdl.wait():
		}
	}
}

// Close closes this end: the peer reads what was written before it, then
// io.EOF, and its writes fail. Idempotent.
func (c *pipeConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.w.mu.Lock()
		c.w.eof = true
		c.w.mu.Unlock()
		signal(c.w.data)
		c.r.mu.Lock()
		c.r.broken = true
		c.r.buf, c.r.off = nil, 0
		c.r.mu.Unlock()
		signal(c.r.space)
		c.rdl.stop()
		c.wdl.stop()
		if c.onClose != nil {
			c.onClose()
		}
	})
	return nil
}

func (c *pipeConn) LocalAddr() net.Addr  { return c.local }
func (c *pipeConn) RemoteAddr() net.Addr { return c.remote }

func (c *pipeConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

func (c *pipeConn) SetReadDeadline(t time.Time) error {
	if c.isClosed() {
		return c.opErr("set deadline", net.ErrClosed)
	}
	c.rdl.set(t)
	return nil
}

func (c *pipeConn) SetWriteDeadline(t time.Time) error {
	if c.isClosed() {
		return c.opErr("set deadline", net.ErrClosed)
	}
	c.wdl.set(t)
	return nil
}

func (c *pipeConn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// deadline is a settable point in time whose channel is closed once it
// passes, so a blocked Read or Write wakes at it.
type deadline struct {
	mu      sync.Mutex
	timer   *time.Timer
	expired chan struct{} // closed when the deadline has passed
}

func (d *deadline) init() { d.expired = make(chan struct{}) }

func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.expired // the timer fired: wait until it has closed the channel
	}
	d.timer = nil
	passed := isDone(d.expired)
	if t.IsZero() {
		if passed {
			d.expired = make(chan struct{})
		}
		return
	}
	if dur := time.Until(t); dur > 0 {
		if passed {
			d.expired = make(chan struct{})
		}
		ch := d.expired
		d.timer = time.AfterFunc(dur, func() { close(ch) })
		return
	}
	if !passed {
		close(d.expired)
	}
}

// stop releases the timer of a closed connection.
func (d *deadline) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.expired // a later set must not close it again
	}
	d.timer = nil
}

func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.expired
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
