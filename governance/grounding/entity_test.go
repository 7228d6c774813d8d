package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEntitySwap(t *testing.T) {
	tests := []struct {
		name, source, answer, mismatch string
		// For a contradiction: the answer's entity and the source's.
		said, was string
	}{
		{"place", "The capital of France is Paris.", "The capital of France is Lyon.", Contradiction, "Lyon", "Paris"},
		{"person", "The refund was approved by Maria Lopez on Tuesday after a review.",
			"The refund was approved by John Smith on Tuesday after a review.", Contradiction, "John Smith", "Maria Lopez"},
		{"organisation", "The company signed the supply contract with Globex last week.",
			"The company signed the supply contract with Initech last week.", Contradiction, "Initech", "Globex"},
		{"one word of a name", "Our office moved from Boston to New York in May.",
			"Our office moved from Boston to New Jersey in May.", Contradiction, "New Jersey", "New York"},
		{"among other sentences", "Orders ship within two days. The warehouse manager is Priya Shah. Returns take a week.",
			"Returns take a week, and the warehouse manager is Ravi Shah.", Contradiction, "Ravi Shah", "Priya Shah"},
		// The answer's name is elsewhere in the source, not in this statement.
		{"name from another sentence", "The capital of France is Paris. Lyon is known for its food.",
			"The capital of France is Lyon.", Contradiction, "Lyon", "Paris"},
		{"person from another sentence", "The ceremony was chaired by Isabelle Mergault. The film starred François Cluzet.",
			"The ceremony was chaired by François Cluzet.", Contradiction, "François Cluzet", "Isabelle Mergault"},
		// A name opening the sentence, where the source's opens its own or
		// stands inside it before the same word.
		{"place at the start", "Paris is the capital of France. It has 2 million inhabitants.",
			"Lyon is the capital of France.", Contradiction, "Lyon", "Paris"},
		{"organisation at the start", "Microsoft acquired GitHub in 2018 for 7.5 billion dollars.",
			"Google acquired GitHub in 2018.", Contradiction, "Google", "Microsoft"},
		{"organisation at the start, the source's inside", "In 2018, Microsoft acquired GitHub for 7.5 billion dollars.",
			"Google acquired GitHub in 2018.", Contradiction, "Google", "Microsoft"},
		{"company at the start", "Globex signed the supply contract last week.",
			"Initech signed the supply contract last week.", Contradiction, "Initech", "Globex"},
		{"person at the start", "Maria Lopez approved the refund on Tuesday after a review.",
			"John Smith approved the refund on Tuesday after a review.", Contradiction, "John Smith", "Maria Lopez"},
		{"one-word person at the start", "Einstein was the first director of the institute.",
			"Bohr was the first director of the institute.", Contradiction, "Bohr", "Einstein"},
		// The statement turned round its "is".
		{"copula turned", "Paris is the capital of France. It has 2 million inhabitants.",
			"The capital of France is Lyon.", Contradiction, "Lyon", "Paris"},
		{"copula turned back", "The capital of France is Paris.", "Lyon is the capital of France.", Contradiction, "Lyon", "Paris"},
		{"copula turned, person", "The president of the jury was François Cluzet.",
			"Isabelle Mergault was the president of the jury.", Contradiction, "Isabelle Mergault", "François Cluzet"},
		// The answer's opening name is in the source, in another statement.
		{"place at the start from another sentence", "Paris is the capital of France. Lyon is known for its food.",
			"Lyon is the capital of France.", Contradiction, "Lyon", "Paris"},
		{"organisation at the start from another sentence", "Google acquired GitHub in 2018. Microsoft bought LinkedIn.",
			"Microsoft acquired GitHub in 2018.", Contradiction, "Microsoft", "Google"},
		// An apposition states what "is" does.
		{"apposition in the answer", "Paris is the capital of France.",
			"Lyon, the capital of France, is a large city.", Contradiction, "Lyon", "Paris"},
		{"apposition in the answer, copula turned", "The capital of France is Paris.",
			"Lyon, the capital of France, is a large city.", Contradiction, "Lyon", "Paris"},
		{"apposition in the source", "Paris, the capital of France, has 2 million inhabitants.",
			"Lyon is the capital of France.", Contradiction, "Lyon", "Paris"},
		{"apposition paraphrase", "Paris is the capital of France. It is a large city.",
			"Paris, the capital of France, is a large city.", None, "", ""},
		// Faithful paraphrases: the same names, nothing new.
		{"passive", "GitHub was acquired by Microsoft in 2018.", "Microsoft acquired GitHub in 2018.", None, "", ""},
		{"fronted year", "Microsoft acquired GitHub in 2018 for 7.5 billion dollars.", "In 2018, Microsoft acquired GitHub.", None, "", ""},
		// A new connective opening the sentence where the source has
		// another: new words, no swapped name.
		{"However first", "Meanwhile, Microsoft acquired GitHub in 2018.", "However, Microsoft acquired GitHub in 2018.", Unsupported, "", ""},
		{"However first, same statement", "However, Microsoft acquired GitHub in 2018.", "Microsoft acquired GitHub in 2018.", None, "", ""},
		{"Today first", "The company signed the supply contract with Globex today.", "Today the company signed the supply contract with Globex.", None, "", ""},
		{"The first", "Paris is the capital of France.", "The capital of France is Paris.", None, "", ""},
		// An ordinary word opening a sentence is no name: "Revenue" is
		// written lower-case later, "Profit" is a verb too.
		{"common word at the start", "Profit fell sharply in the second quarter.",
			"Revenue fell sharply in the second quarter, and revenue growth stalled.", Unsupported, "", ""},
		// Common nouns opening both sentences: a plural, or two words of one
		// sense, are no names.
		{"plural noun at the start", "Clients can reset their passwords online.",
			"Customers can reset their passwords online.", Unsupported, "", ""},
		{"synonym at the start", "Client support handles refunds.", "Customer support handles refunds.", Unsupported, "", ""},
		// A new name at the start with no counterpart in the source statement.
		{"extra name at the start", "GitHub was acquired in 2018 for 7.5 billion dollars.",
			"Google acquired GitHub in 2018.", Unsupported, "", ""},
		{"paraphrase", "The capital of France is Paris.", "Paris is the capital of France.", None, "", ""},
		{"paraphrase person", "The refund was approved by Maria Lopez on Tuesday after a review.",
			"After a review, Maria Lopez approved the refund on Tuesday.", None, "", ""},
		{"paraphrase organisation", "The company signed the supply contract with Globex last week.",
			"Last week the company signed a supply contract with Globex.", None, "", ""},
		{"paraphrase with another name in the source", "The capital of France is Paris. Lyon is known for its food.",
			"Paris is the capital of France, and Lyon is known for food.", None, "", ""},
		// The source's statement has a "he" for the answer's name: the word
		// next to the names is the same, the words between are not.
		{"pronoun in the source", "The Colts drafted Billy Vessels. He played football at the University of Oklahoma and won the Heisman Trophy in 1952.",
			"Billy Vessels won the Heisman Trophy in 1952.", None, "", ""},
		// A name with no counterpart in a matching source statement.
		{"extra name", "The capital of France is Paris.", "The capital of France is Paris, according to Pierre.", Unsupported, "", ""},
		{"extra name beside the source's", "The company signed the supply contract with Globex last week.",
			"The company signed the supply contract with Globex and Initech last week.", Unsupported, "", ""},
		{"name in another statement", "The capital of France is Paris. Lyon is known for its food.",
			"The capital of France is Paris, says Marie.", Unsupported, "", ""},
		// The source's run holds a word the answer has elsewhere: no place
		// of the answer's name.
		{"source run holds the answer's word", "On April 11, 2013, US based Polaris Industries announced that it had acquired Aixam-Mega.",
			"Polaris is based in Michigan.", Unsupported, "", ""},
		// Next to the same word on one side, another on the other.
		{"other word on one side", "Patricia Lee Smith (born in Chicago) is an American singer.",
			"Patricia Lee Smith is a Canadian-American singer.", Unsupported, "", ""},
		// A weekday or month is no counterpart of a name.
		{"month", "The lawsuit against Acme was filed in December by the union.",
			"The lawsuit against Acme was filed in Ohio by the union.", Unsupported, "", ""},
		// Capitalised only because it opens the source sentence: no name.
		{"sentence start is no name", "Revenue fell sharply in the second quarter.",
			"Revenue at Acme fell sharply in the second quarter.", Unsupported, "", ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			if tt.mismatch != Contradiction {
				return
			}
			requireSwapEvidence(t, r, tt.answer, tt.source, tt.said, tt.was)
		})
	}
}

// TestEntitySwapFloodEnds: an answer of many sentences each with a new
// name, against a long source, is checked in one pass per answer sentence
// (no test of time: it must end and stay unsupported).
func TestEntitySwapFlood(t *testing.T) {
	answer := strings.Repeat("the mayor met Lyon today. ", maxAnswerBytes/26)
	source := strings.Repeat("the mayor met Paris. ", maxSourceBytes/21)
	r := New().Check(answer, source)
	require.Equal(t, Unsupported, r.Mismatch)
}

// requireSwapEvidence: r has one piece of evidence, the answer's word said
// where the source has was, both spans pointing at them.
func requireSwapEvidence(t *testing.T, r Result, answer, source, said, was string) {
	t.Helper()
	require.Len(t, r.Evidence, 1)
	e := r.Evidence[0]
	require.Equal(t, said, e.AnswerText)
	require.Equal(t, answer[e.AnswerSpan.Start:e.AnswerSpan.End], e.AnswerText)
	require.NotNil(t, e.SourceSpan)
	require.Equal(t, was, e.SourceText)
	require.Equal(t, source[e.SourceSpan.Start:e.SourceSpan.End], e.SourceText)
	require.Contains(t, e.Reason, `says "`+said+`" where the source says "`+was+`"`)
}
