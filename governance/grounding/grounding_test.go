package grounding

import (
	"math"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		raw  string
		v    float64
		kind byte
	}{
		{"1.2 million", 1.2e6, 'n'},
		{"1,200,000", 1.2e6, 'n'},
		{"$1.2M", 1.2e6, '$'},
		{"12%", 12, '%'},
		{"12 percent", 12, '%'},
		{"€3bn", 3e9, '$'},
		{"2024", 2024, 'y'},
		{"5 mln", 5e6, 'n'},
	}
	for _, tt := range tests {
		v, kind, ok := parseQuantity(tt.raw)
		require.True(t, ok, tt.raw)
		require.InDelta(t, tt.v, v, 1e-6, tt.raw)
		require.Equal(t, tt.kind, kind, tt.raw)
	}
	require.True(t, closeTo(1.2e6, 1_187_000), "stated rounding is tolerated")
	require.False(t, closeTo(12, 15))
}

func TestCheck(t *testing.T) {
	src := "Revenue grew 12% in 2024 to $1,200,000. The board approved the plan. Headcount rose to 85 people."
	tests := []struct {
		name, answer, mismatch, rewritten string
	}{
		{"grounded", "Revenue grew 12 percent to $1.2 million in 2024.", None, ""},
		{"numeric corrected", "Revenue grew 15% in 2024.", Numeric, "Revenue grew 12% in 2024."},
		{"numeric amount", "Revenue grew to $1.5M.", Numeric, "Revenue grew to $1,200,000."},
		{"negation", "The board did not approve the plan.", Contradiction, ""},
		{"antonym", "The board rejected the plan.", Contradiction, ""},
		{"unsupported", "Tesla acquired Twitter.", Unsupported, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, src)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			require.Equal(t, tt.rewritten, r.Rewritten)
			if tt.mismatch != None {
				require.NotEmpty(t, r.Evidence)
				for _, e := range r.Evidence {
					require.Equal(t, tt.answer[e.AnswerSpan.Start:e.AnswerSpan.End], e.AnswerText)
					require.NotEmpty(t, e.Reason)
					if e.SourceSpan != nil {
						require.Equal(t, src[e.SourceSpan.Start:e.SourceSpan.End], e.SourceText)
					}
				}
			}
		})
	}
}

func TestNoSource(t *testing.T) {
	r := New().Check("Revenue grew 15%.", "")
	require.Equal(t, None, r.Mismatch)
}

func BenchmarkCheck(b *testing.B) {
	src := strings.Repeat("The company reported revenue of $4.2 million in 2024, up 12% from the prior year, with 85 employees across 3 offices. ", 70)[:8<<10]
	ans := strings.Repeat("Revenue was $4.2 million in 2024, a 12% increase, and the company has 85 employees. ", 25)[:2<<10]
	c := New()
	lex() // decoded once on first use: BenchmarkLexiconDecode measures that
	b.ReportAllocs()
	b.SetBytes(int64(len(src) + len(ans)))
	for b.Loop() {
		c.Check(ans, src)
	}
}

func FuzzCheck(f *testing.F) {
	f.Add("Revenue grew 15% to $1.2M.", "Revenue grew 12% to 1,200,000.")
	f.Add("\xff\xfe 12%", "12 percent\x00")
	f.Add("We discount post-stimulus activity in a time-by-space model; it is negative.", "We discount pre-stimulus activity in a space-by-time model; it is non-negative.")
	f.Add("Tom restarts it after launching, and likes rain more than sun.", "Tom: restart before launching?\nAnn: sun is nicer than rain\nTom: ok")
	f.Add("The capital of France is Lyon, says Marie. Ann met New Jersey Bob.", "The capital of France is Paris. Lyon is big. Ann met the New York Mets.")
	f.Add("The landlord pays the cleaner and the tenant pays the plumber; a suboptimal plan.", "The landlord pays the plumber and the tenant pays the cleaner. An optimal plan.")
	f.Add("Removing bias terms does not provide interpretations of the network, nor salmon.", "Bias terms do not help. These analyses provide interpretations of the network. Fish.")
	f.Add("The budget adds staff and new computers, plus a free battery with a lack of pipes.", "The budget adds $410,000 for staff. Rep: a loan\nAnn: ok\nRep: fine")
	f.Add("Eventually, Harry and Joyce both decline, and Tom refuses.", "Joyce: But yeah, sure. . Harry: nope . Tom: Okay’ . Tom Lee: I can’t")
	c := New()
	f.Fuzz(func(t *testing.T, answer, source string) {
		r := c.Check(answer, source)
		for _, e := range r.Evidence {
			sp := e.AnswerSpan
			if sp.Start < 0 || sp.Start > sp.End || sp.End > len(answer) {
				t.Fatalf("bad answer span %+v", sp)
			}
			if e.SourceSpan != nil && (e.SourceSpan.Start < 0 || e.SourceSpan.End > len(source)) {
				t.Fatalf("bad source span %+v", e.SourceSpan)
			}
		}
		if r.Rewritten != "" && utf8.ValidString(answer) && !utf8.ValidString(r.Rewritten) && utf8.ValidString(source) {
			t.Fatalf("rewrite broke UTF-8")
		}
	})
}

// TestPooledStateReuse: a Check's result does not depend on what earlier
// Checks left in the pooled scratch.
func TestPooledStateReuse(t *testing.T) {
	c := New()
	cases := [][2]string{
		{"Revenue grew 15% in 2024.", "In 2024 revenue grew 12% year over year."},
		{"The refund was not approved.", "The refund was approved by the bank on Monday."},
		{"Zorblax Corp acquired Quintel for $3 billion.", "The company reported revenue of $4.2 million."},
		{strings.Repeat("Sales rose 12% to $4.2 million with 85 staff. ", 40), strings.Repeat("Sales rose 12% to $4.2 million; the firm has 85 staff in 3 offices. ", 150)},
		{"Ünïcode Ärger stieg um 5 Prozent.", "Der Ärger stieg um 7 Prozent im Jahr 2023."},
	}
	first := make([]Result, len(cases))
	for i, cs := range cases {
		first[i] = c.Check(cs[0], cs[1])
	}
	for round := 0; round < 3; round++ {
		for i := len(cases) - 1; i >= 0; i-- {
			require.Equal(t, first[i], c.Check(cases[i][0], cases[i][1]), "case %d", i)
		}
	}
}

// TestStemBytes: the hand-written stemBytes agrees with stem.
func TestStemBytes(t *testing.T) {
	atoms := []string{"s", "e", "d", "i", "n", "g", "'", "a", "es", "ed", "ing", "'s"}
	r := rand.New(rand.NewSource(4))
	for range 100000 {
		var b strings.Builder
		for range r.Intn(6) {
			b.WriteString(atoms[r.Intn(len(atoms))])
		}
		w := b.String()
		require.Equal(t, stem(w), string(stemBytes([]byte(w))), "%q", w)
	}
}

