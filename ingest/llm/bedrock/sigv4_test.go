package bedrock

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
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
	// The tests' own signer agrees with the suite on its canonical request.
	require.Equal(t, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
		signatureOf("GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"+
			"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "20150830T123600Z", "us-east-1", "service",
			"wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"))
}

func TestParseKeys(t *testing.T) {
	k, ok := ParseKeys("AKID:secret:token")
	require.True(t, ok)
	require.Equal(t, Keys{"AKID", "secret", "token"}, k)
	_, ok = ParseKeys("only-one-part")
	require.False(t, ok)
}

// awsEncode is RFC 3986 percent-encoding with the unreserved characters
// kept, written here apart from the package's so that the expected
// signatures below do not share its code.
func awsEncode(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// signatureOf is the Signature of a canonical request, computed as the
// SigV4 documentation spells it out.
func signatureOf(canonical, amzDate, region, service, secret string) string {
	mac := func(key []byte, s string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(s))
		return m.Sum(nil)
	}
	sum := sha256.Sum256([]byte(canonical))
	scope := amzDate[:8] + "/" + region + "/" + service + "/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	k := mac(mac(mac(mac([]byte("AWS4"+secret), amzDate[:8]), region), service), "aws4_request")
	return hex.EncodeToString(mac(k, toSign))
}

// awsAuthorization is what AWS expects in the Authorization header of r,
// as received by the server: the canonical URI is the path of the request
// line with each segment encoded once more (what botocore computes from the
// URL it sends), the signed headers those the client listed.
func awsAuthorization(r *http.Request, body []byte, accessKey, secret, region, service string) string {
	path, _, _ := strings.Cut(r.RequestURI, "?")
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = awsEncode(s)
	}
	auth := r.Header.Get("Authorization")
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	var headers strings.Builder
	for _, h := range strings.Split(signed, ";") {
		v := r.Header.Get(h)
		if h == "host" {
			v = r.Host
		}
		headers.WriteString(h + ":" + strings.TrimSpace(v) + "\n")
	}
	payload := sha256.Sum256(body)
	canonical := strings.Join([]string{r.Method, strings.Join(segs, "/"), r.URL.RawQuery, headers.String(), signed, hex.EncodeToString(payload[:])}, "\n")
	amzDate := r.Header.Get("X-Amz-Date")
	return "AWS4-HMAC-SHA256 Credential=" + accessKey + "/" + amzDate[:8] + "/" + region + "/" + service + "/aws4_request, SignedHeaders=" +
		signed + ", Signature=" + signatureOf(canonical, amzDate, region, service, secret)
}

// TestSignCanonicalURI: the canonical URI is the wire path encoded once
// more, whatever spelling of a model id the wire carries. The canonical
// requests are written out in full.
func TestSignCanonicalURI(t *testing.T) {
	const host = "bedrock-runtime.us-east-1.amazonaws.com"
	body := []byte(`{"messages":[]}`)
	sum := sha256.Sum256(body)
	for _, tt := range []struct {
		name, wirePath, canonicalURI string
	}{
		{"colon sent encoded, as the adapter does", "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse",
			"/model/anthropic.claude-3-haiku-20240307-v1%253A0/converse"},
		{"colon sent raw", "/model/anthropic.claude-3-haiku-20240307-v1:0/converse",
			"/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse"},
		{"inference profile ARN", "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.meta.llama3-2-1b-instruct-v1%3A0/converse-stream",
			"/model/arn%253Aaws%253Abedrock%253Aus-east-1%253A123456789012%253Ainference-profile%252Fus.meta.llama3-2-1b-instruct-v1%253A0/converse-stream"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := http.NewRequest("POST", "https://"+host+tt.wirePath, nil)
			require.NoError(t, err)
			require.Equal(t, tt.wirePath, r.URL.RequestURI(), "Go sends the path as written")
			r.Header.Set("Content-Type", "application/json")
			Sign(r, body, Keys{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"},
				"us-east-1", "bedrock", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
			canonical := "POST\n" + tt.canonicalURI + "\n\n" +
				"content-type:application/json\nhost:" + host + "\nx-amz-date:20240102T030405Z\n\n" +
				"content-type;host;x-amz-date\n" + hex.EncodeToString(sum[:])
			require.Equal(t, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240102/us-east-1/bedrock/aws4_request, "+
				"SignedHeaders=content-type;host;x-amz-date, Signature="+
				signatureOf(canonical, "20240102T030405Z", "us-east-1", "bedrock", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
				r.Header.Get("Authorization"))
		})
	}
}
