package grounding

// kindSets are closed classes of scientific writing whose members exclude
// one another in a statement, like the weekdays: the kind of data a method
// reads, the sense a percept comes through, the task a model solves, the
// kind of network it is (by the word that names it: "generative
// adversarial networks", "convolutional neural networks"). A member that
// replaces another is a changed claim ("image modeling" for "text
// modeling", "auditory concepts" for "visual concepts", "solving
// clustering tasks" for "classification", "adversarial networks" for
// "variational autoencoders"), while WordNet relates none of them (no
// antonym, and abstract nouns and adjectives are left out of the noun
// swaps). Compared by stem, so plurals and inflections count.
var kindSets = [...][]string{
	{"text", "image", "audio", "video"},
	{"visual", "auditory", "tactile", "olfactory", "gustatory"},
	{"classification", "regression", "clustering", "segmentation", "summarization", "translation", "detection", "retrieval"},
	{"convolutional", "recurrent", "adversarial", "variational", "autoencoder", "transformer"},
}

// kindOf maps the stems of kindSets' forms (stemForms: "image" and
// "images" stem apart) to their class and member.
var kindOf = func() map[string][2]int {
	m := map[string][2]int{}
	for i, set := range kindSets {
		for j, w := range set {
			for _, f := range stemForms(w) {
				m[f] = [2]int{i, j}
			}
		}
	}
	return m
}()

// kindSwap returns the member of a kindSets class that the source has in
// place of answer token i, whose lower-case word is w: w is another member
// of the class, and the source's member stands near (within nbrWindow) a
// word that stands near w in the answer (sharedNeighbour), "" when there
// is none. The caller passes only words the source lacks.
func (s *state) kindSwap(w []byte, i int) string {
	if len(w) > 16 {
		return ""
	}
	km, ok := kindOf[string(stemBytes(w))]
	if !ok {
		return ""
	}
	for j, m := range kindSets[km[0]] {
		if j == km[1] {
			continue
		}
		for _, f := range stemForms(m) {
			if s.sharedNeighbour(i, []byte(f)) {
				return m
			}
		}
	}
	return ""
}
