package bedrock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// The application/vnd.amazon.eventstream framing of Bedrock's streaming
// answers. A message is
//
//	total length (uint32) | headers length (uint32) | prelude CRC (uint32)
//	headers | payload | message CRC (uint32)
//
// all big-endian, both CRCs CRC-32 (IEEE): the prelude's over the first 8
// bytes, the message's over everything before it. A header is
// name length (1 byte) | name | value type (1 byte) | value.

// errCorrupt marks a message that is not valid framing (as opposed to a
// body that ends or breaks).
var errCorrupt = errors.New("corrupt event stream message")

// maxMessage bounds a message (AWS caps them at 16 MiB) so a corrupt length
// cannot make the reader allocate without limit.
const maxMessage = 16 << 20

type frame struct {
	headers map[string]string // the string-valued headers (:event-type...)
	payload []byte
}

// valueSize is the size of each header value type, -1 for the two with a
// 2-byte length prefix (6 bytes, 7 string).
var valueSize = [...]int{0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 6: -1, 7: -1, 8: 8, 9: 16}

// readFrame reads one message. io.EOF means the body ended cleanly
// between messages, io.ErrUnexpectedEOF inside one.
func readFrame(r io.Reader) (frame, error) {
	var prelude [12]byte
	if _, err := io.ReadFull(r, prelude[:]); err != nil {
		return frame{}, err
	}
	total, hlen := binary.BigEndian.Uint32(prelude[0:]), binary.BigEndian.Uint32(prelude[4:])
	if crc32.ChecksumIEEE(prelude[:8]) != binary.BigEndian.Uint32(prelude[8:]) {
		return frame{}, fmt.Errorf("%w: prelude CRC mismatch", errCorrupt)
	}
	if total < 16 || total > maxMessage || hlen > total-16 {
		return frame{}, fmt.Errorf("%w: lengths %d/%d", errCorrupt, total, hlen)
	}
	buf := make([]byte, total)
	copy(buf, prelude[:])
	if _, err := io.ReadFull(r, buf[12:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return frame{}, err
	}
	if crc32.ChecksumIEEE(buf[:total-4]) != binary.BigEndian.Uint32(buf[total-4:]) {
		return frame{}, fmt.Errorf("%w: message CRC mismatch", errCorrupt)
	}
	h, err := parseHeaders(buf[12 : 12+hlen])
	if err != nil {
		return frame{}, err
	}
	return frame{headers: h, payload: buf[12+hlen : total-4]}, nil
}

func parseHeaders(b []byte) (map[string]string, error) {
	h := map[string]string{}
	for len(b) > 0 {
		n := int(b[0])
		if len(b) < n+2 || int(b[n+1]) >= len(valueSize) {
			return nil, fmt.Errorf("%w: bad header", errCorrupt)
		}
		name, typ := string(b[1:n+1]), b[n+1]
		b = b[n+2:]
		size, start := valueSize[typ], 0
		if size < 0 {
			if len(b) < 2 {
				return nil, fmt.Errorf("%w: bad header %q", errCorrupt, name)
			}
			size, start = 2+int(binary.BigEndian.Uint16(b)), 2
		}
		if len(b) < size {
			return nil, fmt.Errorf("%w: bad header %q", errCorrupt, name)
		}
		if typ == 7 {
			h[name] = string(b[start:size])
		}
		b = b[size:]
	}
	return h, nil
}
