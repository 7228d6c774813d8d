package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAffixOpposite: a word the source has only with the opposite affix,
// in the same context, is a contradiction; the near misses are not.
func TestAffixOpposite(t *testing.T) {
	paper := "We extend a space-by-time decomposition of spike trains to discount pre-stimulus baseline activity. " +
		"This improves the decoding accuracy of the stimulus. The factorization is non-negative by design. " +
		"The features are conditional on the class label."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"opposite prefix, hyphenated", "We discount post-stimulus baseline activity of spike trains.", paper, Contradiction, "pre-stimulus"},
		{"opposite prefix, one word", "This improves the encoding accuracy of the stimulus.", paper, Contradiction, "decoding"},
		{"prefix the answer drops", "The factorization is negative by design.", paper, Contradiction, "non-negative"},
		{"prefix the answer adds", "The features are non-conditional on the class label.", paper, Contradiction, "conditional"},
		{"compound the other way round", "We extend a time-by-space decomposition of spike trains.", paper, Contradiction, "space-by-time"},
		{"faithful", "We extend a space-by-time decomposition to discount pre-stimulus baseline activity, which improves decoding accuracy.", paper, None, ""},
		{"the source has both", "Post-stimulus activity was recorded for the baseline.",
			"Both pre-stimulus and post-stimulus activity were recorded for the baseline.", None, ""},
		{"the source has the word without the prefix too", "The weights are negative.",
			"The weights are non-negative; negative weights are clipped to zero.", None, ""},
		{"the opposite stands elsewhere", "Speech sounds pass through a decoder in the last stage of the pipeline.",
			"An encoder is trained on photographs of faces. In the last stage of the pipeline, speech sounds pass through a vocoder and a filter.", None, ""},
		{"three letters after the prefix are no stem", "Guards enter thieves at the gate of the museum.",
			"Guards deter thieves at the gate of the museum every night.", None, ""},
		// "sub-" on an adjective (stop 20); on a noun it names a part.
		{"sub- on an adjective", "The manager reaches a suboptimal allocation of tasks among the workers.",
			"The manager reaches an optimal allocation of tasks among the workers.", Contradiction, "optimal"},
		{"sub- on an adjective, hyphenated", "The manager reaches a sub-optimal allocation of tasks among the workers.",
			"The manager reaches an optimal allocation of tasks among the workers.", Contradiction, "optimal"},
		{"sub- on a noun", "The model scores a subgroup of patients from the trial.",
			"The model scores a group of patients from the trial.", None, ""},
		{"in / out is no opposite prefix here", "The uncertainties of the inputs of each layer are combined.",
			"The uncertainties of the outputs of each layer are combined for detection.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, AffixConfidence); ok {
				require.True(t, strings.EqualFold(tt.says, e.SourceText), "%+v", e)
			}
		})
	}
}

// TestOrderFlip: an order word between two words the source has around
// its opposite, or two words the other way round around the same one, is
// a contradiction; the near misses are not.
func TestOrderFlip(t *testing.T) {
	chat := "Will: I installed the apps but they don't work.\nMaggie: Did you restart your computer before launching them?\nWill: No.\nMaggie: Try that then."
	weather := "Abby: A bit rainy here.\nGail: Still cloudy here.\nAbby: Cloudy is nicer than rainy.\nGail: Probably."
	memory := "The new model uses less memory than the baseline and trains in two days."
	tests := []struct {
		name, answer, source, mismatch string
	}{
		{"before / after", "Maggie suggests he restarts his computer after launching the apps.", chat, Contradiction},
		{"the words around than swapped", "Abby likes rainy weather more than cloudy weather.", weather, Contradiction},
		{"more / less", "The new model uses more memory than the baseline.", memory, Contradiction},
		{"faithful before", "Maggie suggests he restarts his computer before launching the apps.", chat, None},
		{"faithful than", "Abby likes cloudy weather more than rainy weather.", weather, None},
		{"faithful less", "The new model uses less memory than the baseline.", memory, None},
		{"the source has both orders", "Check the data after the update.",
			"Back up the data before the update and check the data after the update.", None},
		{"no shared word on one side", "Maggie restarts her phone after lunch.", chat, None},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, OrderConfidence)
		})
	}
}

