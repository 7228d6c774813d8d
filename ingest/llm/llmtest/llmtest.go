// Package llmtest holds what the vendor adapters' tests share.
package llmtest

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/governance-gateway/gateway/ingest/llm"
)

// Drained is what a stream yielded.
type Drained struct {
	Text      string              // the concatenated deltas
	Finish    string              // the last finish reason
	Usage     *llm.Usage          // the last usage
	ToolCalls []llm.ToolCallDelta // every tool call piece, in order
}

// Drain reads st to its end; err is the error that ended it (nil for
// io.EOF). Every chunk must pass its upstream event through in Raw.
func Drain(t testing.TB, st llm.Stream) (d Drained, err error) {
	t.Helper()
	for {
		c, err := st.Next()
		if errors.Is(err, io.EOF) {
			return d, nil
		}
		if err != nil {
			return d, err
		}
		require.NotEmpty(t, c.Raw, "every chunk passes its event through")
		d.Text += c.Delta
		d.ToolCalls = append(d.ToolCalls, c.ToolCalls...)
		if c.FinishReason != "" {
			d.Finish = c.FinishReason
		}
		if c.Usage != nil {
			d.Usage = c.Usage
		}
	}
}