// TestBitsetScoring: the bit-sliced scores and the set searches give what
// counting per source number (the definition) gives, on generated number-
// dense texts.
func TestBitsetScoring(t *testing.T) {
	vocab := []string{"revenue", "profit", "staff", "offices", "Europe", "grew", "fell", "year", "quarter", "customers", "rose", "cost"}
	nums := []string{"12%", "$4.2 million", "85", "3", "2024", "1,250", "4.2", "12", "13%", "$4.3M", "1,251", "2023", "100", "50"}
	r := rand.New(rand.NewSource(5))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			if r.Intn(3) == 0 {
				b.WriteString(nums[r.Intn(len(nums))])
			} else {
				b.WriteString(vocab[r.Intn(len(vocab))])
			}
			b.WriteString([]string{" ", " ", ", ", ". "}[r.Intn(4)])
		}
		return b.String()
	}
	for iter := range 400 {
		src, ans := text(20+r.Intn(900)), text(5+r.Intn(60))
		st := getState()
		st.source = src
		st.stoks = st.tokenize(src, st.stoks[:0], false)
		st.atoks = st.tokenize(ans, st.atoks[:0], true)
		st.index()
		st.indexNumbers(src)
		st.anums = st.quantities(ans, st.anumAt, st.anums[:0])
		for i := range st.anums {
			st.context(&st.anums[i], ans, nil, st.atoks, 0)
		}
		for i := range st.anums {
			q := &st.anums[i]
			st.scores(q)
			// The definition: distinct context words shared, per number.
			score := make([]int, len(st.snums))
			qctx := st.ctx[q.c0:q.c1]
			for j := range st.snums {
				n := &st.snums[j]
				seen := map[int32]bool{}
				for _, w := range qctx {
					if seen[w] {
						continue
					}
					seen[w] = true
					for _, x := range st.ctx[n.c0:n.c1] {
						if x == w {
							score[j]++
							break
						}
					}
				}
				got := 0
				for p := range st.planes {
					if st.planes[p][j>>6]>>(j&63)&1 == 1 {
						got |= 1 << p
					}
				}
				require.Equal(t, score[j], got, "iter %d number %d", iter, j)
			}
			has, same, diff := false, 0, 0
			var best *quantity
			bestScore, ties := 0, 0
			for j := range st.snums {
				n := &st.snums[j]
				cl, _ := st.classOf(n.value)
				c := near(q, n.value, st.classTol[cl])
				if c && compatible(q.kind, n.kind) {
					has = true
				}
				if compatible(q.kind, n.kind) && score[j] > 0 {
					if c {
						same = max(same, score[j])
					} else {
						diff = max(diff, score[j])
					}
				}
				if score[j] == 0 || !compatible(q.kind, n.kind) || (q.kind == 'y') != (n.kind == 'y') {
					continue
				}
				switch {
				case score[j] > bestScore:
					best, bestScore, ties = n, score[j], 0
				case score[j] == bestScore && !closeTo(n.value, best.value):
					ties++
				}
			}
			near := st.closeSet(q)
			require.Equal(t, has, st.hasValue(q, &near), "iter %d", iter)
			require.Equal(t, diff >= 3 && diff >= same+3, st.betterElsewhere(q, &near, &nbits{}), "iter %d", iter)
			gb, amb := st.align(q, &nbits{})
			require.Equal(t, best, gb, "iter %d", iter)
			if best != nil {
				require.Equal(t, ties > 0, amb, "iter %d", iter)
			}
		}
		putState(st)
	}
}

// TestNumberForms: words, times, codes, made-up numbers, and numbers the
// answer states twice.
func TestNumberForms(t *testing.T) {
	src := "Sign up within the next ten days for a 20% discount. The meeting is at 5pm on Friday.\n1. Basic plan: $499/month, reduced by 15% to $424.15 for the first three months.\n2. Complimentary 3D visualization."
	tests := []struct{ answer, mismatch string }{
		{"Sign up within 10 days to get 20% off.", None},
		{"Sign up within the next three days for a 20% discount.", Numeric},
		{"The meeting is at 5 p.m. on Friday.", None},
		{"The basic plan costs $499 a month, reduced to $424.15 for the first three months.", None},
		{"It includes complimentary 2D visualization.", Numeric},
		{"Sign up within ten days for a 20% discount and 30 free licences.", Numeric},
		{"The meeting with Gregory is at 5pm on Friday.", Unsupported},
	}
	c := New()
	for _, tt := range tests {
		r := c.Check(tt.answer, src)
		require.Equal(t, tt.mismatch, r.Mismatch, "%s: %+v", tt.answer, r)
	}
}

// TestOneBeforeUnit: "one" is left out as a pronoun, but before a unit of
// measurement it is a number, on either side.
func TestOneBeforeUnit(t *testing.T) {
	trial := "The free trial lasts two weeks, and one of our advisers calls you."
	term := "The contract runs for a one-year term with monthly billing."
	tests := []struct{ answer, source, mismatch string }{
		{"The free trial lasts one week.", trial, Numeric},
		{"The contract runs for a two-year term with monthly billing.", term, Numeric},
		{"The contract runs for a one-year term.", term, None},
		{"The free trial lasts 14 days.", trial, None},
		{"One of our advisers calls you during the free trial.", trial, None},
	}
	c := New()
	for _, tt := range tests {
		r := c.Check(tt.answer, tt.source)
		require.Equal(t, tt.mismatch, r.Mismatch, "%s: %+v", tt.answer, r)
	}
}

// TestValueInOtherUnit: a source number of the same value in another unit
// of the same dimension does not state the answer's amount.
func TestValueInOtherUnit(t *testing.T) {
	src := "The free trial lasts two weeks, and the discount applies for the first three months."
	tests := []struct{ answer, mismatch string }{
		{"The free trial lasts 3 weeks, and the discount applies for the first three months.", Numeric},
		{"The free trial lasts three weeks.", Numeric},
		{"The discount applies for three weeks.", Numeric},
		{"The free trial lasts two weeks, and the discount applies for three months.", None},
		{"The free trial lasts 14 days.", None},
	}
	c := New()
	for _, tt := range tests {
		r := c.Check(tt.answer, src)
		require.Equal(t, tt.mismatch, r.Mismatch, "%s: %+v", tt.answer, r)
	}
}

func TestPricePointAndLexicalContradictions(t *testing.T) {
	c := New()
	src := "ApexConnect costs a one-time fee of $999. The monthly plan is $49.95. We offer unlimited storage. " +
		"The meeting is on Saturday. Prices are higher this year. Our plans offer a free trial for new customers. Support answers on weekdays."
	tests := []struct{ answer, mismatch string }{
		{"ApexConnect costs a one-time fee of $1000.", Numeric}, // a price point is not rounded
		{"The monthly plan is about $50.", None},                // hedged
		{"The monthly plan is $50.", Numeric},                   // not hedged
		{"They offer limited storage.", Contradiction},          // negative prefix
		{"The meeting is on Sunday.", Contradiction},            // another weekday
		{"Support answers on weekends.", Contradiction},         // weekends for weekdays
		{"Support answers on weekdays.", None},
		{"Prices are lower this year.", Contradiction},                 // antonym
		{"Their plans start at $0, but don't offer a trial.", Numeric}, // numbers first
		{"The plans are simple, but do not offer a free trial for customers.", Contradiction},
	}
	for _, tt := range tests {
		r := c.Check(tt.answer, src)
		require.Equal(t, tt.mismatch, r.Mismatch, "%s: %+v", tt.answer, r)
	}
	require.True(t, pricePoint(49.95) && pricePoint(999) && !pricePoint(1000) && !pricePoint(50))
}

// TestAntonymNeighbourWindow: an antonym counts when the answer and the
// source share a word within nbrWindow (four) content words of the pair,
// not only within two: a summary reorders the phrase it reports. Each
// contradiction below rests on a shared word three or four words away
// ("reported" after "east coast stores and the warehouses"; "provinces"
// after "Rural clinics in the northern"); five or six words away, none.
func TestAntonymNeighbourWindow(t *testing.T) {
	stores := "The east coast stores and the warehouses reported strong sales this spring. The company opened new offices. Staff were hired in March."
	clinics := "Rural clinics in the northern provinces reported fewer flu cases this winter. The ministry hired more nurses. Vaccines arrived in October."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"hand-written pair, shared word four words away", "Staff were hired and new offices opened, while the west reported strong sales.", stores, Contradiction, "east"},
		{"WordNet pair, shared word three words away", "The ministry hired more nurses as vaccines arrived, and urban provinces reported fewer flu cases.", clinics, Contradiction, "Rural"},
		{"faithful", "The ministry hired more nurses as vaccines arrived, and rural provinces reported fewer flu cases.", clinics, None, ""},
		{"shared word six words away", "Staff were hired and new offices opened, while the west reported strong sales.",
			"The east coast stores, the old depots and the warehouses reported strong sales this spring. The company opened new offices. Staff were hired in March.", None, ""},
		{"WordNet pair, shared word five words away", "The ministry hired more nurses as vaccines arrived, and urban provinces reported fewer flu cases.",
			"Rural clinics in the remote hilly northern provinces reported fewer flu cases this winter. The ministry hired more nurses. Vaccines arrived in October.", None, ""},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			if tt.mismatch == Contradiction {
				require.Len(t, r.Evidence, 1)
				require.Contains(t, r.Evidence[0].Reason, tt.says, "%+v", r.Evidence[0])
			}
		})
	}
}

