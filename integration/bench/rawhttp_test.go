package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRawClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/length":
			_, _ = w.Write([]byte("echo:" + string(b) + ":" + r.Header.Get("X-Api-Key")))
		case "/chunked":
			fl := w.(http.Flusher)
			for _, part := range []string{"data: 1\n\n", "data: 2\n\n", "data: [DONE]\n\n"} {
				_, _ = w.Write([]byte(part))
				fl.Flush()
			}
		case "/close":
			w.Header().Set("Connection", "close")
			_, _ = w.Write([]byte("bye"))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		default:
			http.Error(w, "no such path", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c, err := newRawClient(srv.URL)
	require.NoError(t, err)
	defer c.close()

	for _, tc := range []struct {
		path, want string
		status     int
	}{
		{"/length", `echo:{"a":1}:k1`, 200},
		{"/chunked", "data: 1\n\ndata: 2\n\ndata: [DONE]\n\n", 200},
		{"/close", "bye", 200},
		{"/empty", "", 204},
		{"/missing", "no such path\n", 404},
		{"/length", `echo:{"a":1}:k1`, 200}, // after a Connection: close, a new connection
	} {
		t.Run(strings.TrimPrefix(tc.path, "/"), func(t *testing.T) {
			r, err := c.do(c.request(tc.path, []byte(`{"a":1}`), map[string]string{"X-API-Key": "k1"}), true)
			require.NoError(t, err)
			require.Equal(t, tc.status, r.status)
			require.Equal(t, tc.want, string(r.body))
			require.False(t, r.firstByte.IsZero())
		})
	}

	// A pooled connection the server dropped while idle is replaced, and the
	// request is not lost.
	require.Len(t, c.idle, 1)
	srv.CloseClientConnections()
	r, err := c.do(c.request("/length", []byte("x"), nil), true)
	require.NoError(t, err)
	require.Equal(t, "echo:x:", string(r.body))

	// Without keepBody the body is read and dropped, and the connection reused.
	r, err = c.do(c.request("/chunked", nil, nil), false)
	require.NoError(t, err)
	require.Equal(t, 200, r.status)
	require.Empty(t, r.body)
	require.Len(t, c.idle, 1)

	_, err = newRawClient("https://example.com")
	require.ErrorContains(t, err, "only http://")
}

func TestPace(t *testing.T) {
	var got []time.Time
	pace(context.Background(), 1000, 20, func(scheduled time.Time) { got = append(got, scheduled) })
	require.Len(t, got, 20)
	for i := 1; i < len(got); i++ {
		require.Equal(t, time.Millisecond, got[i].Sub(got[i-1]), "one send per scheduled slot, evenly spaced")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	pace(ctx, 1000, 20, func(time.Time) { n++ })
	require.Zero(t, n, "a cancelled run sends nothing")
}
