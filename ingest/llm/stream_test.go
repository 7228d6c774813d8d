package llm

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSSE(t *testing.T) {
	type ev struct{ name, data string }
	for _, tt := range []struct {
		name, body string
		want       []ev
		wantErr    string // of the read after the events; "" for io.EOF
	}{
		{"named events", "event: a\ndata: {\"x\":1}\n\nevent: b\ndata: 2\n\n", []ev{{"a", `{"x":1}`}, {"b", "2"}}, ""},
		{"data lines joined, no name", "data: one\ndata:two\n\n", []ev{{"", "one\ntwo"}}, ""},
		{"a blank line without data resets the name", "event: ping\n\ndata: x\n\n", []ev{{"", "x"}}, ""},
		{"last event without its blank line", "data: last", []ev{{"", "last"}}, ""},
		{"comments and unknown fields ignored", ": keep-alive\nid: 7\ndata: y\n\n", []ev{{"", "y"}}, ""},
		{"empty body", "", nil, ""},
		{"event over 4 MiB", "data: " + strings.Repeat("x", 5<<20) + "\n\n", nil, "over 4 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSSE(strings.NewReader(tt.body))
			for _, w := range tt.want {
				name, data, err := s.Next()
				require.NoError(t, err)
				require.Equal(t, w, ev{name, string(data)})
			}
			_, _, err := s.Next()
			if tt.wantErr == "" {
				require.ErrorIs(t, err, io.EOF)
				return
			}
			var le *Error
			require.True(t, errors.As(err, &le), "%v", err)
			require.Contains(t, le.Message, tt.wantErr)
		})
	}
}

// TestScrub: a key an upstream echoes in its error message is masked, and
// so is each part of a composite key (Bedrock's id:secret:token).
func TestScrub(t *testing.T) {
	err := error(&Error{Status: 401, Type: ErrStatus, Message: "Incorrect API key provided: sk-abcdef123456. The security token AKIAEXAMPLE1 is invalid; secret wJalrXUtnFEMI/K7MDENG"})
	Scrub(err, Credentials{APIKey: "sk-abcdef123456"})
	if got := err.(*Error).Message; strings.Contains(got, "sk-abcdef123456") {
		t.Fatalf("key kept: %s", got)
	}
	got := ScrubText("id AKIAEXAMPLE1 secret wJalrXUtnFEMI/K7MDENG", Credentials{APIKey: "AKIAEXAMPLE1:wJalrXUtnFEMI/K7MDENG"})
	if strings.Contains(got, "AKIAEXAMPLE1") || strings.Contains(got, "wJalrXUtnFEMI") {
		t.Fatalf("composite key kept: %s", got)
	}
	if Scrub(nil, Credentials{APIKey: "x"}) != nil {
		t.Fatal("nil error changed")
	}
}
