package governance

import (
	"testing"

	"go.uber.org/goleak"
)

// Verify checks grounding on a goroutine of its own for large inputs.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
