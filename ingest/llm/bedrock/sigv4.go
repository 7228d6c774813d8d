package bedrock

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Keys are AWS credentials.
type Keys struct {
	AccessKeyID, SecretAccessKey, SessionToken string
}

// ParseKeys reads "ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]".
func ParseKeys(s string) (Keys, bool) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return Keys{}, false
	}
	k := Keys{AccessKeyID: parts[0], SecretAccessKey: parts[1]}
	if len(parts) == 3 {
		k.SessionToken = parts[2]
	}
	return k, true
}

func hmacSHA256(key []byte, s string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return m.Sum(nil)
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// uriEncode is SigV4's encoding of a path segment (RFC 3986 unreserved
// characters kept).
func uriEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}

// Sign adds X-Amz-Date, X-Amz-Security-Token (when a session token is
// given) and the AWS Signature Version 4 Authorization header to r, whose
// body is body. Only host, x-amz-* and content-type headers are signed.
func Sign(r *http.Request, body []byte, k Keys, region, service string, now time.Time) {
	amzDate := now.UTC().Format("20060102T150405Z")
	day := amzDate[:8]
	r.Header.Set("X-Amz-Date", amzDate)
	if k.SessionToken != "" {
		r.Header.Set("X-Amz-Security-Token", k.SessionToken)
	}
	payloadHash := sha256Hex(body)

	headers := map[string]string{"host": r.URL.Host}
	if r.Host != "" {
		headers["host"] = r.Host
	}
	for name, vals := range r.Header {
		ln := strings.ToLower(name)
		if strings.HasPrefix(ln, "x-amz-") || ln == "content-type" {
			headers[ln] = strings.Join(vals, ",")
		}
	}
	names := make([]string, 0, len(headers))
	for n := range headers {
		names = append(names, n)
	}
	sort.Strings(names)
	var canonHeaders strings.Builder
	for _, n := range names {
		canonHeaders.WriteString(n + ":" + strings.TrimSpace(headers[n]) + "\n")
	}
	signed := strings.Join(names, ";")

	// The canonical URI is the path as sent on the wire, each segment
	// encoded once more (AWS's "twice" for non-S3 services counts the
	// wire encoding as the first): a raw ":" on the wire is %3A here, a
	// %3A on the wire %253A, as AWS and botocore compute it.
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	if service != "s3" {
		segs := strings.Split(path, "/")
		for i, s := range segs {
			segs[i] = uriEncode(s)
		}
		path = strings.Join(segs, "/")
	}
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var cq []string
	for _, k := range keys {
		vs := q[k]
		sort.Strings(vs)
		for _, v := range vs {
			cq = append(cq, uriEncode(k)+"="+uriEncode(v))
		}
	}
	canonical := strings.Join([]string{r.Method, path, strings.Join(cq, "&"), canonHeaders.String(), signed, payloadHash}, "\n")
	scope := day + "/" + region + "/" + service + "/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + sha256Hex([]byte(canonical))
	kDate := hmacSHA256([]byte("AWS4"+k.SecretAccessKey), day)
	kRegion := hmacSHA256(kDate, region)
	kService := hmacSHA256(kRegion, service)
	kSigning := hmacSHA256(kService, "aws4_request")
	sig := hex.EncodeToString(hmacSHA256(kSigning, toSign))
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+k.AccessKeyID+"/"+scope+", SignedHeaders="+signed+", Signature="+sig)
}