// TestInflectedAntonyms: an antonym whose base ends in "-e" is found
// whatever form the source writes it in. Such a base stems apart from its
// inflections ("improve"; "improves": "improv"), so the hand-written pair
// improve / worsen and WordNet's encourage / discourage never matched a
// source's "improves" or "encouraged".
func TestInflectedAntonyms(t *testing.T) {
	cache := "The new cache improves load times for large pages. The team shipped it in May after a long beta."
	policy := "The new policy encouraged remote work across all teams. Offices were closed in June for repairs."
	tests := []struct {
		name, answer, source, mismatch, says string
	}{
		{"hand-written pair", "Shipped in May after a long beta, the new cache worsens load times.", cache, Contradiction, `"improves"`},
		{"hand-written pair, faithful", "Shipped in May after a long beta, the new cache speeds up load times.", cache, None, ""},
		{"WordNet pair", "Offices were closed in June, and the new policy discouraged remote work.", policy, Contradiction, `"encourage"`},
		{"WordNet pair, faithful", "Offices were closed in June, and the new policy supported remote work.", policy, None, ""},
		{"a base without -e", "Prices decreased this year, the report says.", "The report covers our stores. Prices increased this year across all regions.", Contradiction, "increased"},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			if tt.mismatch == Contradiction {
				require.Contains(t, r.Evidence[0].Reason, tt.says, "%+v", r.Evidence[0])
			}
		})
	}
	require.Equal(t, []string{"improve", "improv"}, stemForms("improve"))
	require.Equal(t, []string{"east"}, stemForms("east"))
}

// A chat summary's negated clause against the turn it reports: flagged
// when that turn has no negation, not when it has one, and not for the
// verbs ("refuse", "fail") by which a summary reports a "no".
func TestChatClauseNegation(t *testing.T) {
	chat := "Ovi: I just got back from Israel, the trip was great\nTom: Lucky you! How was the weather?\nOvi: Sunny every day\nTom: See you at school tomorrow?\nOvi: Sure"
	refusal := "Peggy: Who can help with the workshops for parents?\nAnn: Sorry, no time\nBob: Not me either\nCarl: OK, I'll help with the workshops\nPeggy: Thanks, Carl!"
	tests := []struct {
		name, answer, source, mismatch string
	}{
		{"negation the turn lacks", "Ovi doesn't share his trip to Israel with Tom. They will meet at school.", chat, Contradiction},
		{"negation, weakly aligned", "Ovi doesn't tell Tom about his holiday in Israel.", chat, Contradiction},
		{"faithful report", "Ovi shares his trip to Israel with Tom. They will meet at school tomorrow.", chat, None},
		{"negation the turn has", "Ann has no time to help. Carl will help with the workshops.", refusal, None},
		{"refusal verb reports a no", "Ann and Bob refuse to help with the workshops, and Carl agrees to help.", refusal, None},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			if tt.mismatch == Contradiction {
				require.GreaterOrEqual(t, r.Confidence, ChatNegationConfidence)
				require.NotEmpty(t, r.Evidence)
				require.Equal(t, tt.answer[r.Evidence[0].AnswerSpan.Start:r.Evidence[0].AnswerSpan.End], r.Evidence[0].AnswerText)
			}
		})
	}
}

// TestProseClauseNegation: a negated answer clause is aligned with the
// source sentence sharing proseClauseSim of its words (0.3, stop 20; 0.4
// before) and contradicts it when that sentence has no negation; under
// 0.4 as weakly as a chat clause.
func TestProseClauseNegation(t *testing.T) {
	const source = "The robot cuts chemical costs for every pool. It runs at night."
	tests := []struct {
		name, answer, mismatch string
	}{
		// robot, chemical, costs, pools: 4 of 11 words.
		{"a third of the words", "Their quiet autonomous underwater robot never lowers chemical costs for pools during busy summer weekends.", Contradiction},
		{"the same clause without negation", "Their quiet autonomous underwater robot lowers chemical costs for pools during busy summer weekends.", Unsupported},
		// robot, costs: 2 of 11.
		{"too few words in common", "Their quiet autonomous underwater robot never lowers monthly costs for owners during busy summer weekends.", Unsupported},
		// A third, but one word: "robot".
		{"one word in common", "The robot's owners do not sleep.", Unsupported},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			if tt.mismatch == Contradiction {
				require.Equal(t, ChatNegationConfidence, r.Confidence)
				require.Equal(t, "the answer negates what the source states", r.Evidence[0].Reason)
			}
		})
	}
}

func TestNegativeJudgement(t *testing.T) {
	src := "The new phone launched in May in Europe and Asia. Sales in the first month were slower than planned, " +
		"the battery drew complaints from reviewers, and the company cut the price for the summer season."
	tests := []struct {
		name, source, answer, mismatch string
	}{
		{"grounded", src, "The phone launched in May in Europe and Asia; first-month sales were slower than planned, reviewers complained about the battery and the company cut the price.", None},
		{"judgement the source does not make", src, "The May phone launch in Europe and Asia was a disaster: sales were slower than planned, reviewers complained about the battery and the company cut the price.", Unsupported},
		{"judgement the source makes", src + " Reviewers called it a disaster.", "The May phone launch in Europe and Asia was a disaster: sales were slower than planned, reviewers complained about the battery and the company cut the price.", None},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
			if tt.mismatch != None {
				require.Equal(t, NameOnlyConfidence, r.Confidence, "recorded, not acted on by the default policy")
				require.Equal(t, "disaster", r.Evidence[0].AnswerText)
			}
		})
	}
	require.True(t, negativeJudgements[stem("disastrous")], "the embedded list is loaded")
	require.False(t, negativeJudgements["slow"], "mild words are not in the list")
}

// TestJudgementVerbInChat: "fail" is on the list of negative judgements,
// but a summary of a chat reports a "no" or a "doesn't work" with it (as
// the chat negation checks read it), so there it is no judgement; the
// list's other words still are.
func TestJudgementVerbInChat(t *testing.T) {
	chat := "Lola: I tried to submit the expenses via the website but I keep getting an error\nCassie: Sounds like an IT problem\nLola: OK, I'll ask IT"
	checkCases(t, []checkCase{
		{"chat: reports that it does not work", "Lola's expenses fail to go through the website, and Cassie suggests asking IT.", chat, None},
		{"chat: a judgement the chat does not make", "Lola's expenses are a disaster on the website, and Cassie suggests asking IT.", chat, Unsupported},
	})
}

// TestParseDecimal: the hand parser agrees with strconv.ParseFloat (commas
// dropped) bit for bit on every string it accepts, and accepts the usual
// spellings.
func TestParseDecimal(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const alphabet = "0123456789012345678901234567890123456789.,"
	check := func(s string) {
		v, ok := parseDecimal(s)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		require.NoError(t, err, s)
		require.Equal(t, math.Float64bits(want), math.Float64bits(v), s)
	}
	for _, s := range []string{"0", "0.0", "5.", ".5", "4.2", "1,200,000", "1,187,000.25", "9007199254740991", "90071992547409.91",
		"0.0000000000000000000012", "123456789012345.6", "3.14159265358979"} {
		_, ok := parseDecimal(s)
		require.True(t, ok, s)
		check(s)
	}
	for _, s := range []string{"", ".", ",", "1.2.3", "1e5", "-1", "+1", "12%", "9007199254740993", "0.00000000000000000000001"} {
		_, ok := parseDecimal(s)
		require.False(t, ok, s)
	}
	for range 200000 {
		b := make([]byte, 1+r.Intn(24))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		check(string(b))
	}
	for range 200000 {
		s := strconv.FormatUint(r.Uint64()>>r.Intn(64), 10)
		if k := r.Intn(len(s) + 1); k < len(s) {
			s = s[:k] + "." + s[k:]
		}
		check(s)
	}
}

