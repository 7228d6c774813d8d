package httpapi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestApplyJSONEdits: the targeted replacement, and its fallback when a
// path is met twice (a duplicate key).
func TestApplyJSONEdits(t *testing.T) {
	edit := func(val string, path ...string) jsonEdit { return jsonEdit{path: path, val: []byte(val)} }
	tests := []struct {
		name, in string
		edits    []jsonEdit
		want     string // "": not applicable
	}{
		{"keeps the rest", `{ "b" : [1, {"x":"old"} ,3], "a":"\u00e9" }`, []jsonEdit{edit(`"new"`, "b", "1", "x")},
			`{ "b" : [1, {"x":"new"} ,3], "a":"\u00e9" }`},
		{"several, any order", `{"a":"1","b":{"c":[true,"2"]}}`, []jsonEdit{edit(`"B"`, "b", "c", "1"), edit(`{"k":0}`, "a")},
			`{"a":{"k":0},"b":{"c":[true,"B"]}}`},
		{"whole container", `{"a": [1, 2] }`, []jsonEdit{edit(`[]`, "a")}, `{"a": [] }`},
		{"duplicate key falls back to re-encoding (last wins)", `{"z":1, "a":"x", "a":"y"}`, []jsonEdit{edit(`"n"`, "a")}, `{"a":"n","z":1}`},
		{"missing path", `{"a":"x"}`, []jsonEdit{edit(`"n"`, "b")}, ""},
		{"index out of range", `{"a":["x"]}`, []jsonEdit{edit(`"n"`, "a", "1")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := applyJSONEdits([]byte(tt.in), tt.edits)
			require.Equal(t, tt.want != "", ok, "%s", out)
			if ok {
				require.Equal(t, tt.want, string(out))
			}
		})
	}
}
