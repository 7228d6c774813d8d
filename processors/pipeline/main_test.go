package pipeline_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The Flusher's dedupe cache runs goroutines until Close.
	goleak.VerifyTestMain(m)
}