// TestNextPunctDigit: the eight-byte skips find what a byte loop finds.
func TestNextPunctDigit(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	const alphabet = "ab Z09/:;.!?\n\x00\x7f\x80\xff\xe2\x0a\x2f\x3a"
	for range 20000 {
		b := make([]byte, r.Intn(40))
		for i := range b {
			if r.Intn(4) == 0 {
				b[i] = alphabet[r.Intn(len(alphabet))]
			} else {
				b[i] = byte(r.Intn(256))
			}
		}
		s := string(b)
		for i := 0; i <= len(s); i++ {
			p, d := i, i
			for p < len(s) && !sentencePunct[s[p]] {
				p++
			}
			for d < len(s) && !isDigit(s[d]) {
				d++
			}
			require.Equal(t, p, nextPunct(s, i), "%q %d", s, i)
			require.Equal(t, d, nextDigit(s, i), "%q %d", s, i)
		}
	}
}

// TestWordBytes: the eight-byte word test marks what wordLower marks.
func TestWordBytes(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	const alphabet = "azAZ@[`{'\x07\x27\x47\x67\x00\x7f\x80\xa7\xc1\xe1\xff 09"
	for range 200000 {
		var x uint64
		for b := range 8 {
			c := byte(r.Intn(256))
			if r.Intn(2) == 0 {
				c = alphabet[r.Intn(len(alphabet))]
			}
			x |= uint64(c) << (8 * b)
		}
		var want uint64
		for b := range 8 {
			if wordLower[byte(x>>(8*b))] != 0 {
				want |= 0x80 << (8 * b)
			}
		}
		require.Equal(t, want, wordBytes(x), "%#x", x)
	}
}

// tokenizeRef is tokenize without the surface cache and the eight-byte
// reads: every word lowered byte by byte and looked up in full.
func (s *state) tokenizeRef(text string, out []tok, answer bool) []tok {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		st := i
		s.buf, i = lowerWord(text, i, s.buf)
		if id, full := s.wordIDs(s.buf, answer); id >= 0 {
			out = append(out, tok{start: st, end: i, id: id, full: max(full, -1), upper: unicode.IsUpper(r)})
		}
	}
	return out
}

// TestTokenizeMatchesRef: words read eight bytes at a time and taken from
// the surface cache get the spans and ids reading each word in full gives;
// answer words' own ids may differ only where the source lacks both.
func TestTokenizeMatchesRef(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	pieces := []string{"revenue", "Revenue", "REVENUE", "grew", "growing", "grows", "the", "The", "a", "I", "it's", "Sam's", "dogs'", "o'clock",
		"don't", "n't", "'", "''", "’", "é", "Ärger", "naïve", "K", "ǅ", "\xff", "\xe2\x80", "employees", "employee", "increases", "increased",
		"testing", "testinged", "cases", "caseses", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefgh", "abcdefghi", "x", "4.2", "12%", "$",
		" ", " ", " ", "  ", ", ", ".", "\n", "-", "_", "\x00", "\x07", "@", "[", "`", "{"}
	text := func() string {
		var b strings.Builder
		for range r.Intn(60) {
			b.WriteString(pieces[r.Intn(len(pieces))])
			if r.Intn(3) > 0 {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	for range 20000 {
		src, ans := text(), text()
		a, b := statePool.New().(*state), statePool.New().(*state)
		a.stoks = a.tokenize(src, nil, false)
		a.atoks = a.tokenize(ans, nil, true)
		b.stoks = b.tokenizeRef(src, nil, false)
		b.atoks = b.tokenizeRef(ans, nil, true)
		for _, st := range []*state{a, b} {
			st.inSource = growBools(nil, st.words.len())
			for _, t := range st.stoks {
				st.inSource[t.id] = true
			}
		}
		require.Equal(t, b.stoks, a.stoks, "%q", src)
		require.Equal(t, len(b.atoks), len(a.atoks), "%q", ans)
		for i := range a.atoks {
			x, y := a.atoks[i], b.atoks[i]
			require.Equal(t, a.vocab(x.full), b.vocab(y.full), "%q %d", ans, i)
			x.full, y.full = 0, 0
			require.Equal(t, y, x, "%q %d", ans, i)
		}
		require.Equal(t, b.words.buf, a.words.buf)
	}
}

// TestAlignSentenceMatchesShares: alignSentence (counting all sentences or
// only those touched) picks the sentence the shares pick: the highest
// share, the first on ties.
func TestAlignSentenceMatchesShares(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	vocab := strings.Fields("revenue profit staff offices grew fell year quarter customers rose cost plan board trial refund days")
	sent := func() string {
		var b strings.Builder
		for range 1 + r.Intn(8) {
			b.WriteString(vocab[r.Intn(len(vocab))] + " ")
		}
		return b.String() + ". "
	}
	for range 3000 {
		var src strings.Builder
		for range 1 + r.Intn(60) {
			src.WriteString(sent())
		}
		ans := sent()
		st := getState()
		st.source = src.String()
		st.stoks = st.tokenize(st.source, st.stoks[:0], false)
		st.atoks = st.tokenize(ans, st.atoks[:0], true)
		st.sourceSentences(st.source)
		st.counts = growInt32(st.counts, len(st.sents))
		st.mark = growMarks(st.mark, st.words.len())
		for k := 0; k < len(st.atoks); k++ {
			aw := st.atoks[k : k+1+r.Intn(len(st.atoks)-k)]
			best, sim := st.alignSentence(aw)
			ids := map[int32]bool{}
			for _, t := range aw {
				ids[t.id] = true
			}
			var want *sentence
			wantSim := 0.0
			for i := range st.sents {
				n := 0
				for id := range ids {
					if st.sentHas(&st.sents[i], id) {
						n++
					}
				}
				if s := float64(n) / float64(len(ids)); s > wantSim {
					want, wantSim = &st.sents[i], s
				}
			}
			require.Equal(t, want, best)
			require.Equal(t, wantSim, sim)
			require.Len(t, st.set, len(ids))
		}
		putState(st)
	}
}

// TestContextMatchesWindow: a number's context (one run of tokens each
// side) holds the words the per-token window test picks; in a source, a
// side stops at the first clause break past minContext words.
func TestContextMatchesWindow(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	pieces := []string{"revenue", "grew", "staff", "offices", "12%", "$4.2 million", "85", "3 km", "2024", "5-7", strings.Repeat("x", 30),
		strings.Repeat("long ", 9), "the", ", ", ". ", "\n", "; ", "4.5", "Mr."}
	for range 3000 {
		var b strings.Builder
		for range r.Intn(80) {
			b.WriteString(pieces[r.Intn(len(pieces))] + " ")
		}
		text := b.String()
		for _, source := range []bool{false, true} {
			st := getState()
			toks := st.tokenize(text, nil, false)
			nums := st.quantities(text, st.snumAt, nil)
			var breaks []bool // an answer's windows cross every break
			if source {
				breaks = sentenceBreaks(text, toks, nil)
			}
			from := 0
			for i := range nums {
				q := &nums[i]
				from = st.context(q, text, breaks, toks, from)
				var want []int32
				k := sort.Search(len(toks), func(k int) bool { return toks[k].start >= q.span.Start })
				j := k
				for j > max(0, k-6) && q.span.Start-toks[j-1].start <= 80 && (k-j < minContext || !source || !ctxBreak(text, toks[j-1].end, q.span.Start)) {
					j--
				}
				for ; j < k; j++ {
					want = append(want, toks[j].id)
				}
				n := 0
				for j := k; j < len(toks) && j < k+7; j++ {
					if toks[j].start < q.span.End {
						continue
					}
					if toks[j].start-q.span.End > 80 || n >= minContext && source && ctxBreak(text, q.span.End, toks[j].start) {
						break
					}
					want = append(want, toks[j].id)
					n++
				}
				require.Equal(t, want, append([]int32(nil), st.ctx[q.c0:q.c1]...), "%q %d", text, i)
			}
			putState(st)
		}
	}
}

// TestCtxBreak: line breaks and sentence ends break a context; decimal
// points and commas do not.
func TestCtxBreak(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"grew 15%. Mia opened", true},
		{"grew 15%\nMia opened", true},
		{"grew 15%; Mia opened", true},
		{"grew 15%! Mia opened", true},
		{"grew 4.5 percent", false},
		{"grew 15%, led by shoes", false},
		{"grew 15% (see note.)", false},
	} {
		require.Equal(t, tc.want, ctxBreak(tc.text, 0, len(tc.text)), tc.text)
	}
}

// TestApproxTol: approxTol (which first tests the last letter) agrees with
// its definition on random texts before a number.
func TestApproxTol(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	pieces := []string{"about", "About", "ABOUT", "around", "approximately", "approx", "roughly", "nearly", "almost", "some", "Some", "awesome",
		"handsome", "xabout", "the", "revenue", "was", "up", "to", "of", "a", "~", " ", " ", "  ", "$", "_", "1", ".", "é", "\xff", "t", "y", "d", "x", "e"}
	words := map[string]bool{"about": true, "around": true, "approximately": true, "approx": true, "roughly": true, "nearly": true, "almost": true, "some": true}
	for range 100000 {
		var b strings.Builder
		for range r.Intn(5) {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		before := b.String()
		v := float64(r.Intn(2000) - 1000)
		want := 0.0
		if rest := strings.TrimRight(before, " $"); strings.HasSuffix(rest, "~") {
			want = 0.1 * math.Abs(v)
		} else {
			j := len(rest)
			for j > 0 && asciiLetter(rest[j-1]) {
				j--
			}
			if words[strings.ToLower(rest[j:])] && (j == 0 || !isWordByte(rest[j-1])) {
				want = 0.1 * math.Abs(v)
			}
		}
		require.Equal(t, want, approxTol(before, v), "%q", before)
	}
}

// TestUnitsOfMeasurement: an amount stated in another unit of the same
// dimension agrees; a different amount in another unit is a mismatch that
// is never rewritten (the source's number in the answer's unit would be
// wrong: "2500 kg").
func TestUnitsOfMeasurement(t *testing.T) {
	c := New()
	tests := []struct {
		answer, source, mismatch, rewritten string
	}{
		{"The package weighs 2.5 kg.", "The package weighs 2500 g.", None, ""},
		{"The package weighs 2.5kg.", "The package weighs 2500g.", None, ""},
		{"The flight takes 90 minutes.", "The flight takes 1.5 hours.", None, ""},
		{"The course starts in 2 weeks.", "The course starts in 14 days.", None, ""},
		{"The trip is 5 km.", "The trip is 5000 m.", None, ""},
		{"The bottle holds 750 ml.", "The bottle holds 0.75 litres.", None, ""},
		{"The package weighs 3 kg.", "The package weighs 2500 g.", Numeric, ""},
		{"The flight takes 2 hours.", "The flight takes 90 minutes.", Numeric, ""},
		// Same unit: corrected to the source value as before.
		{"The package weighs 3 kg.", "The package weighs 2.5 kg.", Numeric, "The package weighs 2.5 kg."},
		// A lone "m" after a currency amount is still millions.
		{"It raised $5 m.", "It raised $5 million.", None, ""},
		{"It raised $6 m.", "It raised $5 million.", Numeric, "It raised $5 million."},
	}
	for _, tt := range tests {
		t.Run(tt.answer+" | "+tt.source, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r.Evidence)
			require.Equal(t, tt.rewritten, r.Rewritten)
		})
	}
}

