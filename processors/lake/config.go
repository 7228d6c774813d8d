package lake

import (
	"errors"
	"fmt"
	"time"
)

// Compression codecs a Config may name.
const (
	CompressionZstd   = "zstd"
	CompressionSnappy = "snappy"
)

// Defaults applied by NewWriter to zero Config fields.
const (
	DefaultCompression  = CompressionZstd
	DefaultRowGroupRows = 64 * 1024
	DefaultStaleTempAge = time.Hour
)

// Config configures a Writer. Zero fields take the defaults above.
type Config struct {
	// Dir is the lake root; files go under <Dir>/traces/date=YYYY-MM-DD/.
	Dir string
	// Compression is the column codec: "zstd" (default) or "snappy".
	Compression string
	// RowGroupRows caps the rows of one row group. It is part of the file
	// layout: a replay must use the same value to produce identical bytes.
	RowGroupRows int64
	// StaleTempAge: NewWriter removes temporary files older than this, left
	// behind by a process that crashed mid-write. It must exceed the longest
	// write, since other writers may share the directory. Negative disables.
	StaleTempAge time.Duration
}

func (c Config) withDefaults() Config {
	if c.Compression == "" {
		c.Compression = DefaultCompression
	}
	if c.RowGroupRows == 0 {
		c.RowGroupRows = DefaultRowGroupRows
	}
	if c.StaleTempAge == 0 {
		c.StaleTempAge = DefaultStaleTempAge
	}
	return c
}

// Validate reports the first invalid field of c (after defaults).
func (c Config) Validate() error {
	c = c.withDefaults()
	if c.Dir == "" {
		return errors.New("lake config: Dir is required")
	}
	switch c.Compression {
	case CompressionZstd, CompressionSnappy:
	default:
		return fmt.Errorf("lake config: Compression %q is not zstd or snappy", c.Compression)
	}
	if c.RowGroupRows < 0 {
		return fmt.Errorf("lake config: RowGroupRows %d must be positive", c.RowGroupRows)
	}
	return nil
}
