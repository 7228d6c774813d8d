package grounding

import "slices"

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

// kindStems holds the stems of kindSets' forms (stemForms: "image" and
// "images" stem apart), in the same order.
var kindStems = func() (out [len(kindSets)][][]string) {
	for i, set := range kindSets {
		for _, w := range set {
			out[i] = append(out[i], stemForms(w))
		}
	}
	return out
}()

// kindSwap returns the member of a kindSets class that the source has in
// place of answer token i, whose lower-case word is w: w is another member
// of the class, and the source's member stands near (within nbrWindow) a
// word that stands near w in the answer (sharedNeighbour), "" when there
// is none. The caller passes only words the source lacks.
func (s *state) kindSwap(w []byte, i int) string {
	sw := string(stemBytes(w))
	for k, stems := range kindStems {
		self := -1
		for j, forms := range stems {
			if slices.Contains(forms, sw) {
				self = j
				break
			}
		}
		if self < 0 {
			continue
		}
		for j, forms := range stems {
			if j == self {
				continue
			}
			for _, m := range forms {
				if s.sharedNeighbour(i, []byte(m)) {
					return kindSets[k][j]
				}
			}
		}
	}
	return ""
}
