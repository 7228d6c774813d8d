package bedrock

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSignGetVanilla is the "get-vanilla" case of AWS's Signature Version 4
// test suite: GET / on example.amazonaws.com, 2015-08-30T12:36:00Z,
// us-east-1, service "service", the suite's example credentials.
func TestSignGetVanilla(t *testing.T) {
	r, err := http.NewRequest("GET", "https://example.amazonaws.com/", nil)
	require.NoError(t, err)
	Sign(r, nil, Keys{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"},
		"us-east-1", "service", time.Date(2015, 8, 30, 12, 36, 0, 0, time.UTC))
	require.Equal(t, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "+
		"SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
		r.Header.Get("Authorization"))
	require.Equal(t, "20150830T123600Z", r.Header.Get("X-Amz-Date"))
}

func TestParseKeys(t *testing.T) {
	k, ok := ParseKeys("AKID:secret:token")
	require.True(t, ok)
	require.Equal(t, Keys{"AKID", "secret", "token"}, k)
	_, ok = ParseKeys("only-one-part")
	require.False(t, ok)
}
