package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func lemmaNames(l *lexicon, ids []int32) []string {
	var s []string
	for _, id := range ids {
		s = append(s, string(l.lemmas.str(id)))
	}
	return s
}

func TestLexicon(t *testing.T) {
	l := lex()
	require.NotNil(t, l, "%v", lexErr)
	// Base forms: irregular forms, detachment rules, the word itself.
	for w, base := range map[string]string{"went": "go", "mice": "mouse", "purchased": "purchase", "studies": "study", "bigger": "big", "dog": "dog"} {
		require.Contains(t, lemmaNames(l, l.baseForms([]byte(w), nil)), base, w)
	}
	require.Empty(t, l.baseForms([]byte("zorblax"), nil))
	// Hypernyms: a dog is an animal (several steps up).
	dog := l.sensesOf(l.lemmas.find([]byte("dog")))[0]
	animal := l.sensesOf(l.lemmas.find([]byte("animal")))[0]
	require.True(t, l.under(animal, dog))
	require.False(t, l.under(dog, animal))
	require.Equal(t, len(l.name), len(l.byPre), "every synset numbered")
	// Antonyms carry their part of speech; derivations.
	hot := l.lemmas.find([]byte("hot"))
	var ants []string
	for _, a := range l.antonymsOf(hot) {
		ants = append(ants, string(l.lemmas.str(a>>2)))
	}
	require.Contains(t, ants, "cold")
	require.Contains(t, lemmaNames(l, l.relatedOf(l.lemmas.find([]byte("decide")))), "decision")
	// The usual part of speech: "offer" is a verb first.
	require.Equal(t, uint8(1), l.usual[l.lemmas.find([]byte("offer"))])
	require.Equal(t, uint8(0), l.usual[l.lemmas.find([]byte("milk"))])
}

func TestLexiconCorrupt(t *testing.T) {
	_, err := decodeLexicon([]byte("not gzip"))
	require.Error(t, err)
}

// TestCheckWordMeaning: the relations the lexicon brings. Each case fails
// on the checker without it (no word meaning: the synonyms, hypernyms and
// inflections were unsupported words, the swaps unsupported or nothing).
func TestCheckWordMeaning(t *testing.T) {
	chat := "Ann: Can you buy butter on the way home?\nMike: Sure, anything else?\nAnn: Check if we still have milk in the fridge.\nMike: We do, there is half a bottle left."
	tests := []struct {
		name, source, answer string
		mismatch             string
		conf                 float64
		reason               string // in the first evidence's reason
	}{
		{"inflection accepted in a short answer", "Ann will go to the market on Monday.", "Ann went to the market.", None, 0, ""},
		{"synonyms accepted in a summary",
			"The company will purchase new computers for the office staff next month because the current machines are slow and unreliable. The manager said the budget was approved on Monday.",
			"The company intends to buy fresh computers for its workers in the coming month, since the present machines are sluggish and undependable; the director stated that funding got approved.",
			None, 0, ""},
		{"hypernyms accepted in a summary",
			"Our dog chased a rabbit across the garden, then the puppy slept under an oak near the cottage while the farmer drove his truck to the market.",
			"The animal pursued a mammal through the garden, then the young dog rested beneath a tree near the house while the man drove his vehicle to the market.",
			None, 0, ""},
		{"co-hyponym swap flagged", chat,
			"Ann asks Mike to buy butter on his way home, and Mike confirms there is still some cheese in the fridge.",
			Contradiction, SwapConfidence, `"cheese" replaces "milk": both are kinds of dairy product`},
		{"hyponym of a source noun flagged", chat,
			"Ann asks Mike to buy ghee on his way home, and Mike confirms there is still some milk in the fridge.",
			Unsupported, SwapConfidence, `"ghee" replaces "butter": a kind of butter`},
		{"antonym flagged", "The jury found the defendant guilty after a long trial.", "The jury found the defendant innocent.",
			Contradiction, AntonymConfidence, `"innocent" is the opposite of "guilty"`},
		{"antonym flagged next to a shared word",
			"The report says the left wing of the museum is closed for repairs, so visitors should use the north entrance.",
			"Visitors learn that the right wing of the museum is shut for some weeks.",
			Contradiction, AntonymConfidence, `"right" is the opposite of "left"`},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			if tt.mismatch == None {
				return
			}
			require.InDelta(t, tt.conf, r.Confidence, 1e-9)
			require.NotEmpty(t, r.Evidence)
			e := r.Evidence[0]
			require.Contains(t, e.Reason, tt.reason)
			require.Equal(t, tt.answer[e.AnswerSpan.Start:e.AnswerSpan.End], e.AnswerText)
			require.NotNil(t, e.SourceSpan)
			require.Equal(t, tt.source[e.SourceSpan.Start:e.SourceSpan.End], e.SourceText)
		})
	}
}