// requireOneContradiction checks answer against source: with want None, not
// a contradiction (other checks may weigh in: a word the source lacks is
// unsupported); otherwise want at conf, with one piece of evidence whose
// spans point at its texts, returned with ok.
func requireOneContradiction(t *testing.T, c *Checker, answer, source, want string, conf float64) (e Evidence, ok bool) {
	t.Helper()
	r := c.Check(answer, source)
	if want == None {
		require.NotEqual(t, Contradiction, r.Mismatch, "%+v", r)
		return e, false
	}
	require.Equal(t, want, r.Mismatch, "%+v", r)
	require.Equal(t, conf, r.Confidence, "%+v", r)
	require.Len(t, r.Evidence, 1)
	e = r.Evidence[0]
	require.Equal(t, answer[e.AnswerSpan.Start:e.AnswerSpan.End], e.AnswerText)
	require.NotNil(t, e.SourceSpan)
	require.Equal(t, source[e.SourceSpan.Start:e.SourceSpan.End], e.SourceText)
	return e, true
}

// TestOrderFlipDuring: "during" against the source's "before" or "after"
// between the same words is another order of events; the same word, or a
// source that also says "during", is not.
func TestOrderFlipDuring(t *testing.T) {
	chat := "Will: I installed the apps but they don't work.\nMaggie: Did you restart your computer before launching them?\nWill: No.\nMaggie: Try that then."
	tests := []struct {
		name, answer, source, mismatch string
	}{
		{"during / before", "Maggie suggests he restarts his computer during launching the apps.", chat, Contradiction},
		{"during / after", "Back up the data during the update.", "Back up the data after the update.", Contradiction},
		{"before / during", "Back up the data before the update.", "Back up the data during the update.", Contradiction},
		{"faithful during", "Back up the data during the update.", "Back up the data during the update, then reboot.", None},
		{"the source says both", "Back up the data during the update.",
			"Back up the data before the update and check the data during the update.", None},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, OrderConfidence)
		})
	}
}

// TestMisplacedOpposite: a word the source has, standing where the source
// has its opposite by an affix and not where it has the word itself, is a
// contradiction; the near misses are not.
func TestMisplacedOpposite(t *testing.T) {
	vae := "Earlier models suffer when the decoder ignores the information from the encoder. " +
		"They weaken the capacity of the decoder to force the use of latent codes. " +
		"We add a modified encoder and a multimodal prior. Our model keeps the full capacity of the decoder."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"encoder where the source weakens the decoder", "Earlier models weaken the capacity of the encoder to force the use of latent codes.", vae, Contradiction, "decoder"},
		{"underfitting where the source says overfitting", "Dropout on large networks reduces underfitting on small data, the authors find.",
			"Dropout reduces overfitting of large networks on small datasets. Small networks suffer from underfitting on every dataset.", Contradiction, "overfitting"},
		{"faithful", "Earlier models weaken the capacity of the decoder; we add a modified encoder.", vae, None, ""},
		{"the answer names both", "The encoder and the decoder keep their full capacity in our model.", vae, None, ""},
		{"the word stands in its own context too", "We add a modified encoder with a multimodal prior to our model.", vae, None, ""},
		{"no opposite in the source", "The encoder weakens the capacity of the model.",
			"The encoder weakens the capacity of the model to use latent codes.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, AffixConfidence); ok {
				require.True(t, strings.EqualFold(tt.says, e.SourceText), "%+v", e)
			}
		})
	}
}

// TestOrderFlipOneSided: "before" for "after" (or the reverse) before the
// same word, where the source's connective has nothing before it in its
// clause (stop 26; heldout6_podcast_4_4 of governance/eval/summedits_other,
// development). Near misses: the source has the answer's connective
// before that word too, "after" for the source's "during", another word
// after the connective.
func TestOrderFlipOneSided(t *testing.T) {
	src := "HOST: When was it built? IRIS: In 1858, after two ships were wrecked on the reef. It's 28 metres tall."
	tests := []struct {
		name, answer, source, mismatch string
	}{
		{"before for after", "The lighthouse was built in 1858 before two wrecks on the reef.", src, Contradiction},
		{"faithful after", "The lighthouse was built in 1858 after two wrecks on the reef.", src, None},
		{"the source has both", "The lighthouse was built in 1858 before two wrecks on the reef.",
			src + " Long before wrecks were recorded, fishermen feared the reef.", None},
		{"after for during", "The ferry was taken out of service after an inspection found a fault.",
			"The ferry was withdrawn on Thursday. During an inspection, engineers found a fault.", None},
		{"another word after it", "The lighthouse was built in 1858 before the storms.", src, None},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireOneContradiction(t, c, tt.answer, tt.source, tt.mismatch, OrderConfidence)
		})
	}
}
