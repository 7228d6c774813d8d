package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// rawClient is the load generator's HTTP/1.1 client: each request is
// serialised once and written as bytes on a pooled keep-alive connection,
// and a response is read with a minimal parser (status, Content-Length or
// chunked). The load generator shares the 2 cores with the gateway it
// measures; net/http's client spends about twice the CPU per request
// (goroutine hand-offs between its read and write loops, header maps), and
// every microsecond it takes is queueing delay added to both the direct and
// the proxied path.
type rawClient struct {
	host string // host:port, dialled and sent as Host
	idle chan *rawConn
}

type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

func newRawClient(base string) (*rawClient, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("load generator: %w", err)
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("load generator: %s: only http:// is supported", base)
	}
	return &rawClient{host: u.Host, idle: make(chan *rawConn, 4096)}, nil
}

// request serialises a POST of body to path with the given headers.
func (c *rawClient) request(path string, body []byte, hdr map[string]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", path, c.host, len(body))
	for k, v := range hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// warm opens n idle connections, so the first measured requests do not pay
// for TCP handshakes.
func (c *rawClient) warm(n int) error {
	for i := 0; i < n; i++ {
		rc, err := c.dial()
		if err != nil {
			return err
		}
		c.put(rc)
	}
	return nil
}

func (c *rawClient) dial() (*rawConn, error) {
	nc, err := net.Dial("tcp", c.host)
	if err != nil {
		return nil, fmt.Errorf("load generator: dial %s: %w", c.host, err)
	}
	return &rawConn{c: nc, r: bufio.NewReaderSize(nc, 32<<10)}, nil
}

func (c *rawClient) put(rc *rawConn) {
	select {
	case c.idle <- rc:
	default:
		rc.c.Close()
	}
}

// close closes every idle connection.
func (c *rawClient) close() {
	for {
		select {
		case rc := <-c.idle:
			rc.c.Close()
		default:
			return
		}
	}
}

// response is what the load generator keeps of an answer.
type response struct {
	status    int
	sent      time.Time // just before the request was written
	firstByte time.Time // when the first byte of the body arrived
	body      []byte    // only when do was asked to keep it
}

// do sends req and reads the whole response. A pooled connection the server
// closed while idle fails before any response byte; that request is sent
// once more on a new connection.
func (c *rawClient) do(req []byte, keepBody bool) (response, error) {
	for attempt := 0; ; attempt++ {
		var rc *rawConn
		reused := false
		select {
		case rc = <-c.idle:
			reused = true
		default:
			var err error
			if rc, err = c.dial(); err != nil {
				return response{}, err
			}
		}
		res, started, closeAfter, err := rc.roundTrip(req, keepBody)
		if err != nil {
			rc.c.Close()
			if reused && !started && attempt == 0 {
				continue
			}
			return res, err
		}
		if closeAfter {
			rc.c.Close()
		} else {
			c.put(rc)
		}
		return res, nil
	}
}

// roundTrip writes req and parses one response. started reports whether any
// response byte arrived (a stale keep-alive connection fails without one).
func (rc *rawConn) roundTrip(req []byte, keepBody bool) (res response, started, closeAfter bool, err error) {
	res.sent = time.Now()
	if _, err = rc.c.Write(req); err != nil {
		return res, false, false, err
	}
	line, err := rc.r.ReadSlice('\n')
	if err != nil {
		return res, len(line) > 0, false, err
	}
	started = true
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return res, true, false, fmt.Errorf("load generator: bad status line %q", line)
	}
	if res.status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return res, true, false, fmt.Errorf("load generator: bad status line %q", line)
	}
	length, chunked := -1, false
	for {
		line, err = rc.r.ReadSlice('\n')
		if err != nil {
			return res, true, false, err
		}
		if len(line) <= 2 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return res, true, false, fmt.Errorf("load generator: bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			closeAfter = bytes.EqualFold(value, []byte("close"))
		}
	}
	if res.status == http.StatusNoContent || res.status == http.StatusNotModified {
		length, chunked = 0, false // no body by definition (RFC 9110 6.4.1)
	}
	if !chunked && length < 0 {
		return res, true, false, errors.New("load generator: response without Content-Length or chunked encoding")
	}
	if length == 0 {
		res.firstByte = time.Now()
		return res, true, closeAfter, nil
	}
	if _, err = rc.r.Peek(1); err != nil {
		return res, true, false, err
	}
	res.firstByte = time.Now()
	if !chunked {
		err = rc.body(&res, length, keepBody)
		return res, true, closeAfter, err
	}
	for {
		line, err = rc.r.ReadSlice('\n')
		if err != nil {
			return res, true, false, err
		}
		size, _, _ := bytes.Cut(bytes.TrimSpace(line), []byte(";"))
		n, perr := strconv.ParseInt(string(size), 16, 32)
		if perr != nil {
			return res, true, false, fmt.Errorf("load generator: bad chunk size %q", line)
		}
		if n == 0 {
			for { // trailers, then the empty line
				if line, err = rc.r.ReadSlice('\n'); err != nil || len(line) <= 2 {
					return res, true, closeAfter, err
				}
			}
		}
		if err = rc.body(&res, int(n), keepBody); err != nil {
			return res, true, false, err
		}
		if _, err = rc.r.Discard(2); err != nil {
			return res, true, false, err
		}
	}
}

func (rc *rawConn) body(res *response, n int, keep bool) error {
	if !keep {
		_, err := rc.r.Discard(n)
		return err
	}
	start := len(res.body)
	res.body = append(res.body, make([]byte, n)...)
	_, err := io.ReadFull(rc.r, res.body[start:])
	return err
}