// TestCheckWordMeaningNotSwaps: words the lexicon relates without a swap
// stay grounded.
func TestCheckWordMeaningNotSwaps(t *testing.T) {
	c := New()
	for _, tt := range [][2]string{
		// The answer uses the source word too: no replacement.
		{"Mike bought milk and cheese for the party, and Ann brought the cake and the drinks on Saturday evening.", "Mike bought milk for the party and some cheese, while Ann brought the cake and the drinks on Saturday evening."},
		// A verb ("offers") is not a thing.
		{"The company invites customers to a free trial of its platform for project management and team chat.", "The company offers customers a free trial of its platform for project management and team chat."},
	} {
		r := c.Check(tt[1], tt[0])
		require.Equal(t, None, r.Mismatch, "%q: %+v", tt[1], r)
	}
}

func BenchmarkLexiconDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(lexiconData)))
	for b.Loop() {
		if _, err := decodeLexicon(lexiconData); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckProse is BenchmarkCheck's shape (8 KB source, 2 KB
// answer) on distinct words: the source is 8 KB of distinct dictionary
// words, the answer takes its words with every fifth replaced by another
// one the source lacks. The worst case of the lexicon's work: every
// distinct source word is looked up (once) for the answer's missing words,
// and the nouns among them indexed for swaps.
func BenchmarkCheckProse(b *testing.B) {
	l := lex()
	n := int32(l.lemmas.len())
	var src, ans strings.Builder
	for i := int32(0); src.Len() < 8<<10; i++ {
		w := l.lemmas.str(i * 61 % n)
		src.Write(w)
		src.WriteString(" ")
		if ans.Len() < 2<<10 {
			if i%5 == 4 {
				w = l.lemmas.str((i*61 + 30) % n)
			}
			ans.Write(w)
			ans.WriteString(" ")
		}
		if i%12 == 11 {
			src.WriteString(". ")
			ans.WriteString(". ")
		}
	}
	c := New()
	b.ReportAllocs()
	b.SetBytes(int64(src.Len() + ans.Len()))
	for b.Loop() {
		c.Check(ans.String(), src.String())
	}
}

func TestPreload(t *testing.T) { require.NoError(t, Preload()) }

// TestHyponymSwap: an answer noun that is a kind of a source noun names
// what the source does not, even when the answer uses the source noun
// elsewhere and however many kinds the source noun has (stop 20).
func TestHyponymSwap(t *testing.T) {
	c := New()
	for _, tt := range []struct{ name, source, answer, kind, was string }{
		{"the answer names the source noun elsewhere", "Melt the butter in a pan. Then stir more butter into the sauce before serving.",
			"Melt the ghee in a pan, then stir more butter into the sauce before serving.", "ghee", "butter"},
		{"a noun of many kinds", "The kitchen serves fresh fish on Fridays and soup on Mondays.",
			"The kitchen serves fresh salmon on Fridays and soup on Mondays.", "salmon", "fish"},
		{"both", "Tom: I've got some fish left over from dinner if anyone wants it. Anna: Yes please! Tom: Come and get the fish then.",
			"Tom offers Anna some leftover salmon, and Anna comes to get the fish.", "salmon", "fish"},
		// Four steps below: laptop, portable computer, personal computer,
		// digital computer, computer.
		{"four steps below", "Sam: My apps crash all the time. Kim: Did you restart your computer before opening them? Sam: Not yet.",
			"Sam's apps keep crashing, and Kim suggests he restarts his laptop before opening them.", "laptop", "computer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, Unsupported, r.Mismatch, "%+v", r)
			require.Len(t, r.Evidence, 1)
			require.Equal(t, tt.kind, r.Evidence[0].AnswerText)
			require.Equal(t, tt.was, r.Evidence[0].SourceText)
			require.Contains(t, r.Evidence[0].Reason, "a kind of "+tt.was)
		})
	}
}

// TestAntonymOfSupportedWord: an answer word that WordNet relates to a
// source word as a synonym or derivation is supported, so it is no
// opposite of another source word ("back" is a synonym of the source's
// "support", whatever "go ahead" elsewhere); an antonym the source does
// not support is still one.
func TestAntonymOfSupportedWord(t *testing.T) {
	checkCases(t, []checkCase{
		{"supported by a synonym", "The money raised by the charge will go back into public transport and buses, and the chair asked why the council should proceed with the charge for residents.",
			"Many residents support the charge for buses, and the money raised by the charge will be reinvested in public transport. The chair asked why the council should go ahead with the charge and proceed.", None},
		{"an antonym the source does not support", "After a long trial in the city court, the jury found the defendant innocent of the charge of theft from the shop.",
			"The jury found the defendant guilty of the charge of theft from the shop after a long trial in the city court.", Contradiction},
	})
}

// TestMorphRuleTails: baseForms tests a rule's suffix packed in 32 bits
// (morphRule.tail), which holds maxMorphSuffix bytes.
func TestMorphRuleTails(t *testing.T) {
	for _, rules := range morphRules {
		for _, r := range rules {
			require.LessOrEqual(t, len(r.suffix), maxMorphSuffix, r.suffix)
		}
	}
}
