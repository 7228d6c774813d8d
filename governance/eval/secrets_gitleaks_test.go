package eval

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGitleaksVectors: the embedded gitleaks corpus decodes (no datasets
// directory needed), every rule has true positives, and the table's rows
// count every vector once.
func TestGitleaksVectors(t *testing.T) {
	c, err := loadGitleaksVectors()
	require.NoError(t, err)
	require.Len(t, c.Rules, 219)
	tps, fps := 0, 0
	for _, r := range c.Rules {
		require.NotEmpty(t, r.TPs, r.ID)
		tps += len(r.TPs)
		fps += len(r.FPs)
	}
	require.Equal(t, 6393, tps)
	tab, err := gitleaksTable()
	require.NoError(t, err)
	all := tab.Rows[0]
	require.Equal(t, tps, all.TP+all.FN)
	require.LessOrEqual(t, all.FP+all.TN, fps)
	require.Equal(t, all.TP+all.FN, tab.Rows[2].TP+tab.Rows[2].FN+tab.Rows[3].TP+tab.Rows[3].FN)
}
