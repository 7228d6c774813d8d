package secrets

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpenGatesMatchesGated: the one-pass gate scan agrees with checking
// each rule's gates by substring search, ASCII or not.
func TestOpenGatesMatchesGated(t *testing.T) {
	texts := []string{"", "s", "SK", "AKIA", "my Api_Key is", "aws AWS aWs", "ToKeN", "\u212Aey here", "p\u0130ss", "İpass",
		"-----BEGIN RSA", "hooks.slack.com", "sk-ant- sk_live_ xoxb ghp_ eyJ npm_ hf_ SG. AIza glpat-", "bearer\xff", "é credential", "Authorization"}
	for _, x := range texts {
		open := openGates(x)
		var lower string
		for i := range rules {
			require.Equal(t, gated(x, &lower, &rules[i]), open[i], "%q rule %s", x, rules[i].id)
		}
		require.Equal(t, gated(x, &lower, &highEntropyGate), open[len(rules)], "%q high entropy", x)
	}
}