// TestShortStatementNegation: a two-word statement that negates the same
// short source statement is a contradiction; against a longer sentence two
// words say too little to judge.
func TestShortStatementNegation(t *testing.T) {
	c := New()
	tests := []struct{ answer, source, want string }{
		{"The product is not available.", "The product is available.", Contradiction},
		{"The refund is approved.", "The refund is not approved.", Contradiction},
		{"The refund is approved.", "The refund is approved.", None},
		{"It is not raining.", "It is not raining.", None},
		{"Payments are not refundable.", "Payments made by card before the end of the month are refundable in full.", None},
	}
	for _, tt := range tests {
		t.Run(tt.answer+" | "+tt.source, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.want, r.Mismatch, "%+v", r.Evidence)
		})
	}
}

// TestNumberNo: "no" for "number" ("my no 1 place", "No. 10") is no
// negation in the sentence and clause checks, as in the dropped-negation
// check; "no" before a number is a negation otherwise ("and no 24/7
// support").
func TestNumberNo(t *testing.T) {
	checkCases(t, []checkCase{
		{"my no 1", "Whitehaven Beach is not my favourite place to visit in Australia.", "Whitehaven Beach is my no 1 place to visit in Australia.", Contradiction},
		{"No. 10", "The meeting is not at Downing Street.", "The meeting is at No. 10 Downing Street.", Contradiction},
		{"chat turn", "Bridget and Clare talk about beaches, with both agreeing that Whitehaven Beach is not their favourite.",
			"Bridget: Portishead?\nClare: Similar.\nBridget: Think that's my no 1 fave Whitehaven Beach\nClare: Yep. Mine too", Contradiction},
		{"faithful", "Whitehaven Beach is my favourite place to visit in Australia.", "Whitehaven Beach is my no 1 place to visit in Australia.", None},
		{"a negation before a number", "The package includes sensors and no 24/7 support.", "The package includes sensors and 24/7 support.", Contradiction},
		{"a negation before a number on both sides", "The package includes sensors and no 24/7 support.", "The package includes sensors, and no 24/7 support.", None},
	})
	for w, want := range map[string]bool{"my no 1 fave": true, "the No. 2 seed": true, "No. 10": true, "and no 24/7 support": false, "no 3 days": false, "no more": false, "piano 1": false} {
		i := strings.Index(strings.ToLower(w), "no")
		require.Equal(t, want, numberNo(w, i, i+2), w)
	}
}

// TestHelpBut: "cannot help but" and "can't help but" affirm, on either
// side: a source sentence "I cannot help but notice X" states X.
func TestHelpBut(t *testing.T) {
	src := "I cannot help but notice that your team has grown fast this year. Our platform can help you keep up."
	checkCases(t, []checkCase{
		{"the source affirms", "The team has not grown fast this year.", src, Contradiction},
		{"the source affirms, faithful", "The team has grown fast this year.", src, None},
		{"the answer affirms", "I can't help but notice that the team has grown fast this year, with new offices in Berlin and Madrid and more staff across sales and support.",
			"The team has grown fast this year, with new offices in Berlin and Madrid and more staff across sales and support.", None},
		{"a plain negation", "The platform cannot help the team keep up.", "The platform can help the team keep up.", Contradiction},
		{"a curly apostrophe", "The team has not grown fast this year.", "I can’t help but notice that your team has grown fast this year. Our platform can help you keep up.", Contradiction},
	})
}

