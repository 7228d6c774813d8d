package governance

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDuplicateKey(t *testing.T) {
	tests := []struct {
		doc, path string
	}{
		{`{}`, ""},
		{`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":1,"A":2}`, "A"},
		{`{"ſ":1,"S":2}`, "S"}, // U+017F folds to s, as encoding/json matches it
		{`{"a":{"b":[1,{"c":0}],"B":2}}`, "a.B"},
		{`{"rules":[{"x":1},{"x":1,"y":[],"x":2}]}`, "rules[1].x"},
		{`[[1],[2,{"k":1,"k":1}]]`, "[1][1].k"},
		{`{"a":[{"b":1}],"c":{"d":{"e":1,"e":1}}}`, "c.d.e"},
		{`{"a":1,"a"`, "a"}, // reported before the syntax error
		{`{"a":1,`, ""},     // a syntax error alone is for the decoder to report
		{`not json`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			path, found := DuplicateKey([]byte(tt.doc))
			require.Equal(t, tt.path != "", found)
			require.Equal(t, tt.path, path)
		})
	}
}
