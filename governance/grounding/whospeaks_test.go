package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOtherSpeaker: a summary clause that gives one speaker what another
// speaker's turn says, no turn by or naming the first saying any of it, is
// a contradiction; the right speaker, a clause naming two, a turn naming
// the speaker, a word the speaker's own turns have and prose are not.
func TestOtherSpeaker(t *testing.T) {
	release := "Project lead: Okay, status on the app release.\nKira: Backend is done. The payment integration passed testing.\nSam: The iOS build is ready, but Android still crashes.\nProject lead: Let's move the launch to next Friday. Sam, can you send an update to marketing today?\nSam: Will do.\nKira: I'll finish the accessibility fixes."
	tests := []struct {
		name, answer, source, mismatch string
	}{
		{"another speaker's task", "The launch moves to next Friday, and Kira will update marketing.", release, Contradiction},
		{"faithful: the right speaker", "The launch moves to next Friday, and Sam will update marketing.", release, None},
		{"a clause naming two speakers", "The launch moves to next Friday, and Kira and Sam will update marketing.", release, None},
		{"a turn naming the speaker", "The launch moves to next Friday, and Kira will update marketing.",
			strings.Replace(release, "Sam, can you send", "Kira, can you send", 1), None},
		{"the speaker's own words", "The launch moves to next Friday, and Kira will update marketing.",
			strings.Replace(release, "I'll finish the accessibility fixes.", "I'll tell marketing about the fixes.", 1), None},
		{"prose", "The launch moves to next Friday, and Kira will update marketing.",
			"Kira finished the backend. The project lead asked Sam to send an update to marketing.", None},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.mismatch == None {
				require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r)
				return
			}
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			require.Equal(t, OtherSpeakerConfidence, r.Confidence, "%+v", r)
			require.Len(t, r.Evidence, 1)
			e := r.Evidence[0]
			require.Equal(t, "Kira", e.AnswerText)
			require.NotNil(t, e.SourceSpan)
			require.Equal(t, tt.source[e.SourceSpan.Start:e.SourceSpan.End], e.SourceText)
			require.True(t, strings.HasPrefix(e.SourceText, "Project lead:"), e.SourceText)
		})
	}
}

// TestOtherSpeakerFlood: every answer clause names a speaker and two words
// that other speakers' turns have one at a time; the source occurrences
// visited are bounded (maxSwapPostings), so the check ends (no test of
// time) with no such finding.
func TestOtherSpeakerFlood(t *testing.T) {
	answer := strings.Repeat("Ann qa qb. ", maxAnswerBytes/11)
	source := strings.Repeat("Bob: qa.\nCid: qb.\nAnn: qd.\n", maxSourceBytes/27)
	r := New().Check(answer, source)
	require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r.Evidence)
}