// BenchmarkCheckFlood: Check at the size limits (64 KB answer, 256 KB
// source) on inputs that made a check quadratic: each answer word or
// connective has its opposite in the source, never in a shared context, so
// nothing ends the search early. Before the source was indexed once per
// Check (its compounds, connectives, tokens by word and their neighbours),
// each answer occurrence searched the whole source: seconds a Check.
func BenchmarkCheckFlood(b *testing.B) {
	for _, tc := range []struct{ name, answer, source string }{
		{"affix", "preflux bar. ", "xpostflux postflux zzz. "},
		{"order", "apple before pear. ", "plum after fig. "},
		{"antonym", "the guilty man. ", "the innocent woman. "},
		{"antonym-affix", "useless tools. ", "useful stuff. "},
		{"antonym-used", "the guilty man innocent. ", "the innocent man. "},
		{"negation", "apps work fine. ", "they do not work. apps run fine. "},
		// A unit of time the source lacks, in a source naming none (33 s
		// a Check when each such answer word read the whole source).
		{"time-unit", "hourly pay. ", "the fixed pay. "},
		// "during" against "before" (order.go), and a negative prefix whose
		// antonym WordNet lists ("incorrect") with no derivation of it in
		// the source (prefixOpposite, once per word).
		{"order-during", "apple during pear. ", "plum before fig. "},
		{"prefix-derivation", "incorrect tools. ", "the speed rules. "},
		// A new name in each answer sentence, its context all in a source
		// sentence but beside another word (entitySwap: the sentence,
		// then the clause, aligned).
		{"entity", "today, the mayor met Lyon. ", "the mayor met city Paris. "},
		// The same with a name the source has in another sentence
		// (unalignedName, then the sentence's alignment reused).
		{"entity-known", "the mayor met Lyon. ", "the mayor met city Paris. Lyon rests. "},
		// A new capitalised word opening each answer sentence, where each
		// source sentence opens with another, beside another word
		// (entitySwap's sentence-initial names: aligned, then refused).
		{"entity-initial", "Lyon met the mayor. ", "Paris quietly met the mayor. "},
		// Each answer word between two source words that stand around
		// another, which the answer has elsewhere beside other words
		// (roleSwap: bounded by maxSwapPostings).
		{"role-swap", "qa qb qc. qd qx qf. ", "qa qx qc. qd qy qf. "},
		// Each answer word negated, the source stating it without negation
		// in sentences that negate something else (addedNegation: each
		// word's occurrences read once, tried in scopeTries clauses).
		{"added-negation", "apps do not work fine. ", "apps work fine, not late. "},
		// The same with a negated base form the source inflects (otherForm)
		// and a short negated clause read with its sentence.
		{"added-negation-form", "apps do not combine data. ", "apps combines data, not late. "},
		{"added-negation-short", "a kit, but no spare battery. ", "a spare battery, not late. "},
		// A chat whose speakers each assent and refuse, and an answer of
		// clauses in which they decline (declinedAssent: the turns read
		// once per Check, each subject looked up among a few speakers).
		{"declined-assent", "Tom and Ann both decline, ", "Ann: yes . Ann: no . Tom: ok . Tom: nope . "},
		// The same with clauses whose subject is "both" or "they": the
		// names opening the sentence are read and tried once per sentence.
		{"declined-assent-plural", "Tom and Ann talk, with both declining, and they decline, ", "Ann: yes . Ann: no . Tom: ok . Tom: nope . "},
		// An answer word whose affix opposite the source has, in contexts
		// sharing as many words (misplacedOpposite: maxMisplaced distinct
		// words, each neighbourhood made once); a quantifier the source has
		// of both kinds (quantifierChange: maxQuantifiers each side); a data
		// kind the source names only beside other words (kindSwap).
		{"misplaced-affix", "encoder bar. ", "encoder bar. decoder qqq. "},
		{"quantifier", "all cats sleep. ", "many dogs run. all cats sleep. "},
		{"kind", "image bar. ", "text zzz. "},
		// A negated opposite against a source word never negated (stop
		// 21, second round: directOpposite and antonymNeighbour read the
		// polarity of each source occurrence).
		// A restriction in each answer sentence, the source restricting
		// the same words throughout (nearRestriction: the source's words
		// near a restriction gathered once, each answer's looked up).
		{"restriction-near", "only cats sleep. ", "just cats sleep. dogs run. "},
		{"antonym-negated", "qa not decreasing memory qb qc qd. ", "increases memory qz. "},
		// Numbers whose context puts the value of the next one, in a
		// cycle of three: each is stated and points at a value the answer
		// states, and none trades places with another (swappedWith: every
		// pair looked at, 256 numbers at most).
		// Each answer word after "with", the source having it after both
		// "with" and "without" (withoutFlip: each word's source
		// occurrences read once).
		{"with-without", "with qq data. ", "with qq data. without qq data. "},
		// An acronym in each answer sentence whose first letters the
		// source's words spell again and again, never to the end (1.2 s a
		// Check when each occurrence read the whole source; knownAcronym:
		// each distinct word read once, at most maxAcronyms of them).
		{"acronym", "the QXZ rose. ", "qxa qxb qy. "},
		// Each answer sentence without negation aligned with a source
		// sentence whose negation bears on other words (negationShared:
		// each source sentence's negations read once per Check, at most
		// maxScopedNegations of them looked at per answer sentence).
		{"negation-scope", "apps run fast today. ", "apps run fast today but never qx qy. "},
		// Each answer sentence negating what its aligned source sentence
		// states, the source negating the same word elsewhere
		// (negationElsewhere: the source's negated words marked once per
		// Check, each answer span found by binary search).
		{"negation-elsewhere", "qa qb do not qc. ", "qa qb qc. no qc qd. "},
		// Pairs of numbers the source states side by side, every value
		// repeated (pairStated: two neighbours per answer number, the
		// source's 256 numbers as bit sets).
		{"number-pair", "qa 1.5 to 2.5 qb. ", "qc 1.5 and 2.5 qd. "},
		// Every answer number has a direction word and 256 source numbers
		// of its value, each read back a few words (directionFlip).
		{"direction", "qa up 5% qb. ", "qa up 5% qc. qd down 6% qe. "},
		// Every answer number is a source comparison's earlier figure, and
		// every answer clause dates it (priorAsCurrent reads a bounded
		// window around each).
		{"prior", "qa 5 qb 7 last year qc ", "qa 7, compared with 5 qd. "},
		// Every answer word has an antonym beside its neighbour in the
		// source, and the source has it there too (adjacentAntonym and
		// comparativeFlip read at most maxSwapPostings occurrences).
		{"adjacent", "a darker colour and more qa. ", "a lighter colour, a darker colour, less qa and more qa. "},
		// Every answer count is of a word that 256 source numbers of
		// another value count (countOfOther reads each answer number's
		// next two words and the source's 256 numbers as bit sets).
		{"count", "qa 7 qb qc. ", "qa 5 qd. "},
		// Every answer sentence has a word the source lacks and joins
		// words to a list, none a noun the source lacks (addedConjunct
		// reads at most maxConjunctMods+1 words after each coordinator).
		{"conjunct", "qa and new qb qz and a qd. ", "qa new qb qc qd. "},
		// Every answer clause names a speaker and two words other
		// speakers' turns have one at a time (otherSpeaker visits at most
		// maxSwapPostings source occurrences).
		{"speaker", "Ann qa qb. ", "Bob: qa.\nCid: qb.\nAnn: qd.\n"},
		// Stop 26: fractions in words the source states (fractionSwap: the
		// source's values a table, each answer fraction one lookup); "before"
		// with a word after it that the source has after "before" too
		// (orderFlip's one-sided reading, one index lookup per word); every
		// answer number after a capitalised word, 256 source numbers of its
		// value after other words (acronymBefore reads a few words before
		// each).
		{"fraction", "a third of qa and half the qb. ", "a third of qa. half the qc. "},
		{"order-one-sided", "qa, before qb qc. ", "qd, before qb qe. after qf qg. "},
		{"acronym-number", "qa QB was 5 qc. ", "qa qb were 5 qd. "},
		// "Mayor" everywhere, never the month (monthMay: one pass over each
		// text, a match rejected in place).
		{"month-may", "the Mayor met qa. ", "the Mayor met qb in March. "},
		// Every answer sentence negates a word the source never negates,
		// beside a number the source states 256 times in negated clauses
		// (negatedNumber: each source number's clause read once, each
		// answer clause's numbers found by binary search).
		{"negated-number", "qa is not qb of 5 qc. ", "qa is not qd of 5 qc. "},
		{"number-cycle", "aa rose 50% bb cc dd. ee rose 40% ff gg hh. ii rose 30% jj kk ll. ", "aa rose 40% bb cc dd. ee rose 30% ff gg hh. ii rose 50% jj kk ll. "},
	} {
		b.Run(tc.name, func(b *testing.B) {
			answer := strings.Repeat(tc.answer, maxAnswerBytes/len(tc.answer))
			source := strings.Repeat(tc.source, maxSourceBytes/len(tc.source))
			c := New()
			b.ReportAllocs()
			b.SetBytes(int64(len(answer) + len(source)))
			for b.Loop() {
				if r := c.Check(answer, source); r.Mismatch == Contradiction {
					b.Fatalf("the flood must not end early: %+v", r.Evidence)
				}
			}
		})
	}
}

