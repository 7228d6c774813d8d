package eval

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestThirdPartyRows: the embedded third-party sets decode, and both splits
// hold attacks and benign rows that the eval scores (not all near-duplicates).
func TestThirdPartyRows(t *testing.T) {
	rows, err := thirdPartyInjection(thirdPartyInjectionGz)
	require.NoError(t, err)
	scored := map[string]map[string]int{"development": {}, "heldout": {}}
	for _, r := range rows {
		if !r.NearTrain {
			scored[r.Split][r.Label]++
		}
	}
	require.Positive(t, scored["development"]["attack"])
	require.Positive(t, scored["heldout"]["attack"])
	require.Positive(t, scored["heldout"]["benign"])
}

func TestThirdPartyBadRows(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write([]byte(s))
		require.NoError(t, w.Close())
		return b.Bytes()
	}
	for name, in := range map[string][]byte{
		"not gzip":      []byte(`{"set":"a"}`),
		"not JSON":      gz("{\n"),
		"unknown label": gz(`{"set":"a","label":"maybe","split":"heldout","text":"x"}`),
		"unknown split": gz(`{"set":"a","label":"attack","split":"test","text":"x"}`),
		"no text":       gz(`{"set":"a","label":"attack","split":"heldout","text":""}`),
		"no set":        gz(`{"set":"","label":"benign","split":"development","text":"x"}`),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := thirdPartyInjection(in)
			require.Error(t, err)
		})
	}
	rows, err := thirdPartyInjection(gz(`{"set":"a","label":"attack","split":"heldout","text":"x","near_train":true}`))
	require.NoError(t, err)
	require.Equal(t, []thirdPartyRow{{Set: "a", Label: "attack", Split: "heldout", Text: "x", NearTrain: true}}, rows)
}
