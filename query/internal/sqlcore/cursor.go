package sqlcore

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/governance-gateway/gateway/query"
)

// cursor is the keyset position after the last row of a page: listing goes on
// with rows strictly older in (received_at, request_id) order.
type cursor struct {
	receivedAt time.Time
	requestID  string
}

// encode returns the opaque cursor text: base64url of "<micros>:<request_id>".
func (c cursor) encode() string {
	return base64.RawURLEncoding.EncodeToString(
		[]byte(strconv.FormatInt(c.receivedAt.UnixMicro(), 10) + ":" + c.requestID))
}

// decodeCursor parses a cursor; any malformed input is query.ErrBadCursor.
func decodeCursor(s string) (cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, fmt.Errorf("%w: not base64url", query.ErrBadCursor)
	}
	micros, id, ok := strings.Cut(string(raw), ":")
	if !ok || id == "" {
		return cursor{}, fmt.Errorf("%w: missing request_id", query.ErrBadCursor)
	}
	us, err := strconv.ParseInt(micros, 10, 64)
	if err != nil {
		return cursor{}, fmt.Errorf("%w: bad timestamp", query.ErrBadCursor)
	}
	return cursor{receivedAt: time.UnixMicro(us).UTC(), requestID: id}, nil
}