// TestNoClaim: an acknowledgement, greeting or abstention states nothing
// to ground; an answer with one content word, name or number still does.
func TestNoClaim(t *testing.T) {
	const source = "The payment was approved on 3 May for 120 EUR."
	tests := []struct {
		answer string
		want   string
	}{
		{"ok", None},
		{"OK, done.", None},
		{"Sure, thanks!", None},
		{"Thanks for waiting!", None},
		{"I don’t know.", None},
		{"Noted, I'll look into it.", None},
		{"Paris", Unsupported},
		{"Done, refunded.", Unsupported},
		{"Done: 3.", Unsupported},
		{"OK, the payment was rejected.", Contradiction},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			require.Equal(t, tt.want, c.Check(tt.answer, source).Mismatch)
		})
	}
}

// TestNumWordKeys: isNumWordKey knows the number words and no other word,
// by asciiWord's keys.
func TestNumWordKeys(t *testing.T) {
	key := func(w string) (uint64, uint64) {
		_, k0, k1 := asciiWord(w+strings.Repeat(" ", 16), 0)
		return k0, k1
	}
	for id := range numWordVals {
		w := string(numWords.word(int32(id)))
		require.True(t, isNumWordKey(key(w)), w)
		require.True(t, isNumWordKey(key(strings.ToUpper(w))), w)
	}
	for _, w := range []string{"on", "onee", "ones", "one's", "tw", "twent", "seventeens", "thousandth", "hundreds", "the", "a", "and", "twelfth", "abcdefghijklmnop"} {
		require.False(t, isNumWordKey(key(w)), w)
	}
}

// TestWordNumbersMatchesScan: wordNumbers, reading the number words
// tokenize found, finds what a scan of the text finds.
func TestWordNumbersMatchesScan(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	pieces := strings.Fields(`one two three four five six seven eight nine ten eleven twelve thirteen seventeen nineteen twenty thirty ninety
		hundred dozen thousand million billion trillion twice One TWO Three SEVENTEEN a and the of 5 12 $ € % percent dollars euros week days
		year km onee tw twent thousandth hundreds oneself someone twelfth café naïve é ’ ñone oneé x'two ' - -- 5one one5 abcdefghijklmnopq`)
	seps := []string{" ", " ", " ", "-", "", ", ", ". ", "'", "\n", "é", "’", "  "}
	for range 20000 {
		var b strings.Builder
		for range r.Intn(40) {
			b.WriteString(pieces[r.Intn(len(pieces))])
			b.WriteString(seps[r.Intn(len(seps))])
		}
		text := b.String()
		for _, answer := range []bool{false, true} {
			st := getState()
			st.tokenize(text, nil, answer)
			numAt := st.snumAt
			if answer {
				numAt = st.anumAt
			}
			require.Equal(t, wordNumbersRef(text, nil), wordNumbers(text, numAt, nil), "%q", text)
			putState(st)
		}
	}
}

// wordNumbersRef finds the number words as wordNumbers did before
// tokenize found them for it: a scan of the text byte by byte (the
// reference TestWordNumbersMatchesScan compares with). Both read each
// number with numberPhrase.
func wordNumbersRef(text string, out []quantity) []quantity {
	var buf [10]byte
	for i := 0; i < len(text) && len(out) < maxNumbers; {
		c := text[i]
		if !asciiLetter(c) {
			i++
			continue
		}
		if numWordFirst&(1<<(c|0x20-'a')) == 0 || i > 0 && (text[i-1] >= utf8.RuneSelf || text[i-1] == '\'' || text[i-1] == '-') {
			// Not a number word's first letter: skip the whole word.
			for i < len(text) && asciiLetter(text[i]) {
				i++
			}
			continue
		}
		w, j := nextWord(text, i, &buf)
		nw, ok := lookupNumWord(w)
		if !ok || j < len(text) && (text[j] >= utf8.RuneSelf || text[j] == '\'') {
			i = j
			continue
		}
		q, end, ok := numberPhrase(text, i, j, nw, &buf)
		if ok {
			out = append(out, q)
		}
		i = end
	}
	return out
}

// TestNumberSwap: two numbers that trade places (each stated by the
// source, each where the context puts the other's value) are numeric
// mismatches, rewritten to the source's; a faithful answer stating both
// in their places, or in other words, is not, nor is a number moved
// without the trade.
func TestNumberSwap(t *testing.T) {
	src := "Total revenue in the third quarter was $1.12 billion, up 8% at constant exchange rates. " +
		"Our diabetes drug Glycora is now our largest product. " +
		"Sales of our older blood pressure drug Vasotrin fell 18% as generic competition increased in Europe."
	tests := []struct {
		name, answer, mismatch, rewritten string
	}{
		{"swapped", "Third quarter revenue rose 18% at constant exchange rates to $1.12 billion, while sales of the blood pressure drug Vasotrin fell 8% because of generic competition.", Numeric,
			"Third quarter revenue rose 8% at constant exchange rates to $1.12 billion, while sales of the blood pressure drug Vasotrin fell 18% because of generic competition."},
		{"faithful", "Third quarter revenue rose 8% at constant exchange rates to $1.12 billion, while sales of the blood pressure drug Vasotrin fell 18% because of generic competition.", None, ""},
		{"faithful, reordered", "Sales of the blood pressure drug Vasotrin fell 18% because of generic competition, while third quarter revenue rose 8% at constant exchange rates to $1.12 billion.", None, ""},
		{"one number moved, no trade", "Third quarter revenue rose 18% at constant exchange rates to $1.12 billion.", Numeric, "Third quarter revenue rose 8% at constant exchange rates to $1.12 billion."},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, src)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r.Evidence)
			require.Equal(t, tt.rewritten, r.Rewritten)
		})
	}
}

// TestOrdinalInOtherContext: an ordinal the source states as an ordinal
// ("16th century") is stated, whatever amount shares more context words
// with it (a headline's "after 120 years"); an ordinal the source lacks, or
// states only as an amount, is still aligned with the source's numbers.
func TestOrdinalInOtherContext(t *testing.T) {
	src := "Museum returns bronze head of a king to Nigeria after 120 years\n\n" +
		"The Hartwell Museum of Art said on Monday that it had returned a bronze head to Nigeria. " +
		"The sculpture, which depicts a king, is believed to date from the 16th century."
	checkCases(t, []checkCase{
		{"ordinal stated elsewhere", "The Hartwell Museum of Art returned a 16th-century bronze head of a king to Nigeria.", src, None},
		{"ordinal stated elsewhere, spaced", "The Hartwell Museum of Art returned a bronze head of a king from the 16th century to Nigeria.", src, None},
		{"another ordinal", "The Hartwell Museum of Art returned a 17th-century bronze head of a king to Nigeria.", src, Numeric},
		{"the amount in another context", "The Hartwell Museum of Art returned a bronze head of a king to Nigeria after 16 years.", src, Numeric},
	})
}

// TestContextStopsAtSentence: a source number's context stops at its
// sentence's end (past two words), so the words of the sentence before
// an appositive age ("Lewis, 44, has spent ...") no longer make the age a
// better place for the under-19 side the answer states; the answer's
// windows still cross its own sentences, and a changed number is caught.
func TestContextStopsAtSentence(t *testing.T) {
	src := "The Rovers sacked their manager last month after a run of nine games without a win.\n\n" +
		"Lewis, 44, has spent the last three seasons in charge of the club's under-19 side, and he took charge on Monday."
	checkCases(t, []checkCase{
		{"stated in its own sentence", "The Rovers sacked their manager after nine games without a win. Lewis, who coached the under-19 side for three seasons, took charge on Monday.", src, None},
		{"changed", "The Rovers sacked their manager after nine games without a win. Lewis, who coached the under-21 side for three seasons, took charge on Monday.", src, Numeric},
		{"changed, the other sentence", "The Rovers sacked their manager after six games without a win. Lewis, who coached the under-19 side for three seasons, took charge on Monday.", src, Numeric},
	})
}

// TestAcronymWithStopWord: an acronym may take the letter of a stop word
// ("earnings per share": EPS) or skip it ("Bureau of Labor Statistics":
// BLS), at most two in a row; other letters still make a new name.
func TestAcronymWithStopWord(t *testing.T) {
	for _, tc := range []struct {
		text, from, w string
		want          bool
	}{
		{"diluted earnings per share of $4.40", "earnings", "EPS", true},
		{"the Bureau of Labor Statistics said", "Bureau", "BLS", true},
		{"the Department of the Interior", "Department", "DOI", true},
		{"the Department of the Interior", "Department", "DI", true},
		{"the Department of the of Interior", "Department", "DI", false},
		{"earnings per share", "earnings", "EPR", false},
		{"earnings, per share", "earnings", "EPS", false},
		{"earnings Per Share", "earnings", "ES", false},
		{"cat cat cat cat", "cat", "CD", false},
	} {
		require.Equal(t, tc.want, acronymAt(tc.text, strings.Index(tc.text, tc.from), tc.w), "%s in %q", tc.w, tc.text)
	}
	src := "Net income was $62 million, or $1.18 per diluted share, compared with $1.09 a year ago. " +
		"Given our results to date, we now expect diluted earnings per share of $4.40 to $4.60."
	c := New()
	for _, tt := range []struct{ answer, mismatch string }{
		{"Net income was $62 million, or $1.18 per diluted share, against $1.09 a year ago, and given results to date the company now expects diluted EPS of $4.40 to $4.60.", None},
		{"Net income was $62 million, or $1.18 per diluted share, against $1.09 a year ago, and given results to date the company now expects diluted EBIT of $4.40 to $4.60.", Unsupported},
	} {
		require.Equal(t, tt.mismatch, c.Check(tt.answer, src).Mismatch, tt.answer)
	}
}

// TestPrefixOppositePolarity: an opposite by a negative prefix states the
// opposite only under the source word's polarity: "unhurt" restates "no
// one was hurt" and contradicts "two were hurt".
func TestPrefixOppositePolarity(t *testing.T) {
	checkCases(t, []checkCase{
		{"negated in the source", "The fire destroyed the warehouse, but all 22 night-shift workers got out unhurt.",
			"The fire destroyed the warehouse. All 22 workers on the night shift were evacuated, and no one was hurt.", None},
		{"stated in the source", "The fire destroyed the warehouse, but all 22 night-shift workers got out unhurt.",
			"The fire destroyed the warehouse. All 22 workers on the night shift were evacuated, and two of them were hurt.", Contradiction},
		{"both negated", "The fire destroyed the warehouse, and the 22 night-shift workers were not unhurt.",
			"The fire destroyed the warehouse. All 22 workers on the night shift were evacuated, and no one was hurt.", Contradiction},
	})
}

// TestPairFormNotStem: a hand-written opposite counts for a form of its
// pair's word, not for another word the stemmer cuts to the same stem
// ("even" for "evening", the opposite of "morning").
func TestPairFormNotStem(t *testing.T) {
	src := "Guest traffic declined 1.4% in the quarter. Most of that decline came in the morning hours. Same-restaurant sales rose 1.9% on higher checks."
	c := New()
	for _, tt := range []struct{ answer, mismatch string }{
		{"Same-restaurant sales rose 1.9% on higher checks, even as guest traffic declined in the morning hours.", None},
		{"Same-restaurant sales rose 1.9% on higher checks, while guest traffic declined in the evening hours.", Contradiction},
	} {
		r := c.Check(tt.answer, src)
		require.Equal(t, tt.mismatch, r.Mismatch, "%s: %+v", tt.answer, r.Evidence)
	}
	for _, tc := range []struct {
		w    string
		want bool
	}{{"evening", true}, {"evenings", true}, {"even", false}, {"rises", true}, {"falls", true}, {"reduced", true}} {
		sw := stemBytes([]byte(tc.w))
		require.Equal(t, tc.want, pairForm([]byte(tc.w), sw), tc.w)
	}
}

// checkCase is one answer, its source and the mismatch type it should get.
type checkCase struct{ name, answer, source, mismatch string }

// checkCases runs Check on each case as a subtest.
func checkCases(t *testing.T, cases []checkCase) {
	t.Helper()
	c := New()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r.Evidence)
		})
	}
}

// TestNegationShared: a source sentence's negation contradicts an answer
// sentence without one only when a word it negates is among the answer
// sentence's words; aligned by its other clause, the sentence puts no
// negation on what the answer takes from it.
func TestNegationShared(t *testing.T) {
	src := "Elena: We'll review the numbers after six weeks and move money if the webinars don't perform."
	checkCases(t, []checkCase{
		{"the negated words are not the answer's", "They will review the numbers after six weeks.", src, None},
		{"the negated word is the answer's", "They will move money after six weeks if the webinars perform.", src, Contradiction},
		{"a negation before its clause's end", "The plant resumed production on Monday after the fire.",
			"The plant resumed production on Monday after the fire, which did not reach the main hall.", None},
		{"negated in the answer's clause", "The fire reached the main hall on Monday.",
			"The fire did not reach the main hall on Monday.", Contradiction},
		{"nothing after the negation: the words before it", "The committee and the mayor approved the budget.",
			"The committee approved the budget, but the mayor did not.", Contradiction},
	})
	// Past maxScopedNegations negations the sentence's negation counts as
	// before, whatever its words.
	many := "We will review the plan after six weeks" + strings.Repeat(", not this, not that", maxScopedNegations) + "."
	checkCases(t, []checkCase{{"many negations", "They will review the plan after six weeks.", many, Contradiction}})
}

// TestAmountInWords: a percentage or an amount of money written in words
// states a figure as digits do ("eighteen percent" against "eight
// percent"); a plain count in words is still the answer's own.
func TestAmountInWords(t *testing.T) {
	tests := []struct {
		name, answer, source, want string
	}{
		{"percent in words", "He throws out about eighteen percent of the food he buys.", "We throw out maybe eight percent of what we buy. Mostly produce.", Numeric},
		{"percent in words, hedged", "Hana packs cabbage with about ten percent salt.", "HANA: It's just cabbage and salt, about two percent salt by weight.", Numeric},
		{"dollars in words", "People starting from zero should first aim for five thousand dollars.", "Start with a small goal, like one thousand dollars. Automate a transfer on payday.", Numeric},
		{"faithful: words for digits", "He throws out about eight percent of the food he buys.", "We throw out maybe 8% of what we buy. Mostly produce.", None},
		{"faithful: dollars for digits", "People starting from zero should first aim for one thousand dollars.", "Start with a small goal, like $1,000. Automate a transfer on payday.", None},
		{"a count in words", "The shop sells four drinks: tea, coffee, cocoa and juice.", "The shop sells tea, coffee, cocoa and juice. It opened 12 years ago.", None},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, tt.source)
			if tt.want == None {
				require.NotEqual(t, Numeric, r.Mismatch, "%+v", r)
				return
			}
			require.Equal(t, tt.want, r.Mismatch, "%+v", r)
		})
	}
}
